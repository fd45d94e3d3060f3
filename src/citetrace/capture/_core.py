"""One traced tool call: the span, its classification, the store write. Shared by ``@traced_tool`` and
the auto-instrumentation, so a library call and a decorated function produce identical spans.

The contract with the host agent: the wrapped callable's return value is handed back as the same object,
its exception is re-raised as the same object with its traceback, and anything that goes wrong in here is
swallowed, logged once and counted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Awaitable, Callable, Iterable, Mapping, Sequence

from opentelemetry import context as otel_context
from opentelemetry.context import Context
from opentelemetry.instrumentation.utils import is_instrumentation_enabled
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from citetrace import names
from citetrace._redact import SPAN_CONTENT_CHARS, redact_arguments, redact_text, redact_url, redact_urls
from citetrace._urls import host_of
from citetrace import _telemetry
from citetrace.capture import _binary, _extract, _pdf, _redirects, _replay
from citetrace.capture._responses import args_key, encode_exception, encode_result
from citetrace.capture._context import (
    CURRENT_RUN, IN_TOOL, OUTSIDE_RUN_CALLS, TOOL_CALL_ID, in_tool_call, run_in_context,
)

from citetrace.capture._failure import record_failure
from citetrace.capture._otelctx import attach_span, current_context, detach
from citetrace.capture._pending import child_context
from citetrace.capture._status import observations, observed_status

__all__ = ["ToolSpec", "invoke", "ainvoke", "traced_call", "atraced_call", "in_tool_call"]

_outside_run_counter = OUTSIDE_RUN_CALLS.get
"""Bound once: a call that ends outside any run pays one lookup (~10 ns), inline, not a function call."""

_INTERNAL = SpanKind.INTERNAL
_FETCH = names.TOOL_KIND_FETCH
_ERROR_STATUSES = (names.STATUS_ERROR, names.STATUS_RATE_LIMITED)
_ARGUMENTS_CHARS = 4096  # gen_ai.tool.call.arguments is cut here, after redaction


@dataclass(frozen=True)
class ToolSpec:
    """How to read one tool's calls. Every hook is optional; returning None means "use the default"."""

    name: str
    kind: str
    query_from: Callable[[Sequence[Any], Mapping[str, Any]], str | None] | None = None
    url_from: Callable[[Sequence[Any], Mapping[str, Any]], str | None] | None = None
    result_count: Callable[[Any], int | None] | None = None
    result_urls: Callable[[Any], Iterable[str] | None] | None = None
    result_text: Callable[[Any], str | None] | None = None
    classify: Callable[[Any], str | None] | None = None
    is_rate_limit: Callable[[BaseException], bool] | None = None
    classify_exception: Callable[[BaseException], str | None] | None = None
    description: str | None = None
    query_arg: str | None = None
    url_arg: str | None = None
    skip_self: bool = False
    arg_names: tuple[str, ...] = ()
    """The positional parameters' names (after ``self``), so that a secret passed positionally to a parameter
    with a secret name (``login(url, user, password)``) is masked in ``gen_ai.tool.call.arguments``."""
    stores_text: bool = True
    result_size: Callable[[Any], int | None] | None = None
    """Characters of result text, for a shape whose default reading would count the wrong fields (a
    ``(results, raw)`` tuple whose raw part holds the query and a request id)."""
    result_pages: Callable[[Any], Iterable[tuple[str, str]] | None] | None = None
    """For a search whose results carry page text (Tavily ``raw_content``, Exa contents, Jina): the
    (URL, text) pairs. Each is stored as a document of the run, and counts as read."""
    result_documents: Callable[[Any], Iterable[tuple[str, str, str | None, int | None]] | None] | None = None
    """For a fetch of several URLs in one call (Tavily ``extract``, Exa ``get_contents``): (URL, text, status,
    HTTP status) per URL, status None meaning ok or empty by the text's size. Each is stored as its own document
    with its own status; the span is ``ok`` when any URL was read, and names every URL of the call in
    ``citetrace.pages_returned``."""
    """False for a fetch whose result carries no page text (a provider opened the page server-side and
    returned none): nothing is written to the store, rather than an empty document."""
    result_body: Callable[[Any], tuple[bytes, str | None] | None] | None = None
    """For a fetch whose result object does not hold the bytes it was read from (an ``urllib`` or ``aiohttp``
    response the HTTP layer read): (body, Content-Type). Capture reads a PDF from them as from a returned
    ``bytes`` or a loaded ``requests``/``httpx`` response, so every client's PDF says the same."""

    def __post_init__(self) -> None:
        if self.kind not in names.TOOL_KINDS:
            raise ValueError(f"tool kind must be one of {names.TOOL_KINDS}, got {self.kind!r}")
        if not self.name:
            raise ValueError("tool name must not be empty")

    @cached_property
    def start_attributes(self) -> dict[str, Any]:
        """The attributes every span of this tool starts with, built once (each call copies them)."""
        attrs: dict[str, Any] = {
            names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL,
            names.GEN_AI_TOOL_NAME: self.name,
            names.GEN_AI_TOOL_TYPE: names.TOOL_TYPE_FUNCTION,
            names.TOOL_KIND: self.kind,
        }
        if self.description:
            attrs[names.GEN_AI_TOOL_DESCRIPTION] = self.description
        return attrs

    @cached_property
    def span_name(self) -> str:
        """``execute_tool {name}``, built once per tool."""
        return f"execute_tool {self.name}"

    @cached_property
    def is_search(self) -> bool:
        """``kind == "search"``, decided once per tool: every call branches on it."""
        return self.kind == names.TOOL_KIND_SEARCH

    @cached_property
    def reads_results(self) -> bool:
        """Whether ``result_urls``, ``result_size`` or ``result_count`` is set. A search tool with none of them
        takes the one-pass scan's URLs, size and count as they are, without asking each hook on every call."""
        return self.result_urls is not None or self.result_size is not None or self.result_count is not None


class _Call:
    """State of one call between start and end."""

    __slots__ = ("spec", "span", "token", "t0", "wall0", "query", "qhash", "url", "run", "started", "rkey", "tel")

    def __init__(self, spec: ToolSpec, args: Sequence[Any], kwargs: Mapping[str, Any], current: bool = True,
                 tel: _telemetry.Telemetry | None = None, ctx: Context | None = None) -> None:
        self.spec = spec
        # the telemetry and the OpenTelemetry context are read once per call (the wrapper already has both)
        self.tel = tel = tel if tel is not None else _telemetry.current()
        if ctx is None:
            ctx = current_context()
        self.run = run = CURRENT_RUN.get() or run_in_context(ctx)
        self.query: str | None
        self.qhash: str | None
        self.url: str | None
        self.query = self.qhash = self.url = None
        settings = tel.settings
        attrs = spec.start_attributes.copy()
        call_id = kwargs.get("tool_call_id") if kwargs else None
        if not isinstance(call_id, str):
            call_id = TOOL_CALL_ID.get()
        if call_id:
            attrs[names.GEN_AI_TOOL_CALL_ID] = call_id
        if run is not None:
            attrs[names.RUN_ID] = run.id
            attrs[names.GEN_AI_AGENT_NAME] = run.agent
        if spec.is_search:
            query = spec.query_from(args, kwargs) if spec.query_from else None
            if query is None:
                query = _extract.arg_value(args, kwargs, _extract.QUERY_KWARGS, spec.query_arg, spec.skip_self)
            self.query = query
            if query is not None:
                self.qhash = attrs[names.QUERY_HASH] = _extract.query_hash(query)
                if settings.capture_content:
                    attrs[names.QUERY_TEXT] = redact_text(query, SPAN_CONTENT_CHARS)
        else:
            url = spec.url_from(args, kwargs) if spec.url_from else None
            if url is None:
                url = _extract.arg_value(args, kwargs, _extract.URL_KWARGS, spec.url_arg, spec.skip_self)
            if url is not None:
                self.url = redact_url(url)
                attrs[names.URL_FULL] = self.url
                host = host_of(self.url)
                if host:
                    attrs[names.SERVER_ADDRESS] = host
        if settings.capture_content:
            attrs[names.GEN_AI_TOOL_CALL_ARGUMENTS] = redact_arguments(
                args[1:] if spec.skip_self else args, dict(kwargs), _ARGUMENTS_CHARS, spec.arg_names
            )
        parent = child_context(run) if run is not None and run.deferred else None
        # ``ctx`` is the current context: handing it over spares the SDK its own reads of it
        self.span: Span = tel.tracer().start_span(
            spec.span_name, context=ctx if parent is None else parent, kind=_INTERNAL, attributes=attrs
        )
        # current only for a tool the application decorated: a library's HTTP span keeps its parent otherwise
        self.token = attach_span(self.span, ctx) if current else None
        # the wall-clock start and the duration go only into the run's call record
        if run is not None:
            self.wall0 = time.time()
            self.t0 = time.perf_counter()
        else:
            self.wall0 = self.t0 = 0.0
        self.started = True
        # a replayed call is not recorded again: its response is the recording
        self.rkey = (args_key(spec.name, args, kwargs, spec.skip_self)
                     if settings.record_responses and run is not None and _replay.current(settings) is None else None)

    def detach(self) -> None:
        if self.started:
            self.started = False
            if self.token is not None:
                detach(self.token)

    # -- endings --------------------------------------------------------------------------------------
    def finish(self, result: Any) -> None:
        run = self.run
        elapsed = time.perf_counter() - self.t0 if run is not None else 0.0
        self.detach()
        spec = self.spec
        if self.rkey is not None:  # a key is made only for a call inside a run
            self._keep_response(encode_result(result))
        status: str | None = None
        if spec.classify:
            status = spec.classify(result)
            if status is not None and status not in names.TOOL_STATUSES:
                raise ValueError(f"classify= returned {status!r}; expected one of {names.TOOL_STATUSES}")
        is_search = spec.is_search
        # a list of plain dicts, bare or under a result key (most search tools): the items in one pass
        fast = _extract.scan_results(result) if is_search else None
        if result.__class__ is list:  # a list carries no HTTP status or error field (both readers say None)
            http_status = observed_status()
        else:
            cls = result.__class__  # a JSON error body returned as text (or bytes) reads as its dict
            shaped = _extract.json_envelope(result) if cls is str or cls is bytes else result
            if status is None:
                status = _extract.returned_failure(shaped)
            http_status = _extract.http_status_of(shaped)
            if http_status is None:  # the library hid it (an error page as text, a sentence): the probe's
                http_status = observed_status()
        attrs: dict[str, Any] = {} if http_status is None else {names.HTTP_RESPONSE_STATUS_CODE: http_status}
        count: int | None = None
        text: str | None = None
        docs = None
        if is_search:
            if fast is not None and not spec.reads_results:
                urls, size, count = fast
            else:
                urls, size, count = self._read_search(result, fast)
            if count is None and not urls and _extract.is_unknown_shape(result):
                # a shape we cannot read (a generator, a custom object): say nothing rather than "empty"
                status = status or names.STATUS_OK
            else:
                if count is None:
                    count = len(urls)
                attrs[names.RESULT_COUNT] = count
            attrs[names.RESULT_SIZE] = size
            cap = self.tel.settings.max_urls
            attrs[names.URLS_RETURNED] = redact_urls(urls if len(urls) <= cap else urls[:cap])
            if len(urls) > cap:
                attrs[names.URLS_RETURNED_TRUNCATED] = True
            pages = spec.result_pages(result) if spec.result_pages else None
            if pages:
                attrs[names.PAGES_RETURNED] = self._store_pages(pages)
            if status is None:
                status = names.STATUS_EMPTY if count == 0 and not pages else names.STATUS_OK
        else:
            docs = spec.result_documents(result) if spec.result_documents else None
            ctype: str | None = None
            if docs is not None:
                status = self._finish_documents(list(docs), status, attrs)
            else:
                text, status, ctype = self._read_fetch(result, status, attrs)
        attrs[names.TOOL_STATUS] = status
        if status in _ERROR_STATUSES:
            attrs[names.ERROR_TYPE] = names.ERROR_TYPE_RATE_LIMITED if status == names.STATUS_RATE_LIMITED else (
                names.ERROR_TYPE_TOOL_ERROR
            )
        if not is_search and spec.stores_text and docs is None:
            ctype = ctype or _extract.content_type_of(result)
            self._store(text or "", status, http_status, ctype, attrs)
            if self.url is not None:
                self._store_redirect(result, text or "", status, http_status, ctype, attrs)
        span = self.span
        if span.is_recording():
            span.set_attributes(attrs)
            if status in _ERROR_STATUSES:
                span.set_status(Status(StatusCode.ERROR, f"tool returned {status}"))
        span.end()
        if run is not None:
            self._record(status, elapsed, http_status, count, attrs.get(names.RESULT_SIZE), None,
                         attrs.get(names.URLS_RETURNED, ()), attrs.get(names.URL_FINAL))
        elif (counter := _outside_run_counter()) is not None:  # a revision controller counts calls outside runs
            counter[0] += 1

    def _read_search(self, result: Any, fast: tuple[list[str], int, int] | None) -> tuple[list[str], int, int | None]:
        """A search's URLs, characters and count when the tool has its own readers (``result_urls``, ``_size``,
        ``_count``) or the result is not a list of plain dicts: the hooks first, then the general readers."""
        spec = self.spec
        count: int | None
        custom = spec.result_urls(result) if spec.result_urls else None
        if custom is not None:
            urls = _extract.iter_strings(custom)
            count = len(urls)
            size = fast[1] if fast is not None else _extract.text_size(result, _extract.locate_results(result))
        elif fast is not None:
            urls, size, count = fast
        else:
            urls, count = _extract.extract_urls(result)
            size = _extract.text_size(result, _extract.locate_results(result))
        custom_size = spec.result_size(result) if spec.result_size else None
        if custom_size is not None:
            size = custom_size
        custom_count = spec.result_count(result) if spec.result_count else None
        if custom_count is not None:
            count = custom_count
        return urls, size, count

    def _read_fetch(self, result: Any, status: str | None,
                    attrs: dict[str, Any]) -> tuple[str | None, str, str | None]:
        """A fetch's text (the tool's ``result_text`` first) and its size on ``attrs``; (text, status, content
        type when the reading decided it: ``application/pdf`` for a PDF, whose text layer replaces the bytes)."""
        spec = self.spec
        text = spec.result_text(result) if spec.result_text else None
        if text is None:
            text = _extract.result_text(result)
        if text is None and _extract.is_unknown_shape(result):
            # an iterator a plain function returns (a generator *function* is iterated by _stream): its
            # text arrives after the call, so say nothing of its size rather than call it an empty read
            return text, status or names.STATUS_OK, None
        ctype = None
        body = spec.result_body(result) if spec.result_body else None
        pdf = _pdf.pdf_of(result, text, body)
        if pdf is not None:
            text, ctype = pdf.text, _pdf.PDF_MIME
            if pdf.unreadable:
                attrs[names.CONTENT_UNREADABLE] = pdf.unreadable
            if pdf.pages_skipped:
                attrs[names.CONTENT_PAGES_SKIPPED] = pdf.pages_skipped
        elif text is not None or body is not None:
            binary = _binary.binary_of(result, text, body)
            if binary is not None:  # an image, an archive...: no text, and never its bytes decoded as text
                text, ctype = "", binary or None
                attrs[names.CONTENT_UNREADABLE] = names.BINARY_CONTENT
        chars = len(text) if text is not None else 0
        attrs[names.RESULT_SIZE] = chars
        if status is None:
            status, why = _extract.read_status(text or "", self.tel.settings.empty_fetch_chars)
            if why is not None:
                attrs[names.CONTENT_UNREADABLE] = why
        return text, status, ctype

    def fail(self, exc: BaseException) -> None:
        elapsed = time.perf_counter() - self.t0 if self.run is not None else 0.0
        self.detach()
        if self.rkey is not None:
            self._keep_response(encode_exception(exc))
        http_status = _extract.http_status_of_exc(exc)
        if http_status is None:  # ValueError(<error JSON>), UsageLimitExceededError: the probe saw the status
            http_status = observed_status()
        status = self.spec.classify_exception(exc) if self.spec.classify_exception else None
        if status is not None and status not in names.TOOL_STATUSES:
            raise ValueError(f"classify_exception returned {status!r}; expected one of {names.TOOL_STATUSES}")
        if status is None:
            rate = (self.spec.is_rate_limit(exc) if self.spec.is_rate_limit else False) or (
                _extract.is_rate_limit_exc(exc, http_status)
            )
            status = names.STATUS_RATE_LIMITED if rate else names.STATUS_ERROR
        failed = status in _ERROR_STATUSES
        error_type = type(exc).__qualname__ if failed else None
        attrs: dict[str, Any] = {names.TOOL_STATUS: status}
        if error_type is not None:
            attrs[names.ERROR_TYPE] = error_type
        if http_status is not None:
            attrs[names.HTTP_RESPONSE_STATUS_CODE] = http_status
        if self.spec.kind == names.TOOL_KIND_FETCH:
            attrs[names.RESULT_SIZE] = 0
            self._store("", status, http_status, None, attrs)
        else:
            attrs[names.RESULT_COUNT] = 0
        span = self.span
        if span.is_recording():
            span.set_attributes(attrs)
            record_failure(span, exc, error_type)
        span.end()
        if self.run is not None:
            self._record(status, elapsed, http_status, None if failed else 0, 0, error_type, [])
        elif (counter := _outside_run_counter()) is not None:
            counter[0] += 1

    def _keep_response(self, payload: dict[str, Any]) -> None:
        """Record the call's response for replay, with what the HTTP probes saw during it (statuses,
        redirects): a replay feeds them back, so a kept 429 or a redirect classifies the same."""
        if self.run is None:
            return
        seen = observations()
        if seen:
            payload = {**payload, "observed": seen}
        self.run.add_response(self.spec.name, self.rkey or "", payload)

    def _doc_run_id(self) -> str:
        """The run the documents go under: the run's id, or (no run) the trace id, as the summary keys it."""
        return self.run.id if self.run is not None else format(self.span.get_span_context().trace_id, "032x")

    def _store_pages(self, pages: Iterable[tuple[str, str]]) -> list[str]:
        """Store the page texts a search returned; return their redacted URLs (capped like result URLs)."""
        return [url for url, _status in self._store_documents((u, t, names.STATUS_OK, None) for u, t in pages)]

    def _finish_documents(self, docs: list[tuple[str, str, str | None, int | None]], status: str | None,
                          attrs: dict[str, Any]) -> str:
        """A fetch of several URLs in one call: each URL stored with its own status; the span's status."""
        threshold = self.tel.settings.empty_fetch_chars
        decided = [(url, text, own or _extract.fetch_status_of_text(text, threshold), code)
                   for url, text, own, code in docs]
        attrs[names.RESULT_SIZE] = sum(len(text) for _url, text, _status, _code in decided)
        # the span's own URL (the first) keeps its store ref and content hash on the span, as a one-URL fetch does
        first = next((d for d in decided if self.url is not None and redact_url(d[0]) == self.url), None)
        stored: list[tuple[str, str]] = []
        if first is not None and self.url is not None:
            self._store(first[1], first[2], first[3], None, attrs)
            stored.append((self.url, first[2]))
        stored += self._store_documents(d for d in decided if d is not first)
        if stored:  # every URL of the call, whatever its status: as for a one-URL fetch, a failure is a failed read
            attrs[names.PAGES_RETURNED] = [url for url, _own in stored]
        return status or _extract.batch_status([own for _url, _text, own, _code in decided])

    def _store_documents(self, docs: Iterable[tuple[str, str, str, int | None]]) -> list[tuple[str, str]]:
        """Store (URL, text, status, HTTP status) documents, capped like result URLs; their (redacted URL, status)."""
        run_id = self._doc_run_id()
        stored: list[tuple[str, str]] = []
        for url, text, status, code in list(docs)[: self.tel.settings.max_urls]:
            safe = redact_url(url)
            try:
                self.tel.run_store().put_document(run_id, safe, text, status=status, http_status=code)
            except Exception as exc:  # noqa: BLE001 - the store must never break the agent
                _telemetry.count_error("store_write", exc)
            stored.append((safe, status))
        return stored

    def _store_redirect(self, result: Any, text: str, status: str, http_status: int | None, ctype: str | None,
                        attrs: dict[str, Any]) -> None:
        """A fetch the server redirected (``/old -301-> /new``): the text is also the final URL's, which is the
        one a report cites; store it under that URL and name it in ``citetrace.pages_returned`` (read)."""
        final = _redirects.redirect_target(result, self.url or "")
        if final is None:
            return
        safe = redact_url(final)
        run_id = self._doc_run_id()
        try:
            self.tel.run_store().put_document(run_id, safe, text, status=status, http_status=http_status,
                                              content_type=ctype)
        except Exception as exc:  # noqa: BLE001 - the store must never break the agent
            _telemetry.count_error("store_write", exc)
        attrs[names.PAGES_RETURNED] = [safe]
        attrs[names.URL_FINAL] = safe

    def _store(self, text: str, status: str, http_status: int | None, ctype: str | None, attrs: dict[str, Any]) -> None:
        if self.url is None:
            return
        run_id = self._doc_run_id()
        try:
            ref = self.tel.run_store().put_document(
                run_id, self.url, text, status=status, http_status=http_status, content_type=ctype
            )
        except Exception as exc:  # noqa: BLE001 - the store must never break the agent
            _telemetry.count_error("store_write", exc)
            attrs[names.CONTENT_HASH] = _content_hash(text)
            return
        attrs[names.STORE_REF] = ref
        # the store hashed the text already: the ref ends with that sha256 (hashing 20 KB again costs ~20 µs)
        sha = ref.rpartition("/")[2]
        attrs[names.CONTENT_HASH] = sha if len(sha) == 64 else _content_hash(text)

    def _record(
        self,
        status: str,
        elapsed: float,
        http_status: int | None,
        count: int | None,
        size: Any,
        error_type: str | None,
        urls: Sequence[str],
        url_final: str | None = None,
    ) -> None:
        """The run's call record (the callers call it only inside a run)."""
        run = self.run
        if run is None:
            return
        settings = self.tel.settings
        # ToolCallRecord fields after run_id and seq, in order (the run builds the record when read)
        run.add_call_fields(
            (
                self.spec.name,
                self.spec.kind,
                status,
                self.wall0,
                elapsed * 1000.0,
                http_status,
                self.url,
                count,
                size if isinstance(size, int) else None,
                self.qhash,
                error_type,
                tuple(urls),
                redact_text(self.query) if (settings.capture_content and self.query) else None,
                url_final,
            )
        )


def _content_hash(text: str) -> str:
    from citetrace.store import content_hash

    return content_hash(text)


def _start(spec: ToolSpec, args: Sequence[Any], kwargs: Mapping[str, Any], current: bool = True,
           tel: _telemetry.Telemetry | None = None, ctx: Context | None = None) -> _Call | None:
    try:
        return _Call(spec, args, kwargs, current, tel, ctx)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        return None


def _finish(call: _Call, result: Any) -> None:
    try:
        call.finish(result)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        _end_quietly(call)


def _fail(call: _Call, error: BaseException) -> None:
    try:
        call.fail(error)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        _end_quietly(call)


def _end_quietly(call: _Call) -> None:
    try:
        call.detach()
        if getattr(call.span, "end_time", None) is None:
            call.span.end()
    except Exception:  # noqa: BLE001
        pass


def _unsuppressed_api() -> Context | None:
    return otel_context.get_current() if is_instrumentation_enabled() else None


try:  # the two keys ``is_instrumentation_enabled`` reads, from one context lookup instead of two (hot path)
    from opentelemetry.context import _SUPPRESS_INSTRUMENTATION_KEY as _SUPPRESS
    from opentelemetry.instrumentation.utils import _SUPPRESS_INSTRUMENTATION_KEY_PLAIN as _SUPPRESS_PLAIN

    def _unsuppressed() -> Context | None:
        """The current context, or None when instrumentation is suppressed in it: the one read of the context
        a traced call makes (the span's parent, the run it carries and the suppression flags all come from it)."""
        ctx = current_context()
        return None if (ctx.get(_SUPPRESS) or ctx.get(_SUPPRESS_PLAIN)) else ctx

except ImportError:  # pragma: no cover - an API version without them: the public function
    _unsuppressed = _unsuppressed_api


def _passthrough() -> bool:
    return not _telemetry.current().enabled or IN_TOOL.get() or _unsuppressed() is None


def invoke(spec: ToolSpec, wrapped: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any], *,
           current: bool = True) -> Any:
    """Call ``wrapped(*args, **kwargs)`` inside one tool span; return/raise exactly what it does.

    ``current=False`` (the auto-instrumentation's library rows): the span is not made the current span, so the
    spans another instrumentation makes inside the call (an HTTP client's) keep the parent they have without
    citetrace. ``@traced_tool`` keeps True: the application asked for that span around its code."""
    tel = _telemetry.current()
    if not tel.enabled or IN_TOOL.get():
        return wrapped(*args, **kwargs)
    ctx = _unsuppressed()
    if ctx is None:
        return wrapped(*args, **kwargs)
    return traced_call(tel, spec, wrapped, args, kwargs, current, ctx)


def traced_call(tel: _telemetry.Telemetry, spec: ToolSpec, wrapped: Callable[..., Any], args: Sequence[Any],
                kwargs: Mapping[str, Any], current: bool = True, ctx: Context | None = None) -> Any:
    """``invoke`` once the caller has checked that this call is traced (enabled, not nested, not suppressed):
    ``@traced_tool``'s wrapper does that check itself, so a nested call passes through in one frame. ``ctx``
    is the current context the check read (None: read it again)."""
    replaying = _replay.current(tel.settings)
    if replaying is not None:  # the recorded response instead of the call (still one span)
        wrapped = replaying.stand_in(spec, args, kwargs, wrapped, False)
    try:  # _start, inlined: one frame less on every traced call
        call = _Call(spec, args, kwargs, current, tel, ctx)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        return wrapped(*args, **kwargs)
    token = IN_TOOL.set(True)
    scope = _redirects.open_scope() if spec.kind == _FETCH else None  # where its requests ended (redirects)
    try:
        result = wrapped(*args, **kwargs)
    except BaseException as exc:
        IN_TOOL.reset(token)
        _fail(call, exc)
        _redirects.close_scope(scope)
        raise
    IN_TOOL.reset(token)
    try:  # _finish, inlined
        call.finish(result)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        _end_quietly(call)
    if scope is not None:  # a fetch under the probes only
        _redirects.close_scope(scope)
    return result


async def ainvoke(
    spec: ToolSpec, wrapped: Callable[..., Awaitable[Any]], args: Sequence[Any], kwargs: Mapping[str, Any], *,
    current: bool = True,
) -> Any:
    """Async twin of ``invoke``."""
    tel = _telemetry.current()
    if not tel.enabled or IN_TOOL.get():
        return await wrapped(*args, **kwargs)
    ctx = _unsuppressed()
    if ctx is None:
        return await wrapped(*args, **kwargs)
    return await atraced_call(tel, spec, wrapped, args, kwargs, current, ctx)


async def atraced_call(tel: _telemetry.Telemetry, spec: ToolSpec, wrapped: Callable[..., Awaitable[Any]],
                       args: Sequence[Any], kwargs: Mapping[str, Any], current: bool = True,
                       ctx: Context | None = None) -> Any:
    """Async twin of ``traced_call``."""
    replaying = _replay.current(tel.settings)
    if replaying is not None:
        wrapped = replaying.stand_in(spec, args, kwargs, wrapped, True)
    call = _start(spec, args, kwargs, current, tel, ctx)
    if call is None:
        return await wrapped(*args, **kwargs)
    token = IN_TOOL.set(True)
    scope = _redirects.open_scope() if spec.kind == _FETCH else None  # where its requests ended (redirects)
    try:
        result = await wrapped(*args, **kwargs)
    except BaseException as exc:
        IN_TOOL.reset(token)
        _fail(call, exc)
        _redirects.close_scope(scope)
        raise
    IN_TOOL.reset(token)
    _finish(call, result)
    _redirects.close_scope(scope)
    return result
