"""Trace assembly for ``citetrace serve``: spans from many requests in, one ``TraceSummary`` per run out.

Spans of one trace arrive in any order and over several requests. A trace is finalised a grace period after
its run root (``invoke_agent``) arrives, so late children still count, or, with no root, after it has been
idle for the TTL. Per trace it holds the summary's own ``RunAccumulator`` per run (counters and URL sets, the
same code ``summarize()`` runs) plus the root records, never the spans, so memory per trace stays small.

Everything is bounded: traces in flight (the least recently touched is evicted), spans per trace (extra spans
are refused), and the cache of finalised trace ids (spans arriving after finalisation are counted as late and
ignored, as are duplicates a retrying exporter re-sends). Every bound that bites is counted.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Any, Callable, NamedTuple, Sequence

from citetrace import names
from citetrace.serve._decode import WireSpan
from citetrace.summary import SpanRecord, SummaryMetrics, Thresholds, TraceSummary
from citetrace.summary._summarize import RunAccumulator

__all__ = ["Assembler", "Added", "SUMMARY_INPUTS"]

_KINDS = frozenset(names.TOOL_KINDS)

SUMMARY_INPUTS: frozenset[str] = frozenset({
    names.GEN_AI_OPERATION_NAME, names.GEN_AI_AGENT_NAME, names.GEN_AI_TOOL_NAME, names.RUN_ID, names.TOOL_KIND,
    names.TOOL_STATUS, names.QUERY_HASH, names.QUERY_TEXT, names.URLS_RETURNED, names.URL_FULL, names.CITATIONS,
    names.ERROR_TYPE,
})
"""Every span attribute the summary, its metrics and this assembler read; the receiver decodes only these.
(tests/serve checks this against the attribute names the summary code refers to.)"""


class _Trace:
    """What is held for one trace in flight."""

    __slots__ = ("runs", "roots", "span_ids", "touched", "due", "service")

    def __init__(self, now: float, service: str | None) -> None:
        self.runs: dict[str, RunAccumulator] = {}
        self.roots: list[SpanRecord] = []
        self.span_ids: set[int] = set()
        self.touched = now
        self.due: float | None = None
        self.service = service


class Added(NamedTuple):
    """What ``Assembler.add`` did with a request's spans."""

    refused: int
    """Spans over their trace's span cap (reported to the sender as rejected)."""
    late: int
    """Spans of traces already finalised (ignored)."""
    summaries: list[TraceSummary]
    """Runs finalised early because their trace was evicted to make room."""
    closed: bool = False
    """The assembler was drained (shutting down): nothing was taken; the sender should retry later."""


def _run_key(attrs: Any) -> str:
    run_id = attrs.get(names.RUN_ID)
    return run_id if isinstance(run_id, str) else ""


class Assembler:
    """Groups spans by trace and finalises runs; thread-safe. ``clock`` is monotonic seconds."""

    def __init__(
        self,
        *,
        metrics: SummaryMetrics,
        thresholds: Thresholds,
        max_traces: int = 10_000,
        max_spans_per_trace: int = 1_000,
        grace_seconds: float = 2.0,
        ttl_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._metrics = metrics
        self._thresholds = thresholds
        self._max_traces = max(1, max_traces)
        self._max_spans = max(1, max_spans_per_trace)
        self.max_spans_per_trace = self._max_spans
        self._grace = max(0.0, grace_seconds)
        self._ttl = max(0.001, ttl_seconds)
        self._clock = clock
        self._lock = threading.Lock()
        self._traces: OrderedDict[int, _Trace] = OrderedDict()
        self._due: deque[tuple[float, int]] = deque()
        self._done: OrderedDict[int, None] = OrderedDict()
        self._max_done = max(4 * self._max_traces, 4096)
        self._closed = False
        metrics.set_in_flight(lambda: float(len(self._traces)))

    @property
    def in_flight(self) -> int:
        """Traces held right now."""
        return len(self._traces)

    def add(self, spans: Sequence[WireSpan]) -> Added:
        """Take a request's spans; tool spans are counted in the tool-call metrics at once."""
        refused = 0
        late = 0
        tools: list[WireSpan] = []
        evicted: list[tuple[int, _Trace]] = []
        now = self._clock()
        with self._lock:
            if self._closed:
                return Added(0, 0, [], closed=True)
            for span in spans:
                attrs = span.attributes
                is_tool = attrs.get(names.TOOL_KIND) in _KINDS
                is_root = not is_tool and attrs.get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT
                if not (is_tool or is_root):
                    continue  # not a citetrace span: nothing in the summary reads it
                tid = span.trace_id
                if tid in self._done:
                    late += 1
                    continue
                state = self._traces.get(tid)
                if state is None:
                    while len(self._traces) >= self._max_traces:
                        evicted.append(self._traces.popitem(last=False))
                    state = self._traces[tid] = _Trace(now, span.service_name)
                else:
                    state.touched = now
                    self._traces.move_to_end(tid)
                if span.span_id in state.span_ids:
                    continue  # a retried request re-sent it
                if not is_root and len(state.span_ids) >= self._max_spans:
                    refused += 1
                    continue
                state.span_ids.add(span.span_id)
                if is_root:
                    state.roots.append(SpanRecord(
                        tid, span.span_id, span.parent_span_id or None, span.name, span.start_ns, span.end_ns,
                        attrs, span.status_error,
                    ))
                    if state.due is None:
                        state.due = now + self._grace
                        self._due.append((state.due, tid))
                    else:
                        state.due = max(state.due, now + self._grace)
                    continue
                key = _run_key(attrs)
                acc = state.runs.get(key)
                if acc is None:
                    acc = state.runs[key] = RunAccumulator()
                acc.add(attrs, span.start_ns, span.end_ns, span.status_error)
                tools.append(span)
            for tid, _state in evicted:
                self._remember(tid)
        metrics = self._metrics
        for span in tools:
            metrics.observe_tool_span(span.attributes, span.end_ns - span.start_ns, span.status_error,
                                      span.trace_id, span.service_name)
        if refused:
            metrics.spans_dropped.labels(names.DROP_SPANS_PER_TRACE).inc(refused)
        summaries: list[TraceSummary] = []
        for tid, state in evicted:
            metrics.evicted.labels(names.EVICT_CAPACITY).inc()
            if state.roots:  # its run is complete as far as anyone knows: summarise rather than lose it
                summaries.extend(self._finish(tid, state, rootless=False))
        return Added(refused, late, summaries)

    def finalize_due(self) -> list[TraceSummary]:
        """Finalise traces whose grace period (after the root) or idle TTL (no root) is over."""
        now = self._clock()
        ready: list[tuple[int, _Trace]] = []
        expired: list[tuple[int, _Trace]] = []
        with self._lock:
            while self._due and self._due[0][0] <= now:
                _, tid = self._due.popleft()
                state = self._traces.get(tid)
                if state is None:
                    continue
                if state.due is not None and state.due > now:
                    self._due.append((state.due, tid))  # another root arrived since: wait for it too
                    continue
                del self._traces[tid]
                self._remember(tid)
                ready.append((tid, state))
            limit = now - self._ttl
            while self._traces:
                tid, state = next(iter(self._traces.items()))
                if state.touched > limit:
                    break
                del self._traces[tid]
                self._remember(tid)
                expired.append((tid, state))
        summaries: list[TraceSummary] = []
        for tid, state in ready:
            summaries.extend(self._finish(tid, state, rootless=False))
        for tid, state in expired:
            self._metrics.evicted.labels(names.EVICT_TTL).inc()
            summaries.extend(self._finish(tid, state, rootless=True))
        return summaries

    def drain(self) -> tuple[list[TraceSummary], int]:
        """Shutting down: every trace still held is in flight and counted as ``shutdown``.

        Runs whose root arrived are summarised from what arrived (children still in transit are missing, so
        they count as in flight too); traces without a root are dropped. Returns (summaries, traces in flight).
        """
        with self._lock:
            self._closed = True  # a request racing the shutdown is refused (retryable), not silently lost
            states = list(self._traces.items())
            self._traces.clear()
            self._due.clear()
            for tid, _ in states:
                self._remember(tid)
        summaries: list[TraceSummary] = []
        for tid, state in states:
            if state.roots:
                summaries.extend(self._finish(tid, state, rootless=False))
        if states:
            self._metrics.evicted.labels(names.EVICT_SHUTDOWN).inc(len(states))
        return summaries, len(states)

    def _remember(self, tid: int) -> None:  # caller holds the lock
        self._done[tid] = None
        if len(self._done) > self._max_done:
            self._done.popitem(last=False)

    def _finish(self, tid: int, state: _Trace, *, rootless: bool) -> list[TraceSummary]:
        """One summary per run root (its run's accumulator); runs without a root only at the TTL."""
        out: list[TraceSummary] = []
        for root in state.roots:
            acc = state.runs.pop(_run_key(root.attributes), None) or RunAccumulator()
            out.append(acc.finish(tid, root=root, citations=None, thresholds=self._thresholds,
                                  default_agent=state.service))
        if rootless or not state.roots:
            for acc in state.runs.values():
                out.append(acc.finish(tid, root=None, citations=None, thresholds=self._thresholds,
                                      default_agent=state.service))
        return out
