"""``research_run``: the root ``invoke_agent`` span of one research run, and the record of what it did.

It owns what only the run knows: its id, the recorded answer and the URLs that answer cites. Just before
the root span ends it lets registered hooks (the summarizer) write onto it, because a collector's tail
sampler can only act on attributes that are on a span when it is exported.
"""

from __future__ import annotations

import functools
import inspect
import json
import secrets
import threading
import time
from typing import Any, Callable, Iterable, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

from citetrace import names
from citetrace._redact import SPAN_CONTENT_CHARS, redact_report, redact_url
from citetrace._urls import url_key
from citetrace.capture._citations import cited_urls
from citetrace import _telemetry
from citetrace.capture import _replay
from citetrace.capture._context import CURRENT_RUN, RUN_CONTEXT_KEY
from citetrace.capture._failure import record_failure
from citetrace.capture._pending import PendingRoot
from citetrace.store import ModelCitation, RunRecord, ToolCallRecord, ToolResponse, content_hash

__all__ = ["Run", "research_run", "start_run", "run_context", "attach_run", "detach_run", "finish_run"]

F = TypeVar("F", bound=Callable[..., Any])


def _new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(4)


MAX_CITED_SPANS = 2000
"""Model citation spans kept per run (a provider answer carries a few dozen); more are dropped and counted."""


class Run:
    """One research run. ``id`` names it in the store; ``trace_id`` (32 hex) finds its trace."""

    def __init__(self, question: str | None, agent: str, span: Span, pending: PendingRoot | None = None) -> None:
        self.question = question
        self.agent = agent
        self._span = span
        self._pending = pending
        self.deferred = pending is not None
        """A boundary run begun with no current span: its span is never made current (``capture._pending``)."""
        self.id = _new_run_id()
        self._trace_id = "" if pending is not None else _trace_id_of(span)
        self.started_at = time.time()
        self.answer: str | None = None
        self.citations: list[str] = []
        self.model_citations: list[str] = []
        """URLs the model cited through the provider's own citation records (not in the answer's text)."""
        self._cited_spans: list[tuple[str, str, int, int, str]] = []
        """Where in its text the model cited each of those URLs (``add_cited_spans``), for evaluation."""
        self.error_type: str | None = None
        self._calls: list[ToolCallRecord | tuple[Any, ...]] = []  # tuples until read (``add_call_fields``)
        self._responses: list[tuple[str, str, dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._ledger: Any = None

    @property
    def span(self) -> Span:
        """The run's ``invoke_agent`` span (a deferred run's is started here, the first time it is needed)."""
        if self._pending is not None:
            self.open_span(False)
        return self._span

    @property
    def trace_id(self) -> str:
        """The run's trace id, 32 hex digits."""
        if self._pending is not None:
            self.open_span(False)
        return self._trace_id

    def open_span(self, at_end: bool) -> None:
        """Start a deferred run's span: under the foreign root it may join, else as a root (``_pending``);
        then file the run in the store. ``at_end``: the agent call has returned. Never raises."""
        with _open_lock:
            pending = self._pending
            if pending is None:
                return
            try:
                context, start = pending.parent(at_end)
                span = _telemetry.current().tracer().start_span(
                    pending.name, context=context, kind=SpanKind.INTERNAL, attributes=pending.attributes,
                    start_time=start)
                if span.is_recording():
                    span.set_attribute(names.RUN_ID, self.id)
                self._span = span
            except Exception as exc:  # noqa: BLE001
                _telemetry.count_error("capture", exc)
            self._trace_id = _trace_id_of(self._span)
            self._pending = None  # last: another thread sees the span only once it is set
        _file_run(self)

    def add_response(self, tool: str, key: str, payload: dict[str, Any]) -> None:
        """Keep one call's encoded response for replay (``record_responses``), in call order."""
        with self._lock:
            self._responses.append((tool, key, payload))

    def responses(self) -> list[ToolResponse]:
        """The recorded responses so far, as store records. An oversized payload is counted and kept as an
        ``unrecorded`` mark in its place, so the calls after it with the same arguments still replay in order
        and its own replay says why it cannot be answered."""
        from citetrace.capture._responses import MAX_PAYLOAD_BYTES

        out: list[ToolResponse] = []
        with self._lock:
            items = list(self._responses)
        for seq, (tool, key, payload) in enumerate(items):
            if len(json.dumps(payload)) > MAX_PAYLOAD_BYTES:
                _telemetry.count_error("store_write", ValueError(f"{tool} response over {MAX_PAYLOAD_BYTES} bytes"))
                payload = {"unrecorded": {"over_bytes": MAX_PAYLOAD_BYTES}}
            out.append(ToolResponse(self.id, seq, tool, key, payload))
        return out

    def add_call_fields(self, fields: tuple[Any, ...]) -> None:
        """The tool wrapper's hot path: the ``ToolCallRecord`` fields after ``run_id`` and ``seq``, in order.

        The record is built when ``calls`` is read (at run end): a 15-field frozen dataclass costs ~3 µs per
        call, a tuple ~0.2 µs. No lock: ``list.append`` is atomic, and ``calls`` reads only the calls that had
        ended when it began.
        """
        self._calls.append(fields)

    @property
    def calls(self) -> list[ToolCallRecord]:
        """The tool calls made so far, in order (a call that ends while this runs is in the next read)."""
        with self._lock:  # two readers never build the same record twice
            items = self._calls
            ended = len(items)
            for seq in range(ended):
                item = items[seq]
                if isinstance(item, tuple):
                    items[seq] = ToolCallRecord(self.id, seq, *item)
            return items[:ended]  # type: ignore[return-value]

    @property
    def call_count(self) -> int:
        """How many tool calls have ended in this run so far (cheap: no records are built)."""
        return len(self._calls)

    @property
    def ledger(self) -> Any:
        """This run's claim ledger (``citetrace.ledger.Ledger``), created on first use in the run store."""
        with self._lock:
            if self._ledger is None:
                from citetrace.ledger import Ledger

                self._ledger = Ledger(self.id, store=_telemetry.current().run_store(), trace_id=self.trace_id)
            return self._ledger

    def record_answer(self, text: str) -> list[str]:
        """Record the final report; its cited URLs go on the root span. Returns the citations.

        URLs the model cited through its provider's citation records (``add_model_citations``) are kept too,
        after the ones the text cites: a provider's answer text usually carries no URL of its own.
        """
        if not isinstance(text, str):
            raise TypeError(f"record_answer() expects the report text as str, got {type(text).__name__}")
        self.answer = text
        self._set_citations(_merged(cited_urls(text), self.model_citations), text)
        return list(self.citations)

    def add_model_citations(self, urls: Iterable[str]) -> list[str]:
        """Add URLs the model cited in a provider's citation records (OpenAI ``url_citation``, Anthropic
        ``citations``, Gemini grounding, Perplexity ``citations``) to the run's citations, exactly as
        ``record_answer`` records cited URLs. Returns the run's citations."""
        with self._lock:
            self.model_citations = _merged(self.model_citations, urls)
            merged = _merged(self.citations, self.model_citations)
        self._set_citations(merged, None)
        return list(self.citations)

    def add_cited_spans(self, spans: Iterable[tuple[str, str, int, int, str]]) -> None:
        """Keep where the model's provider citations sit in its answer: (URL, the cited text, start, end,
        record type). Written to the store at run end (``Store.put_model_citations``), so ``citetrace eval``
        pairs each with the claims it overlaps. At most ``MAX_CITED_SPANS`` per run; the rest are counted."""
        with self._lock:
            room = MAX_CITED_SPANS - len(self._cited_spans)
            items = list(spans)
            self._cited_spans.extend(items[:max(room, 0)])
        if len(items) > max(room, 0):
            _telemetry.count_error("capture", message=f"over {MAX_CITED_SPANS} model citation spans in one run")

    def model_citation_records(self) -> list[ModelCitation]:
        """The cited spans as store records, URLs and text redacted as the stored answer is."""
        with self._lock:
            items = list(self._cited_spans)
        return [ModelCitation(self.id, seq, redact_url(url), redact_report(text), start, end, kind)
                for seq, (url, text, start, end, kind) in enumerate(items)]

    def _set_citations(self, urls: list[str], text: str | None) -> None:
        self.citations = [redact_url(u) for u in urls]
        try:
            if self.span.is_recording():
                attrs: dict[str, Any] = {names.CITATIONS: self.citations}
                if text is not None:
                    attrs[names.ANSWER_HASH] = content_hash(text)
                    if _telemetry.current().settings.capture_content:
                        attrs[names.ANSWER_TEXT] = redact_report(text, SPAN_CONTENT_CHARS)
                self.span.set_attributes(attrs)
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)

    def __repr__(self) -> str:
        return f"Run(id={self.id!r}, agent={self.agent!r}, trace_id={self.trace_id!r})"


def _trace_id_of(span: Span) -> str:
    ctx = span.get_span_context()
    return format(ctx.trace_id if ctx.is_valid else secrets.randbits(128), "032x")


_open_lock = threading.Lock()


def _merged(first: Iterable[str], more: Iterable[str]) -> list[str]:
    """``first`` then ``more``, without repeating a page (the one URL key), in order."""
    out: list[str] = []
    seen: set[str] = set()
    for url in (*first, *more):
        key = url_key(url)
        if key not in seen:
            seen.add(key)
            out.append(url)
    return out


class research_run:  # noqa: N801 - used like a function: `with research_run(...)` / `@research_run(...)`
    """Open a research run: ``with research_run(question=..., agent=...) as run:`` or as a decorator."""

    def __init__(self, question: str | None = None, *, agent: str = "agent") -> None:
        if question is not None and not isinstance(question, str):
            raise TypeError(f"research_run(question=...) must be a str, got {type(question).__name__}")
        if not isinstance(agent, str) or not agent.strip():
            raise ValueError("research_run(agent=...) must be a non-empty str")
        self.question = question
        self.agent = agent.strip()
        self._stack: list[tuple[Run, Any, Any]] = []

    # -- context manager ------------------------------------------------------------------------------
    def __enter__(self) -> Run:
        run = self._open()
        return run

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self._close(exc)

    async def __aenter__(self) -> Run:
        return self._open()

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self._close(exc)

    # -- decorator ------------------------------------------------------------------------------------
    def __call__(self, fn: F) -> F:
        question, agent = self.question, self.agent
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                async with research_run(question, agent=agent):
                    return await fn(*args, **kwargs)

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with research_run(question, agent=agent):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    # -- internals ------------------------------------------------------------------------------------
    def _open(self) -> Run:
        run = start_run(self.question, self.agent)
        self._stack.append((run, *attach_run(run)))
        return run

    def _close(self, exc: BaseException | None) -> None:
        run, ctx_token, run_token = self._stack.pop()
        detach_run(ctx_token, run_token)
        finish_run(run, exc)


def start_run(question: str | None, agent: str, *, deferred: bool = False) -> Run:
    """Start a run's root span and store row, without making it current (see ``attach_run``).

    Split from ``research_run`` so the agent-boundary wrappers reuse exactly this logic for runs that
    outlive one call (a generator, or gpt-researcher's two calls on one instance). ``deferred`` (an agent
    boundary with no current span): the span starts when first needed (``Run.open_span``, ``_pending``)."""
    st = _telemetry.current()
    if not st.enabled:
        return Run(question, agent, trace.INVALID_SPAN)
    try:
        settings = st.settings
        attrs: dict[str, Any] = {
            names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT,
            names.GEN_AI_AGENT_NAME: agent,
        }
        if settings.capture_content and question:
            attrs[names.RUN_QUESTION] = redact_report(question, SPAN_CONTENT_CHARS)
        replaying = _replay.current()
        if replaying is not None:
            attrs[names.RUN_REPLAY_OF] = replaying.run_id
        name = f"invoke_agent {agent}"
        if deferred:
            _join_now(st)
            return Run(question, agent, trace.INVALID_SPAN, PendingRoot(name, attrs, otel_context.get_current()))
        span = st.tracer().start_span(name, kind=SpanKind.INTERNAL, attributes=attrs)
        run = Run(question, agent, span)
        if span.is_recording():
            span.set_attribute(names.RUN_ID, run.id)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        run = Run(question, agent, trace.INVALID_SPAN)
    _file_run(run)
    return run


def _join_now(telemetry: _telemetry.Telemetry) -> None:
    """Join the application's provider now (if it set one), so ``Adopter`` is on it before the agent's
    instrumentations start their spans: joining otherwise happens at citetrace's next span."""
    active = getattr(telemetry.span_source, "active", None)
    if active is not None:
        active()


def _file_run(run: Run) -> None:
    try:
        question = redact_report(run.question) if run.question else run.question  # URLs redacted, prose kept
        _telemetry.current().run_store().put_run(RunRecord(run.id, run.trace_id, run.agent, question, run.started_at))
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("store_write", exc)


def run_context(run: Run, *, beside_foreign: bool = False) -> Any:
    """The OpenTelemetry context that makes ``run`` current (its span, and the run under ``RUN_CONTEXT_KEY``)
    on top of the current one; None for a run without a span (disabled).

    ``beside_foreign`` (the agent-boundary wrappers): when the current span was made by another
    instrumentation (OpenInference's ``{agent}.run``, which wraps the same call), the run's span is not made
    current, only the run: the other instrumentation's child spans keep their parent, as without citetrace,
    and the run's span is a sibling that still carries the summary."""
    if run.deferred:  # only the run travels; its span is started beneath whatever is current when needed
        return otel_context.set_value(RUN_CONTEXT_KEY, run, otel_context.get_current())
    if run.span is trace.INVALID_SPAN:
        return None
    current = trace.get_current_span()
    scope = getattr(current, "instrumentation_scope", None)
    foreign = beside_foreign and current.is_recording() and getattr(scope, "name", None) != (
        names.INSTRUMENTATION_SCOPE)
    base = otel_context.get_current() if foreign else trace.set_span_in_context(run.span)
    return otel_context.set_value(RUN_CONTEXT_KEY, run, base)


def attach_run(run: Run, ctx: Any = None) -> tuple[Any, Any]:
    """Make ``run`` current in this context (its span and the run itself); returns the tokens for
    ``detach_run``. ``ctx``: a ``run_context(run)`` computed before, for callers that attach the same run
    many times (a generator's items)."""
    ctx_token = None
    try:
        if ctx is None:
            ctx = run_context(run)
        if ctx is not None:
            ctx_token = otel_context.attach(ctx)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
    return ctx_token, CURRENT_RUN.set(run)


def detach_run(ctx_token: Any, run_token: Any) -> None:
    """Undo ``attach_run``; tolerant of being called from another context (e.g. a different task)."""
    try:
        CURRENT_RUN.reset(run_token)
    except ValueError:  # closed in another context: just clear it
        CURRENT_RUN.set(None)
    if ctx_token is not None:
        try:
            otel_context.detach(ctx_token)
        except Exception as err:  # noqa: BLE001
            _telemetry.count_error("capture", err)


def finish_run(run: Run, exc: BaseException | None) -> None:
    """End a run: record the error, let run-end hooks (the summarizer) write on the root, store the calls
    and the answer, end the span. Never raises."""
    run.open_span(True)
    span = run.span
    if span is trace.INVALID_SPAN and not _telemetry.current().enabled:
        return
    try:
        if exc is not None:
            run.error_type = type(exc).__qualname__
            if span.is_recording():
                span.set_attribute(names.ERROR_TYPE, run.error_type)
                record_failure(span, exc, run.error_type)
        if span.is_recording():
            trace_id = span.get_span_context().trace_id
            for hook in _telemetry.current().hooks.run_end.items:
                try:
                    extra = hook(span, trace_id)
                    if extra:
                        span.set_attributes(dict(extra))
                except Exception as hook_exc:  # noqa: BLE001
                    _telemetry.count_error("run_end_hook", hook_exc)
    except Exception as err:  # noqa: BLE001
        _telemetry.count_error("capture", err)
    try:
        store = _telemetry.current().run_store()
        store.put_calls(run.calls)
        if run._responses:  # noqa: SLF001 - recorded only with record_responses
            store.put_responses(run.responses())
        if run._cited_spans:  # noqa: SLF001 - only a provider's citation records add them
            store.put_model_citations(run.model_citation_records())
        answer = redact_report(run.answer) if run.answer is not None else None  # URLs redacted, prose kept
        store.finish_run(run.id, ended_at=time.time(), answer=answer, error_type=run.error_type)
    except Exception as err:  # noqa: BLE001
        _telemetry.count_error("store_write", err)
    try:
        span.end()
    except Exception as err:  # noqa: BLE001
        _telemetry.count_error("capture", err)
