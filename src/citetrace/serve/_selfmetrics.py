"""``citetrace serve``'s own metrics (requests, spans, rejections, late spans, start time).

They sit in the same registry as the summary metrics (``SummaryMetrics``), exposed the same way: no
``_created`` series, every label value from a closed set in ``names``.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge

from citetrace import names
from citetrace.metrics._internal import NoCreated as _NoCreated

__all__ = ["ServeMetrics"]

_CODES = ("200", "400", "401", "404", "405", "408", "413", "415", "500", "503")


class ServeMetrics:
    """Self-metrics of the OTLP receiver."""

    def __init__(self, registry: CollectorRegistry) -> None:
        cb = names.counter_base
        self.requests = Counter(cb(names.METRIC_SERVE_REQUESTS_TOTAL), "OTLP requests answered, by HTTP status.",
                                (names.LABEL_CODE,), registry=None)
        self.spans = Counter(cb(names.METRIC_SERVE_SPANS_RECEIVED_TOTAL), "Spans accepted.", registry=None)
        self.rejected = Counter(cb(names.METRIC_SERVE_REJECTED_TOTAL),
                                "Requests rejected, and spans refused inside accepted requests (invalid_span).",
                                (names.LABEL_REASON,), registry=None)
        self.late = Counter(cb(names.METRIC_SERVE_SPANS_LATE_TOTAL),
                            "Spans of traces already finalised (ignored).", registry=None)
        self.started = Gauge(names.METRIC_SERVE_STARTED_SECONDS, "Unix time this citetrace serve started.",
                             registry=None)
        self.held = Gauge(names.METRIC_SERVE_HELD_BYTES,
                          "Bytes all traces in flight hold, as estimated for --max-held-bytes.", registry=None)
        for code in _CODES:
            self.requests.labels(code)
        for reason in names.REJECT_REASONS:
            self.rejected.labels(reason)
        self.started.set(time.time())
        registry.register(_NoCreated([self.requests, self.spans, self.rejected, self.late, self.started,
                                       self.held]))

    def answered(self, code: int) -> None:
        """Count one answered request (codes outside the closed set are counted as they are)."""
        self.requests.labels(str(code)).inc()
