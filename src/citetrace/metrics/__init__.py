"""Prometheus metrics of run summaries and tool calls, recorded the same way in an agent and in
``citetrace serve``: ``SummaryMetrics`` (one per registry, never the global one) and the ways to serve a
registry (a small server of its own, or a WSGI/ASGI app).
"""

from __future__ import annotations

from citetrace.metrics._exposition import metrics_asgi_app, metrics_wsgi_app, start_metrics_server
from citetrace.metrics._metrics import SummaryMetrics

__all__ = ["SummaryMetrics", "metrics_asgi_app", "metrics_wsgi_app", "start_metrics_server"]
