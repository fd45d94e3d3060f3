"""Agent fleet for the collector E2E: a separate process that runs research agents exporting OTLP.

Run as ``python _agents.py --endpoint http://host:port/v1/traces --out runs.jsonl [...]``. It sets up the SDK
the way a fleet agent runs: ``configure(exporter=..., metrics="off")``, which means no metrics here
(``citetrace serve`` exports them) and sampling left to the collector, so every span is exported while the
summary still writes ``citetrace.summary.*`` on each root. An in-memory exporter records
what was sent, so the test knows each run's span ids and in-process summary independently of the collector.

Each finished run is one JSON line: run_id, trace_id, expected failure reasons and tool calls (hand-computed
for demo runs, by construction for synthetic ones), the span ids sent, and the root's summary attributes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any, TextIO

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import citetrace
from citetrace import names, research_run, traced_tool

SYNTH_AGENT = "synthetic-agent"
PAGE_TEXT = "A readable page. " * 30


@traced_tool(kind="search", name="synthetic_search")
def synthetic_search(query: str, *, urls: tuple[str, ...] = (), pause: float = 0.0) -> dict[str, Any]:
    """A search that returns the given URLs."""
    if pause:
        time.sleep(pause)
    return {"results": [{"url": u, "title": "t"} for u in urls]}


@traced_tool(kind="fetch", name="synthetic_fetch")
def synthetic_fetch(url: str, *, pause: float = 0.0) -> str:
    """A fetch that returns a readable page."""
    if pause:
        time.sleep(pause)
    return PAGE_TEXT


class Recorder:
    """Writes one JSON line per run, with the spans the in-memory exporter saw for its trace."""

    def __init__(self, memory: InMemorySpanExporter, out: TextIO) -> None:
        self.memory = memory
        self.out = out
        self.by_trace: dict[str, list[Any]] = {}

    def emit(self, run_id: str, trace_id: str, reasons: tuple[str, ...], calls: list[tuple[str, str]],
             source: str) -> None:
        for span in self.memory.get_finished_spans():
            self.by_trace.setdefault(f"{span.context.trace_id:032x}", []).append(span)
        self.memory.clear()
        spans = self.by_trace.pop(trace_id)
        root = next(s for s in spans if (s.attributes or {}).get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT)
        summary = {k: (list(v) if isinstance(v, tuple) else v) for k, v in (root.attributes or {}).items()
                   if k.startswith(names.SUMMARY_PREFIX)}
        line = {"run_id": run_id, "trace_id": trace_id, "reasons": list(reasons), "calls": calls, "source": source,
                "span_ids": sorted(f"{s.context.span_id:016x}" for s in spans), "in_process": summary}
        self.out.write(json.dumps(line) + "\n")
        self.out.flush()


def run_demo_rounds(recorder: Recorder, rounds: int) -> None:
    """Demo questions with every fault, with none, and all nine questions: hand-computed expectations."""
    from citetrace.demo import run_demo

    for _ in range(rounds):
        for questions, faults in ((None, None), (None, "none"), ("all", None)):
            for result in run_demo(questions, faults, summary_wait=0):
                expected = result.expected
                assert expected is not None, result.question
                calls = [(c.kind, c.status) for c in expected.calls]
                recorder.emit(result.run_id, result.trace_id, expected.failure_reasons, calls, "demo")


def synthetic_run(recorder: Recorder, i: int, *, fail: str | None, pause: float = 0.0) -> None:
    """One synthetic run: healthy, or failing by an empty search ("empty") or an agent error ("error")."""
    url = f"https://synthetic.example/{i}"
    calls: list[tuple[str, str]] = []
    reasons: tuple[str, ...] = ()
    try:
        with research_run(question=f"q{i}", agent=SYNTH_AGENT) as run:
            if fail == "empty":
                synthetic_search(f"nothing {i}", pause=pause)
                calls.append((names.TOOL_KIND_SEARCH, names.STATUS_EMPTY))
                reasons = (names.REASON_EMPTY_SEARCH,)
            synthetic_search(f"query {i}", urls=(url,), pause=pause)
            synthetic_fetch(url, pause=pause)
            calls += [(names.TOOL_KIND_SEARCH, names.STATUS_OK), (names.TOOL_KIND_FETCH, names.STATUS_OK)]
            run.record_answer(f"Answer [1].\n\n[1] {url}")
            if fail == "error":
                reasons = (names.REASON_AGENT_ERROR,)
                raise RuntimeError("synthetic agent failure")
    except RuntimeError:
        pass
    recorder.emit(run.id, run.trace_id, reasons, calls, "synthetic")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--endpoint", required=True, help="collector OTLP/HTTP traces URL")
    parser.add_argument("--out", required=True)
    parser.add_argument("--demo-rounds", type=int, default=0)
    parser.add_argument("--healthy", type=int, default=0, help="fast synthetic healthy runs")
    parser.add_argument("--errors", type=int, default=0, help="synthetic runs that raise (agent_error)")
    parser.add_argument("--stream-seconds", type=float, default=0.0, help="keep running slow runs this long")
    parser.add_argument("--start", type=int, default=0, help="first synthetic run number")
    args = parser.parse_args(argv)

    os.environ.setdefault("OTEL_BSP_SCHEDULE_DELAY", "200")  # export every 0.2 s instead of 5 s
    provider = TracerProvider(resource=Resource.create({"service.name": "e2e-agents"}))
    memory = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    # The documented fleet setup: metrics off => sampling "collector": every span goes to the exporter.
    citetrace.configure(tracer_provider=provider, exporter=OTLPSpanExporter(endpoint=args.endpoint),
                        store="memory://", metrics="off")
    with open(args.out, "a", encoding="utf-8") as out:
        recorder = Recorder(memory, out)
        run_demo_rounds(recorder, args.demo_rounds)
        n = args.start
        for _ in range(args.healthy):
            synthetic_run(recorder, n, fail=None)
            n += 1
        for _ in range(args.errors):
            synthetic_run(recorder, n, fail="error")
            n += 1
        deadline = time.monotonic() + args.stream_seconds
        while time.monotonic() < deadline:
            synthetic_run(recorder, n, fail="empty" if n % 3 == 0 else None, pause=0.15)
            n += 1
    provider.force_flush()
    provider.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
