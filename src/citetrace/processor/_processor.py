"""``TraceSummaryProcessor``: summarize each run as its spans end, record metrics, keep failed traces.

Per trace it holds one small accumulator per run (counters and URL sets, not spans). With an exporter
(``CITETRACE_SAMPLING=embedded``) it also holds the trace's finished citetrace spans until the keep decision
and hands what is kept to the SDK's ``BatchSpanProcessor``; spans other instrumentations made are handed on
at once unless ``CITETRACE_SAMPLING_SCOPE=trace``. The decision is made when the trace's local root ends; a
run's ``invoke_agent`` span is exported at once (it carries the summary) and so is the local root, whatever
the decision. A local root citetrace did not create, with citetrace tool spans under it, makes a run of its
own (``_foreign``). All state is bounded (traces in flight, spans per trace, spans buffered in all,
decided-trace cache) and every bound that bites is counted. Nothing here raises into the agent.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import weakref
from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.sdk.trace.export import SpanExporter
from opentelemetry.trace import Span as ApiSpan
from opentelemetry.trace import StatusCode, TracerProvider
from prometheus_client import CollectorRegistry

from citetrace import _telemetry, names
from citetrace._forksafe import reset_after_fork
from citetrace._logonce import OnceLogger
from citetrace.config import Settings, load_settings
from citetrace._exitbound import exit_bound_seconds
from citetrace.store import BufferedStore
from citetrace.store import Store, ToolCallRecord
from citetrace.processor._export import batch_processors
from citetrace.processor._foreign import Observer, call_records, foreign_agent, watch_parent
from citetrace.processor._question import foreign_question
from citetrace.metrics import SummaryMetrics
from citetrace.summary import SpanRecord, Thresholds, TraceSummary
from citetrace.processor._spans import Trace as _Trace
from citetrace.processor._spans import attributes_of as _attributes
from citetrace.processor._spans import service_name as _service_name
from citetrace.summary._internal import RunAccumulator
from citetrace.processor._report import Reporter
from citetrace.processor._worker import Worker

__all__ = ["TraceSummaryProcessor"]

_STATUSES = frozenset(names.TOOL_STATUSES)
_ROOT_PREFIX = names.OP_INVOKE_AGENT


def _foreign_scope(span: ReadableSpan) -> bool:
    scope = span.instrumentation_scope
    return scope is None or scope.name != names.INSTRUMENTATION_SCOPE


class TraceSummaryProcessor(SpanProcessor):
    """Summary, metrics and keep-on-failure sampling in one SDK span processor.

    ``settings`` defaults to ``load_settings()``; ``store`` receives each run's summary; ``registry`` (if
    given) receives the metrics; ``exporter`` (one or several; if given) receives the kept traces, every
    run's root, and the spans this processor does not sample, each through an SDK ``BatchSpanProcessor``.
    ``tracer_provider`` (if given) makes the ``citetrace.run.summary`` span of runs under a foreign root.
    ``max_buffered_spans`` bounds the spans held for all traces together; ``clock`` (monotonic seconds) is what
    the trace TTL is measured with.
    """

    def __init__(
        self,
        *,
        settings: Settings | None = None,
        store: Store | None = None,
        registry: CollectorRegistry | None = None,
        exporter: SpanExporter | Sequence[SpanExporter] | None = None,
        tracer_provider: TracerProvider | None = None,
        max_buffered_spans: int = 20_000,
        shutdown_timeout_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._clock = clock  # the TTL's clock (monotonic seconds); tests pass their own instead of sleeping
        self._settings = settings if settings is not None else load_settings()
        self._thresholds = Thresholds.from_settings(self._settings)
        self._metrics = (
            SummaryMetrics.for_registry(registry, max_tool_names=self._settings.max_tool_names)
            if registry is not None
            else None
        )
        self._max_traces = max(1, self._settings.max_traces)
        self._max_spans = max(1, self._settings.max_spans_per_trace)
        self._ttl = max(0.01, self._settings.trace_ttl_seconds)
        self._sweep_every = min(1.0, self._ttl / 2)
        self._max_buffered = max(1, max_buffered_spans)
        self._max_decided = max(4 * self._max_traces, 4096)
        self._exports = batch_processors(exporter, self._error, self._count_dropped)
        self._buffering = bool(self._exports)
        self._sample_all = self._settings.sampling_scope == names.SCOPE_TRACE
        tracer = (tracer_provider.get_tracer(names.INSTRUMENTATION_SCOPE, schema_url=names.SCHEMA_URL)
                  if tracer_provider is not None else None)
        # summaries go to the store from a thread of their own: never behind an export that hangs
        self._writer = Worker(on_error=self._error, max_tasks=8192)
        self._shutdown_timeout_s = shutdown_timeout_s
        self._service: str | None = self._settings.service_name
        self._once = OnceLogger("citetrace summary")
        self._reporter = Reporter(self._metrics, store, self._writer, self._once, tracer)
        self._shut = False
        self._reset_state()
        reset_after_fork(self, TraceSummaryProcessor._reset_state)
        ref = weakref.ref(self)
        if self._metrics is not None and isinstance(store, BufferedStore):
            self._metrics.watch_store(store)
        if self._metrics is not None:
            self._metrics.set_in_flight(lambda: float(len(p._traces)) if (p := ref()) is not None else 0.0)
        self._hooks = _telemetry.current().hooks  # handed from each telemetry to the next
        self._hook = self._make_hook(ref)
        self._hooks.run_end.add(self._hook)
        self._error_listener = self._make_error_listener(ref)
        self._hooks.error_listeners.add(self._error_listener)

    def _reset_state(self) -> None:
        self._lock = threading.Lock()
        self._traces: OrderedDict[int, _Trace] = OrderedDict()
        self._decided: OrderedDict[int, Any] = OrderedDict()
        self._buffered = 0
        self._next_sweep = self._clock() + self._sweep_every
        self._chains: weakref.WeakSet[Any] = weakref.WeakSet()

    # -- SpanProcessor --------------------------------------------------------------------------------
    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        """Remember run roots, so the run-end hook only answers for this processor's runs; watch a parent
        made by another SDK provider, so this trace's end is seen."""
        try:
            attrs = _attributes(span)
            scope = span.instrumentation_scope
            run_start = (span.name.startswith(_ROOT_PREFIX)
                         and attrs.get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT
                         and scope is not None and scope.name == names.INSTRUMENTATION_SCOPE)
            if run_start or names.TOOL_KIND in attrs:
                watch_parent(self, span, parent_context, self._chains)
            if run_start:
                ctx = span.get_span_context()
                out: list[ReadableSpan] = []
                with self._lock:
                    self._state(ctx.trace_id, self._clock(), out).roots.add(ctx.span_id)
                self._export(out)
        except Exception as exc:  # noqa: BLE001
            self._error(exc)

    def on_end(self, span: ReadableSpan) -> None:
        """Count the span into its run; on a root, finalise; export what the decision says."""
        if self._shut:
            return
        try:
            self._on_end(span, True)
        except Exception as exc:  # noqa: BLE001
            self._error(exc)

    def observe_end(self, span: ReadableSpan) -> None:
        """A span from a provider whose own exporters export it (``Observer``): count and decide, never export it."""
        if self._shut:
            return
        try:
            self._on_end(span, False)
        except Exception as exc:  # noqa: BLE001
            self._error(exc)

    def holds(self, trace_id: int) -> bool:
        """Whether this trace is in flight here (read without the lock: a hint for ``Observer``)."""
        return trace_id in self._traces

    def observer(self) -> SpanProcessor:
        """A processor to add to another SDK provider: it feeds this one every span, exporting none."""
        return Observer(self, roots_only=False)

    def _export(self, spans: list[ReadableSpan]) -> None:
        for bsp in self._exports:
            for span in spans:
                bsp.on_end(span)

    def _on_end(self, span: ReadableSpan, export: bool) -> None:
        ctx = span.context
        if ctx is None:
            return
        tid = ctx.trace_id
        attrs = _attributes(span)
        kind = attrs.get(names.TOOL_KIND)
        start, end = span.start_time or 0, span.end_time or 0
        # the span status matters only for a tool span without a known citetrace.tool.status
        status_error = (
            kind is not None
            and attrs.get(names.TOOL_STATUS) not in _STATUSES
            and span.status.status_code is StatusCode.ERROR
        )
        if self._service is None:
            self._service = _service_name(span)
        if kind is not None and self._metrics is not None:
            self._metrics.observe_tool_span(attrs, end - start, status_error, tid, self._service)
        parent = span.parent
        local_root = parent is None or parent.is_remote
        # a run's root is ours (it has a run id); another framework's invoke_agent span is a foreign root
        run_root = names.RUN_ID in attrs and attrs.get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT
        # only spans that reached us through our own export path may be held, and (unless the user asked
        # for whole traces) only the ones citetrace made
        sampled = export and self._buffering and (self._sample_all or kind is not None or names.RUN_ID in attrs)
        now = self._clock()
        out: list[ReadableSpan] = []
        summary: TraceSummary | None = None  # set only when ``span`` is a run's root
        foreign: tuple[TraceSummary, ReadableSpan, list[ToolCallRecord]] | None = None
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now, out)
            state = self._traces.get(tid)
            if state is not None and not local_root and not run_root:  # the common case: a child span
                state.touched = now
                self._traces.move_to_end(tid)
                if kind is not None:
                    self._accumulate(state, attrs, start, end, status_error)
                if sampled:
                    self._hold(state, span, out)
                elif export:
                    out.append(span)
            elif state is None and tid in self._decided:
                # late span of a kept trace, a root, a span we do not sample, or our summary span: exported
                if export and (self._decided[tid] is True or local_root or run_root or not sampled
                               or names.SUMMARY_KEEP in attrs):
                    out.append(span)
            elif state is None and kind is None and not run_root and not (sampled and not local_root):
                if export:  # nothing of ours in this trace (yet): pass through without keeping state
                    out.append(span)
                if local_root:  # a run that adopted this root may still start in it (capture._pending)
                    self._remember(tid, True)
            else:
                state = self._state(tid, now, out)
                if run_root:
                    summary = state.pending.pop(ctx.span_id, None) or self._finish_run(state, span, tid, attrs)
                    state.keep = state.keep or summary.keep
                    state.runs_done += 1
                    if export:
                        out.append(span)
                    if not local_root and state.runs_done >= len(state.roots):
                        foreign = self._after_adopted_root(tid, state, span, out)
                elif kind is not None:
                    self._accumulate(state, attrs, start, end, status_error)
                if local_root and not run_root and len(state.roots) > state.runs_done and _foreign_scope(span):
                    # another instrumentation's root ended before the run of ours that adopted it: decide at
                    # that run's end (the root is exported now, like any root)
                    state.late_root = (span, kind is not None)
                    if export:
                        out.append(span)
                elif local_root:
                    foreign = self._decide(tid, state, span, run_root, kind is not None, export, out)
                elif not run_root:
                    if sampled:
                        self._hold(state, span, out)
                    elif export:
                        out.append(span)
        if summary is not None:
            self._report(summary, span)
        if foreign is not None:
            self._report_foreign(*foreign)
        if out:
            self._export(out)

    def _accumulate(self, state: _Trace, attrs: Mapping[str, Any], start: int, end: int, status_error: bool) -> None:
        run_id = attrs.get(names.RUN_ID)
        key = run_id if isinstance(run_id, str) else ""
        acc = state.runs.get(key)
        if acc is None:
            acc = state.runs[key] = RunAccumulator()
        acc.add(attrs, start, end, status_error)
        if not key and len(state.calls) < self._max_spans:  # a foreign root's run keeps its calls
            state.calls.append((attrs, start, end))

    # -- state (caller holds the lock) ---------------------------------------------------------------
    def _state(self, tid: int, now: float, out: list[ReadableSpan]) -> _Trace:
        state = self._traces.get(tid)
        if state is None:
            while len(self._traces) >= self._max_traces:
                self._evict(next(iter(self._traces)), names.EVICT_CAPACITY, out)
            state = self._traces[tid] = _Trace(now, self._buffering)
        else:
            state.touched = now
            self._traces.move_to_end(tid)
        return state

    def _hold(self, state: _Trace, span: ReadableSpan, out: list[ReadableSpan]) -> None:
        """Buffer a non-root span until the decision, or decide early when a bound is reached."""
        if state.spans is None:
            if state.export_all:
                out.append(span)
            return
        state.spans.append(span)
        self._buffered += 1
        if len(state.spans) >= self._max_spans or self._buffered >= self._max_buffered:
            self._release(state, out)
            state.export_all = True
            self._count_decision(names.DECISION_EARLY)

    def _release(self, state: _Trace, out: list[ReadableSpan]) -> None:
        if state.spans:
            out.extend(state.spans)
            self._buffered -= len(state.spans)
        state.spans = None

    def _evict(self, tid: int, reason: str, out: list[ReadableSpan]) -> None:
        """Drop a trace's state before its root ended: export what it buffered (we cannot call it healthy)."""
        state = self._traces.pop(tid)
        self._release(state, out)
        self._remember(tid, True)
        if self._metrics is not None:
            self._metrics.evicted.labels(reason).inc()
        if state.runs or state.roots:
            self._count_decision(names.DECISION_EARLY)

    def _sweep(self, now: float, out: list[ReadableSpan]) -> None:
        """Evict traces idle past the TTL, but not one whose run is still open here: a run may make no tool
        call for longer than the TTL (an agent reasoning for minutes), and its root will come; evicted, the run
        had no summary at all. Open runs stay bounded by ``max_traces`` (capacity eviction)."""
        self._next_sweep = now + self._sweep_every
        limit = now - self._ttl
        while self._traces:
            tid, state = next(iter(self._traces.items()))
            if state.touched > limit:
                break
            if len(state.roots) > state.runs_done:
                self._traces.move_to_end(tid)
                state.touched = now  # looked at again a TTL from now
                continue
            self._evict(tid, names.EVICT_TTL, out)

    def _remember(self, tid: int, keep: Any) -> None:
        self._decided[tid] = keep
        if len(self._decided) > self._max_decided:
            self._decided.popitem(last=False)

    def _decide(self, tid: int, state: _Trace, root: ReadableSpan, run_root: bool, tool_root: bool, export: bool,
                out: list[ReadableSpan]) -> tuple[TraceSummary, ReadableSpan, list[ToolCallRecord]] | None:
        """The trace's local root ended: keep or drop what was buffered. The root itself is always exported.

        Returns the run a foreign root makes (its summary, root and calls), reported after the lock.
        """
        del self._traces[tid]
        ours = bool(state.runs or state.roots)
        foreign = None
        if not run_root:
            if export:
                out.append(root)
            if state.runs_done == 0 and ours:
                runless = state.runs.get("") or RunAccumulator()
                record = SpanRecord.from_readable_span(root)
                if tool_root or "" not in state.runs:
                    state.keep = runless.finish(tid, root=record, citations=(), thresholds=self._thresholds).keep
                else:
                    summary = runless.finish(tid, root=record, citations=(), thresholds=self._thresholds,
                                             default_agent=foreign_agent(root.name, record.attributes) or self._service)
                    summary = dataclasses.replace(summary, run_id=summary.run_id or summary.trace_id)
                    state.keep = summary.keep
                    foreign = (summary, root, call_records(summary.run_id, state.calls))
        keep = state.keep or not ours or state.export_all
        if ours and not state.export_all:
            self._count_decision(names.DECISION_KEEP if keep else names.DECISION_DROP)
        if keep:
            self._release(state, out)
        elif state.spans:
            self._buffered -= len(state.spans)
            state.spans = None
        self._remember(tid, keep)
        return foreign

    def _after_adopted_root(self, tid: int, state: _Trace, run_span: ReadableSpan, out: list[ReadableSpan]) -> (
            tuple[TraceSummary, ReadableSpan, list[ToolCallRecord]] | None):
        """The last run of ours in a trace whose (foreign) local root already ended: decide now."""
        if state.late_root is not None:
            root, tool_root = state.late_root
            return self._decide(tid, state, root, False, tool_root, False, out)
        if tid in self._decided:  # the root ended before anything of ours started in this trace
            self._decide(tid, state, run_span, True, False, False, out)
        return None

    def _finish_run(self, state: _Trace, span: ApiSpan | ReadableSpan, tid: int, attrs: Mapping[str, Any]) -> TraceSummary:
        run_id = attrs.get(names.RUN_ID)
        acc = state.runs.pop(run_id if isinstance(run_id, str) else "", None) or RunAccumulator()
        readable: Any = span
        ctx = readable.get_span_context()
        parent = readable.parent
        record = SpanRecord(
            trace_id=tid,
            span_id=ctx.span_id,
            parent_span_id=parent.span_id if parent is not None else None,
            name=readable.name,
            start_ns=readable.start_time or 0,
            end_ns=readable.end_time or time.time_ns(),
            attributes=attrs,
            status_error=readable.status.status_code is StatusCode.ERROR,
        )
        return acc.finish(tid, root=record, citations=None, thresholds=self._thresholds, default_agent=self._service)

    # -- the run-end hook ----------------------------------------------------------------------------
    @staticmethod
    def _make_error_listener(ref: "weakref.ref[TraceSummaryProcessor]") -> Any:
        """Count the failures capture swallows (the store's in store_errors, the rest in capture_errors)."""

        def listener(kind: str) -> None:
            proc = ref()
            metrics = proc._metrics if proc is not None else None
            if metrics is not None:
                (metrics.store_errors if kind == "store_write" else metrics.capture_errors).inc()

        return listener

    @staticmethod
    def _make_hook(ref: "weakref.ref[TraceSummaryProcessor]") -> Any:
        def hook(span: ApiSpan, trace_id: int) -> Mapping[str, Any] | None:
            proc = ref()
            return proc._on_run_end(span, trace_id) if proc is not None else None

        return hook

    def _on_run_end(self, span: ApiSpan, trace_id: int) -> Mapping[str, Any] | None:
        """Called by ``research_run`` before the root ends: compute the summary, return its attributes."""
        try:
            span_id = span.get_span_context().span_id
            attrs = _attributes(span)  # a live SDK span keeps its attributes the same way
            with self._lock:
                state = self._traces.get(trace_id)
                if state is None or span_id not in state.roots:
                    return None
                summary = self._finish_run(state, span, trace_id, attrs)
                state.pending[span_id] = summary
            return summary.to_attributes()
        except Exception as exc:  # noqa: BLE001
            self._error(exc)
            return None

    # -- reporting -----------------------------------------------------------------------------------
    def _report(self, summary: TraceSummary, root: ReadableSpan) -> None:
        self._reporter.run(summary, root)

    def _report_foreign(self, summary: TraceSummary, root: ReadableSpan, calls: list[ToolCallRecord]) -> None:
        question = None
        if self._settings.capture_content:  # the question is content: read off the root only when captured
            question = foreign_question(_attributes(root))  # redacted with the record (citetrace._rootrun)
        self._reporter.foreign(summary, root, calls, question)

    def _error(self, exc: BaseException) -> None:
        if self._metrics is not None:
            self._metrics.span_errors.inc()
        self._once.warn("span", exc)

    def count_buffer_drops(self, n: int) -> None:
        """``n`` spans a full export queue dropped (``citetrace_spans_dropped_total{reason="buffer"}``): the
        ``on_drop`` of the batch processors ``configure()`` puts in front of the exporters by default."""
        self._count_dropped(n)

    def _count_dropped(self, n: int) -> None:
        """Spans the export queue (``OTEL_BSP_MAX_QUEUE_SIZE``) was too full to take."""
        if self._metrics is not None:
            self._metrics.spans_dropped.labels(names.DROP_BUFFER).inc(n)

    def _count_decision(self, decision: str) -> None:
        if self._metrics is not None:
            self._metrics.sampled.labels(decision).inc()

    # -- lifecycle -----------------------------------------------------------------------------------
    @property
    def traces_in_flight(self) -> int:
        """Traces with state held right now."""
        return len(self._traces)

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Export everything decided so far (in-flight traces keep waiting for their roots)."""
        try:
            deadline = time.monotonic() + timeout_millis / 1000.0
            out: list[ReadableSpan] = []
            with self._lock:
                self._sweep(self._clock(), out)
            self._export(out)
            done = self._writer.flush(timeout_millis / 1000.0)
            for bsp in self._exports:
                left = max(0, int((deadline - time.monotonic()) * 1000))
                done = bool(bsp.force_flush(left)) and done
            return done
        except Exception as exc:  # noqa: BLE001
            self._error(exc)
            return False

    def shutdown(self) -> None:
        """Export what in-flight traces buffered (evicted as ``shutdown``), drain, shut the exporter down."""
        if self._shut:
            return
        self._shut = True
        try:
            self._hooks.run_end.remove(self._hook)
            self._hooks.error_listeners.remove(self._error_listener)
            out: list[ReadableSpan] = []
            with self._lock:
                for tid in list(self._traces):
                    self._evict(tid, names.EVICT_SHUTDOWN, out)
            self._export(out)
            bound = exit_bound_seconds() if self._shutdown_timeout_s is None else self._shutdown_timeout_s
            unwritten = self._writer.shutdown(bound)
            if unwritten:
                self._reporter.store_error(RuntimeError(f"{unwritten} summary write(s) still queued at shutdown"))
            unexported = 0
            for bsp in self._exports:  # each bounded by the OTLP timeout (BoundedBatchSpanProcessor)
                bsp.shutdown()  # type: ignore[no-untyped-call]
                unexported += len(getattr(getattr(bsp, "_batch_processor", None), "_queue", ()))
            if unexported and self._metrics is not None:
                self._metrics.spans_dropped.labels(names.DROP_SHUTDOWN).inc(unexported)
            if unexported:
                self._once.warn("shutdown", RuntimeError(
                    f"{unexported} span(s) not exported within {bound:.1f} s of shutdown; dropped"))
        except Exception as exc:  # noqa: BLE001
            self._error(exc)
