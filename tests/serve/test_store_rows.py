"""The run rows `citetrace serve` files: a real serve on 127.0.0.1, a real agent process exporting through the real
OTLP/HTTP exporter, and the row's times equal to the root span's (not the summary's write time, a grace period
later), with its question and answer when the agent captured content, as the embedded path stores them."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citetrace.store import SQLiteStore

from ._wait import healthy, until
from .test_cli import CMD, free_port

QUESTION = "Which reactor is the largest?"
ANSWER = "Kashiwazaki-Kariwa [1].\n\n[1] https://a.example/1"

AGENT = r"""
import json, sys, time
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
import citetrace
from citetrace import research_run, traced_tool

memory = InMemorySpanExporter()  # what was sent, so the test knows the root's own times
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(memory))
tel = citetrace.configure(tracer_provider=provider, exporter=OTLPSpanExporter(endpoint=sys.argv[1]), metrics="off",
                          store="memory://", capture_content=sys.argv[2] == "on")

@traced_tool(kind="search")
def search(query):
    return [{"url": "https://a.example/1"}]

@traced_tool(kind="fetch")
def fetch(url):
    time.sleep(0.25)  # the work: a run that takes a visible time (`show` prints it to 0.01 s)
    return "a readable page " * 20

with research_run(sys.argv[3], agent="e2e-scout") as run:
    search("largest reactor")
    fetch("https://a.example/1")
    run.record_answer(sys.argv[4])
assert tel.force_flush(10_000)
[root] = [s for s in memory.get_finished_spans() if s.name.startswith("invoke_agent")]
print(json.dumps({"run_id": run.id, "trace_id": f"{root.context.trace_id:032x}", "start_ns": root.start_time,
                  "end_ns": root.end_time}), flush=True)
tel.shutdown()
"""

RESOLUTION_S = 1e-6
"""Seconds as a float near 1.7e9 keep about 0.24 microseconds; stored and read back they agree within this."""


def _serve_one_run(tmp_path: Path, capture: str) -> tuple[dict[str, Any], Path]:
    """A real serve over a SQLite store, one real agent run exported to it; returns what the agent sent."""
    port, db = free_port(), tmp_path / "serve.db"
    serve = subprocess.Popen(CMD + ["--port", str(port), "--metrics-port", "0", "--store", f"sqlite:///{db}",
                                    "--grace-seconds", "0.5"], stderr=subprocess.PIPE, text=True)
    try:
        until(lambda: healthy(port) or serve.poll() is not None, "serve to come up")
        assert serve.poll() is None, serve.communicate()[1]
        agent = subprocess.run([sys.executable, "-c", AGENT, f"http://127.0.0.1:{port}/v1/traces", capture, QUESTION,
                                ANSWER], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "OTEL_TRACES_EXPORTER": "none"})
        assert agent.returncode == 0, agent.stderr
        sent: dict[str, Any] = json.loads(agent.stdout.strip().splitlines()[-1])

        def filed() -> bool:
            reader = SQLiteStore(db, read_only=True)
            try:
                return reader.get_run(sent["run_id"]) is not None
            finally:
                reader.close()

        until(lambda: db.exists() and filed(), "serve to file the run")
    finally:
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=30)
    assert serve.returncode == 0 and "Traceback" not in err, err
    return sent, db


@pytest.mark.parametrize("capture", ["on", "off"])
def test_serves_row_has_the_roots_times_and_what_the_root_carries(tmp_path: Path, capture: str) -> None:
    """The row's start and end are the root span's; its question and answer are there when content capture was on
    in the agent, and absent when it was off (the root then carries neither)."""
    sent, db = _serve_one_run(tmp_path, capture)
    reader = SQLiteStore(db, read_only=True)
    try:
        run = reader.get_run(sent["run_id"])
    finally:
        reader.close()
    assert run is not None and run.summary is not None
    assert (run.trace_id, run.agent) == (sent["trace_id"], "e2e-scout")
    assert abs(run.started_at - sent["start_ns"] / 1e9) <= RESOLUTION_S
    assert run.ended_at is not None and abs(run.ended_at - sent["end_ns"] / 1e9) <= RESOLUTION_S
    assert (run.summary["searches"], run.summary["reads"]) == (1, 1)
    if capture == "on":
        assert (run.question, run.answer) == (QUESTION, ANSWER)
    else:
        assert (run.question, run.answer) == (None, None)
    shown = subprocess.run(CMD[:-1] + ["show", sent["run_id"], "--store", f"sqlite:///{db}"], capture_output=True,
                           text=True, check=True).stdout
    took = re.search(r"took (\d+\.\d+)s", shown)
    assert took is not None, shown
    assert abs(float(took.group(1)) - (sent["end_ns"] - sent["start_ns"]) / 1e9) <= 0.006 and float(took.group(1)) >= 0.25
    assert f"question {QUESTION if capture == 'on' else '-'}" in shown
