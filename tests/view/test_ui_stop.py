"""`citetrace ui` stops promptly on SIGINT, SIGTERM and SIGHUP, over SQLite and PostgreSQL, idle or busy.

Issue 12's stuck exit: started with SIGINT ignored (a script's ``cmd &``, a test suite run in the background),
the ui never raised ``KeyboardInterrupt`` and ignored every SIGINT; as PID 1 in a container it ignored
SIGTERM too. Each test here starts the real command the way that broke it, with a request in flight.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import threading
import time
import urllib.request
from pathlib import Path

import psycopg
import pytest

from _stopping import IGNORE_SIGINT, STOP_BOUND_S, Command
from citetrace._stopsignals import STOP_GRACE_S
from citetrace.store import open_store
from citetrace.store._model import RunRecord

pytestmark = pytest.mark.slow

_SERVING = r"serving \S+ at (http://127\.0\.0\.1:(\d+)/)"


@pytest.fixture(params=["sqlite", "postgresql"])
def store_uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A store with one run: an SQLite file, or a database on the session's PostgreSQL server."""
    uri = f"sqlite:///{tmp_path / 'store.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_uri")
    store = open_store(uri)
    store.put_run(RunRecord("run-stop-1", "ab" * 16, "scout", "How big is solar?", 1.0, 2.0, "Big.", None))
    store.close()
    return uri


def _start(uri: str, shell: str = "") -> tuple[Command, str, int]:
    ui = Command("ui", "--store", uri, "--port", "0", shell=shell)
    found = ui.wait_for(_SERVING)
    return ui, found.group(1), int(found.group(2))


def _half_sent_request(port: int, url: str) -> socket.socket:
    """A GET whose headers are not finished: in flight on the server. The answer to a second, whole request
    shows it was accepted first (one accept loop, in arrival order), so its handler is reading it."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n")
    with urllib.request.urlopen(url, timeout=10) as whole:
        assert whole.status == 200
    return sock


def _refused(port: int) -> bool:
    """Whether the port is closed: refused, or reset (the probe was queued just as the socket closed)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except (ConnectionRefusedError, ConnectionResetError):
        return True
    return False


def _exited(ui: Command, said: str) -> float:
    """After the signal: the process must exit 0 within the bound with exactly the line ``said`` on stderr.
    Returns the seconds from the signal to the exit."""
    status, took = ui.finish()
    assert status == 0, ui.stderr
    assert ui.stderr == said + "\n"
    assert took < STOP_BOUND_S
    return took


_DROPPED = f"citetrace ui: stopped (SIGINT); 1 request(s) unfinished after {STOP_GRACE_S:g} s were dropped"


def _until(condition: "object", what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not {what} within {timeout} s"
        time.sleep(0.02)


@pytest.mark.parametrize("sig, shell", [
    (signal.SIGINT, ""),
    (signal.SIGINT, IGNORE_SIGINT),  # as `citetrace ui &` in a script starts it: failed before the fix
    (signal.SIGTERM, ""),
    (signal.SIGHUP, ""),
    (signal.SIGTERM, "exec 0<&-"),  # stdin closed
], ids=["SIGINT", "SIGINT-inherited-ignored", "SIGTERM", "SIGHUP", "SIGTERM-stdin-closed"])
def test_a_stop_answers_the_request_in_flight_then_exits(store_uri: str, sig: signal.Signals, shell: str) -> None:
    """The signal closes the listening socket at once; the request in flight is still answered; the process
    exits 0 within the bound with one line naming the signal, and no traceback."""
    ui, url, port = _start(store_uri, shell)
    answer = b""
    with ui:
        sock = _half_sent_request(port, url)
        ui.send(sig)
        _until(lambda: _refused(port), "refusing new connections")
        sock.sendall(b"\r\n")
        while chunk := sock.recv(65536):
            answer += chunk
        sock.close()
        _exited(ui, f"citetrace ui: stopped ({sig.name})")
    assert answer.startswith(b"HTTP/1.0 200") and b"run-stop-1" in answer


def test_a_request_that_never_finishes_is_dropped_after_the_grace(tmp_path: Path) -> None:
    """A client that never finishes its request holds the stop for the grace only, and is counted."""
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(uri).close()
    ui, url, port = _start(uri, IGNORE_SIGINT)
    with ui, _half_sent_request(port, url):
        ui.send(signal.SIGINT)
        assert _exited(ui, _DROPPED) >= STOP_GRACE_S


def test_a_request_waiting_on_a_postgresql_lock_does_not_hold_the_stop(pg_uri: str) -> None:
    """The run list's query waits on a table another session holds locked (the store's lock bound is 30 s);
    SIGINT still ends the process within the grace, closing the store."""
    store = open_store(pg_uri)
    store.put_run(RunRecord("run-stop-2", "cd" * 16, "scout", "q", 1.0, 2.0, None, None))
    store.close()
    ui, url, _ = _start(pg_uri, IGNORE_SIGINT)
    with ui, psycopg.connect(pg_uri) as locker, psycopg.connect(pg_uri, autocommit=True) as watcher:
        locker.execute("LOCK TABLE citetrace.runs IN ACCESS EXCLUSIVE MODE")
        threading.Thread(target=_browse, args=(url,), daemon=True).start()
        database = pg_uri.rsplit("/", 1)[1]
        _until(lambda: watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = 'citetrace'"
            " AND wait_event_type = 'Lock'", (database,)).fetchone()[0] == 1,  # type: ignore[index]
            "waiting on the lock")
        ui.send(signal.SIGINT)
        _exited(ui, _DROPPED)


def _browse(url: str) -> None:
    """Open the run list, which will not come: the connection dies with the process."""
    try:
        urllib.request.urlopen(url, timeout=60).read()
    except OSError:
        pass


def test_nohup_keeps_it_up_when_the_terminal_closes(tmp_path: Path) -> None:
    """SIGHUP inherited as ignored (``nohup``) stays ignored; SIGTERM then stops it."""
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(uri).close()
    ui, url, _ = _start(uri, 'trap "" HUP')
    with ui:
        ui.send(signal.SIGHUP)
        with urllib.request.urlopen(url, timeout=10) as still:  # answered after the SIGHUP: still serving
            assert still.status == 200
        assert ui.proc.poll() is None
        ui.send(signal.SIGTERM)
        _exited(ui, "citetrace ui: stopped (SIGTERM)")


def test_as_pid_1_in_a_container_sigterm_stops_it(tmp_path: Path) -> None:
    """PID 1 (our image's ``ENTRYPOINT ["citetrace"]``, no init) has no default action for SIGTERM: without a
    handler, `docker stop` waited 10 s and killed it. Run here as PID 1 of a new PID namespace."""
    unshare = shutil.which("unshare")
    assert unshare, "unshare (util-linux) is needed to run the command as PID 1, as in a container"
    uri = f"sqlite:///{tmp_path / 'store.db'}"
    open_store(uri).close()
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    with Command("ui", "--store", uri, "--port", "0", prefix=[unshare, *user, "--pid", "--fork", "--kill-child"]) as ui:
        url = ui.wait_for(_SERVING).group(1)
        with urllib.request.urlopen(url, timeout=10) as page:
            assert page.status == 200
        [pid1] = Path(f"/proc/{ui.proc.pid}/task/{ui.proc.pid}/children").read_text().split()  # unshare's child
        ui.send(signal.SIGTERM, pid=int(pid1))
        _exited(ui, "citetrace ui: stopped (SIGTERM)")
