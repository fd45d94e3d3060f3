"""A run whose spans were split between two summarizers (a `serve` restart, a tier-2 resize) or partly refused
by a cap: the part that holds the root must not summarise it from what arrived. Found by an operator's check
(hout3): the agent's tool spans reached `serve` before a restart, its root after, and the new `serve` counted a
clean run as citing URLs no search returned (a CitetraceUncitedCitation page on every restart with runs in flight).

Real parts: a real agent process (citetrace's own capture and summary, metrics off as in fleet mode) whose spans
are encoded by the OTLP exporter's own encoder, posted over HTTP to real `citetrace serve` processes on 127.0.0.1.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from ._wait import healthy, until
from .test_cli import CMD, free_port

AGENT = r"""
import sys
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
import citetrace
from citetrace import research_run, traced_tool

memory = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(memory))
tel = citetrace.configure(tracer_provider=provider, metrics="off", store="memory://")

@traced_tool(kind="search")
def search(query):
    return [{"url": "https://a.example/1"}, {"url": "https://a.example/2"}]

@traced_tool(kind="fetch")
def fetch(url):
    return "a readable page " * 20

with research_run("q", agent="split-scout") as run:
    search("largest reactor")
    fetch("https://a.example/1")
    fetch("https://a.example/2")
    run.record_answer("Kashiwazaki-Kariwa [1][2].\n\n[1] https://a.example/1\n[2] https://a.example/2")
tel.force_flush(10_000)
tools = [s for s in memory.get_finished_spans() if s.attributes.get("citetrace.tool.kind")]
[root] = [s for s in memory.get_finished_spans() if s.name.startswith("invoke_agent")]
searches = [s for s in tools if s.attributes["citetrace.tool.kind"] == "search"]
fetches = [s for s in tools if s.attributes["citetrace.tool.kind"] == "fetch"]
out = sys.argv[1]
open(out + "/tools.pb", "wb").write(encode_spans(tools).SerializeToString())
open(out + "/root.pb", "wb").write(encode_spans([root]).SerializeToString())
open(out + "/first_fetch_and_root.pb", "wb").write(encode_spans([searches[0], fetches[0], root]).SerializeToString())
tel.shutdown()
"""


def _agent_requests(tmp_path: Path) -> Path:
    """Run the agent once; its spans, encoded as OTLP/protobuf requests, are files in ``tmp_path``."""
    done = subprocess.run([sys.executable, "-c", AGENT, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return tmp_path


@contextmanager
def _serve(tmp_path: Path, name: str) -> Iterator[tuple[int, int, subprocess.Popen[str]]]:
    """A real serve (memory store, short grace); yields its OTLP port, metrics port and process."""
    port, metrics = free_port(), free_port()
    proc = subprocess.Popen(CMD + ["--port", str(port), "--metrics-port", str(metrics), "--store", "memory://",
                                   "--grace-seconds", "0.2"], stderr=subprocess.PIPE, text=True)
    try:
        until(lambda: healthy(port) or proc.poll() is not None, f"{name} to come up")
        assert proc.poll() is None, proc.communicate()[1]
        yield port, metrics, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=30)


def _post(port: int, body: bytes) -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/traces", data=body, method="POST",
                                     headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def _samples(metrics_port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as response:
        text = response.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _agent_series(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]) -> dict[str, float]:
    """The non-zero run-level counters of the test's agent (runs, failures, citations), by name and labels."""
    return {f"{name}{dict(labels)}": value for (name, labels), value in samples.items()
            if ("agent", "split-scout") in labels and name in _RUN_COUNTERS and value}


_RUN_COUNTERS = frozenset({"citetrace_runs_total", "citetrace_run_failures_total", "citetrace_uncited_citations_total",
                           "citetrace_unfetched_citations_total"})


def _evicted(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], reason: str) -> float:
    return samples.get(("citetrace_traces_evicted_total", (("reason", reason),)), 0.0)


def _assert_counted_incomplete(metrics: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Wait until serve finalised the root one way or the other; it must be one run counted incomplete, with no
    run, failure or citation series for the agent. Returns the samples."""
    until(lambda: _evicted(_samples(metrics), "incomplete") == 1.0 or _agent_series(_samples(metrics)),
          "serve to finalise the root")
    samples = _samples(metrics)
    assert _agent_series(samples) == {}, "a fragment was summarised as a run"
    assert _evicted(samples, "incomplete") == 1.0
    return samples


def test_a_root_that_arrives_after_a_restart_is_not_summarised_from_the_fragment(tmp_path: Path) -> None:
    """Tool spans to serve-1, which stops (SIGTERM); the root to serve-2. serve-1 counts the trace as in flight;
    serve-2 must not count a run citing URLs no search returned (the fabricated-citation page) but count the
    run as incomplete."""
    requests = _agent_requests(tmp_path)
    with _serve(tmp_path, "serve-1") as (port, _metrics, proc):
        _post(port, (requests / "tools.pb").read_bytes())
        proc.terminate()
        _out, err = proc.communicate(timeout=30)
        assert "1 trace(s) were in flight" in err, err
    with _serve(tmp_path, "serve-2") as (port, metrics, _proc):
        _post(port, (requests / "root.pb").read_bytes())
        _assert_counted_incomplete(metrics)


def test_a_run_missing_some_of_its_tool_spans_is_counted_incomplete_not_failed(tmp_path: Path) -> None:
    """The root and part of the run reach one serve (the rest went to an instance that stopped): the root's
    own summary (2 reads) says more than arrived (1), so the cited page that was read elsewhere is no
    `cited_not_fetched` page."""
    requests = _agent_requests(tmp_path)
    with _serve(tmp_path, "serve") as (port, metrics, _proc):
        _post(port, (requests / "first_fetch_and_root.pb").read_bytes())
        samples = _assert_counted_incomplete(metrics)
        # the tool calls that did arrive are still counted (they happened)
        calls = {dict(labels)["kind"]: value for (name, labels), value in samples.items()
                 if name == "citetrace_tool_calls_total" and ("agent", "split-scout") in labels}
        assert calls == {"search": 1.0, "fetch": 1.0}


def test_a_whole_run_is_summarised_as_before(tmp_path: Path) -> None:
    """Guard: every span at one serve, in two requests: summarised (a clean run), nothing incomplete."""
    requests = _agent_requests(tmp_path)
    with _serve(tmp_path, "serve") as (port, metrics, _proc):
        _post(port, (requests / "tools.pb").read_bytes())
        _post(port, (requests / "root.pb").read_bytes())
        until(lambda: _agent_series(_samples(metrics)), "serve to finalise the run")
        samples = _samples(metrics)
        assert _agent_series(samples) == {"citetrace_runs_total{'agent': 'split-scout', 'outcome': 'ok'}": 1.0}
        assert _evicted(samples, "incomplete") == 0.0
