"""Run-end hooks and error listeners: how a summarizer and a metrics owner subscribe to capture without
capture knowing about either.

Capture calls every run-end hook with the live root span and its trace id just before ``end()``; a hook
returns attributes to set on the span (or None). Error listeners are told the kind of every failure capture
swallows (``capture``, ``store_write``, ``run_end_hook``). Both are called under a catch-all by capture.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Generic, Mapping, Optional, TypeVar

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
ErrorListener = Callable[[str], None]
"""Told the kind of every failure capture swallows, so a metrics owner can count it."""

_C = TypeVar("_C", bound=Callable[..., Any])


class _Registry(Generic[_C]):
    """A copy-on-write tuple of callbacks: registration is locked, reading on the hot path is not."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: tuple[_C, ...] = ()

    def add(self, callback: _C) -> None:
        with self._lock:
            if callback not in self.items:
                self.items = (*self.items, callback)

    def remove(self, callback: _C) -> None:
        with self._lock:
            self.items = tuple(c for c in self.items if c != callback)


_run_end: _Registry[RunEndHook] = _Registry()
_errors: _Registry[ErrorListener] = _Registry()


def register_run_end_hook(hook: RunEndHook) -> None:
    """Add a run-end hook (idempotent)."""
    _run_end.add(hook)


def unregister_run_end_hook(hook: RunEndHook) -> None:
    """Remove a run-end hook if present."""
    _run_end.remove(hook)


def run_end_hooks() -> tuple[RunEndHook, ...]:
    """The current run-end hooks (a snapshot; cheap to read on the hot path)."""
    return _run_end.items


def register_error_listener(listener: ErrorListener) -> None:
    """Add an error listener (idempotent)."""
    _errors.add(listener)


def unregister_error_listener(listener: ErrorListener) -> None:
    """Remove an error listener if present."""
    _errors.remove(listener)


def error_listeners() -> tuple[ErrorListener, ...]:
    """The current error listeners (a snapshot)."""
    return _errors.items
