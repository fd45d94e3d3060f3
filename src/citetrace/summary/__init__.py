"""Per-trace summaries, their Prometheus metrics and keep-on-failure sampling.

The summary is a pure function over a trace's spans (``summarize``); the in-process
``TraceSummaryProcessor`` and ``citetrace serve`` both call it, and both record metrics through
``SummaryMetrics`` so metric names and labels are identical wherever they are exported.
"""

from __future__ import annotations

from citetrace.summary._exposition import metrics_asgi_app, metrics_wsgi_app, start_metrics_server
from citetrace.summary._fnv import keep_by_hash, sample_hash
from citetrace.summary._metrics import SummaryMetrics
from citetrace.summary._processor import TraceSummaryProcessor
from citetrace.summary._model import SpanRecord, Thresholds, TraceSummary
from citetrace.summary._summarize import fold_query, summarize, tool_status
from citetrace._urls import url_key

__all__ = [
    "SpanRecord",
    "Thresholds",
    "TraceSummary",
    "summarize",
    "tool_status",
    "fold_query",
    "url_key",
    "keep_by_hash",
    "sample_hash",
    "SummaryMetrics",
    "TraceSummaryProcessor",
    "start_metrics_server",
    "metrics_wsgi_app",
    "metrics_asgi_app",
]
