"""The background thread that writes summaries to the store, off the agent's hot path.

Span export is the SDK's ``BatchSpanProcessor`` (``_export``); this worker only runs small tasks (store
writes), so a store write never waits behind an export to an endpoint that does not answer. Like the
SDK's batch processor: a bounded queue (a full queue refuses the task, which the caller counts), one daemon
thread started on first use, tasks run under suppress-instrumentation so a store's own HTTP or database
calls are not traced, and a fork handler that gives the child an empty worker of its own.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable

from opentelemetry.instrumentation.utils import suppress_instrumentation

from citetrace._forksafe import reset_after_fork

__all__ = ["Worker"]

Task = Callable[[], None]


class Worker:
    """Runs queued tasks in one background thread, collecting for up to ``delay_s`` before each batch."""

    def __init__(self, *, on_error: Callable[[BaseException], None], max_tasks: int = 1024,
                 delay_s: float = 0.5) -> None:
        self._on_error = on_error
        self._max_tasks = max_tasks
        self._delay_s = delay_s
        self._reset()
        reset_after_fork(self, Worker._reset)

    def _reset(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._tasks: deque[Task] = deque()
        self._thread: threading.Thread | None = None
        self._busy = False
        self._stopped = False
        self._flushing = 0

    def submit_task(self, task: Task) -> bool:
        """Queue a task; False (and nothing queued) when the task queue is full or stopped."""
        with self._cond:
            if self._stopped or len(self._tasks) >= self._max_tasks:
                return False
            was_empty = not self._tasks
            self._tasks.append(task)
            self._wake(was_empty)
        return True

    def _wake(self, now: bool) -> None:  # caller holds the lock
        """Start the thread if needed; wake it only when work first arrives.

        Waking the worker for every trace would cost the agent thread a GIL hand-off each time; the worker
        instead collects for up to ``delay_s`` (as the SDK's BatchSpanProcessor does).
        """
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="citetrace-summary", daemon=True)
            self._thread.start()
        if now:
            self._cond.notify_all()

    def _ready(self) -> bool:  # caller holds the lock
        return self._stopped or (self._flushing > 0 and bool(self._tasks))

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._tasks and not self._stopped:
                    self._cond.wait()
                deadline = time.monotonic() + self._delay_s
                while not self._ready():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
                if not self._tasks:
                    return
                tasks = list(self._tasks)
                self._tasks.clear()
                self._busy = True
            try:
                with suppress_instrumentation():
                    for task in tasks:
                        try:
                            task()
                        except Exception as exc:  # noqa: BLE001 - a task reports its own errors
                            self._on_error(exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def flush(self, timeout_s: float) -> bool:
        """Wait until everything queued so far has been handled; False at the deadline."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            self._flushing += 1
            try:
                while self._tasks or self._busy:
                    self._wake(True)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._cond.wait(min(remaining, 0.5))
            finally:
                self._flushing -= 1
        return True

    def shutdown(self, timeout_s: float = 30.0) -> int:
        """Drain for at most ``timeout_s``, then stop; returns how many queued tasks were dropped.

        At the deadline what is still queued is dropped (the caller counts it) and a task still running is
        left to finish in this daemon thread. Later submissions are refused.
        """
        deadline = time.monotonic() + max(0.0, timeout_s)
        self.flush(max(0.0, timeout_s))
        with self._cond:
            self._stopped = True
            dropped = len(self._tasks)
            self._tasks.clear()
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
        return dropped
