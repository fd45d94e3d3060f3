"""How the Python side runs a shared summary vector: through ``citetrace serve``'s path and through the embedded
``TraceSummaryProcessor``, producing what the vector's ``expected`` holds (and what the Go connector's
``go test`` compares against the same file).

A vector is a JSON object: ``config`` (thresholds and bounds), ``batches`` (each ``{"at": seconds, "request":
OTLP/JSON ExportTraceServiceRequest}``), ``embedded`` (whether the in-process processor's semantics apply) and
``expected`` (``summaries`` in finalisation order, ``metrics`` as ``name{label="v",...}`` -> value, ``refused``).

The clock is the vector's: before each batch the runner moves it to the batch's ``at`` and finalises what is due;
after the last it moves past the grace period, then past the TTL, finalising each time.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable

from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.config import load_settings
from citetrace.serve._assembler import Assembler, Finished
from citetrace.serve._decode import WireSpan, decode_body
from citetrace.serve._schema import SUMMARY_INPUTS
from citetrace.summary import SummaryMetrics, Thresholds, TraceSummary, TraceSummaryProcessor

VECTORS = Path(__file__).with_name("summary")
"""The committed vectors (also read by collector/citetracesummary/vectors_test.go)."""

DEFAULT_CONFIG: dict[str, Any] = {
    "max_searches": 10, "max_failed_reads": 1, "sample_percent": 2.0, "sample_salt": "citetrace",
    "max_traces": 10_000, "max_spans_per_trace": 1_000, "max_roots_per_trace": 16, "max_urls_per_trace": 20_000,
    "max_held_bytes": 256 * 1024 * 1024, "max_tool_names": 50, "grace_seconds": 2.0, "ttl_seconds": 600.0,
}
"""The defaults of serve and of the connector; a vector's ``config`` overrides some."""

HOT_METRICS = (
    names.METRIC_RUNS_TOTAL, names.METRIC_RUN_FAILURES_TOTAL, names.METRIC_TOOL_CALLS_TOTAL,
    names.METRIC_TOOL_CALL_DURATION_SECONDS, names.METRIC_RUN_SEARCHES, names.METRIC_RUN_READS,
    names.METRIC_RUN_REPEAT_QUERIES, names.METRIC_RUN_DISTINCT_URLS, names.METRIC_RUN_CITATIONS,
    names.METRIC_RUN_SLOWEST_CALL_SECONDS, names.METRIC_RUN_DURATION_SECONDS, names.METRIC_UNCITED_CITATIONS_TOTAL,
    names.METRIC_UNFETCHED_CITATIONS_TOTAL, names.METRIC_UNREADABLE_READS_TOTAL,
)
"""The summary's own metrics: the same in every path."""
SELF_METRICS = (names.METRIC_TRACES_EVICTED_TOTAL, names.METRIC_SPANS_DROPPED_TOTAL,
                names.METRIC_SPAN_PROCESSING_ERRORS_TOTAL)
"""The bounds' counters of serve and the connector (the embedded processor's bounds are other ones)."""
LEDGER_METRICS = (
    names.METRIC_LEDGER_ITERATIONS_TOTAL, names.METRIC_LEDGER_FLAT_ITERATIONS_TOTAL, names.METRIC_LEDGER_TOOL_CALLS_TOTAL,
    names.METRIC_LEDGER_NEW_EVIDENCE_TOTAL, names.METRIC_LEDGER_STATUS_FLIPS_TOTAL, names.METRIC_LEDGER_UNRESOLVED,
    names.METRIC_LEDGER_STOPS_TOTAL,
)
"""The claim ledger's metrics, which serve and the connector read from iteration spans (in-process, the revision
controller records them itself)."""


def load(path: Path) -> dict[str, Any]:
    """One vector file."""
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def all_vectors() -> list[Path]:
    """Every committed vector, sorted."""
    return sorted(VECTORS.glob("*.json"))


def config_of(case: dict[str, Any]) -> dict[str, Any]:
    """The vector's configuration over the defaults."""
    return {**DEFAULT_CONFIG, **case.get("config", {})}


def _le(value: str) -> str:
    number = float(value)
    return "+Inf" if math.isinf(number) else repr(number)


def metric_samples(registry: CollectorRegistry, families: Iterable[str]) -> dict[str, float]:
    """``name{label="v",...}`` -> value for every sample of the named families (labels sorted, ``le`` as repr)."""
    wanted = {names.counter_base(f) for f in families} | set(families)
    out: dict[str, float] = {}
    for family in registry.collect():
        if family.name not in wanted:
            continue
        for sample in family.samples:
            if sample.name.endswith("_created"):
                continue
            labels = dict(sample.labels)
            if "le" in labels:
                labels["le"] = _le(labels["le"])
            inner = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
            out[f"{sample.name}{{{inner}}}"] = float(sample.value)
    return out


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run_serve(case: dict[str, Any]) -> dict[str, Any]:
    """The vector through serve's decoder and assembler: summaries, metrics and refused spans."""
    cfg = config_of(case)
    registry = CollectorRegistry()
    metrics = SummaryMetrics(registry, max_tool_names=cfg["max_tool_names"])
    clock = _Clock()
    assembler = Assembler(
        metrics=metrics, thresholds=_thresholds(cfg), max_traces=cfg["max_traces"],
        max_spans_per_trace=cfg["max_spans_per_trace"], max_roots_per_trace=cfg["max_roots_per_trace"],
        max_urls_per_trace=cfg["max_urls_per_trace"], max_held_bytes=cfg["max_held_bytes"],
        grace_seconds=cfg["grace_seconds"], ttl_seconds=cfg["ttl_seconds"], clock=clock,
    )
    summaries: list[dict[str, Any]] = []

    def report(finished: list[Finished]) -> None:  # what serve's service does with each (_service._report)
        for summary, _run in finished:
            metrics.observe_summary(summary)
            summaries.append(summary.to_dict())

    refused = {names.REJECT_INVALID_SPAN: 0, names.REJECT_ATTRIBUTE_TYPE: 0}
    for batch in case["batches"]:
        clock.now = float(batch["at"])
        report(assembler.finalize_due())
        decoded = decode_body(json.dumps(batch["request"]).encode(), "application/json", SUMMARY_INPUTS)
        refused[names.REJECT_ATTRIBUTE_TYPE] += decoded.mistyped
        refused[names.REJECT_INVALID_SPAN] += decoded.rejected - decoded.mistyped
        report(assembler.add(decoded.spans).finished)
    clock.now += cfg["grace_seconds"] + 1
    report(assembler.finalize_due())
    clock.now += cfg["ttl_seconds"] + 1
    report(assembler.finalize_due())
    return {"summaries": summaries, "metrics": metric_samples(registry, HOT_METRICS + SELF_METRICS + LEDGER_METRICS),
            "refused": refused}


def _thresholds(cfg: dict[str, Any]) -> Thresholds:
    return Thresholds(max_searches=cfg["max_searches"], max_failed_reads=cfg["max_failed_reads"],
                      sample_percent=cfg["sample_percent"], sample_salt=cfg["sample_salt"])


class _Summaries:
    """A store that keeps only the summaries written to it, in order (what the processor reports)."""

    def __init__(self) -> None:
        self.written: list[dict[str, Any]] = []

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: Any = None) -> None:
        self.written.append(summary)


def _readable(span: WireSpan, service: str | None) -> Any:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, Status, StatusCode, TraceFlags

    ctx = SpanContext(span.trace_id, span.span_id, is_remote=False, trace_flags=TraceFlags(1))
    parent = SpanContext(span.trace_id, span.parent_span_id, is_remote=False) if span.parent_span_id else None
    return ReadableSpan(
        name=span.name, context=ctx, parent=parent, attributes=span.attributes,
        status=Status(StatusCode.ERROR if span.status_error else StatusCode.UNSET),
        start_time=span.start_ns, end_time=span.end_ns,
        resource=Resource({"service.name": service} if service else {}),
        instrumentation_scope=InstrumentationScope(names.INSTRUMENTATION_SCOPE),
    )


def run_embedded(case: dict[str, Any]) -> dict[str, Any]:
    """The vector through the in-process ``TraceSummaryProcessor`` (spans fed as they end): summaries and the
    summary's own metrics."""
    cfg = config_of(case)
    settings = load_settings(
        environ={}, max_searches=cfg["max_searches"], max_failed_reads=cfg["max_failed_reads"],
        sample_percent=cfg["sample_percent"], sample_salt=cfg["sample_salt"], max_tool_names=cfg["max_tool_names"],
    )
    registry = CollectorRegistry()
    store = _Summaries()
    processor = TraceSummaryProcessor(settings=settings, store=store, registry=registry)  # type: ignore[arg-type]
    try:
        spans: list[Any] = []
        for batch in case["batches"]:
            decoded = decode_body(json.dumps(batch["request"]).encode(), "application/json")
            spans += [_readable(s, s.service_name) for s in decoded.spans]
        for span in sorted(spans, key=lambda s: s.end_time):
            processor.on_end(span)
        processor.force_flush()
    finally:
        processor.shutdown()
    return {"summaries": store.written, "metrics": metric_samples(registry, HOT_METRICS)}


def hot_only(metrics: dict[str, float]) -> dict[str, float]:
    """The samples of the summary's own metrics (what every path must agree on)."""
    prefixes = tuple(names.counter_base(m) for m in HOT_METRICS)
    return {k: v for k, v in metrics.items() if k.startswith(prefixes)}


def by_run(summaries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Summaries in a stable order (the embedded processor reports at root end, serve after the grace period)."""
    return sorted(summaries, key=lambda s: (s["trace_id"], s["run_id"], json.dumps(s, sort_keys=True)))
