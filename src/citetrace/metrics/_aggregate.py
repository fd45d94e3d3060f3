"""Hot-path counters and histograms: plain dicts under one lock, turned into metric families at scrape time.

prometheus_client's metric objects take a lock per value and validate exemplars on every observation,
which cost more per tool span than the summary itself (benchmarks/bench_summary.py). These aggregates do
one lock, one dict lookup and a bisect per observation, keep exemplars as raw trace-id ints, and format
everything only when Prometheus scrapes. The exposition is the same classic counters and histograms.
"""

from __future__ import annotations

import bisect
import threading
import time
from typing import Iterable, Sequence

from prometheus_client.metrics_core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Exemplar

from citetrace._forksafe import reset_after_fork

__all__ = ["CounterAgg", "HistogramAgg", "AggregateCollector"]

Labels = tuple[str, ...]


class CounterAgg:
    """A labelled counter. ``name`` is the exposed name without ``_total``."""

    def __init__(self, name: str, doc: str, labelnames: Sequence[str]) -> None:
        self.name, self.doc, self.labelnames = name, doc, tuple(labelnames)
        self.values: dict[Labels, float] = {}

    def inc(self, labels: Labels, amount: float = 1.0) -> None:
        """Add ``amount``; the caller holds the collector's lock."""
        self.values[labels] = self.values.get(labels, 0.0) + amount

    def family(self) -> Metric:
        fam = CounterMetricFamily(self.name, self.doc, labels=self.labelnames)
        for labels, value in sorted(self.values.items()):
            fam.add_metric(labels, value)
        return fam


class _Series:
    __slots__ = ("counts", "total", "exemplars")

    def __init__(self, n: int) -> None:
        self.counts = [0] * n
        self.total = 0.0
        self.exemplars: list[tuple[int, float, float] | None] = [None] * n


class HistogramAgg:
    """A labelled classic histogram whose buckets keep the latest trace-id exemplar."""

    def __init__(self, name: str, doc: str, labelnames: Sequence[str], buckets: Sequence[float]) -> None:
        self.name, self.doc, self.labelnames = name, doc, tuple(labelnames)
        self.bounds = [float(b) for b in buckets] + [float("inf")]
        self._les = ["+Inf" if b == float("inf") else repr(b) for b in self.bounds]
        self.series: dict[Labels, _Series] = {}

    def observe(self, labels: Labels, value: float, trace_id: int = 0) -> None:
        """Count ``value`` in its bucket; the caller holds the collector's lock."""
        series = self.series.get(labels)
        if series is None:
            series = self.series[labels] = _Series(len(self.bounds))
        i = bisect.bisect_left(self.bounds, value)
        series.counts[i] += 1
        series.total += value
        if trace_id:
            series.exemplars[i] = (trace_id, value, time.time())

    def family(self) -> Metric:
        fam = HistogramMetricFamily(self.name, self.doc, labels=self.labelnames)
        for labels, series in sorted(self.series.items()):
            buckets: list[tuple[str, float] | tuple[str, float, Exemplar]] = []
            acc = 0
            for le, count, ex in zip(self._les, series.counts, series.exemplars):
                acc += count
                if ex is None:
                    buckets.append((le, float(acc)))
                else:
                    buckets.append((le, float(acc), Exemplar({"trace_id": f"{ex[0]:032x}"}, ex[1], ex[2])))
            fam.add_metric(labels, buckets, series.total)
        return fam


class AggregateCollector(Collector):
    """Exposes a fixed set of aggregates; ``lock`` guards every update and every scrape."""

    def __init__(self, aggregates: Iterable[CounterAgg | HistogramAgg]) -> None:
        self.lock = threading.Lock()
        self._aggregates = tuple(aggregates)
        reset_after_fork(self, AggregateCollector._fresh_lock)

    def _fresh_lock(self) -> None:
        self.lock = threading.Lock()

    def describe(self) -> Iterable[Metric]:
        kinds = {CounterAgg: CounterMetricFamily, HistogramAgg: HistogramMetricFamily}
        for agg in self._aggregates:
            yield kinds[type(agg)](agg.name, agg.doc, labels=agg.labelnames)

    def collect(self) -> Iterable[Metric]:
        with self.lock:
            families = [agg.family() for agg in self._aggregates]
        return families
