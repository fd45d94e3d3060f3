"""@traced_tool: one execute_tool span per call, classified, with the attributes the contract names."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

import httpx
import pytest
import requests
import respx
import responses
from opentelemetry.trace import SpanKind, StatusCode

from citetrace import names, research_run, tool_call_id, traced_tool
from citetrace import _telemetry
from citetrace.store import MemoryStore, parse_ref
from citetrace.testing import capture_spans

RESULTS = [{"url": f"https://example.org/page/{i}", "title": f"Result {i}", "snippet": "text"} for i in range(10)]


@traced_tool(kind="search")
def web_search(query: str, max_results: int = 10) -> list[dict[str, str]]:
    """Search the web."""
    return RESULTS[:max_results]


@traced_tool(kind="fetch")
def read_page(url: str) -> str:
    return "body " * 100


def test_search_span_has_contract_attributes() -> None:
    """A search call becomes one INTERNAL execute_tool span with kind, status, counts, URLs and query hash."""
    with capture_spans() as cap:
        web_search("What is  OpenTelemetry?")
    (span,) = cap.spans
    attrs = span.attributes or {}
    assert span.name == "execute_tool web_search"
    assert span.kind is SpanKind.INTERNAL
    assert attrs[names.GEN_AI_OPERATION_NAME] == "execute_tool"
    assert attrs[names.GEN_AI_TOOL_NAME] == "web_search"
    assert attrs[names.GEN_AI_TOOL_TYPE] == "function"
    assert attrs[names.GEN_AI_TOOL_DESCRIPTION] == "Search the web."
    assert attrs[names.TOOL_KIND] == "search"
    assert attrs[names.TOOL_STATUS] == "ok"
    assert attrs[names.RESULT_COUNT] == 10
    assert attrs[names.RESULT_SIZE] == sum(len(v) for r in RESULTS for v in r.values())
    assert list(attrs[names.URLS_RETURNED]) == [r["url"] for r in RESULTS]
    assert names.URLS_RETURNED_TRUNCATED not in attrs
    assert names.QUERY_TEXT not in attrs
    assert span.status.status_code is StatusCode.UNSET


def test_query_hash_folds_case_and_whitespace() -> None:
    """The same query with different case and spacing hashes the same; a different query does not."""
    with capture_spans() as cap:
        web_search("Solar  power\tgrowth")
        web_search("solar power growth ")
        web_search("wind power growth")
    hashes = [s.attributes[names.QUERY_HASH] for s in cap.spans]  # type: ignore[index]
    assert hashes[0] == hashes[1] != hashes[2]


def test_content_capture_is_opt_in() -> None:
    """Query text and arguments appear only with capture_content=True, and secrets are masked."""
    with capture_spans(capture_content=True) as cap:
        web_search("climate sk-abcdefghijklmnop1234")
    attrs = cap.spans[0].attributes or {}
    assert attrs[names.QUERY_TEXT] == "climate REDACTED"
    assert "sk-abcdef" not in attrs[names.GEN_AI_TOOL_CALL_ARGUMENTS]  # type: ignore[operator]


def test_content_capture_env_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT turns capture on when CITETRACE_CAPTURE_CONTENT is unset."""
    monkeypatch.delenv(names.ENV_CAPTURE_CONTENT, raising=False)
    monkeypatch.setenv(names.ENV_GENAI_CAPTURE_CONTENT, "true")
    with capture_spans() as cap:
        web_search("visible query")
    assert (cap.spans[0].attributes or {})[names.QUERY_TEXT] == "visible query"


def test_url_list_is_capped_and_flagged() -> None:
    """More URLs than the cap are cut, and the truncation is flagged."""

    @traced_tool(kind="search")
    def many(q: str) -> dict[str, Any]:
        return {"organic_results": [{"link": f"https://e.com/{i}"} for i in range(80)]}

    with capture_spans(max_urls=50) as cap:
        many("x")
    attrs = cap.spans[0].attributes or {}
    assert len(attrs[names.URLS_RETURNED]) == 50  # type: ignore[arg-type]
    assert attrs[names.URLS_RETURNED_TRUNCATED] is True
    assert attrs[names.RESULT_COUNT] == 80


@pytest.mark.parametrize(
    ("result", "urls"),
    [
        ([{"link": "https://a.org/1"}, {"href": "https://b.org/2"}], ["https://a.org/1", "https://b.org/2"]),
        ({"results": [{"url": "https://a.org/1"}]}, ["https://a.org/1"]),
        ({"web": {"results": [{"url": "https://brave.example/1"}]}}, ["https://brave.example/1"]),
        ({"organic_results": [{"link": "https://serp.example/1"}]}, ["https://serp.example/1"]),
        (["https://plain.example/1", "https://plain.example/2"], ["https://plain.example/1", "https://plain.example/2"]),
        ("## Results\n[A](https://md.example/a)\n[B](https://md.example/b)", ["https://md.example/a", "https://md.example/b"]),
    ],
)
def test_urls_extracted_from_real_api_shapes(result: Any, urls: list[str]) -> None:
    """URLs come out of the shapes real search APIs return, in order."""

    @traced_tool(kind="search")
    def shaped(q: str) -> Any:
        return result

    with capture_spans() as cap:
        shaped("q")
    assert list((cap.spans[0].attributes or {})[names.URLS_RETURNED]) == urls  # type: ignore[arg-type]


def test_objects_with_url_attribute() -> None:
    """Result objects with a .url (Exa-style) are read through .results."""

    class Item:
        def __init__(self, url: str) -> None:
            self.url = url
            self.title = "t"

    class Response:
        results = [Item("https://exa.example/1"), Item("https://exa.example/2")]

    @traced_tool(kind="search")
    def exa_like(q: str) -> Response:
        return Response()

    with capture_spans() as cap:
        exa_like("q")
    attrs = cap.spans[0].attributes or {}
    assert list(attrs[names.URLS_RETURNED]) == ["https://exa.example/1", "https://exa.example/2"]  # type: ignore[arg-type]
    assert attrs[names.RESULT_COUNT] == 2


def test_extract_urls_hook_covers_unknown_shapes() -> None:
    """extract_urls= supplies URLs for a shape the built-in extraction does not know."""

    @traced_tool(kind="search", extract_urls=lambda r: [h["permalink"] for h in r["hits_here"]])
    def odd(q: str) -> dict[str, Any]:
        return {"hits_here": [{"permalink": "https://odd.example/1"}]}

    with capture_spans() as cap:
        odd("q")
    attrs = cap.spans[0].attributes or {}
    assert list(attrs[names.URLS_RETURNED]) == ["https://odd.example/1"]  # type: ignore[arg-type]
    assert attrs[names.TOOL_STATUS] == "ok"


def test_empty_search_is_empty_not_error() -> None:
    """Zero results is status empty, with no error.type and no ERROR status."""

    @traced_tool(kind="search")
    def nothing(q: str) -> dict[str, Any]:
        return {"results": []}

    with capture_spans() as cap:
        nothing("q")
    span = cap.spans[0]
    assert (span.attributes or {})[names.TOOL_STATUS] == "empty"
    assert names.ERROR_TYPE not in (span.attributes or {})
    assert span.status.status_code is StatusCode.UNSET


def test_short_fetch_is_empty_and_threshold_configurable() -> None:
    """A fetch shorter than the threshold (cookie wall) is empty; the threshold is a setting."""

    @traced_tool(kind="fetch")
    def wall(url: str) -> str:
        return "Please accept cookies to continue."

    with capture_spans() as cap:
        wall("https://news.example/a")
    assert (cap.spans[0].attributes or {})[names.TOOL_STATUS] == "empty"
    with capture_spans(empty_fetch_chars=10) as cap:
        wall("https://news.example/a")
    assert (cap.spans[0].attributes or {})[names.TOOL_STATUS] == "ok"


JS_SHELL = ("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Energy Daily</title>"
            "<link rel='stylesheet' href='/static/css/main.4f3a2b.css'>"
            "<script>window.__CONFIG__={api:'/api/v2',features:{paywall:true,consent:true}};if(a<b){}</script>"
            "<style>body{margin:0}#root{min-height:100vh}</style></head><body><!-- app mounts here -->"
            "<noscript>You need to enable JavaScript to run this app.</noscript><div id='root'></div>"
            "<script src='/static/js/vendor.81b3c.js'></script><script src='/static/js/main.9a7e1.js'></script>"
            "</body></html>")
COOKIE_WALL = ("<html><head><style>" + ".consent{position:fixed;inset:0;background:#000c}" * 20 + "</style></head>"
               "<body><div class='consent'><p>We use cookies.</p><button>Accept all</button></div></body></html>")
ARTICLE = "<html><body><article><p>" + "Solar capacity grew 24 percent in 2024. " * 6 + "</p></article></body></html>"


@pytest.mark.parametrize(("page", "status"), [(JS_SHELL, "empty"), (COOKIE_WALL, "empty"), (ARTICLE, "ok"),
                                              ("<p>" + "x" * 300 + "</p>", "ok"), ("a < b and " * 30, "ok")])
def test_an_html_page_is_empty_by_its_visible_text(page: str, status: str) -> None:
    """The quick start's fetch returns ``response.text``, the raw HTML: a JavaScript shell or a cookie wall is
    hundreds of characters of markup with almost no text, and is ``empty`` by its visible text (tags, scripts,
    styles, comments and noscript not counted); the size stays the characters returned. Before, both were
    ``ok`` reads, though the README lists them as what ``empty`` catches. Text that is not HTML counts whole."""

    @traced_tool(kind="fetch")
    def read(url: str) -> str:
        return page

    with capture_spans() as cap:
        read("https://news.example/a")
    attrs = cap.spans[0].attributes or {}
    assert len(page) >= 200 and (attrs[names.TOOL_STATUS], attrs[names.RESULT_SIZE]) == (status, len(page))


def test_fetch_is_stored_and_referenced() -> None:
    """A fetch's text goes to the store and the span points at it; the URL on the span is redacted."""
    with capture_spans() as cap:
        read_page("https://user:hunter2@docs.example/p?token=abc123&page=2")
    attrs = cap.spans[0].attributes or {}
    assert attrs[names.URL_FULL] == "https://REDACTED:REDACTED@docs.example/p?token=REDACTED&page=2"
    assert attrs[names.SERVER_ADDRESS] == "docs.example"
    ref = str(attrs[names.STORE_REF])
    assert cap.store.get_ref(ref) == "body " * 100
    run_id, sha = parse_ref(ref)
    assert sha == attrs[names.CONTENT_HASH]
    assert run_id == format(cap.spans[0].context.trace_id, "032x")  # outside a run: keyed by trace id
    assert "hunter2" not in str(cap.store.documents(run_id))


@responses.activate
def test_requests_http_error_gives_status_and_error() -> None:
    """requests.HTTPError carries its status to the span; the same exception object is re-raised."""
    responses.add(responses.GET, "https://site.example/missing", status=404, body="nope")

    @traced_tool(kind="fetch")
    def get(url: str) -> str:
        r = requests.get(url, timeout=5)
        r.raise_for_status()
        return r.text

    with capture_spans() as cap:
        with pytest.raises(requests.HTTPError) as info:
            get("https://site.example/missing")
    attrs = cap.spans[0].attributes or {}
    assert attrs[names.TOOL_STATUS] == "error"
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 404
    assert attrs[names.ERROR_TYPE] == "HTTPError"
    assert cap.spans[0].status.status_code is StatusCode.ERROR
    assert info.value.response is not None and info.value.response.status_code == 404
    doc = cap.store.documents(format(cap.spans[0].context.trace_id, "032x"))[0]
    assert (doc.status, doc.http_status, doc.text) == ("error", 404, "")


@responses.activate
def test_requests_response_returned_is_read_without_consuming() -> None:
    """A returned requests.Response gives status code, content type and text; the caller still reads it."""
    responses.add(responses.GET, "https://site.example/ok", status=200, body="<p>" + "x" * 500 + "</p>",
                  content_type="text/html")

    @traced_tool(kind="fetch")
    def get(url: str) -> requests.Response:
        return requests.get(url, timeout=5)

    with capture_spans() as cap:
        resp = get("https://site.example/ok")
    assert resp.text.startswith("<p>")
    attrs = cap.spans[0].attributes or {}
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 200
    assert attrs[names.RESULT_SIZE] == 507
    doc = cap.store.documents(format(cap.spans[0].context.trace_id, "032x"))[0]
    assert doc.content_type == "text/html"


@respx.mock
def test_httpx_429_is_rate_limited() -> None:
    """httpx.HTTPStatusError with 429 is rate_limited, and re-raised unchanged."""
    respx.get("https://api.example/search").mock(return_value=httpx.Response(429, json={"error": "slow down"}))

    @traced_tool(kind="search")
    def search(query: str) -> Any:
        r = httpx.get("https://api.example/search", params={"q": query})
        r.raise_for_status()
        return r.json()

    with capture_spans() as cap:
        with pytest.raises(httpx.HTTPStatusError):
            search("q")
    attrs = cap.spans[0].attributes or {}
    assert attrs[names.TOOL_STATUS] == "rate_limited"
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429
    assert attrs[names.ERROR_TYPE] == "HTTPStatusError"


def test_rate_limit_exception_by_name() -> None:
    """A library's own rate-limit exception (by class name) is rate_limited even without a status."""

    class UsageLimitExceededError(Exception):
        pass

    @traced_tool(kind="search")
    def search(q: str) -> list[str]:
        raise UsageLimitExceededError("quota")

    with capture_spans() as cap:
        with pytest.raises(UsageLimitExceededError):
            search("q")
    assert (cap.spans[0].attributes or {})[names.TOOL_STATUS] == "rate_limited"


def test_returned_failures_classified() -> None:
    """Dicts with an error field are errors by default; classify= handles failure strings."""

    @traced_tool(kind="search")
    def dict_fail(q: str) -> dict[str, str]:
        return {"error": "backend unavailable"}

    @traced_tool(kind="search", classify=lambda r: "error" if r.startswith("Search failed") else None)
    def str_fail(q: str) -> str:
        return "Search failed: timeout"

    with capture_spans() as cap:
        dict_fail("q")
        str_fail("q")
    for span in cap.spans:
        assert (span.attributes or {})[names.TOOL_STATUS] == "error"
        assert (span.attributes or {})[names.ERROR_TYPE] == "tool_error"
        assert span.status.status_code is StatusCode.ERROR


def test_bad_classify_value_never_reaches_the_caller() -> None:
    """A classify hook returning nonsense is a telemetry error: counted, the result still returned."""

    @traced_tool(kind="search", classify=lambda r: "bogus")
    def search(q: str) -> list[str]:
        return ["https://a.example"]

    before = _telemetry.current().hooks.error_counts().get("capture", 0)
    with capture_spans() as cap:
        assert search("q") == ["https://a.example"]
    assert _telemetry.current().hooks.error_counts().get("capture", 0) == before + 1
    assert len(cap.spans) == 1  # the span is still ended


def test_broken_store_never_breaks_the_agent(caplog: pytest.LogCaptureFixture) -> None:
    """A store that raises is counted and logged once; the fetch result is returned unchanged."""

    class BrokenStore(MemoryStore):
        def put_document(self, *a: Any, **k: Any) -> str:
            raise OSError("disk full")

    before = _telemetry.current().hooks.error_counts().get("store_write", 0)
    with capture_spans(store=BrokenStore()) as cap, caplog.at_level(logging.DEBUG, logger="citetrace"):
        for _ in range(3):
            assert read_page("https://a.example/x") == "body " * 100
    assert _telemetry.current().hooks.error_counts()["store_write"] == before + 3
    assert names.STORE_REF not in (cap.spans[0].attributes or {})


def test_methods_async_and_signatures() -> None:
    """Methods, static methods and async functions are traced and keep their signatures."""

    class Client:
        @traced_tool(kind="search", name="client_search")
        def search(self, query: str, n: int = 3) -> list[str]:
            return [f"https://c.example/{i}" for i in range(n)]

        @traced_tool(kind="fetch")
        @staticmethod
        def fetch(url: str) -> str:
            return "y" * 300

    @traced_tool(kind="search")
    async def asearch(query: str) -> list[str]:
        await asyncio.sleep(0)
        return ["https://async.example/1"]

    assert list(inspect.signature(Client.search).parameters) == ["self", "query", "n"]
    assert inspect.iscoroutinefunction(asearch)
    with capture_spans() as cap:
        Client().search("query text", n=2)
        Client.fetch("https://c.example/0")
        asyncio.run(asearch("q"))
    by_name = {s.name: s.attributes or {} for s in cap.spans}
    assert by_name["execute_tool client_search"][names.RESULT_COUNT] == 2
    assert by_name["execute_tool fetch"][names.URL_FULL] == "https://c.example/0"
    assert by_name["execute_tool asearch"][names.URLS_RETURNED] == ("https://async.example/1",)


def test_nested_tools_make_one_span() -> None:
    """A traced tool calling another traced tool yields one span (the outer one)."""

    @traced_tool(kind="search")
    def inner(q: str) -> list[str]:
        return ["https://inner.example"]

    @traced_tool(kind="search")
    def outer(q: str) -> list[str]:
        return inner(q) + ["https://outer.example"]

    with capture_spans() as cap:
        outer("q")
    assert [s.name for s in cap.spans] == ["execute_tool outer"]
    assert (cap.spans[0].attributes or {})[names.RESULT_COUNT] == 2


def test_tool_call_id_attached() -> None:
    """gen_ai.tool.call.id is set when the caller provides one."""
    with capture_spans() as cap:
        with tool_call_id("call_42"):
            web_search("q")
    assert (cap.spans[0].attributes or {})[names.GEN_AI_TOOL_CALL_ID] == "call_42"


def test_tool_call_id_rejects_bad_ids() -> None:
    """A non-string or empty call id raises a one-line error naming tool_call_id, before any span."""
    with capture_spans() as cap:
        with pytest.raises(TypeError, match=r"^tool_call_id\(\) expects the call id as str, got int$"):
            with tool_call_id(5):  # type: ignore[arg-type]
                web_search("q")
        with pytest.raises(ValueError, match=r"^tool_call_id\(\) needs a non-empty call id$"):
            with tool_call_id(""):
                web_search("q")
    assert cap.spans == []


def test_sdk_disabled_is_a_straight_call() -> None:
    """With OTEL_SDK_DISABLED the wrapper creates no span and returns the same object."""
    with capture_spans(sdk_disabled=True) as cap:
        assert web_search("q") is not None
        with research_run("q", agent="a") as run:
            read_page("https://x.example")
    assert cap.spans == []
    assert cap.store.documents(run.id) == []


def test_bad_decorator_arguments_raise() -> None:
    """Misuse at definition time raises, naming the problem."""
    with pytest.raises(ValueError, match="kind"):
        traced_tool(kind="browse")
    with pytest.raises(TypeError, match="classify"):
        traced_tool(kind="search", classify="yes")  # type: ignore[arg-type]


def test_classify_exception_hook_for_libraries_that_raise_on_no_results() -> None:
    """ToolSpec.classify_exception turns a 'no results' exception into empty; it is still re-raised."""
    from citetrace.capture import ToolSpec, invoke

    class NoResults(Exception):
        pass

    spec = ToolSpec("ddg", "search", classify_exception=lambda e: "empty" if isinstance(e, NoResults) else None)

    def raising(q: str) -> list[str]:
        raise NoResults("No results found.")

    with capture_spans() as cap:
        with pytest.raises(NoResults):
            invoke(spec, raising, ("q",), {})
        with pytest.raises(ZeroDivisionError):
            invoke(spec, lambda q: 1 / 0, ("q",), {})
    empty, error = cap.spans
    assert (empty.attributes or {})[names.TOOL_STATUS] == "empty"
    assert names.ERROR_TYPE not in (empty.attributes or {})
    assert empty.status.status_code is StatusCode.UNSET
    assert [e.name for e in empty.events] == ["exception"]
    assert (error.attributes or {})[names.TOOL_STATUS] == "error"
    assert (error.attributes or {})[names.ERROR_TYPE] == "ZeroDivisionError"


def test_broken_tracer_never_reaches_the_caller() -> None:
    """If span creation itself fails, the tool is called straight through and the failure counted."""
    from opentelemetry.sdk.trace import TracerProvider

    class BrokenProvider(TracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("tracer factory broke")

    before = _telemetry.current().hooks.error_counts().get("capture", 0)
    with capture_spans():
        _telemetry.current().use_tracer_provider(BrokenProvider())
        assert web_search("q") == RESULTS
        assert read_page("https://a.example") == "body " * 100
    assert _telemetry.current().hooks.error_counts()["capture"] == before + 2


def test_unreadable_result_shape_is_not_called_empty() -> None:
    """A result we cannot read (an iterator a plain function returns, a custom object) is ok with no count,
    never a false 'empty' (a generator *function* is iterated instead: see test_callables)."""

    class Opaque:
        pass

    @traced_tool(kind="search")
    def gen_search(q: str) -> Any:
        return iter([{"url": "https://g.example/1"}])

    @traced_tool(kind="search")
    def opaque_search(q: str) -> Opaque:
        return Opaque()

    @traced_tool(kind="search")
    def none_search(q: str) -> None:
        return None

    with capture_spans() as cap:
        assert list(gen_search("q")) == [{"url": "https://g.example/1"}]
        opaque_search("q")
        none_search("q")
    gen_attrs, opaque_attrs, none_attrs = (s.attributes or {} for s in cap.spans)
    for attrs in (gen_attrs, opaque_attrs):
        assert attrs[names.TOOL_STATUS] == "ok"
        assert names.RESULT_COUNT not in attrs
    assert none_attrs[names.TOOL_STATUS] == "empty" and none_attrs[names.RESULT_COUNT] == 0


@pytest.mark.parametrize("how", ["suppress_instrumentation", "plain key"])
def test_suppressed_instrumentation_makes_a_straight_call(how: str) -> None:
    """Inside OpenTelemetry's suppression (either key ``is_instrumentation_enabled`` reads) no span is made,
    and the tool still returns its result; outside it, the span is back."""
    from opentelemetry import context
    from opentelemetry.instrumentation.utils import suppress_instrumentation

    with capture_spans() as cap:
        if how == "suppress_instrumentation":
            with suppress_instrumentation():
                result = web_search("quiet")
        else:
            token = context.attach(context.set_value("suppress_instrumentation", True))
            try:
                result = web_search("quiet")
            finally:
                context.detach(token)
        assert result == RESULTS
        assert cap.spans == []
        web_search("loud")
    assert [s.name for s in cap.spans] == ["execute_tool web_search"]


def test_a_misspelt_query_or_url_argument_is_refused_at_decoration() -> None:
    """``query_arg="qeury"`` (a careless user's typo) names no parameter: refused when the tool is defined,
    naming the parameters it has; it was accepted, and no call ever recorded its query. A tool taking
    ``**kwargs`` may get any name, and non-str names and descriptions are refused too."""
    with pytest.raises(ValueError, match=r"traced_tool\(query_arg='qeury'\): web_lookup has no parameter 'qeury' "
                                         r"\(it has: text, limit\)"):
        @traced_tool(kind="search", query_arg="qeury")
        def web_lookup(text: str, limit: int = 5) -> list[str]:
            return []
    with pytest.raises(ValueError, match=r"url_arg='link'"):
        @traced_tool(kind="fetch", url_arg="link")
        def open_page(address: str) -> str:
            return ""

    @traced_tool(kind="search", query_arg="text")
    def lookup(**options: object) -> list[str]:
        return []

    for bad in ({"name": 5}, {"description": 5}, {"query_arg": 5}, {"url_arg": b"url"}):
        with pytest.raises(TypeError, match="must be a str"):
            traced_tool(kind="fetch", **bad)  # type: ignore[call-overload]
