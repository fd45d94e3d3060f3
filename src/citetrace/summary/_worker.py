"""A background worker that exports kept spans, or writes summaries, off the agent's hot path.

The summary processor runs two: one exports, the other writes to the store, so a store write never waits
behind an export to an endpoint that does not answer. Like the SDK's BatchSpanProcessor: bounded queues (a full queue drops and counts, never blocks), one daemon
thread started on first use, exports under suppress-instrumentation so the exporter's own HTTP calls are not
traced, and a fork handler that gives the child an empty worker of its own.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Callable, Sequence

from opentelemetry.instrumentation.utils import suppress_instrumentation
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter

from citetrace._forksafe import reset_after_fork

__all__ = ["Worker"]

Task = Callable[[], None]


class Worker:
    """Runs span exports (if there is an exporter) and small tasks in one background thread."""

    def __init__(
        self,
        exporter: SpanExporter | None,
        *,
        on_drop: Callable[[int], None],
        on_error: Callable[[BaseException], None],
        max_queue: int = 8192,
        max_tasks: int = 1024,
        batch_size: int = 512,
        delay_s: float = 0.5,
    ) -> None:
        self._exporter = exporter
        self._on_drop = on_drop
        self._on_error = on_error
        self._max_queue = max_queue
        self._max_tasks = max_tasks
        self._batch_size = batch_size
        self._delay_s = delay_s
        self._reset()
        reset_after_fork(self, Worker._reset)

    def _reset(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._spans: deque[ReadableSpan] = deque()
        self._tasks: deque[Task] = deque()
        self._thread: threading.Thread | None = None
        self._busy = False
        self._stopped = False
        self._flushing = 0

    @property
    def exports(self) -> bool:
        """Whether spans go anywhere."""
        return self._exporter is not None

    def submit_spans(self, spans: Sequence[ReadableSpan]) -> None:
        """Queue spans for export; what does not fit is dropped and reported to ``on_drop``."""
        if self._exporter is None or not spans:
            return
        with self._cond:
            if self._stopped:
                dropped = len(spans)
            else:
                was_empty = not self._spans and not self._tasks
                room = max(0, self._max_queue - len(self._spans))
                self._spans.extend(spans[:room])
                dropped = len(spans) - min(room, len(spans))
                self._wake(was_empty or len(self._spans) >= self._batch_size)
        if dropped:
            self._on_drop(dropped)

    def submit_task(self, task: Task) -> bool:
        """Queue a task; False (and nothing queued) when the task queue is full or stopped."""
        with self._cond:
            if self._stopped or len(self._tasks) >= self._max_tasks:
                return False
            was_empty = not self._spans and not self._tasks
            self._tasks.append(task)
            self._wake(was_empty)
        return True

    def _wake(self, now: bool) -> None:  # caller holds the lock
        """Start the thread if needed; wake it only when work first arrives or a batch is full.

        Waking the worker for every trace would cost the agent thread a GIL hand-off each time; the worker
        instead collects for up to ``delay_s`` (as the SDK's BatchSpanProcessor does).
        """
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="citetrace-summary", daemon=True)
            self._thread.start()
        if now:
            self._cond.notify_all()

    def _ready(self) -> bool:  # caller holds the lock
        return (
            self._stopped
            or len(self._spans) >= self._batch_size
            or (self._flushing > 0 and bool(self._spans or self._tasks))
        )

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._spans and not self._tasks and not self._stopped:
                    self._cond.wait()
                deadline = time.monotonic() + self._delay_s
                while not self._ready():
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        break
                    self._cond.wait(remaining)
                if not self._spans and not self._tasks:
                    return
                batch = [self._spans.popleft() for _ in range(min(self._batch_size, len(self._spans)))]
                tasks = list(self._tasks)
                self._tasks.clear()
                self._busy = True
            try:
                with suppress_instrumentation():
                    if batch and self._exporter is not None:
                        self._exporter.export(batch)
                    for task in tasks:
                        try:
                            task()
                        except Exception as exc:  # noqa: BLE001 - a task reports its own errors
                            self._on_error(exc)
            except Exception as exc:  # noqa: BLE001 - an exporter must never kill the worker
                self._on_error(exc)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _drain(self, deadline: float) -> bool:
        """Wait until everything queued so far has been handled; False at the deadline."""
        with self._cond:
            self._flushing += 1
            try:
                while self._spans or self._tasks or self._busy:
                    self._wake(True)
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return False
                    self._cond.wait(min(remaining, 0.5))
            finally:
                self._flushing -= 1
        return True

    def flush(self, timeout_s: float) -> bool:
        """Wait until everything queued so far has been handled; False on timeout."""
        deadline = time.monotonic() + timeout_s
        if not self._drain(deadline):
            return False
        if self._exporter is not None:
            try:
                return bool(self._exporter.force_flush(max(0, int((deadline - time.monotonic()) * 1000))))
            except Exception as exc:  # noqa: BLE001
                self._on_error(exc)
                return False
        return True

    def shutdown(self, timeout_s: float = 30.0) -> int:
        """Drain for at most ``timeout_s`` in all, then stop; returns how many queued items were dropped.

        One deadline for everything: an endpoint that never answers costs the exporter's timeout once, not a
        flush and then a join. At the deadline what is still queued is dropped (the caller counts it), the
        exporter is shut down (which stops its retries), and an export still in flight is left to finish or
        time out in this daemon thread. Later submissions are dropped and counted.
        """
        deadline = time.monotonic() + max(0.0, timeout_s)
        self._drain(deadline)
        with self._cond:
            self._stopped = True
            dropped = len(self._spans) + len(self._tasks)
            self._spans.clear()
            self._tasks.clear()
            self._cond.notify_all()
            thread = self._thread
        if self._exporter is not None:
            try:
                self._exporter.shutdown()
            except Exception as exc:  # noqa: BLE001
                self._on_error(exc)
        if thread is not None and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
        return dropped
