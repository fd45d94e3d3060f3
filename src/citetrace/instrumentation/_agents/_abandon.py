"""Runs the caller never finishes: bounded, so that no run stays open forever.

An agent call that returns a coroutine or a generator ends its run when the caller awaits, drains, closes or
drops it. Two ways the caller does none of that:

- **Never started, then dropped**: a coroutine never awaited, a ``stream=True`` generator never iterated.
  Python runs no code of it when it is collected (no ``finally``), so a finalizer on it ends the run then.
- **Kept alive, never finished**: a generator held undrained, a coroutine parked forever. A run still open
  ``CITETRACE_TRACE_TTL_SECONDS`` after its call (the summary's trace TTL, 600 s by default: past it the
  summary has evicted the trace anyway) is ended by the next agent call's start, or at exit, whichever
  comes first.

Either way the run ends as failed with ``error.type`` ``abandoned`` (``names.ERROR_TYPE_ABANDONED``) and the
answer seen so far, so it is summarized, stored and counted (``citetrace_runs_total{outcome="failed"}``),
and one warning line says how many were abandoned. If the caller resumes it after that, the agent works on
as without citetrace and the run is not ended twice. A started generator that is dropped is closed by Python,
and its ``finally`` ends the run as before (not abandoned: the caller stopped early).
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any, Protocol

from citetrace import _telemetry, names
from citetrace._atexit import at_exit

__all__ = ["RunAbandoned", "watch", "forget", "sweep", "abandoned_count"]

_log = logging.getLogger("citetrace")


class RunAbandoned(Exception):
    """The error a run ends with when its caller never finished it."""


RunAbandoned.__qualname__ = names.ERROR_TYPE_ABANDONED  # the run's error.type is the exception's qualname


class _Ending(Protocol):
    ended: bool
    started: bool

    def abandon(self) -> None: ...


_lock = threading.Lock()
_open: "OrderedDict[int, tuple[float, _Ending]]" = OrderedDict()  # by deadline (one TTL for all: insertion order)
_count = 0
_registered = False


def watch(scope: _Ending, handle: Any) -> None:
    """Bound the run of ``scope``, whose end depends on the caller finishing ``handle`` (a coroutine or
    generator we return)."""
    global _registered
    ttl = max(0.01, _telemetry.current().settings.trace_ttl_seconds)
    try:
        weakref.finalize(handle, _collected, scope).atexit = False
    except TypeError:  # not weak-referenceable: the TTL still bounds it
        pass
    with _lock:
        _open[id(scope)] = (time.monotonic() + ttl, scope)
        if not _registered:
            _registered = True
            at_exit(_at_exit)


def forget(scope: _Ending) -> None:
    """The run ended normally: no longer watched."""
    with _lock:
        _open.pop(id(scope), None)


def sweep(now: float | None = None) -> None:
    """End the watched runs whose TTL passed (called at every new agent call; cheap when none did)."""
    if not _open:
        return
    now = time.monotonic() if now is None else now
    due: list[_Ending] = []
    with _lock:
        while _open:
            key, (deadline, scope) = next(iter(_open.items()))
            if deadline > now:
                break
            del _open[key]
            due.append(scope)
    for scope in due:
        _end(scope)


def abandoned_count() -> int:
    """How many runs this process ended as abandoned."""
    return _count


def _collected(scope: _Ending) -> None:
    if not scope.started:  # a started one is closed by Python right after: its own finally ends the run
        forget(scope)
        _end(scope)


def _at_exit() -> None:
    with _lock:
        due = [scope for _, scope in _open.values()]
        _open.clear()
    for scope in due:
        _end(scope)


def _end(scope: _Ending) -> None:
    global _count
    if scope.ended:
        return
    try:
        scope.abandon()
    except Exception as exc:  # noqa: BLE001 - a finalizer or sweep never raises
        _telemetry.count_error("capture", exc)
        return
    with _lock:
        _count += 1
        first = _count == 1
    if first:
        _log.warning("citetrace: an agent run was never finished by its caller (a coroutine never awaited, or a "
                     "stream left undrained); it was ended as error.type=%s. Further ones are not logged; "
                     "see citetrace_runs_total{outcome=\"failed\"}", names.ERROR_TYPE_ABANDONED)
