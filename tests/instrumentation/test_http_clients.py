"""Every documented search endpoint through every watched client (requests, httpx sync and async, aiohttp,
urllib): ok, empty, 429, a refused connection, and uninstrumented; the caller reads exactly what the server
sent. The clients are real; only DNS points the API hosts at a server on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from citetrace import names, traced_tool
from citetrace.capture._extract import query_hash
from citetrace.testing import Captured

from ._clients import APIS, CLIENTS, QUERY, Api
from ._net import LocalServer, closed_port, fake_dns
from .conftest import one_tool_span

A, B = "https://a.example/page", "https://b.example/page"
_IDS = [f"{api.name}-{api.call.method}" for api in APIS]


@pytest.fixture
def dns(server: LocalServer) -> Iterator[LocalServer]:
    """Every API host resolves to the local server."""
    with fake_dns(api.host for api in APIS):
        yield server


def _answer(server: LocalServer, status: int, body: Any) -> None:
    server.routes["/"] = (status, body if isinstance(body, str) else json.dumps(body), "application/json")


def _send(client: str, api: Api, port: int) -> bytes | BaseException:
    try:
        return CLIENTS[client](api.call.at(port))
    except Exception as exc:  # urllib raises HTTPError on a 429, as it does without citetrace
        return exc


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("api", APIS, ids=_IDS)
def test_ok(instrumented: Any, cap: Captured, dns: LocalServer, api: Api, client: str) -> None:
    """One ok search span: the query from the request, the result URLs from the API's answer; the caller
    reads the same bytes the server sent."""
    answer = json.dumps(api.answer([A, B]))
    _answer(dns, 200, answer)
    assert _send(client, api, dns.port) == answer.encode()
    span = one_tool_span(cap)
    assert span[names.GEN_AI_TOOL_NAME] == f"{api.name}_search"
    assert (span[names.TOOL_STATUS], span[names.RESULT_COUNT]) == ("ok", 2)
    assert list(span[names.URLS_RETURNED]) == [A, B]
    assert span[names.QUERY_HASH] == query_hash(QUERY)
    assert len(dns.requests) == 1


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("api", APIS, ids=_IDS)
def test_empty(instrumented: Any, cap: Captured, dns: LocalServer, api: Api, client: str) -> None:
    """The API's answer with no results is an empty search."""
    _answer(dns, 200, api.answer([]))
    _send(client, api, dns.port)
    span = one_tool_span(cap)
    assert (span[names.TOOL_STATUS], span[names.RESULT_COUNT]) == ("empty", 0)


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("api", APIS, ids=_IDS)
def test_429(instrumented: Any, cap: Captured, dns: LocalServer, api: Api, client: str) -> None:
    """A 429 is rate_limited with its status code, and the error body (which names URLs) is no result list."""
    _answer(dns, 429, {"error": "quota", "docs": A})
    _send(client, api, dns.port)
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == "rate_limited"
    assert span[names.HTTP_RESPONSE_STATUS_CODE] == 429
    assert list(span.get(names.URLS_RETURNED, ())) == [] and span[names.RESULT_COUNT] == 0


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("api", APIS, ids=_IDS)
def test_refused_connection(instrumented: Any, cap: Captured, api: Api, client: str) -> None:
    """A refused connection raises what the client raises without citetrace, and the span is an error."""
    with fake_dns([api.host]):
        raised = _send(client, api, closed_port())
    assert isinstance(raised, Exception)
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == "error" and span[names.ERROR_TYPE] == type(raised).__qualname__


@pytest.mark.parametrize("client", list(CLIENTS))
def test_unreadable_body_is_ok_not_empty(instrumented: Any, cap: Captured, dns: LocalServer, client: str) -> None:
    """A 200 that is not the documented JSON is ok with no URLs: unknown, never a false empty."""
    _answer(dns, 200, "<html>maintenance</html>")
    _send(client, APIS[1], dns.port)
    span = one_tool_span(cap)
    assert span[names.TOOL_STATUS] == "ok" and list(span[names.URLS_RETURNED]) == []


@pytest.mark.parametrize("client", list(CLIENTS))
@pytest.mark.parametrize("api", APIS, ids=_IDS)
def test_uninstrumented(cap: Captured, dns: LocalServer, api: Api, client: str) -> None:
    """Without the instrumentor the same calls make no span and read the same bytes."""
    answer = json.dumps(api.answer([A]))
    _answer(dns, 200, answer)
    assert _send(client, api, dns.port) == answer.encode()
    assert cap.tool_spans() == []


@pytest.mark.parametrize("client", list(CLIENTS))
def test_other_hosts_pass_through(instrumented: Any, cap: Captured, server: LocalServer, client: str) -> None:
    """A request to any other host, even one answering a search API's JSON, makes no span."""
    from ._clients import Call

    _answer(server, 200, APIS[1].answer([A]))
    CLIENTS[client](Call("POST", f"{server.base}/search", {}, {"q": "x"}))
    assert cap.tool_spans() == []


@pytest.mark.parametrize("client", list(CLIENTS))
def test_decorated_tool_around_the_call_is_one_span(instrumented: Any, cap: Captured, dns: LocalServer,
                                                    client: str) -> None:
    """A @traced_tool that calls Serper itself through any client gives its own span only."""
    _answer(dns, 200, APIS[1].answer([A]))

    @traced_tool(kind="search")
    def serper(query: str) -> list[dict[str, Any]]:
        return list(json.loads(CLIENTS[client](APIS[1].call.at(dns.port)))["organic"])

    assert serper(QUERY)[0]["link"] == A
    assert [s.name for s in cap.tool_spans()] == ["execute_tool serper"]


def test_uninstrument_restores_aiohttp_and_urllib() -> None:
    """uninstrument puts the very same aiohttp and urllib methods back."""
    import urllib.request

    import aiohttp.client

    from .conftest import assert_restores

    assert_restores([(aiohttp.client.ClientSession, "_request"), (urllib.request.OpenerDirector, "open")])


def _tavily_answer() -> str:
    return json.dumps(APIS[0].answer([A, B]))


async def test_langchain_tavily_over_aiohttp_is_one_span(instrumented: Any, cap: Captured, dns: LocalServer) -> None:
    """langchain-tavily's async search (aiohttp, to api.tavily.com) is its own row's span only; the control
    shows the same request alone is a recognised tavily_search span, so the single span is the pass-through."""
    from langchain_tavily import TavilySearch

    from .conftest import http_rows_only

    _answer(dns, 200, _tavily_answer())
    tool = TavilySearch(tavily_api_key="k", api_base_url=f"http://api.tavily.com:{dns.port}")
    assert (await tool.ainvoke({"query": QUERY}))["results"][0]["url"] == A
    assert [s.name for s in cap.tool_spans()] == ["execute_tool langchain_tavily.search"]
    instrumented.uninstrument()
    cap.clear()
    with http_rows_only():
        await tool.ainvoke({"query": QUERY})
    assert [s.name for s in cap.tool_spans()] == ["execute_tool tavily_search"]


async def test_async_tavily_client_over_httpx_is_one_span(instrumented: Any, cap: Captured, dns: LocalServer) -> None:
    """tavily-python's AsyncTavilyClient (httpx.AsyncClient, to api.tavily.com) is one span, its row's."""
    from tavily import AsyncTavilyClient

    _answer(dns, 200, _tavily_answer())
    client = AsyncTavilyClient(api_key="k", api_base_url=f"http://api.tavily.com:{dns.port}")
    assert len((await client.search(QUERY))["results"]) == 2
    (span,) = cap.tool_spans()
    assert span.name != "execute_tool tavily_search" and list((span.attributes or {})[names.URLS_RETURNED]) == [A, B]
