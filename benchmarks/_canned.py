"""The in-process network edge of the HTTP benchmarks: a requests adapter that answers every request with one
canned 200 JSON body, and an exporter that takes spans and drops them (so export costs the same in every row)."""

from __future__ import annotations

from typing import Any, Sequence

import requests
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

__all__ = ["CannedAdapter", "NoOpExporter"]


class NoOpExporter(SpanExporter):
    """Takes every batch and drops it."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


class CannedAdapter(requests.adapters.BaseAdapter):
    """requests' network edge: every request answered in-process with the same 200 JSON body."""

    def __init__(self, body: bytes) -> None:
        super().__init__()
        self.body = body

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        response = requests.Response()
        response.status_code = 200
        response._content = self.body
        response.headers["Content-Type"] = "application/json"
        response.url = request.url or ""
        response.request = request
        return response

    def close(self) -> None:
        return None
