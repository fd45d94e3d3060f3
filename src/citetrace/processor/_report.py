"""Where a finished run's summary goes: metrics, the run store (on the worker thread), and, for a run under
a root that citetrace did not create, the ``citetrace.run.summary`` span (see ``_foreign``)."""

from __future__ import annotations

import functools
import time
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import NonRecordingSpan, SpanKind, Tracer, set_span_in_context

from citetrace import names
from citetrace._logonce import OnceLogger
from citetrace.store import RunRecord, Store, ToolCallRecord
from citetrace.metrics import SummaryMetrics
from citetrace.summary import TraceSummary
from citetrace.processor._worker import Worker

__all__ = ["Reporter"]


def _str_attr(span: ReadableSpan, key: str) -> str | None:
    value = (span.attributes or {}).get(key)
    return value if isinstance(value, str) else None


class Reporter:
    """Reports summaries; never raises (store failures are counted in ``store_errors`` and logged once)."""

    def __init__(self, metrics: SummaryMetrics | None, store: Store | None, worker: Worker, once: OnceLogger,
                 tracer: Tracer | None) -> None:
        self._metrics = metrics
        self._store = store
        self._worker = worker
        self._once = once
        self._tracer = tracer

    def run(self, summary: TraceSummary) -> None:
        """A citetrace run's summary: metrics now, the store write on the worker."""
        if self._metrics is not None:
            self._metrics.observe_summary(summary)
        store = self._store
        if store is not None and not self._worker.submit_task(functools.partial(self._put, store, summary)):
            self.store_error(RuntimeError("summary write queue full"))

    def foreign(self, summary: TraceSummary, root: ReadableSpan, calls: list[ToolCallRecord],
                question: str | None = None) -> None:
        """A run under a foreign root: its summary span on the trace, then metrics, and its run record (with
        the ``question`` the root carried, when content capture is on), calls and summary in the store."""
        self._summary_span(summary, root)
        if self._metrics is not None:
            self._metrics.observe_summary(summary)
        store = self._store
        if store is None:
            return
        ended = (root.end_time or time.time_ns()) / 1e9
        record = RunRecord(summary.run_id, summary.trace_id, summary.agent, question, (root.start_time or 0) / 1e9,
                           ended_at=ended, error_type=_str_attr(root, names.ERROR_TYPE))

        def write() -> None:
            try:
                store.put_run(record)
                store.put_calls(calls)
            except Exception as exc:  # noqa: BLE001
                self.store_error(exc)
            self._put(store, summary)

        if not self._worker.submit_task(write):
            self.store_error(RuntimeError("summary write queue full"))

    def _summary_span(self, summary: TraceSummary, root: ReadableSpan) -> None:
        """``citetrace.run.summary``: the run id and summary attributes, as a child of the foreign root."""
        tracer, ctx = self._tracer, root.context
        if tracer is None or ctx is None:
            return
        attrs: dict[str, Any] = {names.RUN_ID: summary.run_id, names.GEN_AI_AGENT_NAME: summary.agent}
        attrs.update(summary.to_attributes())
        parent = set_span_in_context(NonRecordingSpan(ctx))
        tracer.start_span(names.SUMMARY_SPAN_NAME, context=parent, kind=SpanKind.INTERNAL, attributes=attrs).end()

    def _put(self, store: Store, summary: TraceSummary) -> None:
        try:
            store.put_summary(
                summary.run_id or summary.trace_id, summary.to_dict(), trace_id=summary.trace_id, agent=summary.agent
            )
        except Exception as exc:  # noqa: BLE001
            self.store_error(exc)

    def store_error(self, exc: BaseException) -> None:
        """Count and log (once per kind) a failed store write."""
        if self._metrics is not None:
            self._metrics.store_errors.inc()
        self._once.warn("store", exc)
