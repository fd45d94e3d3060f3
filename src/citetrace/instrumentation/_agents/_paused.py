"""Runs paused for input: one run over an invocation that stops at an interrupt and the call that resumes it.

A LangGraph graph with a checkpointer that calls ``interrupt()`` (a human approves a draft, a tool asks for
confirmation) returns from ``stream``/``invoke`` with the interrupt pending; the application resumes it later
with ``Command(resume=...)`` on the same ``thread_id``. As two runs, the resumed one wrote the report citing
pages only the first one fetched: every citation was "never fetched" and the run FAILED (found by an
outside-style check). So a run that ends paused is parked here under its thread (the checkpointer and the
thread id), its root span left open; the next top-level call on that thread that resumes it continues the
same run, and the run ends when a call on the thread ends without pausing.

Bounds: a parked run is ended (as it stood: no answer, not failed, as before parking existed) when a call
on its thread starts afresh instead of resuming, when it has been parked for ``CITETRACE_TRACE_TTL_SECONDS``
(checked at every agent call's start; past it the summary would have evicted the trace anyway, and a later
resume is a run of its own), or at exit.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import Any

from citetrace import _telemetry
from citetrace._atexit import at_exit
from citetrace.capture import Run
from citetrace.capture._internal import finish_run

__all__ = ["Thread", "park", "take", "sweep", "parked_count"]

Thread = tuple[Any, str]
"""(owner, thread id): the object holding the paused state (LangGraph's checkpointer) and the thread's key."""

_lock = threading.Lock()
_parked: dict[tuple[int, str], tuple["weakref.ref[Any]", Run, float]] = {}
_registered = False


def park(thread: Thread, run: Run) -> None:
    """Leave ``run`` open, to be continued by the call that resumes ``thread``."""
    global _registered
    owner, key = thread
    deadline = time.monotonic() + max(0.01, _telemetry.current().settings.trace_ttl_seconds)
    try:
        ref = weakref.ref(owner)
    except TypeError:  # not weak-referenceable: no resume can be matched safely, end the run now
        finish_run(run, None)
        return
    with _lock:
        previous = _parked.pop((id(owner), key), None)
        _parked[(id(owner), key)] = (ref, run, deadline)
        if not _registered:
            _registered = True
            at_exit(_end_all)
    if previous is not None and previous[1] is not run:
        _end(previous[1])


def take(thread: Thread) -> Run | None:
    """The run parked on ``thread`` (removed from the parked ones), or None."""
    owner, key = thread
    with _lock:
        entry = _parked.get((id(owner), key))
        if entry is None or entry[0]() is not owner:
            return None
        del _parked[(id(owner), key)]
    return entry[1]


def sweep(now: float | None = None) -> None:
    """End the runs parked past the TTL, or whose owner is gone (cheap when none is parked)."""
    if not _parked:
        return
    now = time.monotonic() if now is None else now
    with _lock:
        due = [k for k, (ref, _run, deadline) in _parked.items() if deadline <= now or ref() is None]
        runs = [_parked.pop(k)[1] for k in due]
    for run in runs:
        _end(run)


def parked_count() -> int:
    """How many runs are parked now (for tests)."""
    return len(_parked)


def end(run: Run) -> None:
    """End a parked run as it stood (the thread was started afresh instead of resumed)."""
    _end(run)


def _end_all() -> None:
    with _lock:
        runs = [run for _ref, run, _deadline in _parked.values()]
        _parked.clear()
    for run in runs:
        _end(run)


def _end(run: Run) -> None:
    try:
        finish_run(run, None)
    except Exception as exc:  # noqa: BLE001 - a sweep or exit never raises
        _telemetry.count_error("capture", exc)
