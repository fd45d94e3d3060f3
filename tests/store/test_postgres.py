"""The PostgreSQL run store against a real server (tests/_pgserver.py): URIs, errors, fleet writes, restarts.

The backend-agnostic behaviour (documents, runs, prefixes, the ledger's records) runs against it through the
parametrized ``store`` fixtures of test_store.py, test_resolve.py and tests/ledger; the commands reading it
are in test_postgres_cli.py; this file holds what is PostgreSQL's own.
"""

from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import psycopg
import pytest
from _pgserver import FLEET_PASSWORD, PgServer, pg_ctl, start_server, stop_server

from citetrace.store import (
    BufferedStore, RunRecord, agent_store, StoreBusy, StoreError, open_existing_store, open_store, parse_store_uri,
)
from citetrace.store._pgschema import LATEST, MIGRATIONS
from citetrace.store._postgres import PostgresStore
from citetrace.store._uri import redact_uri

from ._procs import DURABLE_AGENT, LineProcess, agent, kill_9


def _citetrace(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=60)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once closed


def test_uri_forms_and_redaction() -> None:
    """postgresql:// and postgres:// parse; no database or a bad port is a one-line ValueError; passwords are
    replaced by *** wherever a URI is shown."""
    assert parse_store_uri("postgresql://a@h:5432/db").kind == "postgresql"
    assert parse_store_uri("postgres://a@h/db?sslmode=require").kind == "postgresql"
    with pytest.raises(ValueError, match="names no database"):
        parse_store_uri("postgresql://a:pw@h:5432/")
    with pytest.raises(ValueError, match="port") as info:
        parse_store_uri("postgresql://a:hunter2@h:notaport/db")
    assert "hunter2" not in str(info.value) and "\n" not in str(info.value)
    assert redact_uri("postgresql://a:hunter2@h:1/db") == "postgresql://a:***@h:1/db"
    assert redact_uri("postgresql://a@h/db?password=hunter2&sslmode=require") == (
        "postgresql://a@h/db?password=***&sslmode=require")
    assert parse_store_uri("postgresql://a:hunter2@h/db").display == "postgresql://a:***@h/db"
    lazy = agent_store("postgresql://a:hunter2@h/db")  # opened on first write: nothing connects here
    assert lazy.uri == "postgresql://a:***@h/db" and lazy.inner.uri == lazy.uri


def test_unreachable_server_is_one_line_naming_the_database() -> None:
    """Nothing listening: StoreBusy (it may come back) in one line naming the database; the CLI exits 2."""
    uri = f"postgresql://citetrace@127.0.0.1:{_closed_port()}/fleet"
    t0 = time.monotonic()
    with pytest.raises(StoreBusy) as info:
        open_store(uri)
    assert time.monotonic() - t0 < 10
    message = str(info.value)
    assert message.startswith(f"{uri}: cannot reach the server") and "\n" not in message
    for command in (["runs"], ["show", "some-run"]):
        out = _citetrace(*command, "--store", uri)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and uri in out.stderr


def test_wrong_password_is_refused_without_showing_it(pg_server: PgServer, pg_uri: str) -> None:
    """A wrong password is a StoreError (waiting will not cure it) naming the user and database, never the
    password; the right one opens the store, whose uri hides it."""
    db = pg_uri.rsplit("/", 1)[1]
    bad = f"postgresql://fleet:wrong-pw-123@127.0.0.1:{pg_server.port}/{db}"
    with pytest.raises(StoreError) as info:
        open_store(bad)
    assert not isinstance(info.value, StoreBusy)
    message = str(info.value)
    assert "wrong-pw-123" not in message and "\n" not in message
    assert f"postgresql://fleet:***@127.0.0.1:{pg_server.port}/{db}" in message and "password" in message
    out = _citetrace("runs", "--store", bad)
    assert out.returncode == 2 and "wrong-pw-123" not in out.stderr and "Traceback" not in out.stderr
    good = open_store(f"postgresql://fleet:{FLEET_PASSWORD}@127.0.0.1:{pg_server.port}/{db}")
    assert FLEET_PASSWORD not in good.uri
    good.put_run(RunRecord("r1", "t1", "a", None, 1.0))
    assert [r.run_id for r in good.runs()] == ["r1"]
    good.close()


def test_reading_an_empty_database_creates_nothing(pg_uri: str) -> None:
    """The CLI's read-only open of a database with no store says so in one line and creates no table."""
    with pytest.raises(StoreError, match="no store at .*nothing has been recorded there"):
        open_existing_store(pg_uri)
    with psycopg.connect(pg_uri) as conn:
        assert conn.execute("SELECT to_regclass('citetrace.runs')").fetchone() == (None,)
    open_store(pg_uri).close()
    reader = open_existing_store(pg_uri)
    with pytest.raises(StoreError, match="read-only"):
        reader.put_run(RunRecord("r1", "t1", "a", None, 1.0))
    reader.close()


def test_identical_text_once_and_nul_text_stored(pg_uri: str) -> None:
    """Identical text is one content row; text with NUL (which PostgreSQL text refuses) is stored as U+FFFD."""
    store = open_store(pg_uri)
    for i in range(10):
        store.put_document(f"r{i % 3}", f"https://e.org/{i}", "same body", status="ok")
    ref = store.put_document("r0", "https://e.org/nul", "a\x00b \ud800", status="ok")
    assert store.get_ref(ref) == "a\ufffdb \ufffd"
    with psycopg.connect(pg_uri) as conn:
        assert conn.execute("SELECT COUNT(*) FROM citetrace.content").fetchone() == (2,)
        assert conn.execute("SELECT COUNT(*) FROM citetrace.documents").fetchone() == (11,)
    store.close()


def test_first_open_by_many_at_once_migrates_once(pg_uri: str) -> None:
    """Eight stores opening a fresh database at the same moment all succeed; the schema is made once."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(8)

    def open_one() -> None:
        barrier.wait()
        try:
            PostgresStore(pg_uri, lock_wait_s=10).close()
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    with psycopg.connect(pg_uri) as conn:
        assert conn.execute("SELECT version FROM citetrace.schema_version ORDER BY version").fetchall() == [
            (version,) for version, _sql in MIGRATIONS]
    assert MIGRATIONS[-1][0] == LATEST


def test_a_held_lock_costs_a_bounded_wait_and_the_buffer_retries(pg_uri: str) -> None:
    """Another session holding a run's row: a write with a 100 ms lock wait raises StoreBusy at once, and the
    agent's BufferedStore queues it and lands it after the lock goes."""
    store = PostgresStore(pg_uri, lock_wait_s=0.1)
    store.put_run(RunRecord("r1", "t1", "a", None, 1.0))
    with psycopg.connect(pg_uri) as holder:
        holder.execute("SELECT * FROM citetrace.runs WHERE run_id = 'r1' FOR UPDATE")
        t0 = time.monotonic()
        with pytest.raises(StoreBusy, match="busy"):
            store.finish_run("r1", ended_at=2.0, answer="a1", error_type=None)
        assert time.monotonic() - t0 < 2.0
        buffered = BufferedStore(store, retry_s=0.01)
        buffered.finish_run("r1", ended_at=2.0, answer="a1", error_type=None)
        assert buffered.stats().queued == 1
        holder.rollback()
    assert buffered.flush(10)
    run = store.get_run("r1")
    assert run is not None and run.answer == "a1"
    buffered.close()


_WRITER = r"""
import sys, threading
from citetrace.store._postgres import PostgresStore
from citetrace.store import StoreBusy
store = PostgresStore(sys.argv[1], lock_wait_s=5)
out = threading.Lock()
def work(t):
    i = 0
    while True:
        while True:
            try:
                store.put_document(f"w{sys.argv[2]}-{t}", f"https://f.example/{i}", f"page {i % 5}", status="ok")
                break
            except StoreBusy:
                pass
        with out:
            print(t, i, flush=True)  # printed only once the write returned
        i += 1
print("ready", flush=True)  # before any thread prints
for t in range(8):
    threading.Thread(target=work, args=(t,), daemon=True).start()
threading.Event().wait()
"""


def test_8_processes_of_8_threads_killed_lose_no_returned_write(pg_uri: str) -> None:
    """8 processes x 8 threads write one database at once and are killed with SIGKILL mid-write: every write
    that had returned is there, once, and nothing else is."""
    open_store(pg_uri).close()
    procs = [LineProcess([sys.executable, "-c", _WRITER, pg_uri, str(n)]) for n in range(8)]
    last = [[-1] * 8 for _ in procs]
    try:
        for proc in procs:
            assert proc.line(timeout=60) == "ready"
        for n, proc in enumerate(procs):
            while min(last[n]) < 3:  # every thread of this process has written a few
                t, i = map(int, proc.line(timeout=60).split())
                last[n][t] = i
        for n, proc in enumerate(procs):
            for t, i in kill_9(proc, 2):
                last[n][int(t)] = max(last[n][int(t)], int(i))
    finally:
        for proc in procs:
            proc.kill()
    store = open_store(pg_uri)
    for n in range(8):
        for t in range(8):
            got = sorted(int(d.url.rsplit("/", 1)[1]) for d in store.documents(f"w{n}-{t}"))
            # none missing, none twice; one more may have committed as the kill landed, before its print
            assert got[: last[n][t] + 1] == list(range(last[n][t] + 1)), (n, t)
            assert len(got) - (last[n][t] + 1) in (0, 1) and len(set(got)) == len(got), (n, t)
    store.close()


def test_configured_by_environment_an_agent_writes_its_run(pg_uri: str, tmp_path: Path) -> None:
    """CITETRACE_STORE=postgresql://... is all an agent needs: its run and fetched page land in the database."""
    script = r"""
import citetrace
from citetrace import traced_tool, research_run
tel = citetrace.configure()
@traced_tool(kind="fetch")
def fetch(url):
    return "a page about tides " * 20
with research_run("How high are tides?", agent="envagent") as run:
    fetch("https://tides.example/1")
    run.record_answer("High [1].\n\n[1] https://tides.example/1")
print(run.id, tel.store.flush(10), flush=True)
"""
    proc = agent(script, tmp_path, CITETRACE_STORE=pg_uri)
    run_id, flushed = proc.line(timeout=60).split()
    assert proc.wait() == 0 and flushed == "True"
    store = open_existing_store(pg_uri)
    run = store.get_run(run_id)
    assert run is not None and run.agent == "envagent" and run.answer is not None
    assert [d.url for d in store.documents(run_id)] == ["https://tides.example/1"]
    store.close()


def test_a_forked_child_uses_its_own_connections(pg_uri: str) -> None:
    """A forked child writes through a pool of its own, and the parent's connections still work after."""
    store = open_store(pg_uri)
    store.put_document("parent", "https://e.org/p", "before fork", status="ok")
    child = mp.get_context("fork").Process(
        target=lambda: store.put_document("child", "https://e.org/c", "from child", status="ok"))
    child.start()
    child.join(30)
    assert child.exitcode == 0
    store.put_document("parent", "https://e.org/p2", "after fork", status="ok")
    assert [d.text for d in store.documents("child")] == ["from child"]
    assert len(store.documents("parent")) == 2
    store.close()




def test_kill_9_while_the_table_is_locked_loses_no_returned_fetch(pg_uri: str, tmp_path: Path) -> None:
    """An agent killed while another session locks the documents table loses no fetch that had returned: its
    queued writes were spooled under .citetrace/, and the next agent started there for the same database writes
    them, each once."""
    open_store(pg_uri).close()
    proc = agent(DURABLE_AGENT, tmp_path, CITETRACE_STORE=pg_uri)
    last, queued = -1, 0

    def advance(until: Callable[[], bool]) -> None:
        nonlocal last, queued
        while not until():
            _, i, q = proc.line(timeout=30).split()
            last, queued = int(i), int(q)

    try:
        run_id = proc.line(timeout=60).split()[1]
        advance(lambda: last >= 20)
        with psycopg.connect(pg_uri) as holder:
            holder.execute("LOCK TABLE citetrace.documents IN SHARE ROW EXCLUSIVE MODE")
            seen = queued
            advance(lambda: queued >= seen + 20)  # the table is locked: these went to the queue and the spool
            last = max([last] + [int(i) for _, i, _ in kill_9(proc, 3)])
            holder.rollback()
    finally:
        proc.kill()
    spools = list((tmp_path / ".citetrace").glob("postgresql-*.spool/*.jsonl"))
    assert spools and all(p.stat().st_size > 0 for p in spools)
    recoverer = agent("import citetrace; t = citetrace.configure(); t.store.put_summary('x', {}); "
                      "print(t.store.flush(30))", tmp_path, CITETRACE_STORE=pg_uri)
    assert recoverer.line(timeout=60) == "True"
    assert recoverer.wait() == 0
    store = open_existing_store(pg_uri)
    fetched = sorted(int(d.url.rsplit("/", 1)[1]) for d in store.documents(run_id))
    assert fetched[: last + 1] == list(range(last + 1))  # none missing, none written twice
    assert len(fetched) - (last + 1) in (0, 1)
    assert not list((tmp_path / ".citetrace").glob("postgresql-*.spool/*.jsonl"))
    store.close()


def test_a_server_restart_costs_busy_writes_that_land_after_it() -> None:
    """The server stops mid-run: writes are StoreBusy in one line (never a hang), the agent's queue keeps them,
    and once the server is back they land in order; the store goes on working."""
    server = start_server()
    try:
        store = PostgresStore(server.uri(), lock_wait_s=0.2)
        store.put_run(RunRecord("r1", "t1", "a", None, 1.0))
        buffered = BufferedStore(store, retry_s=0.05)
        pg_ctl(server, "stop")
        t0 = time.monotonic()
        with pytest.raises(StoreBusy) as info:
            store.put_document("r1", "https://e.org/0", "while down", status="ok")
        assert time.monotonic() - t0 < 5 and "\n" not in str(info.value)
        assert str(info.value).startswith(server.uri())
        for i in range(1, 4):
            buffered.put_document("r1", f"https://e.org/{i}", f"queued {i}", status="ok")
        assert buffered.stats().pending == 3
        pg_ctl(server, "start")
        assert buffered.flush(60)
        assert [d.text for d in store.documents("r1")] == ["queued 1", "queued 2", "queued 3"]
        store.finish_run("r1", ended_at=2.0, answer="done", error_type=None)
        assert store.get_run("r1").answer == "done"  # type: ignore[union-attr]
        buffered.close()
    finally:
        stop_server(server)


def test_same_tables_and_columns_as_sqlite(pg_uri: str, tmp_path: Path) -> None:
    """The PostgreSQL schema has every table and column the SQLite one has (a table added to one backend and
    not the other fails here), and the store is a ``Store``."""
    import sqlite3

    from citetrace.store import SQLiteStore, Store

    SQLiteStore(tmp_path / "s.db").close()
    lite = sqlite3.connect(tmp_path / "s.db")
    sqlite_cols = {(t, c[1]) for (t,) in lite.execute("SELECT name FROM sqlite_master WHERE type = 'table'"
                                                      " AND name NOT LIKE 'sqlite_%'")
                   for c in lite.execute(f"PRAGMA table_info({t})")}
    store = open_store(pg_uri)
    assert isinstance(store, Store)
    with psycopg.connect(pg_uri) as conn:
        pg_cols = set(conn.execute("SELECT table_name, column_name FROM information_schema.columns"
                                   " WHERE table_schema = 'citetrace' AND table_name <> 'schema_version'").fetchall())
    assert sqlite_cols - pg_cols == set()
    assert {t for t, _ in pg_cols} == {t for t, _ in sqlite_cols}
    store.close()


def test_a_postgres_store_passed_in_spools_where_its_uri_would(pg_uri: str) -> None:
    """``configure(store=PostgresStore(...))`` gets the same spool folder as ``CITETRACE_STORE`` with its URI
    (the one the kill -9 test proves), and ``citetrace.store.PostgresStore`` is the class."""
    import citetrace.store as store_pkg

    built = store_pkg.PostgresStore(pg_uri, lock_wait_s=0.1)
    assert store_pkg.PostgresStore is PostgresStore
    by_object, by_uri = agent_store(built), agent_store(pg_uri)
    assert by_object._spool_dir is not None and by_object._spool_dir == by_uri._spool_dir
    assert by_object._spool_dir.name.startswith("postgresql-")
    reader = PostgresStore(pg_uri, read_only=True)
    assert agent_store(reader)._spool_dir is None  # a reader never spools
    built.close()
    reader.close()
