"""MCP tools: a real ``mcp`` server (MCPServer) and the real client over the SDK's in-memory transport.

The server's tools are the network edge: the search tool answers from a script, the fetch tool reads a real
HTTP server on 127.0.0.1 with urllib. Everything between (JSON-RPC, the session, CallToolResult) is the SDK's.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError

from citetrace import names, replay, research_run, traced_tool
from citetrace._toolrules import kind_of, parse_rules
from citetrace.config import load_settings
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured, capture_spans

from ._net import LocalServer
from .conftest import assert_restores, one_tool_span, status_of

PAGE = "The Mercury page: a long enough text about the planet Mercury to count as a real read of it."
RESULTS = {
    "brave": "Title: Mercury\nURL: https://en.wikipedia.org/wiki/Mercury_(planet)\nDescription: planet\n\n"
             "Title: NASA\nURL: https://science.nasa.gov/mercury/.\nDescription: facts",
}


def make_server(srv: LocalServer | None = None) -> MCPServer:
    """An MCP server with search, fetch, error and unrelated tools."""
    mcp = MCPServer("test-tools")

    @mcp.tool()
    def brave_web_search(query: str, count: int = 10) -> str:
        if query == "nothing":
            return "No results found"
        if query == "limit":
            raise ToolError("Brave API error: 429 Too Many Requests")
        if query == "broken":
            raise ToolError("upstream said https://api.search.brave.com/res/v1/web/search failed")
        return RESULTS["brave"]

    @mcp.tool(name="tavily-search")
    def tavily_search(query: str) -> dict[str, Any]:
        return {"results": [{"url": "https://a.example/1", "content": "one"},
                            {"url": "https://a.example/2", "content": "two"}]}

    @mcp.tool()
    def fetch(url: str, max_length: int = 5000) -> str:
        assert srv is not None
        try:
            with urllib.request.urlopen(url.replace("https://page.example", srv.base), timeout=5) as response:
                return f"Contents of {url}:\n{response.read().decode()}"
        except urllib.error.HTTPError as exc:  # what mcp-server-fetch does: an error result with the status
            raise ToolError(f"Failed to fetch {url} - status code {exc.code}") from exc

    @mcp.tool()
    def my_lookup(term: str) -> str:
        return "see https://kb.example/entry"

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return mcp


@pytest.fixture
def srv() -> Any:
    """A real HTTP server with one page."""
    with LocalServer() as server:
        server.routes["/mercury"] = (200, PAGE, "text/plain")
        server.routes["/blank"] = (200, "", "text/plain")
        yield server


async def call(server: MCPServer, name: str, arguments: dict[str, Any]) -> Any:
    """One call through ``mcp.Client`` (which calls ``ClientSession.call_tool``)."""
    async with Client(server) as client:
        return await client.call_tool(name, arguments)


async def test_search_by_default_name(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """brave_web_search is a search: query from the arguments, URLs found in the text blocks."""
    result = await call(make_server(), "brave_web_search", {"query": "mercury planet"})
    assert not result.is_error
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "brave_web_search"
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_SEARCH
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.QUERY_HASH]
    assert list(attrs[names.URLS_RETURNED]) == ["https://en.wikipedia.org/wiki/Mercury_(planet)",
                                                "https://science.nasa.gov/mercury/"]
    assert attrs[names.RESULT_COUNT] == 2


async def test_structured_results_and_hyphen_name(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """tavily-search with structured content: the result list's URLs, not the text's."""
    await call(make_server(), "tavily-search", {"query": "q"})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_SEARCH
    assert list(attrs[names.URLS_RETURNED]) == ["https://a.example/1", "https://a.example/2"]
    assert attrs[names.RESULT_COUNT] == 2


async def test_search_empty(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A search whose text holds no URL is empty."""
    await call(make_server(), "brave_web_search", {"query": "nothing"})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY
    assert attrs[names.RESULT_COUNT] == 0


async def test_is_error_and_rate_limit(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """isError is an error (its text never counted as results); a 429 in it is rate_limited."""
    server = make_server()
    result = await call(server, "brave_web_search", {"query": "broken"})
    assert result.is_error
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert attrs[names.RESULT_COUNT] == 0 and list(attrs[names.URLS_RETURNED]) == []
    cap.clear()
    await call(server, "brave_web_search", {"query": "limit"})
    assert status_of(cap) == names.STATUS_RATE_LIMITED


async def test_fetch_stores_page(instrumented: CiteTraceInstrumentor, cap: Captured, srv: LocalServer) -> None:
    """fetch is a fetch: URL from the arguments, the text block stored as the page."""
    await call(make_server(srv), "fetch", {"url": "https://page.example/mercury"})
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_FETCH
    assert attrs[names.URL_FULL] == "https://page.example/mercury"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    stored = cap.store.get_ref(str(attrs[names.STORE_REF]))
    assert stored is not None and PAGE in stored


async def test_fetch_empty_and_http_error(instrumented: CiteTraceInstrumentor, cap: Captured,
                                          srv: LocalServer) -> None:
    """A blank page is an empty read; a 404 raised in the tool is an error result."""
    server = make_server(srv)
    await call(server, "fetch", {"url": "https://page.example/blank"})
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    result = await call(server, "fetch", {"url": "https://page.example/missing"})
    assert result.is_error
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert attrs[names.RESULT_SIZE] == 0


async def test_other_tools_pass_through(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A tool no rule names makes no span and returns the very result."""
    result = await call(make_server(), "add", {"a": 2, "b": 3})
    assert result.structured_content == {"result": 5}
    assert cap.tool_spans() == []


async def test_unknown_tool_error_is_raised_and_recorded(instrumented: CiteTraceInstrumentor) -> None:
    """A protocol error (a search tool the server lacks) reaches the caller and is an error span."""
    server = MCPServer("empty")
    with capture_spans() as cap:
        async with Client(server) as client:
            result: Any = None
            try:
                result = await client.call_tool("web_search", {"query": "q"})
            except MCPError:
                result = "raised"
        attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert result == "raised" or result.is_error


async def test_user_rules(instrumented: CiteTraceInstrumentor) -> None:
    """CITETRACE_MCP_TOOLS-style rules make a tool a search and turn a default off."""
    server = make_server()
    with capture_spans(mcp_tools="my_*=search, brave_web_search=none") as cap:
        await call(server, "my_lookup", {"term": "mercury"})
        await call(server, "brave_web_search", {"query": "mercury"})
        spans = cap.tool_spans()
    assert [s.name for s in spans] == ["execute_tool my_lookup"]
    attrs = dict(spans[0].attributes or {})
    assert list(attrs[names.URLS_RETURNED]) == ["https://kb.example/entry"]
    assert attrs[names.QUERY_HASH]


async def test_session_directly_and_uninstrument(cap: Captured) -> None:
    """ClientSession.call_tool itself is wrapped; uninstrument restores it and calls make no span."""
    assert_restores([(ClientSession, "call_tool")])
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    try:
        async with Client(make_server()) as client:
            await client.session.call_tool("search", {"q": "x"})
        assert len(cap.tool_spans()) == 1
    finally:
        instrumentor.uninstrument()
    cap.clear()
    await call(make_server(), "brave_web_search", {"query": "mercury"})
    assert cap.tool_spans() == []


def test_rules_parse_and_match() -> None:
    """Rules: first match wins, '-' reads as '_', bad entries name the problem."""
    assert kind_of("Tavily-Search", None) == names.TOOL_KIND_SEARCH
    assert kind_of("firecrawl_scrape", None) == names.TOOL_KIND_FETCH
    assert kind_of("add", None) == "none"
    assert kind_of("fetch", "fetch=none") == "none"
    assert parse_rules("a*=search, b=fetch") == (("a*", "search"), ("b", "fetch"))
    with pytest.raises(ValueError, match="kind must be"):
        parse_rules("a=scrape")
    with pytest.raises(ValueError, match="pattern=kind"):
        parse_rules("justaname")


def test_settings_env_and_argument() -> None:
    """The env var is read, a bad value warns and falls back, a bad argument raises."""
    assert load_settings({names.ENV_MCP_TOOLS: "x=search"}).mcp_tools == "x=search"
    assert load_settings({names.ENV_MCP_TOOLS: "x=bogus"}).mcp_tools is None
    with pytest.raises(ValueError, match="mcp_tools"):
        load_settings({}, mcp_tools="x=bogus")


async def test_replay_gives_back_a_call_tool_result(instrumented: CiteTraceInstrumentor) -> None:
    """A recorded MCP search replays as a CallToolResult, without the server's tool running again."""
    ran: list[str] = []
    server = MCPServer("replayed")

    @server.tool()
    def web_search(query: str) -> str:
        ran.append(query)
        return "Result: https://replayed.example/page"

    with capture_spans(record_responses=True) as cap:
        async with Client(server) as client:
            with research_run("q") as run:
                first = await client.call_tool("web_search", {"query": "mercury"})
            with replay(run.id, store=cap.store):
                again = await client.call_tool("web_search", {"query": "mercury"})
    assert ran == ["mercury"]
    assert type(again) is type(first)
    assert again.content[0].text == first.content[0].text


STDIO_SERVER = '''
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("stdio-search")


@mcp.tool()
def searxng_web_search(query: str) -> str:
    return "1. Mercury https://stdio.example/mercury" if query != "none" else "No results"


mcp.run("stdio")
'''


async def test_stdio_subprocess_server(instrumented: CiteTraceInstrumentor, cap: Captured, tmp_path: Any) -> None:
    """A server launched as a subprocess over stdio (how most MCP servers run) gives the same span."""
    script = tmp_path / "stdio_server.py"
    script.write_text(STDIO_SERVER)
    params = StdioServerParameters(command=sys.executable, args=[str(script)])
    async with Client(params) as client:
        await client.call_tool("searxng_web_search", {"query": "mercury"})
        await client.call_tool("searxng_web_search", {"query": "none"})
    ok, empty = cap.tool_spans()
    assert list((ok.attributes or {})[names.URLS_RETURNED]) == ["https://stdio.example/mercury"]
    assert (empty.attributes or {})[names.TOOL_STATUS] == names.STATUS_EMPTY


async def test_inside_a_run_and_under_a_traced_tool(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """In a run the span carries the run id; under a user's @traced_tool the outer call owns the one span."""

    @traced_tool(kind="search", name="my_search")
    async def my_search(query: str) -> Any:
        return await call(make_server(), "brave_web_search", {"query": query})

    with research_run("what is mercury?") as run:
        await call(make_server(), "brave_web_search", {"query": "mercury"})
        await my_search("mercury again")
    spans = cap.tool_spans()
    assert [s.name for s in spans] == ["execute_tool brave_web_search", "execute_tool my_search"]
    assert all((s.attributes or {})[names.RUN_ID] == run.id for s in spans)
