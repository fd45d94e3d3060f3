"""The export path behind embedded sampling: the SDK's own ``BatchSpanProcessor`` per exporter.

The batch processor brings what a hand-written worker had to copy: ``OTEL_BSP_*`` sizes and delays, the
``trace_flags.sampled`` check (a RECORD_ONLY sampler's spans are summarized but never exported), fork
safety and export under suppress-instrumentation. ``Counted`` wraps each exporter so that an exporter that
raises is counted and logged once by citetrace, like every other swallowed failure.
"""

from __future__ import annotations

from typing import Callable, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from citetrace._exitbound import BoundedBatchSpanProcessor

__all__ = ["Counted", "batch_processors"]


class Counted(SpanExporter):
    """An exporter whose exceptions become a FAILURE result and a call to ``on_error``."""

    def __init__(self, inner: SpanExporter, on_error: Callable[[BaseException], None]) -> None:
        self.inner = inner
        self._on_error = on_error

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            return self.inner.export(spans)
        except Exception as exc:  # noqa: BLE001 - an exporter must never reach the agent
            self._on_error(exc)
            return SpanExportResult.FAILURE

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        try:
            return bool(self.inner.force_flush(timeout_millis))
        except Exception as exc:  # noqa: BLE001
            self._on_error(exc)
            return False

    def shutdown(self) -> None:
        try:
            self.inner.shutdown()
        except Exception as exc:  # noqa: BLE001
            self._on_error(exc)


def batch_processors(exporter: SpanExporter | Sequence[SpanExporter] | None,
                     on_error: Callable[[BaseException], None],
                     on_drop: Callable[[int], None] | None = None) -> tuple[BatchSpanProcessor, ...]:
    """One SDK batch processor per exporter (none for None); ``on_drop`` counts what a full queue drops."""
    if exporter is None:
        return ()
    # a list or tuple is several; anything else is one exporter (duck-typed ones included)
    exporters = tuple(exporter) if isinstance(exporter, (list, tuple)) else (exporter,)
    return tuple(BoundedBatchSpanProcessor(Counted(e, on_error), on_drop=on_drop) for e in exporters)
