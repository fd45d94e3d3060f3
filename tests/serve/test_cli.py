"""`citetrace serve` as a command: documented flags, clear errors, a clean stop on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from _stopping import IGNORE_SIGINT, STOP_BOUND_S, Command
from citetrace import names
from citetrace.serve import encode_request

from ._spans import failing_run

CMD = [sys.executable, "-m", "citetrace.cli", "serve"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_help_documents_every_flag_and_env_var() -> None:
    """--help names each CITETRACE_SERVE_* variable and the defaults 127.0.0.1, 4319 and 9464."""
    out = subprocess.run(CMD + ["--help"], capture_output=True, text=True, check=True).stdout
    serve_vars = [getattr(names, n) for n in dir(names) if n.startswith("ENV_SERVE_")]
    assert serve_vars
    flat = " ".join(out.split())
    for var in serve_vars:
        assert f"${var}" in flat, var
    for default in ("127.0.0.1", "4319", "9464"):
        assert default in flat


def test_bad_flag_and_bad_env_values_are_one_line_errors() -> None:
    """A bad --port or a bad env value exits 2 with one line naming it, never a traceback."""
    bad_flag = subprocess.run(CMD + ["--port", "70000"], capture_output=True, text=True)
    assert bad_flag.returncode == 2
    assert "--port='70000'" in bad_flag.stderr and "Traceback" not in bad_flag.stderr
    env = dict(os.environ, **{names.ENV_SERVE_GRACE_SECONDS: "soon"})
    bad_env = subprocess.run(CMD, capture_output=True, text=True, env=env)
    assert bad_env.returncode == 2
    assert names.ENV_SERVE_GRACE_SECONDS in bad_env.stderr and "Traceback" not in bad_env.stderr


def test_port_in_use_is_a_clear_error() -> None:
    """Binding a port that is taken exits 2 naming the address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        done = subprocess.run(CMD + ["--port", str(port), "--metrics-port", "0", "--store", "memory://"],
                              capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert f"127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_a_quiet_stop_says_nothing_was_lost() -> None:
    """SIGTERM with no trace in flight says so, instead of "0 trace(s) ... (summaries incomplete or lost)"."""
    proc = subprocess.Popen(CMD + ["--port", "0", "--metrics-port", "0", "--store", "memory://"],
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    assert "OTLP/HTTP on" in proc.stderr.readline()  # listening: the start-up line is printed once bound
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "stopped (SIGTERM); 0 trace(s) were in flight (nothing lost)" in err, err


def _wait_for_runs(metrics_port: int, runs: int) -> None:
    """Until serve's /metrics counts ``runs`` finished runs (its summary is then written), within 30 s."""
    deadline = time.monotonic() + 30
    while True:
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=2) as resp:
            text = resp.read().decode()
        counted = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                      if line.startswith(names.METRIC_RUNS_TOTAL + "{"))
        if counted >= runs:
            return
        assert time.monotonic() < deadline, f"serve counted {counted} run(s), not {runs}"
        time.sleep(0.05)


def test_runs_writes_the_sqlite_store_and_stops_on_sigterm(tmp_path: Path) -> None:
    """The service accepts OTLP, writes summaries `citetrace runs` lists, and on SIGTERM exits 0 reporting traces in flight."""
    port, metrics_port = free_port(), free_port()
    db = tmp_path / "serve.db"
    proc = subprocess.Popen(CMD + ["--port", str(port), "--metrics-port", str(metrics_port), "--store",
                                   f"sqlite:///{db}", "--grace-seconds", "0.1"],
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "serve did not come up"
                time.sleep(0.1)
        spans = failing_run(0x7001, run_id="cli-run") + failing_run(0x7002, run_id="rootless")[:1]
        req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces",
                                     data=encode_request(spans).SerializeToString(),
                                     headers={"Content-Type": "application/x-protobuf"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            assert resp.status == 200
        _wait_for_runs(metrics_port, 1)  # the rooted trace is finalised (grace 0.1 s) before SIGTERM
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "1 trace(s) were in flight (summaries incomplete or lost)" in err
    listed = subprocess.run([sys.executable, "-m", "citetrace.cli", "runs", "--store", f"sqlite:///{db}", "--json"],
                            capture_output=True, text=True, check=True).stdout
    [run] = [r for r in json.loads(listed) if r["run_id"] == "cli-run"]
    assert run["summary"]["failed"] is True  # `citetrace runs` works against the service's store


@pytest.mark.parametrize("sig, shell", [
    (signal.SIGINT, ""),
    (signal.SIGINT, IGNORE_SIGINT),  # as `citetrace serve &` in a script starts it
    (signal.SIGTERM, "exec 0<&-"),  # stdin closed, as under a supervisor
    (signal.SIGHUP, ""),  # killed without its last line or the drain before the shared stop
], ids=["SIGINT", "SIGINT-inherited-ignored", "SIGTERM-stdin-closed", "SIGHUP"])
def test_every_stop_signal_stops_it_cleanly_with_a_request_in_flight(sig: signal.Signals, shell: str) -> None:
    """A request whose body is still arriving does not hold the stop: exit 0 within the bound, the stop line
    naming the signal, and nothing else on stderr (no traceback)."""
    with Command("serve", "--port", "0", "--metrics-port", "0", "--store", "memory://", shell=shell) as serve:
        port = int(serve.wait_for(r"OTLP/HTTP on http://127\.0\.0\.1:(\d+)/").group(1))
        with socket.create_connection(("127.0.0.1", port), timeout=10) as slow:
            slow.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
                         b"Content-Length: 1000\r\n\r\n" + b"\x0a" * 10)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as health:
                assert health.status == 200  # answered after the slow one was accepted: that one is in flight
            serve.send(sig)
            status, took = serve.finish()
    assert status == 0, serve.stderr
    start, stop = serve.stderr.splitlines()
    assert start.startswith("citetrace serve: OTLP/HTTP on")
    assert stop == f"citetrace serve: stopped ({sig.name}); 0 trace(s) were in flight (nothing lost)"
    assert took < STOP_BOUND_S
