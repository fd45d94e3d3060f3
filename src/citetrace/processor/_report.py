"""Where a finished run's summary goes: metrics, the run store (on the worker thread), and, for a run under
a root that citetrace did not create, the ``citetrace.run.summary`` span (see ``_foreign``)."""

from __future__ import annotations

import functools
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import NonRecordingSpan, SpanKind, Tracer, set_span_in_context

from citetrace import names
from citetrace._logonce import OnceLogger
from citetrace._rootrun import root_run
from citetrace.store import RunRecord, Store, ToolCallRecord
from citetrace.metrics import SummaryMetrics
from citetrace.summary import TraceSummary
from citetrace.processor._worker import Worker

__all__ = ["Reporter"]


def _root_record(summary: TraceSummary, root: ReadableSpan, question: str | None = None) -> RunRecord:
    return root_run(summary, root.start_time or 0, root.end_time or 0, root.attributes or {}, question=question)


class Reporter:
    """Reports summaries; never raises (store failures are counted in ``store_errors`` and logged once)."""

    def __init__(self, metrics: SummaryMetrics | None, store: Store | None, worker: Worker, once: OnceLogger,
                 tracer: Tracer | None) -> None:
        self._metrics = metrics
        self._store = store
        self._worker = worker
        self._once = once
        self._tracer = tracer

    def run(self, summary: TraceSummary, root: ReadableSpan) -> None:
        """A citetrace run's summary: metrics now, the store write on the worker (with the record its root
        describes, filed only if the run's own record never reached the store)."""
        if self._metrics is not None:
            self._metrics.observe_summary(summary)
        store = self._store
        if store is not None and not self._worker.submit_task(
                functools.partial(self._put, store, summary, _root_record(summary, root))):
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
        record = _root_record(summary, root, question)

        def write() -> None:
            try:
                store.put_run(record)
                store.put_calls(calls)
            except Exception as exc:  # noqa: BLE001
                self.store_error(exc)
            self._put(store, summary, record)

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

    def _put(self, store: Store, summary: TraceSummary, record: RunRecord) -> None:
        try:
            store.put_summary(record.run_id, summary.to_dict(), trace_id=summary.trace_id, agent=summary.agent,
                              run=record)
        except Exception as exc:  # noqa: BLE001
            self.store_error(exc)

    def store_error(self, exc: BaseException) -> None:
        """Count and log (once per kind) a failed store write."""
        if self._metrics is not None:
            self._metrics.store_errors.inc()
        self._once.warn("store", exc)
