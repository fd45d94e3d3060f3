"""`citetrace demo` end to end in a subprocess: output, store, exit codes, metrics while it runs, OTLP export."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from _stopping import IGNORE_SIGINT, STOP_BOUND_S, Command
from citetrace import names
from citetrace.demo import DEFAULT_QUESTIONS, question

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CITETRACE_"))}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _demo(tmp_path: Path, *args: str, timeout: float = 120,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", "demo", *args], cwd=tmp_path,
                          env={**_env(), **(env or {})}, capture_output=True, text=True, timeout=timeout)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_default_demo_runs_every_question_and_matches_expectations(tmp_path: Path) -> None:
    """The default demo prints six runs whose summaries match the hand-computed signals, and stores them."""
    store = f"sqlite:///{tmp_path}/store.db"
    done = _demo(tmp_path, "--store", store, "--check")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"[{len(DEFAULT_QUESTIONS)}/{len(DEFAULT_QUESTIONS)}]" in out
    for mark in ("EMPTY", "RATE-LIMITED", "429", "404", "ReadTimeout", "FAILED: uncited_url",
                 "FAILED: cited_not_fetched", "FAILED: failed_reads", "outcome  ok"):
        assert mark in out, mark
    assert out.count("expected matches the hand-computed signals") == len(DEFAULT_QUESTIONS)
    header = out.splitlines()[0]
    assert "faults: cookie_wall, empty_search" in header and "search_loop" not in header  # no default question loops
    assert "MISMATCH" not in out and "Traceback" not in done.stderr
    runs = subprocess.run([sys.executable, "-m", "citetrace", "runs", "--store", store, "--json"], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=60)
    listed = json.loads(runs.stdout)
    assert len(listed) == len(DEFAULT_QUESTIONS)
    assert all(r["summary"] for r in listed)
    assert not (tmp_path / ".citetrace").exists()


def test_fault_list_names_only_faults_the_questions_show() -> None:
    """The header lists a fault only when a selected question triggers it (search_loop only with `loop`)."""
    from citetrace.demo import FAULTS, QUESTIONS
    from citetrace.demo._cli import shown_faults

    assert "search_loop" not in shown_faults(DEFAULT_QUESTIONS, FAULTS)
    assert shown_faults([question("loop")], FAULTS) == "faults: search_loop"
    assert shown_faults(QUESTIONS, ["timeout"]) == "faults: timeout"
    assert shown_faults(DEFAULT_QUESTIONS, []) == "faults: none"


def test_check_fails_when_no_summary_is_recorded(tmp_path: Path) -> None:
    """With the SDK disabled nothing is summarized, so --check exits 1 and says why; the agent still runs."""
    done = _demo(tmp_path, "--store", "memory://", "--questions", "storage", "--check",
                 env={"OTEL_SDK_DISABLED": "true"})
    assert done.returncode == 1
    assert "no summary was recorded" in done.stdout and "(not traced)" in done.stdout
    assert "report cites 2" in done.stdout
    assert "nothing was recorded" in done.stdout and "recorded in" not in done.stdout  # it said "1 run(s) recorded"


def test_busy_metrics_port_is_a_clear_error(tmp_path: Path) -> None:
    """A metrics port already in use exits 2 with a message naming the port."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _demo(tmp_path, "--store", "memory://", "--metrics-port", str(port))
    assert done.returncode == 2
    assert f"127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr


def test_list_shows_questions_and_faults(tmp_path: Path) -> None:
    """--list prints every question id and every fault, then exits 0 without running anything."""
    done = _demo(tmp_path, "--list")
    assert done.returncode == 0
    for text in ("storage", "loop", "cookie_wall", "unfetched_citation"):
        assert text in done.stdout
    assert not (tmp_path / ".citetrace").exists()


@pytest.mark.parametrize(("args", "needle"), [(("--faults", "boom"), "unknown fault(s) boom"),
                                              (("--questions", "nope"), "unknown question(s) nope"),
                                              (("--interval", "-1"), "finite number > 0"),
                                              (("--store", "bogus://x"), "unsupported store URI"),
                                              (("--agent", " "), "--agent must not be empty")])
def test_bad_flags_exit_2_with_one_line(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    """Bad flag values exit with status 2 and a message naming the problem, never a traceback."""
    done = _demo(tmp_path, *args)
    assert done.returncode == 2
    assert needle in done.stderr and "Traceback" not in done.stderr


def test_json_clean_runs(tmp_path: Path) -> None:
    """--json --no-faults prints one JSON object per run whose summary equals the clean expectation."""
    done = _demo(tmp_path, "--store", "memory://", "--json", "--no-faults", "--questions", "lake,coffee",
                 "--agent", "scout")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["question"] for r in rows] == ["lake", "coffee"]
    for row in rows:
        clean = question(row["question"]).expected_clean
        assert {k: row["summary"][k] for k in clean.signals()} == clean.signals()
        assert row["summary"]["failure_reasons"] == []
        assert row["faults"] == []
        assert row["summary"]["agent"] == "scout"


def test_loop_serves_metrics_until_sigterm(tmp_path: Path) -> None:
    """--loop keeps producing runs, serves Prometheus metrics meanwhile, and exits 0 on SIGTERM."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", "demo", "--loop", "--interval", "0.1",
                             "--questions", "storage,bikeshare", "--metrics-port", str(port), "--store",
                             "memory://"], cwd=tmp_path, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        runs = 0.0
        deadline = time.monotonic() + 60
        while runs < 4 and time.monotonic() < deadline:
            try:
                text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=2).text
            except requests.ConnectionError:
                text = ""
            runs = sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                       if line.startswith(names.METRIC_RUNS_TOTAL + "{"))
            time.sleep(0.2)
        assert runs >= 4
        assert 'reason="rate_limited"' in text
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert out.count("bikeshare:") >= 2


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self) -> None:  # noqa: N802
        data = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            data = gzip.decompress(data)
        type(self).bodies.append(data)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture()
def receiver() -> Iterator[tuple[str, list[bytes]]]:
    """A local OTLP/HTTP endpoint that keeps every request body."""
    _Receiver.bodies = []
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", _Receiver.bodies
    srv.shutdown()
    srv.server_close()


def test_otlp_export_sends_failed_traces_in_full(tmp_path: Path, receiver: tuple[str, list[bytes]]) -> None:
    """--otlp-endpoint exports every run's root and every tool span of the failed runs over OTLP/HTTP."""
    endpoint, bodies = receiver
    done = _demo(tmp_path, "--store", "memory://", "--otlp-endpoint", endpoint, "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    spans = []
    for body in bodies:
        req = ExportTraceServiceRequest()
        req.ParseFromString(body)
        spans += [s for rs in req.resource_spans for ss in rs.scope_spans for s in ss.spans]
    by_trace: dict[str, list[str]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id.hex(), []).append(s.name)
    for row in rows:
        names_in_trace = by_trace.get(row["trace_id"], [])
        assert "invoke_agent demo-researcher" in names_in_trace, row["question"]
        if row["summary"]["failure_reasons"]:
            assert len(names_in_trace) == 1 + len(row["calls"]), row["question"]


@pytest.mark.parametrize("sig, shell", [(signal.SIGINT, IGNORE_SIGINT), (signal.SIGHUP, "exec 0<&-")],
                         ids=["SIGINT-inherited-ignored", "SIGHUP-stdin-closed"])
def test_loop_stops_on_every_stop_signal_between_two_runs(sig: signal.Signals, shell: str) -> None:
    """--loop started as a script's `demo --loop &` (SIGINT ignored) stops on SIGINT; SIGHUP stops it too;
    the run in progress finishes, the stop is one line, the exit 0 within the bound."""
    with Command("demo", "--loop", "--interval", "0.1", "--questions", "storage,bikeshare", "--json",
                 "--no-metrics", "--store", "memory://", shell=shell, env=_env()) as demo:
        demo.wait_for(r'^\{"question"')  # a run is done: the loop is running
        demo.send(sig)
        status, took = demo.finish()
    assert status == 0, demo.stderr
    runs = [json.loads(line) for line in demo.stdout.splitlines() if line.startswith("{")]
    assert demo.stderr == f"citetrace demo: stopped ({sig.name}) after {len(runs)} run(s)\n"
    assert took < STOP_BOUND_S
