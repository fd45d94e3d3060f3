"""How long exit may wait for spans to leave: the OTLP timeout plus a small margin, never more.

The SDK's own pieces wait longer with an endpoint that never answers: ``BatchSpanProcessor.shutdown()``
joins its worker for 30 s, and each export it still has queued takes the exporter's whole timeout. An
agent whose telemetry is down must still exit promptly, so every exporting processor citetrace adds shuts
down within ``exit_bound_seconds()``; spans still queued then are dropped (the summary processor counts
them in ``citetrace_spans_dropped_total{reason="shutdown"}``).
"""

from __future__ import annotations

import logging
import os
from typing import Callable, Mapping, Sized

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

from citetrace import names

__all__ = ["EXIT_MARGIN_S", "BoundedBatchSpanProcessor", "exit_bound_seconds", "otlp_timeout_seconds"]

_log = logging.getLogger("citetrace")
_DEFAULT_OTLP_TIMEOUT_S = 10.0
EXIT_MARGIN_S = 0.5
"""What exit may take beyond the OTLP timeout: stopping threads and shutting the exporter down."""


def otlp_timeout_seconds(environ: Mapping[str, str] | None = None) -> float:
    """The span exporter's timeout as the SDK reads it (seconds; traces-specific variable first; default 10)."""
    env = os.environ if environ is None else environ
    raw = env.get(names.ENV_OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) or env.get(names.ENV_OTEL_EXPORTER_OTLP_TIMEOUT)
    if not raw:
        return _DEFAULT_OTLP_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        return _DEFAULT_OTLP_TIMEOUT_S  # the SDK warns about it and uses its default too
    return value if value >= 0 else _DEFAULT_OTLP_TIMEOUT_S


def exit_bound_seconds(environ: Mapping[str, str] | None = None) -> float:
    """The most exit waits for spans: the OTLP timeout plus ``EXIT_MARGIN_S``."""
    return otlp_timeout_seconds(environ) + EXIT_MARGIN_S


class BoundedBatchSpanProcessor(BatchSpanProcessor):
    """The SDK's BatchSpanProcessor, whose shutdown waits ``exit_bound_seconds()`` rather than 30 s.

    ``on_drop`` (if given) is told of each span the full queue (``OTEL_BSP_MAX_QUEUE_SIZE``) pushes out, so
    the summary processor counts it in ``citetrace_spans_dropped_total{reason="buffer"}``; the SDK still
    logs it and counts it in its own internal metrics.
    """

    def __init__(self, exporter: SpanExporter, *, on_drop: Callable[[int], None] | None = None) -> None:
        super().__init__(exporter)
        self._on_drop = on_drop
        inner = getattr(self, "_batch_processor", None)
        self._queue: Sized | None = getattr(inner, "_queue", None)
        self._max_queue: int | None = getattr(inner, "_max_queue_size", None)

    def on_end(self, span: ReadableSpan) -> None:
        """Hand the span to the SDK's queue, telling ``on_drop`` when the queue was full (sampled spans only)."""
        queue, on_drop = self._queue, self._on_drop
        if (on_drop is not None and queue is not None and span.context is not None
                and span.context.trace_flags.sampled and len(queue) == self._max_queue):
            on_drop(1)
        super().on_end(span)

    def shutdown(self) -> None:
        inner = getattr(self, "_batch_processor", None)
        shutdown: Callable[..., None] | None = getattr(inner, "shutdown", None)
        if shutdown is None:  # an SDK without the shared batch processor: its own shutdown
            super().shutdown()  # type: ignore[no-untyped-call]
            return
        shutdown(timeout_millis=int(exit_bound_seconds() * 1000))
