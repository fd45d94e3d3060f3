"""Per-trace summaries: a pure function over a trace's spans (``summarize``), its model and the stable sample.

The in-process ``TraceSummaryProcessor`` (``citetrace.processor``) and ``citetrace serve`` both call it, and
both record metrics through ``SummaryMetrics`` (``citetrace.metrics``) so metric names and labels are
identical wherever they are exported. Those two are also importable from here, as before (on first use, so
the pure summary does not pull in the SDK processor or prometheus_client).
"""

from __future__ import annotations

from typing import Any

from citetrace.summary._fnv import keep_by_hash, sample_hash
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


_MOVED = {
    "SummaryMetrics": "citetrace.metrics",
    "start_metrics_server": "citetrace.metrics",
    "metrics_wsgi_app": "citetrace.metrics",
    "metrics_asgi_app": "citetrace.metrics",
    "TraceSummaryProcessor": "citetrace.processor",
}


def __getattr__(name: str) -> Any:
    """``citetrace.summary.TraceSummaryProcessor`` and the metrics names, from the packages that hold them now."""
    module = _MOVED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
