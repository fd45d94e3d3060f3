"""Prometheus metrics of tool calls and finished runs, in one place so every exporter uses the same names.

The in-process processor and ``citetrace serve`` both record through ``SummaryMetrics``. Metrics live in an
explicit registry (never the global one). They are created unregistered and exposed through one collector
that drops the ``_created`` series, so citetrace does not flip prometheus_client's process-wide switch.
Label values come only from closed sets; ``tool`` and ``agent`` overflow to ``names.TOOL_OVERFLOW``.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Iterable, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics import MetricWrapperBase
from prometheus_client.registry import Collector

from citetrace import names
from citetrace._forksafe import reset_after_fork
from citetrace.store import BufferedStore, WriteStats
from citetrace.metrics._aggregate import AggregateCollector, CounterAgg, HistogramAgg, Labels
from citetrace.summary import TraceSummary, tool_status

__all__ = ["SummaryMetrics", "COUNT_BUCKETS", "TOOL_SECONDS_BUCKETS", "RUN_SECONDS_BUCKETS"]

COUNT_BUCKETS = (0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0)
TOOL_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
RUN_SECONDS_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)

_KINDS = frozenset(names.TOOL_KINDS)
_STATUSES = frozenset(names.TOOL_STATUSES)
_UNREADABLE = frozenset(names.UNREADABLE_REASONS)
_by_registry: "weakref.WeakKeyDictionary[CollectorRegistry, SummaryMetrics]" = weakref.WeakKeyDictionary()
_by_registry_lock = threading.Lock()


class _NoCreated(Collector):
    """Exposes a fixed set of metrics without their ``_created`` samples."""

    def __init__(self, metrics: Iterable[MetricWrapperBase]) -> None:
        self._metrics = tuple(metrics)

    def describe(self) -> Iterable[Any]:
        for metric in self._metrics:
            yield from metric.describe()

    def collect(self) -> Iterable[Any]:
        for metric in self._metrics:
            for family in metric.collect():
                family.samples = [s for s in family.samples if not s.name.endswith("_created")]
                yield family


class _StoreWrites(Collector):
    """The run store's write queue, read from each watched ``BufferedStore`` at scrape time (no state here)."""

    def __init__(self) -> None:
        self._stores: "weakref.WeakSet[BufferedStore]" = weakref.WeakSet()

    def add(self, store: BufferedStore) -> None:
        self._stores.add(store)

    def describe(self) -> Iterable[Any]:
        return self._families(WriteStats(0, 0, {}))

    def collect(self) -> Iterable[Any]:
        queued = pending = 0
        lost = dict.fromkeys(names.STORE_LOST_REASONS, 0)
        for store in list(self._stores):
            stats = store.stats()
            queued += stats.queued
            pending += stats.pending
            for reason, n in stats.lost.items():
                lost[reason] = lost.get(reason, 0) + n
        return self._families(WriteStats(queued, pending, lost))

    @staticmethod
    def _families(stats: WriteStats) -> list[Any]:
        queued = CounterMetricFamily(names.counter_base(names.METRIC_STORE_WRITES_QUEUED_TOTAL),
                                     "Run-store writes that met a locked store and were queued.", value=stats.queued)
        lost = CounterMetricFamily(names.counter_base(names.METRIC_STORE_WRITES_LOST_TOTAL),
                                   "Run-store writes given up for good, by reason.", labels=[names.LABEL_REASON])
        for reason in names.STORE_LOST_REASONS:
            lost.add_metric([reason], stats.lost.get(reason, 0))
        depth = GaugeMetricFamily(names.METRIC_STORE_QUEUE_DEPTH, "Run-store writes waiting for a locked store.",
                                  value=stats.pending)
        return [queued, lost, depth]


class _Capped:
    """A label value set that stops growing at ``limit`` distinct values."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._seen: set[str] = set()
        self._lock = threading.Lock()
        reset_after_fork(self, _Capped._fresh_lock)

    def _fresh_lock(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, value: str) -> str:
        if value in self._seen:
            return value
        with self._lock:
            if len(self._seen) < self._limit:
                self._seen.add(value)
                return value
        return names.TOOL_OVERFLOW


class SummaryMetrics:
    """Every citetrace summary metric in one registry. Use ``for_registry`` to share one per registry.

    Tool-call and per-run metrics are hot-path aggregates (``_aggregate``); the rare self-metrics
    (``evicted``, ``spans_dropped``, ``span_errors``, ``store_errors``, ``sampled``) are prometheus_client
    metrics that callers may increment directly.
    """

    def __init__(self, registry: CollectorRegistry, *, max_tool_names: int = 50) -> None:
        agent, tool, kind, status = names.LABEL_AGENT, names.LABEL_TOOL, names.LABEL_KIND, names.LABEL_STATUS
        cb = names.counter_base
        self._runs = CounterAgg(cb(names.METRIC_RUNS_TOTAL), "Finished research runs.", (agent, names.LABEL_OUTCOME))
        self._failures = CounterAgg(cb(names.METRIC_RUN_FAILURES_TOTAL), "Failed runs, once per reason that applied.",
                                    (agent, names.LABEL_REASON))
        self._tool_calls = CounterAgg(cb(names.METRIC_TOOL_CALLS_TOTAL), "Tool calls by outcome.",
                                      (agent, tool, kind, status))
        self._tool_seconds = HistogramAgg(names.METRIC_TOOL_CALL_DURATION_SECONDS,
                                          "Tool-call latency (trace-id exemplars).", (agent, tool, kind),
                                          TOOL_SECONDS_BUCKETS)
        per_run: list[tuple[str, str, str, tuple[float, ...]]] = [
            ("searches", names.METRIC_RUN_SEARCHES, "Searches per run.", COUNT_BUCKETS),
            ("reads", names.METRIC_RUN_READS, "Reads (fetches) per run.", COUNT_BUCKETS),
            ("repeat_queries", names.METRIC_RUN_REPEAT_QUERIES, "Repeated queries per run.", COUNT_BUCKETS),
            ("distinct_urls_seen", names.METRIC_RUN_DISTINCT_URLS, "Distinct URLs in search results per run.",
             COUNT_BUCKETS),
            ("citations", names.METRIC_RUN_CITATIONS, "Citations per run.", COUNT_BUCKETS),
            ("slowest_ms", names.METRIC_RUN_SLOWEST_CALL_SECONDS, "Slowest tool call of each run.",
             TOOL_SECONDS_BUCKETS),
            ("total_ms", names.METRIC_RUN_DURATION_SECONDS, "Run duration.", RUN_SECONDS_BUCKETS),
        ]
        self._per_run = [(field, field.endswith("_ms"), HistogramAgg(metric, doc, (agent,), buckets))
                         for field, metric, doc, buckets in per_run]
        self._uncited = CounterAgg(cb(names.METRIC_UNCITED_CITATIONS_TOTAL), "Cited URLs that no search returned.",
                                   (agent,))
        self._unfetched = CounterAgg(cb(names.METRIC_UNFETCHED_CITATIONS_TOTAL), "Cited URLs the run never fetched.",
                                     (agent,))
        self._unreadable = CounterAgg(cb(names.METRIC_UNREADABLE_READS_TOTAL),
                                      "Fetches whose content gave no text, by why (a PDF without text, a consent wall...).",
                                      (agent, names.LABEL_REASON))
        self._hot = AggregateCollector([self._runs, self._failures, self._tool_calls, self._tool_seconds,
                                        *(h for _, _, h in self._per_run), self._uncited, self._unfetched,
                                        self._unreadable])
        self.in_flight = Gauge(names.METRIC_TRACES_IN_FLIGHT, "Traces with state held by the summarizer.",
                               registry=None)
        self.evicted = Counter(cb(names.METRIC_TRACES_EVICTED_TOTAL), "Trace states evicted before their root ended.",
                               (names.LABEL_EVICT_REASON,), registry=None)
        self.spans_dropped = Counter(cb(names.METRIC_SPANS_DROPPED_TOTAL), "Spans dropped by a bound.",
                                     (names.LABEL_DROP_REASON,), registry=None)
        self.span_errors = Counter(cb(names.METRIC_SPAN_PROCESSING_ERRORS_TOTAL),
                                   "Internal errors while processing spans (caught).", registry=None)
        self.store_errors = Counter(cb(names.METRIC_STORE_WRITE_ERRORS_TOTAL), "Run-store writes that failed (caught).",
                                    registry=None)
        self.capture_errors = Counter(cb(names.METRIC_CAPTURE_ERRORS_TOTAL),
                                      "Telemetry failures swallowed inside tool wrappers and run-end hooks.",
                                      registry=None)
        self.sampled = Counter(cb(names.METRIC_TRACES_SAMPLED_TOTAL), "In-process sampling decisions.",
                               (names.LABEL_DECISION,), registry=None)
        for reason in names.EVICT_REASONS:
            self.evicted.labels(reason)
        for reason in names.DROP_REASONS:
            self.spans_dropped.labels(reason)
        for decision in names.DECISIONS:
            self.sampled.labels(decision)
        self._tool_label = _Capped(max_tool_names)
        self._agent_label = _Capped(max_tool_names)
        self._labels: dict[tuple[str, str, str, str], tuple[Labels, Labels]] = {}
        self._rare = _NoCreated([self.in_flight, self.evicted, self.spans_dropped, self.span_errors,
                                 self.store_errors, self.capture_errors, self.sampled])
        self._stores = _StoreWrites()
        registry.register(self._hot)
        registry.register(self._rare)
        registry.register(self._stores)
        self.registry = registry

    @classmethod
    def for_registry(cls, registry: CollectorRegistry, *, max_tool_names: int = 50) -> SummaryMetrics:
        """The one ``SummaryMetrics`` of a registry (created on first use)."""
        with _by_registry_lock:
            metrics = _by_registry.get(registry)
            if metrics is None:
                metrics = cls(registry, max_tool_names=max_tool_names)
                _by_registry[registry] = metrics
            return metrics

    def agent_label(self, agent: str | None) -> str:
        """The ``agent`` label for a name (capped; empty means unknown)."""
        return self._agent_label(agent) if agent else names.AGENT_UNKNOWN

    def watch_store(self, store: BufferedStore) -> None:
        """Expose ``store``'s queued and lost writes and its queue depth (read at scrape time)."""
        self._stores.add(store)

    def set_in_flight(self, source: Callable[[], float]) -> None:
        """Read ``citetrace_traces_in_flight`` from ``source`` at scrape time."""
        self.in_flight.set_function(source)

    def observe_tool(
        self, agent: str, tool: str, kind: str, status: str, seconds: float, trace_id: int | None = None
    ) -> None:
        """Count one tool call and observe its duration (with a trace-id exemplar when given)."""
        key = (agent, tool, kind, status)
        labels = self._labels.get(key)
        if labels is None:
            if kind not in _KINDS:
                return
            if status not in _STATUSES:
                status = names.STATUS_ERROR
            agent_l, tool_l = self.agent_label(agent), self._tool_label(tool) if tool else names.AGENT_UNKNOWN
            if len(self._labels) >= 4096:  # raw names past the cap must not grow this cache forever
                self._labels.clear()
            labels = self._labels[key] = ((agent_l, tool_l, kind, status), (agent_l, tool_l, kind))
        with self._hot.lock:
            self._tool_calls.inc(labels[0])
            self._tool_seconds.observe(labels[1], seconds, trace_id or 0)

    def observe_tool_span(
        self,
        attributes: Mapping[str, Any],
        duration_ns: int,
        status_error: bool,
        trace_id: int | None = None,
        default_agent: str | None = None,
    ) -> bool:
        """Record a finished span if it is a tool span (``citetrace.tool.kind`` set); return whether it was."""
        kind = attributes.get(names.TOOL_KIND)
        if kind not in _KINDS:
            return False
        agent = attributes.get(names.GEN_AI_AGENT_NAME)
        tool = attributes.get(names.GEN_AI_TOOL_NAME)
        agent_name = agent if isinstance(agent, str) and agent else (default_agent or "")
        self.observe_tool(
            agent_name,
            tool if isinstance(tool, str) else "",
            str(kind),
            tool_status(attributes, status_error),
            max(0, duration_ns) / 1e9,
            trace_id,
        )
        unreadable = attributes.get(names.CONTENT_UNREADABLE)
        if unreadable is not None and kind == names.TOOL_KIND_FETCH:
            self.observe_unreadable(agent_name, unreadable)
        return True

    def observe_unreadable(self, agent: str, reason: Any) -> None:
        """Count one fetch whose content gave no text. Only ``names.UNREADABLE_REASONS`` are label values (a
        value from elsewhere is not counted: the label set stays closed)."""
        if reason in _UNREADABLE:
            key = (self.agent_label(agent), str(reason))
            with self._hot.lock:
                self._unreadable.inc(key)

    def observe_summary(self, summary: TraceSummary) -> None:
        """Record one finished run."""
        agent = (self.agent_label(summary.agent),)
        outcome = names.OUTCOME_FAILED if summary.failed else names.OUTCOME_OK
        with self._hot.lock:
            self._runs.inc((agent[0], outcome))
            for reason in summary.failure_reasons:
                self._failures.inc((agent[0], reason))
            for field, in_ms, histogram in self._per_run:
                value = float(getattr(summary, field))
                histogram.observe(agent, value / 1000.0 if in_ms else value)
            self._uncited.inc(agent, summary.uncited_from_retrieval)
            self._unfetched.inc(agent, summary.cited_not_fetched)
