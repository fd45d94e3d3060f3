"""citetrace serve writing to a real PostgreSQL run store: the fleet set-up, where many serves share one database."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request

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
