"""Run-end hooks: how a summarizer writes onto the root span before it ends, without capture knowing it.

Capture calls every registered hook with the live root span and its trace id just before ``end()``; a hook
returns attributes to set on the span (or None). Hooks are called under a catch-all: a failing hook is
logged once and counted, never raised into the agent.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Optional

from opentelemetry.trace import Span

__all__ = [
    "ErrorListener",
    "RunEndHook",
    "error_listeners",
    "register_error_listener",
    "register_run_end_hook",
    "run_end_hooks",
    "unregister_error_listener",
    "unregister_run_end_hook",
]

RunEndHook = Callable[[Span, int], Optional[Mapping[str, Any]]]
"""(root span, trace id) -> attributes to set on the root before it ends."""

_lock = threading.Lock()
_hooks: tuple[RunEndHook, ...] = ()


def register_run_end_hook(hook: RunEndHook) -> None:
    """Add a hook (idempotent)."""
    global _hooks
    with _lock:
        if hook not in _hooks:
            _hooks = (*_hooks, hook)


def unregister_run_end_hook(hook: RunEndHook) -> None:
    """Remove a hook if present."""
    global _hooks
    with _lock:
        _hooks = tuple(h for h in _hooks if h != hook)


def run_end_hooks() -> tuple[RunEndHook, ...]:
    """The current hooks (a snapshot; cheap to read on the hot path)."""
    return _hooks


ErrorListener = Callable[[str], None]
"""Told the kind of every failure capture swallows (``capture``, ``store_write``, ``run_end_hook``), so a
metrics owner can count it without capture knowing about metrics."""

_listeners: tuple[ErrorListener, ...] = ()


def register_error_listener(listener: ErrorListener) -> None:
    """Add an error listener (idempotent)."""
    global _listeners
    with _lock:
        if listener not in _listeners:
            _listeners = (*_listeners, listener)


def unregister_error_listener(listener: ErrorListener) -> None:
    """Remove an error listener if present."""
    global _listeners
    with _lock:
        _listeners = tuple(x for x in _listeners if x != listener)


def error_listeners() -> tuple[ErrorListener, ...]:
    """The current error listeners (a snapshot)."""
    return _listeners
