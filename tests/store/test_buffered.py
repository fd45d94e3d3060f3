"""A locked store never stalls the agent: real second processes hold the SQLite write lock while a real agent
(``configure()``, ``research_run``, ``@traced_tool``) runs in its own process."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from pathlib import Path
from typing import Callable

import pytest

from citetrace import names
from citetrace.store import BufferedStore, MemoryStore, SQLiteStore, StoreBusy

from ._procs import DURABLE_AGENT, LockHolder, agent

AGENT = r"""
import json, os, sys, time
import citetrace
from citetrace import research_run, traced_tool

tel = citetrace.configure()

@traced_tool(kind="search")
def search(query):
    return [{"url": f"https://a.example/{i}"} for i in range(3)]

@traced_tool(kind="fetch")
def fetch(url):
    return f"the text of {url} " * 40

def stats():
    s = tel.store.stats()
    reg = tel.registry
    lost = {r: reg.get_sample_value("citetrace_store_writes_lost_total", {"reason": r}) for r in ("queue_full", "error", "exit")}
    return {"queued": s.queued, "pending": s.pending, "lost": s.lost, "metric_lost": lost,
            "metric_queued": reg.get_sample_value("citetrace_store_writes_queued_total"),
            "metric_depth": reg.get_sample_value("citetrace_store_write_queue_depth")}

FETCHES = 3
times = {}
t = time.perf_counter()
with research_run("q", agent="locked") as run:
    times["run_start"] = time.perf_counter() - t
    t1 = time.perf_counter(); search("x"); times["search"] = time.perf_counter() - t1
    for i in range(FETCHES):
        t1 = time.perf_counter(); fetch(f"https://a.example/{i}"); times[f"fetch{i}"] = time.perf_counter() - t1
    run.record_answer("A [1].\n\n[1] https://a.example/0")
    t = time.perf_counter()
times["run_end"] = time.perf_counter() - t
print(json.dumps({"run": run.id, "times": times, "stats": stats()}), flush=True)
sys.stdin.readline()
t = time.perf_counter()
flushed = tel.force_flush(int(os.environ.get("TEST_FLUSH_MS", "10000")))
print(json.dumps({"flushed": flushed, "flush_s": time.perf_counter() - t, "stats": stats()}), flush=True)
sys.stdin.readline()
print("exiting", flush=True)
"""


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "store.db"
    SQLiteStore(path).close()  # the store exists, as it does once an agent has run
    return path


def test_locked_store_never_stalls_the_agent_and_loses_nothing(store_path: Path, tmp_path: Path) -> None:
    """With another process holding the write lock, every write returns within the bound; once the lock is gone,
    the queued run, documents, calls and summary all reach the store."""
    holder = LockHolder(store_path)
    proc = agent(AGENT, tmp_path, CITETRACE_STORE=f"sqlite:///{store_path}")
    try:
        ran = proc.json_line(timeout=20)
        slowest = max(ran["times"].values())
        assert slowest < 1.0, ran["times"]  # bound 100 ms (+ a loaded machine's slack); it was ~30 s per write
        assert ran["stats"]["queued"] >= 5 and ran["stats"]["pending"] >= 5
        assert ran["stats"]["metric_queued"] == ran["stats"]["queued"]
        assert ran["stats"]["metric_depth"] == ran["stats"]["pending"]
        reader = SQLiteStore(store_path, read_only=True)
        assert reader.get_run(ran["run"]) is None  # nothing could be written yet
        holder.release()
        proc.send()
        flushed = proc.json_line(timeout=20)
        assert flushed["flushed"] is True and flushed["stats"]["pending"] == 0
        assert flushed["stats"]["lost"] == {"queue_full": 0, "error": 0, "exit": 0}
        record = reader.get_run(ran["run"])
        assert record is not None and record.ended_at is not None and record.answer is not None
        assert record.summary is not None and record.summary["reads"] == 3
        assert [d.url for d in reader.documents(ran["run"])] == [f"https://a.example/{i}" for i in range(3)]
        assert [c.kind for c in reader.calls(ran["run"])] == ["search", "fetch", "fetch", "fetch"]
        proc.send()
        assert proc.line() == "exiting"
        assert proc.wait() == 0
    finally:
        proc.kill()
        holder.close()


def test_full_queue_and_exit_under_a_lock_are_counted(store_path: Path, tmp_path: Path) -> None:
    """A queue that fills drops new writes and counts them; exit waits no longer than the exit wait, and what is
    still queued then stays in the spool until the next agent writes it."""
    holder = LockHolder(store_path)
    proc = agent(AGENT, tmp_path, CITETRACE_STORE=f"sqlite:///{store_path}", CITETRACE_STORE_QUEUE_MAX="3",
                 CITETRACE_STORE_EXIT_WAIT_SECONDS="0.3", TEST_FLUSH_MS="300")
    try:
        ran = proc.json_line(timeout=20)
        assert max(ran["times"].values()) < 1.0, ran["times"]
        assert ran["stats"]["queued"] == 3 and ran["stats"]["pending"] == 3
        # put_run and two fetches fill the queue; the third fetch and the run's calls find it full (counted,
        # never raised into the agent; the run's end is skipped once its calls failed)
        assert ran["stats"]["lost"]["queue_full"] == 2 and ran["stats"]["metric_lost"]["queue_full"] == 2
        proc.send()
        flushed = proc.json_line(timeout=20)
        assert flushed["flushed"] is False and flushed["stats"]["pending"] == 3
        assert flushed["stats"]["lost"]["queue_full"] == 3  # the summary, written after the run, too
        proc.send()
        assert proc.line() == "exiting"
        t0 = time.monotonic()
        assert proc.wait() == 0
        exit_s = time.monotonic() - t0
        assert exit_s < 0.3 + 3.0, exit_s
        assert "3 store write(s) kept in" in proc.stderr  # spooled, not lost: the next agent writes them
        holder.release()
        recoverer = agent("import citetrace; t = citetrace.configure(); t.store.put_summary('x', {}); "
                          "print(t.store.flush(30))", tmp_path, CITETRACE_STORE=f"sqlite:///{store_path}")
        assert recoverer.line(timeout=40) == "True" and recoverer.wait() == 0
        reader = SQLiteStore(store_path, read_only=True)
        record = reader.get_run(ran["run"])
        assert record is not None and record.ended_at is None  # the run's start, queued and spooled
        assert [d.url for d in reader.documents(ran["run"])] == ["https://a.example/0", "https://a.example/1"]
    finally:
        proc.kill()
        holder.close()


def test_kill_9_loses_no_returned_fetch_free_or_locked(tmp_path: Path) -> None:
    """kill -9 loses no fetch whose tool call had returned: 4 agents write to one store at once; two are killed
    while another process holds the lock (their last writes queued and spooled), two after it let go; the next
    agent writes what was spooled, and nothing is missing or written twice."""
    path = tmp_path / "store.db"
    SQLiteStore(path).close()
    procs = [agent(DURABLE_AGENT, tmp_path, CITETRACE_STORE=f"sqlite:///{path}") for _ in range(4)]
    last = [-1] * 4
    queued = [0] * 4

    def advance(n: int, until: Callable[[], bool]) -> None:
        while not until():
            _, i, q = procs[n].line(timeout=30).split()
            last[n], queued[n] = int(i), int(q)

    def kill(n: int) -> None:
        os.kill(procs[n].proc.pid, signal.SIGKILL)
        procs[n].proc.wait(10)
        # complete lines printed before the kill are returned calls too; a line the kill cut short is not
        while True:
            try:
                fields = procs[n].line(timeout=5).split()
            except AssertionError:
                break
            if len(fields) == 3:
                last[n] = max(last[n], int(fields[1]))

    holder = None
    try:
        run_ids = [proc.line(timeout=30).split()[1] for proc in procs]
        for n in range(4):
            advance(n, lambda: last[n] >= 100)
        holder = LockHolder(path)
        for n in (0, 1):
            seen = queued[n]
            advance(n, lambda: queued[n] >= seen + 20)  # the lock is held: these went to the queue and spool
            kill(n)
        holder.release()
        for n in (2, 3):
            mark = last[n]
            advance(n, lambda: last[n] >= mark + 100 + 50 * n)
            kill(n)
    finally:
        for proc in procs:
            proc.kill()
        if holder is not None:
            holder.close()
    recoverer = agent("import citetrace; t = citetrace.configure(); t.store.put_summary('x', {}); "
                      "print(t.store.flush(30))", tmp_path, CITETRACE_STORE=f"sqlite:///{path}")
    assert recoverer.line(timeout=40) == "True"
    assert recoverer.wait() == 0
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = SQLiteStore(path, read_only=True)
    for run_id, n in zip(run_ids, last):
        fetched = sorted(int(d.url.rsplit("/", 1)[1]) for d in store.documents(run_id))
        assert fetched[: n + 1] == list(range(n + 1)), run_id  # none missing, none written twice
    assert not list((tmp_path / "store.db.spool").glob("*.jsonl"))


def test_writes_keep_their_order_and_errors_are_not_queued() -> None:
    """Once one write is queued the next ones queue behind it (a run's end never lands before its start), and a
    failure that is not a lock reaches the caller instead of the queue."""

    class Flaky(MemoryStore):
        def __init__(self) -> None:
            super().__init__()
            self.locked = True
            self.order: list[str] = []

        def put_run(self, run):  # type: ignore[no-untyped-def]
            if self.locked:
                raise StoreBusy("locked")
            self.order.append("put_run")
            super().put_run(run)

        def finish_run(self, run_id, **kw):  # type: ignore[no-untyped-def]
            self.order.append("finish_run")
            super().finish_run(run_id, **kw)

        def put_calls(self, calls):  # type: ignore[no-untyped-def]
            raise OSError("disk full")

    from citetrace.store import RunRecord

    inner = Flaky()
    store = BufferedStore(inner, retry_s=0.01)
    store.put_run(RunRecord("r1", "t", "a", None, 1.0))
    store.finish_run("r1", ended_at=2.0, answer="x", error_type=None)  # queued behind put_run, not tried
    assert inner.order == [] and store.stats().pending == 2
    inner.locked = False
    assert store.flush(5.0)
    assert inner.order == ["put_run", "finish_run"]
    record = inner.get_run("r1")
    assert record is not None and record.ended_at == 2.0
    with pytest.raises(OSError, match="disk full"):
        store.put_calls([object()])  # type: ignore[list-item]
    assert store.stats().lost == dict.fromkeys(names.STORE_LOST_REASONS, 0)
    store.close()


def test_without_a_spool_what_is_left_at_exit_is_counted_lost() -> None:
    """A store without a spool (memory, or a spool that cannot be written) counts what is still queued after the
    exit wait as lost at exit, and a write after exit that meets the lock is lost and counted too."""

    class Locked(MemoryStore):
        def put_document(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            raise StoreBusy("locked")

    store = BufferedStore(Locked(), exit_wait_s=0.05, retry_s=0.01)
    for i in range(3):
        assert store.put_document("r", f"https://e.org/{i}", "text", status="ok").startswith("citetrace-store:r/")
    t0 = time.monotonic()
    assert store.close_at_exit() == 3
    assert time.monotonic() - t0 < 1.0
    with pytest.raises(StoreBusy, match="closed at exit"):
        store.put_document("r", "https://e.org/late", "text", status="ok")
    assert store.stats().lost == {names.STORE_LOST_QUEUE_FULL: 0, names.STORE_LOST_ERROR: 0, names.STORE_LOST_EXIT: 4}


def test_a_summarys_root_record_survives_the_spool(store_path: Path) -> None:
    """A summary written while the store is locked is spooled with its root record; the next writer files the
    run with the root's times and question, not the time the spool was replayed."""
    from citetrace.store import RunRecord, spool_dir_for

    root = RunRecord("r-spooled", "t-spooled", "scout", "Why?", 1_764_600_000.25, ended_at=1_764_600_004.75,
                     answer="Because.")
    holder = LockHolder(store_path)
    try:
        first = BufferedStore(SQLiteStore(store_path, lock_wait_s=0.05), spool_dir=spool_dir_for(store_path),
                              exit_wait_s=0.1)
        first.put_summary("r-spooled", {"searches": 1}, trace_id="t-spooled", agent="scout", run=root)
        assert first.stats().pending == 1
        first.close()
        assert list(spool_dir_for(store_path).glob("*.jsonl"))  # kept, not lost
        holder.release()
        second = BufferedStore(SQLiteStore(store_path), spool_dir=spool_dir_for(store_path))
        second.put_summary("other", {}, trace_id="t-other")
        assert second.flush(30)
        got = second.get_run("r-spooled")
        second.close()
    finally:
        holder.close()
    assert got is not None and got.summary == {"searches": 1}
    assert (got.started_at, got.ended_at, got.question, got.answer) == (root.started_at, root.ended_at, "Why?",
                                                                         "Because.")
