"""Trace assembly for ``citetrace serve``: spans from many requests in, one ``TraceSummary`` per run out.

Spans of one trace arrive in any order and over several requests. A trace is finalised a grace period after
its run root (``invoke_agent``) arrives, so late children still count, or, with no root, after it has been
idle for the TTL. Per trace it holds the summary's own ``RunAccumulator`` per run (counters and URL sets, the
same code ``summarize()`` runs) plus the root records, never the spans, so memory per trace stays small.

Everything is bounded: traces in flight (the least recently touched is evicted), tool spans, roots and URLs per
trace (a span over a cap is refused), the bytes held by all traces together (the least recently touched is
evicted), and the cache of finalised trace ids (spans arriving after finalisation are counted as late and
ignored, as are duplicates a retrying exporter re-sends). Every bound that bites is counted. Attribute types
are guaranteed by the decoder (``_schema``); a span that still makes the accumulator raise is refused alone.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from citetrace import names
from citetrace._rootrun import root_run
from citetrace.serve._decode import WireSpan
from citetrace.serve._schema import DECODED_KEYS, RECORD_INPUTS, SUMMARY_INPUTS
from citetrace.metrics import SummaryMetrics
from citetrace.store import RunRecord
from citetrace.summary import SpanRecord, Thresholds, TraceSummary
from citetrace.summary._internal import RunAccumulator

__all__ = ["Assembler", "Added", "DECODED_KEYS", "Finished", "SUMMARY_INPUTS"]

_KINDS = frozenset(names.TOOL_KINDS)
# names read once per span on the hot path, bound here to skip the module attribute lookups
_TOOL_KIND, _OPERATION, _INVOKE_AGENT = names.TOOL_KIND, names.GEN_AI_OPERATION_NAME, names.OP_INVOKE_AGENT
_URLS_RETURNED, _URL_FULL, _CITATIONS = names.URLS_RETURNED, names.URL_FULL, names.CITATIONS
_PAGES_RETURNED = names.PAGES_RETURNED
_URL_FINAL = names.URL_FINAL
_QUERY_HASH, _QUERY_TEXT, _RUN_ID = names.QUERY_HASH, names.QUERY_TEXT, names.RUN_ID
_DROP_URLS, _DROP_ROOTS, _DROP_SPANS = names.DROP_URLS_PER_TRACE, names.DROP_ROOTS_PER_TRACE, names.DROP_SPANS_PER_TRACE
_AGENT_SEARCHES, _AGENT_READS = names.summary_attr("searches"), names.summary_attr("reads")



_STRING_COST = 192
"""Bytes charged per string held, on top of its length: the CPython str header (49), its set slots, and the
allocator's share; calibrated so the estimate matches RSS at the URL cap (benchmarks/bench_serve_bounds.py)."""
_SPAN_COST = 160
"""Bytes charged per span accepted (its id in the duplicate set, a share of the accumulator)."""
_ROOT_COST = 1024
"""Bytes charged per root held (the ``SpanRecord`` and its attribute dict)."""


class _Trace:
    """What is held for one trace in flight, and what it is charged against the bounds."""

    __slots__ = ("runs", "roots", "span_ids", "touched", "due", "service", "urls", "held")

    def __init__(self, now: float, service: str | None) -> None:
        self.runs: dict[str, RunAccumulator] = {}
        self.roots: list[SpanRecord] = []
        self.span_ids: set[int] = set()
        self.touched = now
        self.due: float | None = None
        self.service = service
        self.urls = 0
        """URLs received for this trace (results, url.full, citations), duplicates included: an upper bound."""
        self.held = 0
        """Bytes charged for this trace (an estimate of what it holds; see _STRING_COST)."""


class Finished(NamedTuple):
    """One finalised run: its summary, and the run record its root describes (``citetrace._rootrun``).

    The record travels beside the summary, not in it: ``TraceSummary`` is shared with the Go connector through
    the test vectors, and the store needs the root's own times (the write happens a grace period later)."""

    summary: TraceSummary
    run: RunRecord
    """The root's start and end, question, answer and error; a run with no root: the extent of its tool spans."""


class Added(NamedTuple):
    """What ``Assembler.add`` did with a request's spans."""

    refused: int
    """Spans refused (over a per-trace cap, or one the summary could not take); reported as rejected."""
    late: int
    """Spans of traces already finalised (ignored)."""
    finished: list[Finished]
    """Runs finalised during the call: their grace period was over, or their trace was evicted to make room."""
    closed: bool = False
    """The assembler was drained (shutting down): nothing was taken; the sender should retry later."""
    problem: str = ""
    """Why the first refused span was refused (for the partial-success message)."""


def _run_key(attrs: Any) -> str:
    run_id = attrs.get(names.RUN_ID)
    return run_id if isinstance(run_id, str) else ""


def _record_charge(attrs: dict[str, Any]) -> int:
    """Bytes charged for the run record's text a root holds (its question and answer); a value of another type
    is dropped here (the decoder type-checks only the summary's inputs), so the root keeps only what it stores."""
    charge = 0
    for key in RECORD_INPUTS:
        value = attrs.get(key)
        if isinstance(value, str):
            charge += _STRING_COST + len(value)
        elif value is not None:
            del attrs[key]
    return charge


def _incomplete(root: Mapping[str, Any], acc: RunAccumulator) -> bool:
    """Whether the agent's own summary on the root (which saw every span) counts more searches or reads than
    ``acc`` took: the rest of the run went to another summarizer (a restart, a resize) or was refused by a cap.
    A root without the agent's summary (no citetrace processor in the agent) is taken as whole."""
    searches, reads = root.get(_AGENT_SEARCHES), root.get(_AGENT_READS)
    return (searches is not None and searches > acc.searches) or (reads is not None and reads > acc.reads)


class _RecentIds:
    """The last ``limit`` span ids seen (a retried request must not count an iteration twice)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._ids: OrderedDict[int, None] = OrderedDict()

    def first(self, span_id: int) -> bool:
        """True the first time an id is seen (within the window)."""
        if span_id in self._ids:
            return False
        self._ids[span_id] = None
        if len(self._ids) > self._limit:
            self._ids.popitem(last=False)
        return True


class Assembler:
    """Groups spans by trace and finalises runs; thread-safe. ``clock`` is monotonic seconds.

    Bounds (each counted when it bites): ``max_traces`` in flight (least recently active evicted, ``capacity``),
    ``max_spans_per_trace`` tool spans, ``max_roots_per_trace`` roots and ``max_urls_per_trace`` URLs per trace
    (the span over the cap is refused), and ``max_held_bytes`` over all traces (least recently active evicted,
    ``memory``). A trace whose grace period is over is finalised, not evicted, when room is needed.
    """

    def __init__(
        self,
        *,
        metrics: SummaryMetrics,
        thresholds: Thresholds,
        max_traces: int = 10_000,
        max_spans_per_trace: int = 1_000,
        max_roots_per_trace: int = 16,
        max_urls_per_trace: int = 20_000,
        max_held_bytes: int = 256 * 1024 * 1024,
        grace_seconds: float = 2.0,
        ttl_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._metrics = metrics
        self._thresholds = thresholds
        self._max_traces = max(1, max_traces)
        self._max_spans = max(1, max_spans_per_trace)
        self.max_spans_per_trace = self._max_spans
        self._max_roots = max(1, max_roots_per_trace)
        self._max_urls = max(1, max_urls_per_trace)
        self._max_held = max(1, max_held_bytes)
        self._grace = max(0.0, grace_seconds)
        self._ttl = max(0.001, ttl_seconds)
        self._clock = clock
        self._lock = threading.Lock()
        self._ledger_seen = _RecentIds(10_000)
        self._traces: OrderedDict[int, _Trace] = OrderedDict()
        self._due: deque[tuple[float, int]] = deque()
        self._done: OrderedDict[int, None] = OrderedDict()
        self._max_done = max(4 * self._max_traces, 4096)
        self._held = 0
        self._closed = False
        metrics.set_in_flight(lambda: float(len(self._traces)))

    @property
    def in_flight(self) -> int:
        """Traces held right now."""
        return len(self._traces)

    @property
    def held_bytes(self) -> int:
        """Bytes charged for every trace held right now (bounded by ``max_held_bytes``)."""
        return self._held

    def add(self, spans: Sequence[WireSpan]) -> Added:
        """Take a request's spans; tool spans are counted in the tool-call metrics at once.

        A span that raises inside the summary's accumulator is refused and counted as a processing error; it
        is not remembered as seen, so a clean resend is taken. Evictions are counted whatever happens.
        """
        drops: dict[str, int] = {}
        errors = 0
        late = 0
        problem = ""
        tools: list[WireSpan] = []
        ledger_spans: list[dict[str, Any]] = []
        evicted: list[tuple[int, _Trace, str]] = []
        ready: list[tuple[int, _Trace]] = []
        now = self._clock()
        with self._lock:
            if self._closed:
                return Added(0, 0, [], closed=True)
            traces, done, max_urls = self._traces, self._done, self._max_urls
            for span in spans:
                attrs = span.attributes
                get = attrs.get
                is_tool = get(_TOOL_KIND) in _KINDS
                is_root = not is_tool and get(_OPERATION) == _INVOKE_AGENT
                if not (is_tool or is_root):
                    if names.LEDGER_TRIGGER in attrs and self._ledger_seen.first(span.span_id):
                        ledger_spans.append(attrs)  # a revision iteration: its vital signs are metrics
                    continue  # not a citetrace span: nothing in the summary reads it
                tid = span.trace_id
                if tid in done:
                    late += 1
                    continue
                state = traces.get(tid)
                if state is not None and span.span_id in state.span_ids:
                    state.touched = now
                    continue  # a retried request re-sent it
                # what the span brings (types are guaranteed by the decoder's schema): URLs and bytes charged
                if is_tool:
                    urls = get(_URLS_RETURNED) or ()
                    count = len(urls)
                    charge = _SPAN_COST + (count * _STRING_COST + sum(map(len, urls)) if count else 0)
                    pages = get(_PAGES_RETURNED)
                    if pages:  # the same strings as results mostly, but held in the fetched set too
                        count += len(pages)
                        charge += len(pages) * _STRING_COST + sum(map(len, pages))
                    url = get(_URL_FULL)
                    if url is not None:
                        count += 1
                        charge += _STRING_COST + len(url)
                    final = get(_URL_FINAL)
                    if final is not None:  # a redirected fetch's final URL: held in the fetched set too
                        count += 1
                        charge += _STRING_COST + len(final)
                    query = get(_QUERY_HASH) or get(_QUERY_TEXT)
                    if query is not None:
                        charge += _STRING_COST + len(query)
                else:
                    urls = get(_CITATIONS) or ()
                    count = len(urls)
                    charge = _ROOT_COST + count * _STRING_COST + sum(map(len, urls)) + _record_charge(attrs)
                reason = None
                if count > max_urls or (state is not None and state.urls + count > max_urls):
                    reason = _DROP_URLS
                elif state is not None:
                    if is_root:
                        reason = _DROP_ROOTS if len(state.roots) >= self._max_roots else None
                    elif len(state.span_ids) - len(state.roots) >= self._max_spans:
                        reason = _DROP_SPANS
                if reason is not None:
                    drops[reason] = drops.get(reason, 0) + 1
                    problem = problem or f"span {span.name!r} refused: its trace is over the {reason} cap"
                    continue
                if state is None:
                    if len(traces) >= self._max_traces:
                        self._take_due(now, ready)
                    while len(traces) >= self._max_traces:
                        evicted.append(self._pop_oldest(names.EVICT_CAPACITY))
                    state = traces[tid] = _Trace(now, span.service_name)
                else:
                    state.touched = now
                    traces.move_to_end(tid)
                try:
                    if is_tool:
                        run_id = get(_RUN_ID)
                        key = run_id if run_id is not None else ""
                        acc = state.runs.get(key)
                        if acc is None:
                            acc = RunAccumulator()
                            acc.add(attrs, span.start_ns, span.end_ns, span.status_error)
                            state.runs[key] = acc  # only once it took the span: a failure leaves no trace
                        else:
                            acc.add(attrs, span.start_ns, span.end_ns, span.status_error)
                    else:
                        self._take_root(tid, state, span, now)
                except Exception as exc:  # noqa: BLE001 - one bad span must not cost the others
                    errors += 1
                    problem = problem or f"span {span.name!r} could not be summarised: {exc}"
                    if not state.span_ids and not state.roots:
                        del traces[tid]
                    continue
                state.span_ids.add(span.span_id)
                state.urls += count
                state.held += charge
                self._held += charge
                if is_tool:
                    tools.append(span)
                elif names.LEDGER_STOP_REASON in attrs:
                    ledger_spans.append(attrs)
                if self._held > self._max_held:
                    while self._held > self._max_held and traces:
                        evicted.append(self._pop_oldest(names.EVICT_MEMORY))
        if ledger_spans:
            self._observe_ledger(ledger_spans)
        return Added(sum(drops.values()) + errors, late, self._after_add(tools, drops, errors, evicted, ready),
                     problem=problem)

    def _observe_ledger(self, spans: list[dict[str, Any]]) -> None:
        """Outside the lock: the claim ledger's metrics from iteration and root spans (same registry)."""
        from citetrace.ledger._internal import LedgerMetrics

        try:
            metrics = LedgerMetrics.for_registry(self._metrics.registry)
            for attrs in spans:
                metrics.observe_span(attrs)
        except Exception:  # noqa: BLE001 - a malformed attribute costs a processing error, never the request
            self._metrics.span_errors.inc()

    def _take_root(self, tid: int, state: _Trace, span: WireSpan, now: float) -> None:
        """Hold a run root and (re)arm its trace's grace period (caller holds the lock)."""
        state.roots.append(SpanRecord(
            tid, span.span_id, span.parent_span_id or None, span.name, span.start_ns, span.end_ns,
            span.attributes, span.status_error,
        ))
        if state.due is None:
            state.due = now + self._grace
            self._due.append((state.due, tid))
        else:
            state.due = max(state.due, now + self._grace)

    def _pop_oldest(self, reason: str) -> tuple[int, _Trace, str]:
        """Evict the least recently active trace (caller holds the lock)."""
        tid, state = self._traces.popitem(last=False)
        self._held -= state.held
        self._remember(tid)
        return tid, state, reason

    def _take_due(self, now: float, ready: list[tuple[int, _Trace]]) -> None:
        """Move every trace whose grace period is over from the table to ``ready`` (caller holds the lock)."""
        while self._due and self._due[0][0] <= now:
            _, tid = self._due.popleft()
            state = self._traces.get(tid)
            if state is None:
                continue
            if state.due is not None and state.due > now:
                self._due.append((state.due, tid))  # another root arrived since: wait for it too
                continue
            del self._traces[tid]
            self._held -= state.held
            self._remember(tid)
            ready.append((tid, state))

    def _after_add(self, tools: list[WireSpan], drops: dict[str, int], errors: int,
                   evicted: list[tuple[int, _Trace, str]], ready: list[tuple[int, _Trace]]) -> list[Finished]:
        """Outside the lock: tool-call metrics, drop and eviction counts, then the runs finalised."""
        metrics = self._metrics
        for reason, count in drops.items():
            metrics.spans_dropped.labels(reason).inc(count)
        if errors:
            metrics.span_errors.inc(errors)
        for _tid, _state, reason in evicted:
            metrics.evicted.labels(reason).inc()
        for span in tools:
            metrics.observe_tool_span(span.attributes, span.end_ns - span.start_ns, span.status_error,
                                      span.trace_id, span.service_name)
        summaries: list[Finished] = []
        for tid, state in ready:
            summaries.extend(self._finish(tid, state, rootless=False))
        for tid, state, _reason in evicted:
            if state.roots:  # its run is complete as far as anyone knows: summarise rather than lose it
                summaries.extend(self._finish(tid, state, rootless=False))
        return summaries

    def finalize_due(self) -> list[Finished]:
        """Finalise traces whose grace period (after the root) or idle TTL (no root) is over."""
        now = self._clock()
        ready: list[tuple[int, _Trace]] = []
        expired: list[tuple[int, _Trace]] = []
        with self._lock:
            self._take_due(now, ready)
            limit = now - self._ttl
            while self._traces:
                tid, state = next(iter(self._traces.items()))
                if state.touched > limit:
                    break
                del self._traces[tid]
                self._held -= state.held
                self._remember(tid)
                expired.append((tid, state))
        summaries: list[Finished] = []
        for tid, state in ready:
            summaries.extend(self._finish(tid, state, rootless=False))
        for tid, state in expired:
            self._metrics.evicted.labels(names.EVICT_TTL).inc()
            summaries.extend(self._finish(tid, state, rootless=True))
        return summaries

    def drain(self) -> tuple[list[Finished], int]:
        """Shutting down: every trace still held is in flight and counted as ``shutdown``.

        Runs whose root arrived are summarised from what arrived (children still in transit are missing, so
        they count as in flight too); traces without a root are dropped. Returns (summaries, traces in flight).
        """
        with self._lock:
            self._closed = True  # a request racing the shutdown is refused (retryable), not silently lost
            states = list(self._traces.items())
            self._traces.clear()
            self._due.clear()
            self._held = 0
            for tid, _ in states:
                self._remember(tid)
        summaries: list[Finished] = []
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

    def _finish(self, tid: int, state: _Trace, *, rootless: bool) -> list[Finished]:
        """One summary per run root (its run's accumulator); runs without a root only at the TTL.

        A root whose own summary counts more searches or reads than arrived here is a fragment: counted as
        ``incomplete``, not summarised (its cited URLs would look unreturned and unread)."""
        out: list[Finished] = []
        for root in state.roots:
            acc = state.runs.pop(_run_key(root.attributes), None) or RunAccumulator()
            if _incomplete(root.attributes, acc):
                self._metrics.evicted.labels(names.EVICT_INCOMPLETE).inc()
                continue
            summary = acc.finish(tid, root=root, citations=None, thresholds=self._thresholds,
                                 default_agent=state.service)
            out.append(Finished(summary, root_run(summary, root.start_ns, root.end_ns, root.attributes)))
        if rootless or not state.roots:
            for acc in state.runs.values():
                summary = acc.finish(tid, root=None, citations=None, thresholds=self._thresholds,
                                     default_agent=state.service)
                out.append(Finished(summary, root_run(summary, acc.first_start, acc.last_end, {})))
        return out
