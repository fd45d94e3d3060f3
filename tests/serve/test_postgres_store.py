"""citetrace serve writing to a real PostgreSQL run store: the fleet set-up, where many serves share one database."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import psycopg

from _stopping import STOP_BOUND_S, Command, clean_env
from citetrace import names
from citetrace.serve import encode_request
from citetrace.store import open_store

from ._spans import failing_run
from ._wait import healthy as _healthy, until as _until

CMD = [sys.executable, "-m", "citetrace.cli"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_two_serves_write_one_postgresql_store_that_the_cli_reads(pg_uri: str) -> None:
    """Two `citetrace serve --store postgresql://...` processes summarize into one database; `runs` lists both."""
    procs = []
    ports = []
    try:
        for _ in range(2):
            port = _free_port()
            ports.append(port)
            procs.append(subprocess.Popen(CMD + ["serve", "--port", str(port), "--metrics-port", "0", "--store", pg_uri,
                                                 "--grace-seconds", "0.1"], stderr=subprocess.PIPE, text=True))
        for port, proc in zip(ports, procs):
            _until(lambda: _healthy(port) or proc.poll() is not None, "serve to come up")
            assert proc.poll() is None, proc.communicate()[1]
        for i, port in enumerate(ports):
            body = encode_request(failing_run(0x9100 + i, run_id=f"fleet-{i}")).SerializeToString()
            req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces", data=body,
                                         headers={"Content-Type": "application/x-protobuf"})
            with urllib.request.urlopen(req, timeout=10) as resp:
                assert resp.status == 200
        reader = open_store(pg_uri)
        try:
            _until(lambda: {r.run_id for r in reader.runs()} >= {"fleet-0", "fleet-1"}, "both summaries in PostgreSQL")
        finally:
            reader.close()
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        errors = [proc.communicate(timeout=30)[1] for proc in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    assert all("Traceback" not in e for e in errors)
    listed = subprocess.run(CMD + ["runs", "--store", pg_uri, "--json"], capture_output=True, text=True, check=True)
    runs = {r["run_id"]: r for r in json.loads(listed.stdout)}
    assert {"fleet-0", "fleet-1"} <= set(runs)
    assert runs["fleet-0"]["summary"]["failed"] is True
    assert runs["fleet-1"]["summary"]["failed"] is True


def test_serve_with_an_unreachable_postgresql_is_one_line(pg_uri: str) -> None:
    """A PostgreSQL URI nobody listens on makes serve exit 2 with one line that hides the password."""
    bad = f"postgresql://fleet:pw-not-shown@127.0.0.1:{_free_port()}/nowhere?connect_timeout=1"
    done = subprocess.run(CMD + ["serve", "--port", "0", "--metrics-port", "0", "--store", bad],
                          capture_output=True, text=True, timeout=60)
    assert "pw-not-shown" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "cannot reach the server" in done.stderr


def _post(port: int, spans: list[Any]) -> None:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces", data=encode_request(spans).SerializeToString(),
                                 headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200


def test_a_locked_store_does_not_hold_the_stop_and_loses_nothing(pg_uri: str, tmp_path: Path) -> None:
    """Three runs held when serve stops while another session locks the summaries table: the stop takes the
    store's exit wait (here 1 s), not the 30 s lock bound per summary (90 s before); the summaries wait in the
    spool, and the next serve started in that folder writes them once the lock is gone."""
    env = clean_env(**{names.ENV_STORE_EXIT_WAIT_SECONDS: "1"})
    args = ("serve", "--port", "0", "--metrics-port", "0", "--store", pg_uri)
    with Command(*args, "--grace-seconds", "600", env=env, cwd=tmp_path) as serve:
        port = int(serve.wait_for(r"OTLP/HTTP on http://127\.0\.0\.1:(\d+)/").group(1))
        for i in range(3):
            _post(port, failing_run(0x9200 + i, run_id=f"held-{i}"))
        with psycopg.connect(pg_uri) as locker:
            locker.execute("LOCK TABLE citetrace.summaries IN ACCESS EXCLUSIVE MODE")
            serve.send(signal.SIGTERM)
            status, took = serve.finish()
    assert status == 0, serve.stderr
    assert "citetrace serve: stopped (SIGTERM); 3 trace(s) were in flight" in serve.stderr
    assert "Traceback" not in serve.stderr and took < STOP_BOUND_S
    with Command(*args, "--grace-seconds", "0.1", env=env, cwd=tmp_path) as again:
        port = int(again.wait_for(r"OTLP/HTTP on http://127\.0\.0\.1:(\d+)/").group(1))
        _post(port, failing_run(0x9300, run_id="after"))  # its write replays the spool first
        reader = open_store(pg_uri)
        try:
            _until(lambda: {r.run_id for r in reader.runs()} >= {"held-0", "held-1", "held-2", "after"},
                   "the held summaries written from the spool")
        finally:
            reader.close()
        again.send(signal.SIGTERM)
        assert again.finish()[0] == 0, again.stderr
