"""The run store: documents deduplicated by content, runs newest first, calls, summaries; both backends."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from _pgserver import BACKENDS, make_store

from citetrace.store import (
    AmbiguousRunId, BufferedStore, MemoryStore, ModelCitation, RunRecord, SQLiteStore, Store, ToolCallRecord, open_store,
)


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = make_store(request.param, tmp_path, request)
    yield s
    s.close()


def test_documents_roundtrip_and_lookup(store: Store) -> None:
    """A stored document comes back by run, by exact URL, by canonical URL and by ref."""
    ref = store.put_document("r1", "https://Example.org:443/a/?utm_source=x", "hello", status="ok",
                             http_status=200, content_type="text/html", fetched_at=10.0)
    store.put_document("r2", "https://example.org/a", "other run", status="ok")
    docs = store.documents("r1")
    assert [(d.url, d.text, d.status, d.http_status, d.content_type, d.size, d.fetched_at) for d in docs] == [
        ("https://Example.org:443/a/?utm_source=x", "hello", "ok", 200, "text/html", 5, 10.0)
    ]
    assert store.get("r1", "https://example.org/a") == docs[0]
    assert store.get("r1", "https://example.org/b") is None
    assert store.get_ref(ref) == "hello"
    assert docs[0].ref == ref


def test_identical_text_stored_once(tmp_path: Path) -> None:
    """Identical text is stored once however many fetches return it."""
    s = SQLiteStore(tmp_path / "s.db")
    for i in range(20):
        s.put_document(f"r{i % 3}", f"https://e.org/{i}", "same page body", status="ok")
    s.put_document("r0", "https://e.org/x", "different body", status="ok")
    conn = sqlite3.connect(tmp_path / "s.db")
    assert conn.execute("SELECT COUNT(*) FROM content").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 21
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_runs_calls_and_summaries(store: Store) -> None:
    """Runs list newest first with their summary; calls come back in order; prefixes resolve uniquely."""
    store.put_run(RunRecord("20260101-000000-aaaa", "t1", "a", "q1", 1.0))
    store.put_run(RunRecord("20260102-000000-bbbb", "t2", "b", "q2", 2.0))
    store.finish_run("20260101-000000-aaaa", ended_at=3.0, answer="ans", error_type=None)
    store.put_calls([
        ToolCallRecord("20260101-000000-aaaa", 1, "fetch", "fetch", "error", 2.0, 5.0, 404, "https://x", None, 0),
        ToolCallRecord("20260101-000000-aaaa", 0, "search", "search", "ok", 1.5, 3.0, urls_returned=("https://x",)),
    ])
    store.put_summary("20260101-000000-aaaa", {"searches": 1, "failure_reasons": ["failed_reads"]}, trace_id="t1")
    store.put_summary("orphan", {"searches": 0}, trace_id="t9", agent="svc")
    runs = store.runs()
    assert [r.run_id for r in runs][-2:] == ["20260102-000000-bbbb", "20260101-000000-aaaa"]
    first = store.get_run("20260101")
    assert first is not None and first.answer == "ans" and first.ended_at == 3.0
    assert first.summary == {"searches": 1, "failure_reasons": ["failed_reads"]}
    assert store.get_run("t2") is not None and store.get_run("t2").run_id == "20260102-000000-bbbb"  # type: ignore[union-attr]
    with pytest.raises(AmbiguousRunId, match="'2026' matches 2 runs") as info:  # ambiguous prefix: how many
        store.get_run("2026")
    assert info.value.matches == 2
    assert store.get_run("2027") is None
    orphan = store.get_run("orphan")
    assert orphan is not None and orphan.agent == "svc" and orphan.summary == {"searches": 0}
    calls = store.calls("20260101-000000-aaaa")
    assert [c.tool for c in calls] == ["search", "fetch"]
    assert calls[0].urls_returned == ("https://x",)


def test_a_redirected_reads_final_url_roundtrips(store: Store) -> None:
    """``url_final`` (a redirected fetch's final URL) is kept by every backend; a call without one reads as None."""
    store.put_calls([
        ToolCallRecord("r-moved", 0, "fetch", "fetch", "ok", 1.0, 2.0, 200, "https://x/old", url_final="https://x/new"),
        ToolCallRecord("r-moved", 1, "fetch", "fetch", "ok", 1.5, 2.0, 200, "https://x/plain"),
    ])
    assert [c.url_final for c in store.calls("r-moved")] == ["https://x/new", None]


def test_a_call_field_from_a_newer_citetrace_is_ignored(tmp_path: Path) -> None:
    """A stored call carrying a field this version does not know still reads (the field left out), as the
    schema's rule is that a file written by a newer citetrace stays readable by an older one."""
    path = tmp_path / "s.db"
    store = SQLiteStore(path)
    store.put_calls([ToolCallRecord("r-new", 0, "search", "search", "ok", 1.0, 2.0)])
    with sqlite3.connect(path) as conn:
        (data,) = conn.execute("SELECT data FROM calls").fetchone()
        conn.execute("UPDATE calls SET data = ?", (data[:-1] + ', "from_the_future": 1}',))
    assert [c.tool for c in store.calls("r-new")] == ["search"]
    store.close()


def test_model_citations_roundtrip(store: Store) -> None:
    """A run's model citations come back in provider order, per run, replaced by seq, on every backend (and
    through the agent's buffered store)."""
    first = [ModelCitation("r1", 1, "https://b.example/", "Second span.", 14, 26, "url_citation"),
             ModelCitation("r1", 0, "https://a.example/", "First span \u00e9.", 0, 13, "url_citation")]
    buffered = BufferedStore(store)
    buffered.put_model_citations(first)
    store.put_model_citations([ModelCitation("r2", 0, "https://c.example/", "Other run.")])
    store.put_model_citations([ModelCitation("r1", 1, "https://b2.example/", "Second span.", 14, 26, "url_citation")])
    got = store.model_citations("r1")
    assert [(c.seq, c.url, c.text, c.start, c.end, c.kind) for c in got] == [
        (0, "https://a.example/", "First span \u00e9.", 0, 13, "url_citation"),
        (1, "https://b2.example/", "Second span.", 14, 26, "url_citation")]
    assert [c.start for c in store.model_citations("r2")] == [-1] and store.model_citations("r3") == []


def test_open_store_uris(tmp_path: Path) -> None:
    """open_store understands sqlite:/// URIs, bare paths and memory://, and names a bad scheme."""
    assert isinstance(open_store("memory://"), MemoryStore)
    s = open_store(f"sqlite:///{tmp_path}/a/b.db")
    assert isinstance(s, SQLiteStore) and (tmp_path / "a" / "b.db").exists()
    assert isinstance(open_store(str(tmp_path / "c.db")), SQLiteStore)
    with pytest.raises(ValueError, match="mysql"):
        open_store("mysql://db/x")


def test_shown_uri_is_the_uri_given_when_it_holds_no_password(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The URI an agent's store shows (`citetrace demo`'s header) is the one given: sqlite:///rel keeps its slashes."""
    from citetrace.store import agent_store
    from citetrace.store._uri import redact_uri

    monkeypatch.chdir(tmp_path)
    for uri in ("sqlite:///.citetrace/store.db", f"sqlite:///{tmp_path}/a.db", "memory://", "postgresql://a@h/db"):
        assert redact_uri(uri) == uri
    assert agent_store("sqlite:///rel/store.db").uri == "sqlite:///rel/store.db"
    assert redact_uri("postgresql://a:pw@h/db") == "postgresql://a:***@h/db"


def test_many_threads_write_safely(tmp_path: Path) -> None:
    """Eight threads writing at once lose nothing."""
    s = SQLiteStore(tmp_path / "s.db")

    def work(n: int) -> None:
        for i in range(50):
            s.put_document(f"run{n}", f"https://e.org/{n}/{i}", f"body {i % 7}", status="ok")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(len(s.documents(f"run{n}")) for n in range(8)) == 400


def _proc_write(path: str, n: int) -> None:
    s = SQLiteStore(path)
    for i in range(40):
        s.put_document(f"proc{n}", f"https://e.org/{i}", f"text {n} {i % 5}", status="ok")
        s.put_run(RunRecord(f"proc{n}-{i}", "t", "a", None, float(i)))
    s.close()


def test_several_processes_write_safely(tmp_path: Path) -> None:
    """Four processes writing to the same SQLite file at once lose nothing (WAL + busy timeout)."""
    path = str(tmp_path / "s.db")
    SQLiteStore(path).close()
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_proc_write, args=(path, n)) for n in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    s = SQLiteStore(path)
    assert sum(len(s.documents(f"proc{n}")) for n in range(4)) == 160
    assert len(s.runs(limit=1000)) == 160


def test_fork_reopens_connection(tmp_path: Path) -> None:
    """A forked child writes through its own connection and the parent still works."""
    s = SQLiteStore(tmp_path / "s.db")
    s.put_document("parent", "https://e.org/p", "before fork", status="ok")
    ctx = mp.get_context("fork")
    p = ctx.Process(target=lambda: s.put_document("child", "https://e.org/c", "from child", status="ok"))
    p.start()
    p.join(30)
    assert p.exitcode == 0
    s.put_document("parent", "https://e.org/p2", "after fork", status="ok")
    assert [d.text for d in s.documents("child")] == ["from child"]
    assert len(s.documents("parent")) == 2


_ROOT = RunRecord("r-served", "t-served", "scout", "Which reactor is biggest?", 1_764_600_000.125,
                  ended_at=1_764_600_007.5, answer="Kashiwazaki [1].", error_type="TimeoutError")
"""The record a summary writer derives from a run's root (``citetrace._rootrun``)."""


@pytest.fixture(params=BACKENDS + ("buffered", "lazy"))
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """Every backend, and the two wrappers an agent writes through (the write queue, the lazily opened store)."""
    from citetrace.store import BufferedStore, LazyStore

    if request.param == "buffered":
        s: Store = BufferedStore(SQLiteStore(tmp_path / "b.db"), spool_dir=tmp_path / "b.db.spool")
    elif request.param == "lazy":
        s = LazyStore(f"sqlite:///{tmp_path / 'l.db'}")
    else:
        s = make_store(request.param, tmp_path, request)
    yield s
    s.close()


def _flushed(store: Store) -> Store:
    flush = getattr(store, "flush", None)
    if flush is not None:
        assert flush(30)
    return store


def test_a_summary_files_its_roots_record_when_the_store_has_none(any_store: Store) -> None:
    """A run known only from its summary gets the root's start, end, question, answer and error, not the write
    time (which made `citetrace show` say the run took no time)."""
    any_store.put_summary("r-served", {"searches": 2}, trace_id="t-served", agent="scout", run=_ROOT)
    got = _flushed(any_store).get_run("r-served")
    assert got is not None
    assert (got.trace_id, got.agent, got.question, got.started_at, got.ended_at, got.answer, got.error_type) == (
        "t-served", "scout", _ROOT.question, _ROOT.started_at, _ROOT.ended_at, _ROOT.answer, _ROOT.error_type)
    assert got.summary == {"searches": 2}
    assert [r.run_id for r in any_store.runs()] == ["r-served"]


def test_a_summary_keeps_the_agents_own_record(any_store: Store) -> None:
    """Where the agent filed its run, the summary's root record changes nothing in it (the agent's wins)."""
    any_store.put_run(RunRecord("r-served", "t-served", "scout", "the agent's question", 5.0))
    any_store.finish_run("r-served", ended_at=9.0, answer="the agent's answer", error_type=None)
    any_store.put_summary("r-served", {"searches": 2}, trace_id="t-served", agent="scout", run=_ROOT)
    got = _flushed(any_store).get_run("r-served")
    assert got is not None
    assert (got.question, got.started_at, got.ended_at, got.answer, got.error_type) == (
        "the agent's question", 5.0, 9.0, "the agent's answer", None)
    assert got.summary == {"searches": 2}


def test_a_summary_without_a_root_record_files_a_bare_run(any_store: Store) -> None:
    """Without a root record the run is filed at the write time, with no question (as before)."""
    before = time.time()
    any_store.put_summary("orphan", {"searches": 0}, trace_id="t9", agent="svc")
    got = _flushed(any_store).get_run("orphan")
    assert got is not None and got.question is None and got.agent == "svc"
    assert before <= got.started_at <= time.time() and got.ended_at == got.started_at
