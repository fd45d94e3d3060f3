"""``BufferedStore``: the agent's store, whose writes never keep the agent waiting on a locked database.

Every write is tried at once, through a backend opened with a short lock wait (``CITETRACE_STORE_LOCK_WAIT_MS``,
100 ms by default). So when the store is free a fetch's text is committed before the tool returns, as
before. A write that meets a lock (``StoreBusy``) goes to a bounded in-memory queue, which one background
thread retries every ``retry_s`` until the lock is gone. While anything is queued, later writes queue behind
it without trying, so writes reach the store in the order they were made (a run's end never lands before its
start) and the agent never waits twice.

A queued write of an SQLite store is also appended to a spool file next to it (``_spool``), so a ``kill -9``
while the lock lasts loses nothing: the next agent that writes to the store writes it. Without a spool (a
memory store, a platform without ``flock``, a spool that cannot be written) queued writes live in memory
only, and are lost if the process dies before the lock goes (the "loss window", docs/store.md). Every loss
is counted by reason (``names.STORE_LOST_REASONS``): a write that finds the queue full, a queued write that
fails for another reason when retried, and an unspooled write still queued when exit has waited
``exit_wait_s``. Reads go straight to the backend: they do not see queued writes.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from citetrace import names
from citetrace._atexit import at_exit
from citetrace._forksafe import reset_after_fork
from citetrace._logonce import OnceLogger
from citetrace.store._model import (
    Document, ModelCitation, RunRecord, Store, StoreBusy, ToolCallRecord, ToolResponse, content_hash, make_ref,
)
from citetrace.store._spool import Spool, recover_spools

__all__ = ["BufferedStore", "WriteStats"]

_log = logging.getLogger("citetrace")
_QUEUED = object()
_Op = tuple[str, tuple[Any, ...], dict[str, Any], int, int]  # method, args, kwargs, bytes held, spool seq (0: none)


@dataclass(frozen=True)
class WriteStats:
    """Cumulative counts, read at scrape time by the metrics (``SummaryMetrics.watch_store``)."""

    queued: int
    pending: int
    lost: dict[str, int] = field(default_factory=dict)


class BufferedStore:
    """Wraps any ``Store``: bounded writes, a retry queue for a locked store, counted losses."""

    def __init__(
        self,
        inner: Store,
        *,
        max_pending: int = 10_000,
        max_pending_bytes: int = 64 << 20,
        exit_wait_s: float = 5.0,
        retry_s: float = 0.05,
        spool_dir: Path | None = None,
    ) -> None:
        self.inner = inner
        self._spool_dir = spool_dir
        self.uri = inner.uri
        self._max_pending = max(1, max_pending)
        self._max_bytes = max(1, max_pending_bytes)
        self._exit_wait_s = max(0.0, exit_wait_s)
        self._retry_s = max(0.001, retry_s)
        self._once = OnceLogger("citetrace store")
        self._queued = 0
        self._lost = {reason: 0 for reason in names.STORE_LOST_REASONS}
        self._reset()
        reset_after_fork(self, BufferedStore._reset)
        _live.add(self)

    def _reset(self) -> None:
        """Fresh state (and, in a forked child, nothing queued: the parent writes what it queued)."""
        self._cond = threading.Condition(threading.Lock())
        self._pending: deque[_Op] = deque()
        self._bytes = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self._seq = 0
        old = getattr(self, "_spool", None)
        if old is not None:
            old.after_fork()
        self._spool = Spool(self._spool_dir) if self._spool_dir is not None else None
        self._recovery: threading.Thread | None = None

    # -- the write path ------------------------------------------------------------------------------
    def _write(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], size: int) -> Any:
        """Try the write now unless others wait; on a lock, queue it. Other failures reach the caller."""
        if self._recovery is None and self._spool is not None:
            self._start_recovery()
        if not self._pending:
            try:
                return getattr(self.inner, name)(*args, **kwargs)
            except StoreBusy:
                pass
        self._enqueue(name, args, kwargs, size)
        return _QUEUED

    def _enqueue(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], size: int) -> None:
        with self._cond:
            if self._closed:
                reason = names.STORE_LOST_EXIT
            elif len(self._pending) >= self._max_pending or self._bytes + size > self._max_bytes:
                reason = names.STORE_LOST_QUEUE_FULL
            else:
                self._pending.append((name, args, kwargs, size, self._spill(name, args, kwargs)))
                self._bytes += size
                self._queued += 1
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._retry_loop, name="citetrace-store", daemon=True)
                    self._thread.start()
                return
            self._lost[reason] += 1
        raise StoreBusy(f"{self.uri}: store locked and the write queue "
                        f"{'closed at exit' if reason == names.STORE_LOST_EXIT else 'full'}; write lost (counted)")

    def _spill(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int:  # caller holds the lock
        """Append the write to the spool; its sequence number, or 0 when it lives in memory only."""
        if self._spool is None:
            return 0
        self._seq += 1
        try:
            self._spool.append(self._seq, name, args, kwargs)
        except (OSError, TypeError, ValueError) as exc:
            self._once.warn("spool", exc)
            return 0
        return self._seq

    def _start_recovery(self) -> None:
        """Once per process, on the first write: take over what dead processes left in the spool."""
        with self._cond:
            if self._recovery is not None or self._spool_dir is None:
                return
            self._recovery = threading.Thread(target=self._recover, name="citetrace-store-recovery", daemon=True)
            self._recovery.start()

    def _recover(self) -> None:
        assert self._spool_dir is not None

        def wait() -> bool:
            with self._cond:
                if not self._closed:
                    self._cond.wait(self._retry_s)
                return not self._closed

        try:
            written = recover_spools(self._spool_dir, self.inner, own=self._spool.path if self._spool else None,
                                     wait=wait)
        except Exception as exc:  # noqa: BLE001
            self._once.warn("spool recovery", exc)
            return
        if written:
            _log.info("citetrace: wrote %d store write(s) left in %s by an earlier process", written, self._spool_dir)

    def _retry_loop(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending:
                    return
                name, args, kwargs, size, seq = self._pending[0]  # stays queued until written: later ones wait
            try:
                getattr(self.inner, name)(*args, **kwargs)
            except StoreBusy:
                with self._cond:
                    if self._pending:
                        self._cond.wait(self._retry_s)
                continue
            except Exception as exc:  # noqa: BLE001 - a write that cannot succeed is dropped, counted, logged once
                self._once.warn("queued write", exc)
                with self._cond:
                    self._lost[names.STORE_LOST_ERROR] += 1
            with self._cond:
                if self._pending:
                    self._pending.popleft()
                    self._bytes -= size
                self._mark_done(seq)
                self._cond.notify_all()

    def _mark_done(self, seq: int) -> None:  # caller holds the lock
        if self._spool is None or not seq:
            return
        try:
            if self._pending:
                self._spool.done(seq)
            else:
                self._spool.clear()
        except OSError as exc:
            self._once.warn("spool", exc)

    def nudge(self) -> None:
        """Retry queued writes now rather than after the retry interval (called at run end)."""
        if self._pending:
            with self._cond:
                self._cond.notify_all()

    def flush(self, timeout_s: float) -> bool:
        """Wait up to ``timeout_s`` for every queued write (and what earlier processes left in the spool) to
        reach the store; False if some still wait."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            self._cond.notify_all()
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        recovery = self._recovery
        if recovery is not None and recovery is not threading.current_thread():
            recovery.join(max(0.0, deadline - time.monotonic()))
            return not recovery.is_alive()
        return True

    def close_at_exit(self) -> int:
        """Flush for at most ``exit_wait_s``, then count what is still queued as lost; returns that number.

        Later writes are still tried at once, and lost (counted) if the store is still locked."""
        if self._closed:
            return 0
        started = time.monotonic()
        self.flush(self._exit_wait_s)
        with self._cond:
            spooled = sum(1 for op in self._pending if op[4])
            left = len(self._pending) - spooled
            self._pending.clear()
            self._bytes = 0
            self._closed = True
            self._lost[names.STORE_LOST_EXIT] += left
            self._cond.notify_all()
            if self._spool is not None:
                try:
                    self._spool.close(keep=bool(spooled))
                except OSError:
                    pass
        waited = time.monotonic() - started
        if spooled:
            _log.warning("citetrace: %d store write(s) kept in %s: %s stayed locked for the %.1f s exit wait; the "
                         "next agent to write to this store writes them", spooled,
                         self._spool.path if self._spool else "?", self.uri, waited)
        if left:
            _log.warning("citetrace: %d store write(s) lost at exit: %s stayed locked for the %.1f s exit wait "
                         "(%s)", left, self.uri, waited, names.ENV_STORE_EXIT_WAIT_SECONDS)
        return left

    def stats(self) -> WriteStats:
        """Writes queued so far, waiting now, and lost by reason."""
        with self._cond:
            return WriteStats(self._queued, len(self._pending), dict(self._lost))

    # -- the Store interface --------------------------------------------------------------------------
    def put_document(
        self,
        run_id: str,
        url: str,
        text: str,
        *,
        status: str,
        http_status: int | None = None,
        content_type: str | None = None,
        fetched_at: float | None = None,
    ) -> str:
        kwargs = {"status": status, "http_status": http_status, "content_type": content_type,
                  "fetched_at": time.time() if fetched_at is None else fetched_at}
        ref = self._write("put_document", (run_id, url, text), kwargs, 256 + len(text))
        return ref if isinstance(ref, str) else make_ref(run_id, content_hash(text))

    def put_run(self, run: RunRecord) -> None:
        self._write("put_run", (run,), {}, 256 + len(run.question or ""))

    def finish_run(self, run_id: str, *, ended_at: float, answer: str | None, error_type: str | None) -> None:
        self._write("finish_run", (run_id,), {"ended_at": ended_at, "answer": answer, "error_type": error_type},
                    256 + len(answer or ""))
        self.nudge()

    def put_calls(self, calls: Sequence[ToolCallRecord]) -> None:
        if calls:
            self._write("put_calls", (list(calls),), {}, 512 * len(calls))

    def put_responses(self, responses: Sequence[ToolResponse]) -> None:
        self._write("put_responses", (list(responses),), {}, sum(len(str(r.payload)) for r in responses))

    def responses(self, run_id: str) -> list[ToolResponse]:
        return self.inner.responses(run_id)

    def put_model_citations(self, citations: Sequence[ModelCitation]) -> None:
        if citations:
            self._write("put_model_citations", (list(citations),), {}, sum(256 + len(c.text) for c in citations))

    def model_citations(self, run_id: str) -> list[ModelCitation]:
        return self.inner.model_citations(run_id)

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: RunRecord | None = None) -> None:
        kwargs: dict[str, Any] = {"trace_id": trace_id, "agent": agent}
        size = 2048
        if run is not None:
            kwargs["run"] = run
            size += len(run.question or "") + len(run.answer or "")
        self._write("put_summary", (run_id, summary), kwargs, size)

    def documents(self, run_id: str) -> list[Document]:
        return self.inner.documents(run_id)

    def get(self, run_id: str, url: str) -> Document | None:
        return self.inner.get(run_id, url)

    def get_ref(self, ref: str) -> str | None:
        return self.inner.get_ref(ref)

    def calls(self, run_id: str) -> list[ToolCallRecord]:
        return self.inner.calls(run_id)

    def runs(self, limit: int = 50) -> list[RunRecord]:
        return self.inner.runs(limit)

    def get_run(self, run_id: str) -> RunRecord | None:
        return self.inner.get_run(run_id)

    def close(self) -> None:
        """Flush (at most the exit wait), count what is left, close the backend."""
        self.close_at_exit()
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        """Anything else a backend offers (the ledger's methods) goes to it unbuffered."""
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


_live: "weakref.WeakSet[BufferedStore]" = weakref.WeakSet()


def _flush_at_exit() -> None:
    for store in list(_live):
        try:
            store.close_at_exit()
        except Exception:  # noqa: BLE001 - exit must go on
            pass


at_exit(_flush_at_exit, last=True)  # after the summaries, which the telemetry's shutdown writes

