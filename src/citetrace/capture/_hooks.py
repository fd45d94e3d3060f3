"""Run-end hooks: how a summarizer writes onto the root span before it ends, without capture knowing it.

Capture calls every registered hook with the live root span and its trace id just before ``end()``; a hook
returns attributes to set on the span (or None). Hooks are called under a catch-all: a failing hook is
logged once and counted, never raised into the agent.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Optional

from opentelemetry.trace import Span

__all__ = ["RunEndHook", "register_run_end_hook", "unregister_run_end_hook", "run_end_hooks"]

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
