"""The browser at its edges. The store goes away under it (SQLite's tables dropped, a PostgreSQL server stopped):
every page answers 503 in one line naming the problem (it was a 500 "cannot show this page: StoreError"), within
a bound, and it serves again once the store is back; two browsers on one store both serve it. An IPv6 loopback
binds. Requests http.server itself refuses get our page and headers, and every method but GET/HEAD is a 405."""

from __future__ import annotations

import shutil
import socket
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from _pgserver import pg_ctl, start_server, stop_server
from citetrace.store import open_store
from citetrace.view import RunBrowser
from ._recorded import record_runs

pytestmark = pytest.mark.slow


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, resp.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def _unavailable(url: str, what: str) -> None:
    status, body = _get(url)
    assert status == 503, (status, body[:300])
    assert "the run store is unavailable" in body and what in body and "Traceback" not in body and len(body) < 600


def test_sqlite_tables_dropped_under_two_browsers(tmp_path: Path) -> None:
    """Two browsers on one SQLite store both list its runs; with its tables dropped both say 503 in one line."""
    path = tmp_path / "store.db"
    store, other = open_store(f"sqlite:///{path}"), None
    ids = record_runs(store, 3)
    other = open_store(f"sqlite:///{path}")
    try:
        with RunBrowser(store) as one, RunBrowser(other) as two:
            for ui in (one, two):
                status, body = _get(ui.url)
                assert status == 200 and all(i in body for i in ids)
            with sqlite3.connect(path) as conn:
                conn.execute("DROP TABLE runs")
            for ui in (one, two):
                _unavailable(ui.url, "no such table: runs")
                _unavailable(ui.url + "runs/" + ids[0], "no such table: runs")
    finally:
        store.close()
        other.close()


def test_postgresql_server_stopped_then_back() -> None:
    """The server stops: pages are 503 within seconds (no hang); it starts again: the same pages are back."""
    server = start_server()
    down = False
    try:
        store = open_store(server.uri())
        ids = record_runs(store, 2)
        with RunBrowser(store) as ui:
            assert _get(ui.url + "runs/" + ids[0])[0] == 200
            for ref in ("%00", "ab%00cd", "%0a"):  # PostgreSQL refuses NUL in text: a bad reference, not a store down
                status, body = _get(ui.url + "runs/" + ref)
                assert status == 404 and "no run" in body, (ref, status, body[:200])
            pg_ctl(server, "stop")
            down = True
            t0 = time.monotonic()
            _unavailable(ui.url, str(server.port))
            _unavailable(ui.url + "runs/" + ids[0], str(server.port))
            assert time.monotonic() - t0 < 20
            pg_ctl(server, "start")
            down = False
            status, body = _get(ui.url)
            assert status == 200 and all(i in body for i in ids)
        store.close()
    finally:
        if down:  # a failed check left it stopped: only its folder is left to remove
            shutil.rmtree(server.datadir.parent, ignore_errors=True)
        else:
            stop_server(server)


def test_an_ipv6_loopback_host_serves(tmp_path: Path) -> None:
    """`--host ::1` binds the IPv6 loopback (it was "Address family for hostname not supported")."""
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    ids = record_runs(store, 1)
    try:
        with RunBrowser(store, host="::1") as ui:
            assert ui.url.startswith("http://[::1]:")
            status, body = _get(ui.url)
            assert status == 200 and ids[0] in body
    finally:
        store.close()


def _raw(ui: RunBrowser, request: bytes) -> bytes:
    host, port = ui.url.split("//", 1)[1].rstrip("/").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(request)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("request_bytes, status", [
    (b"GET /runs/" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414),
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/9.9\r\n\r\n", 505),
    (b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 501),
])
def test_refused_requests_get_our_page_and_headers(tmp_path: Path, request_bytes: bytes, status: int) -> None:
    """A 414, 400, 505 or 501 from http.server carries our one-line page and our policy header (it sent its stock
    HTML with none); TRACE and CONNECT are 405s like every other method but GET and HEAD (they were 501s)."""
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    try:
        with RunBrowser(store) as ui:
            head, _, body = _raw(ui, request_bytes).partition(b"\r\n\r\n")
            assert head.split(b" ", 2)[1] == str(status).encode(), head[:200]
            if status == 405:
                assert b"Allow: GET, HEAD" in head
                return
            assert b"Content-Security-Policy: default-src 'none'" in head
            assert body.startswith(b"<!doctype html><title>citetrace</title><p>" + str(status).encode())
            assert b"Error response" not in body and len(body) < 400
    finally:
        store.close()


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_a_bind_beyond_loopback_is_said_once(tmp_path: Path, host: str, warned: bool) -> None:
    """`citetrace ui --host 0.0.0.0` serves, and says on stderr that other machines can read the runs without a
    login; the default loopback bind says nothing."""
    import subprocess
    import sys

    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    record_runs(store, 1)
    store.close()
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", "ui", "--port", "0", "--host", host,
                             "--store", f"sqlite:///{tmp_path / 'store.db'}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split(" at ", 1)[1].split(" ", 1)[0]
        port = url.rsplit(":", 1)[1].rstrip("/")
        assert _get(f"http://127.0.0.1:{port}/")[0] == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    warning = [line for line in err.splitlines() if "other machines" in line]
    assert len(warning) == (1 if warned else 0), err
    if warned:
        assert warning[0].startswith("citetrace ui: warning: --host 0.0.0.0")


def test_an_upper_case_trace_id_opens_its_run_on_postgresql(pg_uri: str) -> None:
    """A trace id pasted in capitals (PostgreSQL's LIKE is case-sensitive) opens its run, without the scan of the
    newest 5,000 runs that used to find it; an unknown one is a 404."""
    store = open_store(pg_uri)
    try:
        run_id = record_runs(store, 1)[0]
        run = store.get_run(run_id)
        assert run is not None
        with RunBrowser(store) as ui:
            status, body = _get(ui.url + "runs/" + run.trace_id.upper())
            assert status == 200 and run_id in body
            assert _get(ui.url + "runs/" + "F" * 32)[0] == 404
    finally:
        store.close()
