"""What the summary processor costs, next to the spans it processes, measured in one run.

Workload: research-run traces of one ``invoke_agent`` root, 8 searches (10 result URLs each) and 4 fetches,
built with hand-written SDK spans carrying the attributes capture writes (so capture's own cost is not in
the baseline, which would flatter the ratio). The run-end hooks are called before the root ends, as
``research_run`` does.

Configurations, interleaved round by round (median of rounds):
  bare        TracerProvider with no processor (the SDK span object alone)
  baseline    BatchSpanProcessor + no-op exporter (what a plain agent pays to export its spans)
  summary     TraceSummaryProcessor with metrics + sampling, exporting kept traces to a no-op exporter
  summary+bsp TraceSummaryProcessor without exporter (metrics only) next to the BatchSpanProcessor

URL pools: ``pool`` draws result URLs from 200 pages (agents see the same pages again and again);
``unique`` makes every URL new (worst case for the canonical-URL key).

Spans come either hand-written (``hand``: the strict baseline, the SDK span alone) or from citetrace's own
capture (``capture``: ``research_run`` + ``@traced_tool``, what an instrumented agent pays). Times are CPU
time of the whole process (all threads), so other jobs on a shared machine do not distort the ratios.

Run:  .venv/bin/python benchmarks/bench_summary.py [--traces 200] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import gc
import random
import statistics
import time
import tracemalloc
from typing import Any, Callable, Sequence

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from prometheus_client import CollectorRegistry

from citetrace import _telemetry, names
from citetrace.config import load_settings
from citetrace.store import MemoryStore
from citetrace.summary import TraceSummaryProcessor
from citetrace._urls import clear_key_cache as clear_cache

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import CountingExporter  # noqa: E402  (the benchmarks' shared no-op exporter)

SEARCHES, FETCHES, URLS = 8, 4, 10
SPANS_PER_TRACE = 1 + SEARCHES + FETCHES


class NoOpExporter(CountingExporter):
    """Accepts and forgets spans; counts them so the benchmark can check the sampler ran."""

    @property
    def count(self) -> int:
        return self.exported


class Workload:
    """Pre-built attributes so every configuration does exactly the same span work."""

    def __init__(self, traces: int, unique: bool, seed: int = 1) -> None:
        rng = random.Random(seed)
        counter = iter(range(10**9))

        def url() -> str:
            n = next(counter) if unique else rng.randrange(200)
            return f"https://site{n % 37}.example.org/articles/{n}/page-title-{n}"

        self.traces = []
        for t in range(traces):
            searches = []
            for s in range(SEARCHES):
                urls = tuple(url() for _ in range(URLS))
                searches.append({
                    names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL, names.GEN_AI_TOOL_NAME: "web_search",
                    names.GEN_AI_TOOL_TYPE: names.TOOL_TYPE_FUNCTION, names.TOOL_KIND: names.TOOL_KIND_SEARCH,
                    names.TOOL_STATUS: names.STATUS_OK, names.RESULT_COUNT: URLS, names.URLS_RETURNED: urls,
                    names.QUERY_HASH: f"h{t}-{s}", names.RUN_ID: f"run-{t}", names.GEN_AI_AGENT_NAME: "bench",
                })
            fetches = [{
                names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL, names.GEN_AI_TOOL_NAME: "read_page",
                names.GEN_AI_TOOL_TYPE: names.TOOL_TYPE_FUNCTION, names.TOOL_KIND: names.TOOL_KIND_FETCH,
                names.TOOL_STATUS: names.STATUS_OK, names.URL_FULL: searches[f][names.URLS_RETURNED][0],
                names.RESULT_SIZE: 5000, names.RUN_ID: f"run-{t}", names.GEN_AI_AGENT_NAME: "bench",
            } for f in range(FETCHES)]
            citations = tuple(f[names.URL_FULL] for f in fetches)
            self.traces.append((t, searches, fetches, citations))

    finalize_s = 0.0
    """CPU spent from the run-end hooks to the root's end() returning (summary, attributes, decision)."""

    def run(self, tracer: trace.Tracer, hooks: bool) -> None:
        for t, searches, fetches, citations in self.traces:
            root = tracer.start_span("invoke_agent bench", attributes={
                names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "bench"})
            root.set_attribute(names.RUN_ID, f"run-{t}")
            ctx = trace.set_span_in_context(root)
            for attrs in searches:
                tracer.start_span("execute_tool web_search", context=ctx, attributes=attrs).end()
            for attrs in fetches:
                tracer.start_span("execute_tool read_page", context=ctx, attributes=attrs).end()
            root.set_attribute(names.CITATIONS, citations)
            t0 = time.process_time()
            if hooks:
                tid = root.get_span_context().trace_id
                for hook in _telemetry.current().hooks.run_end.items:
                    extra = hook(root, tid)
                    if extra:
                        root.set_attributes(dict(extra))
            root.end()
            self.finalize_s += time.process_time() - t0


class CaptureWorkload:
    """The same traces made by citetrace's own capture (``research_run`` + ``@traced_tool``): what an
    instrumented agent really pays per span, including result-URL redaction and the run store."""

    def __init__(self, traces: int, unique: bool) -> None:
        from citetrace import research_run, traced_tool

        self._inner = Workload(traces, unique)
        self._run = research_run
        results: dict[str, list[dict[str, str]]] = {}
        for t, searches, _, _ in self._inner.traces:
            for attrs in searches:
                results[str(attrs[names.QUERY_HASH])] = [{"url": u} for u in attrs[names.URLS_RETURNED]]
        text = "page text " * 60

        @traced_tool(kind="search", name="web_search")
        def web_search(query: str) -> list[dict[str, str]]:
            return results[query]

        @traced_tool(kind="fetch", name="read_page")
        def read_page(url: str) -> str:
            return text

        self._search, self._fetch = web_search, read_page

    def run(self, tracer: trace.Tracer | None, hooks: bool) -> None:
        for t, searches, fetches, citations in self._inner.traces:
            with self._run("question", agent="bench") as run:
                for attrs in searches:
                    self._search(str(attrs[names.QUERY_HASH]))
                for attrs in fetches:
                    self._fetch(str(attrs[names.URL_FULL]))
                run.record_answer("Findings [1].\n\n" + "\n".join(f"[{i}] {u}" for i, u in enumerate(citations, 1)))


def make(config: str) -> tuple[TracerProvider, Callable[[], Any]]:
    provider = TracerProvider()
    settings = load_settings(metrics="embedded")
    if config == "baseline" or config == "summary+bsp":
        provider.add_span_processor(BatchSpanProcessor(NoOpExporter(), max_queue_size=100_000))
    if config == "summary":
        provider.add_span_processor(TraceSummaryProcessor(
            settings=settings, registry=CollectorRegistry(), exporter=NoOpExporter()))
    if config == "summary+bsp":
        provider.add_span_processor(TraceSummaryProcessor(settings=settings, registry=CollectorRegistry()))
    return provider, provider.shutdown


def time_config(config: str, work: Workload | CaptureWorkload) -> float:
    """Seconds to create every trace and drain every processor."""
    provider, close = make(config)
    tracer = provider.get_tracer("bench")
    if isinstance(work, CaptureWorkload):
        _telemetry.reset(load_settings(), tracer_provider=provider, store=MemoryStore())
    clear_cache()
    gc.collect()
    start = time.process_time()  # CPU of every thread of this process: robust to other jobs on the machine
    work.run(tracer, hooks=config.startswith("summary"))
    provider.force_flush()
    elapsed = time.process_time() - start
    close()
    return elapsed


def memory_per_trace(config: str, traces: int) -> float:
    """Bytes held per trace whose root has not ended yet (children ended), above the bare SDK."""
    provider, close = make(config)
    tracer = provider.get_tracer("bench")
    work = Workload(traces, unique=True, seed=3)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    roots = []
    for t, searches, fetches, _ in work.traces:
        root = tracer.start_span("invoke_agent bench", attributes={
            names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "bench"})
        ctx = trace.set_span_in_context(root)
        for attrs in searches + fetches:
            tracer.start_span("execute_tool", context=ctx, attributes=attrs).end()
        roots.append(root)
    provider.force_flush()
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    for root in roots:
        root.end()
    close()
    return held / traces


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--traces", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    configs = ["bare", "baseline", "summary", "summary+bsp"]
    spans = args.traces * SPANS_PER_TRACE
    for spans_by in ("hand", "capture"):
        for pool in ("pool", "unique"):
            work: Workload | CaptureWorkload = (Workload if spans_by == "hand" else CaptureWorkload)(
                args.traces, unique=pool == "unique")
            times: dict[str, list[float]] = {c: [] for c in configs}
            finals: dict[str, list[float]] = {c: [] for c in configs}
            time_config("summary", work)  # warm-up
            for _ in range(args.rounds):
                for config in configs:
                    if isinstance(work, Workload):
                        work.finalize_s = 0.0
                    times[config].append(time_config(config, work))
                    if isinstance(work, Workload):
                        finals[config].append(work.finalize_s)
            base = statistics.median(times["baseline"])
            print(f"\n## spans by {spans_by}, URLs {pool} ({args.traces} traces x {SPANS_PER_TRACE} spans, "
                  f"CPU time, median of {args.rounds} rounds)")
            print("| configuration | us per span | us per trace | x baseline | added vs baseline | root end (us) |")
            print("|---|---:|---:|---:|---:|---:|")
            for config in configs:
                med = statistics.median(times[config])
                fin = f"{statistics.median(finals[config]) / args.traces * 1e6:.0f}" if finals[config] else "-"
                print(f"| {config} | {med / spans * 1e6:.1f} | {med / args.traces * 1e6:.0f} | {med / base:.2f} |"
                      f" {(med - base) / base * 100:+.0f} % | {fin} |")
    n = max(200, args.traces)
    print(f"\n## Memory per trace in flight (root open, {SPANS_PER_TRACE - 1} children ended, {n} traces)")
    print("| configuration | bytes per trace |")
    print("|---|---:|")
    for config in ("bare", "summary", "summary+bsp"):
        print(f"| {config} | {memory_per_trace(config, n):,.0f} |")


if __name__ == "__main__":
    main()
