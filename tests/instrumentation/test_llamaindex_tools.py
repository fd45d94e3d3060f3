"""LlamaIndex tool specs for Tavily and Brave: the real specs (and the real TavilyClient under the Tavily
spec), with only requests' transport replaced (``responses``). The DuckDuckGo spec cannot be installed here
(it pins duckduckgo-search<7): its cases run in the pinned venv (pinned/case_llamaindex_ddg.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
import responses
from llama_index.tools.brave_search.base import BraveSearchToolSpec
from llama_index.tools.tavily_research.base import TavilyToolSpec
from tavily import UsageLimitExceededError

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .conftest import assert_restores, http_rows_only, one_tool_span, status_of

TAVILY = "https://api.tavily.com"
BRAVE = "https://api.search.brave.com/res/v1/web/search"
PAGE = "An extracted page about OpenTelemetry, long enough to count as a real read of the page."


def tavily_results(n: int) -> dict[str, Any]:
    """Tavily's documented search answer with ``n`` results."""
    return {"query": "q", "results": [{"url": f"https://tv.example/{i}", "title": "t", "content": f"snippet {i}"}
                                      for i in range(n)]}


def brave_body(n: int) -> dict[str, Any]:
    """Brave's documented web search answer with ``n`` results (``web`` left out when there are none)."""
    if n == 0:
        return {"type": "search", "query": {"original": "q"}}
    return {"type": "search", "web": {"results": [{"title": f"B{i}", "url": f"https://brave.example/{i}",
                                                   "description": "d"} for i in range(n)]}}


# -- Tavily ---------------------------------------------------------------------------------------------

@responses.activate
def test_tavily_search_is_one_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """TavilyToolSpec.search is one ok search span with the Documents' URLs (the TavilyClient row inside adds
    none), and the agent gets the same Documents."""
    responses.post(f"{TAVILY}/search", json=tavily_results(3))
    docs = TavilyToolSpec(api_key="k").search("what is otel", max_results=3)
    assert [d.metadata["url"] for d in docs] == [f"https://tv.example/{i}" for i in range(3)]
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "llama_index.tavily_search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 3
    assert list(attrs[names.URLS_RETURNED]) == [f"https://tv.example/{i}" for i in range(3)]
    assert attrs[names.QUERY_HASH]


@responses.activate
def test_tavily_search_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No results is empty; a 429 (UsageLimitExceededError, re-raised) rate_limited; a refused connection error."""
    spec = TavilyToolSpec(api_key="k")
    responses.post(f"{TAVILY}/search", json=tavily_results(0))
    assert spec.search("nothing") == []
    assert status_of(cap) == names.STATUS_EMPTY
    cap.clear()
    responses.replace(responses.POST, f"{TAVILY}/search", status=429, json={"detail": {"error": "limit"}})
    with pytest.raises(UsageLimitExceededError):
        spec.search("q")
    assert status_of(cap) == names.STATUS_RATE_LIMITED
    cap.clear()
    responses.replace(responses.POST, f"{TAVILY}/search", body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        spec.search("q")
    attrs = one_tool_span(cap)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert attrs[names.RESULT_COUNT] == 0


@responses.activate
def test_tavily_extract_is_the_client_row(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """extract(urls) is one fetch span, the TavilyClient.extract row underneath (the spec has none): ok with the
    pages read; every URL failed is an error (the spec alone would only see an empty list)."""
    urls = ["https://a.example/1", "https://c.example/broken"]
    responses.post(f"{TAVILY}/extract", json={"results": [{"url": urls[0], "raw_content": PAGE}],
                                               "failed_results": [{"url": urls[1], "error": "timeout"}]})
    assert len(TavilyToolSpec(api_key="k").extract(urls)) == 1
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("tavily.extract", names.STATUS_OK)
    assert attrs[names.URL_FULL] == urls[0]
    cap.clear()
    responses.replace(responses.POST, f"{TAVILY}/extract",
                      json={"results": [], "failed_results": [{"url": urls[1], "error": "timeout"}]})
    assert TavilyToolSpec(api_key="k").extract(urls[1:]) == []
    assert status_of(cap) == names.STATUS_ERROR


# -- Brave ----------------------------------------------------------------------------------------------

@responses.activate
def test_brave_search_reads_the_json_document(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """brave_search (one Document of raw JSON) is one search span with Brave's URLs and count; the Brave
    endpoint recognised by the HTTP layer inside adds no second span."""
    responses.get(BRAVE, json=brave_body(2))
    docs = BraveSearchToolSpec(api_key="k").brave_search("brave q", num_results=2)
    assert json.loads(docs[0].text) == brave_body(2)
    attrs = one_tool_span(cap)
    assert attrs[names.GEN_AI_TOOL_NAME] == "llama_index.brave_search"
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == 2
    assert list(attrs[names.URLS_RETURNED]) == ["https://brave.example/0", "https://brave.example/1"]


@responses.activate
def test_brave_search_empty_429_exception(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """No ``web`` results is empty (count 0); a 429 raises HTTPError and is rate_limited with its status, a 500
    error; a refused connection error."""
    spec = BraveSearchToolSpec(api_key="k")
    responses.get(BRAVE, json=brave_body(0))
    spec.brave_search("nothing")
    attrs = one_tool_span(cap)
    assert (attrs[names.TOOL_STATUS], attrs[names.RESULT_COUNT]) == (names.STATUS_EMPTY, 0)
    for status, expected in ((429, names.STATUS_RATE_LIMITED), (500, names.STATUS_ERROR)):
        cap.clear()
        responses.replace(responses.GET, BRAVE, status=status, json={"type": "ErrorResponse"})
        with pytest.raises(requests.HTTPError):
            spec.brave_search("q")
        attrs = one_tool_span(cap)
        assert (attrs[names.TOOL_STATUS], attrs[names.HTTP_RESPONSE_STATUS_CODE]) == (expected, status)
    cap.clear()
    responses.replace(responses.GET, BRAVE, body=requests.ConnectionError("refused"))
    with pytest.raises(requests.ConnectionError):
        spec.brave_search("q")
    assert status_of(cap) == names.STATUS_ERROR


@responses.activate
def test_http_layer_alone_would_make_the_span(cap: Captured) -> None:
    """Control for the one-span test: with only the HTTP rows, the spec's Brave call is a brave_search span."""
    responses.get(BRAVE, json=brave_body(1))
    with http_rows_only():
        BraveSearchToolSpec(api_key="k").brave_search("q")
    assert [s.name for s in cap.tool_spans()] == ["execute_tool brave_search"]


# -- switching off --------------------------------------------------------------------------------------

@responses.activate
def test_uninstrument_restores_and_stops(cap: Captured) -> None:
    """uninstrument() puts back the very spec methods, and a call afterwards makes no span."""
    assert_restores([(TavilyToolSpec, "search"), (BraveSearchToolSpec, "brave_search")])
    responses.get(BRAVE, json=brave_body(1))
    responses.post(f"{TAVILY}/search", json=tavily_results(1))
    BraveSearchToolSpec(api_key="k").brave_search("q")
    TavilyToolSpec(api_key="k").search("q")
    assert cap.tool_spans() == []



# -- under OpenInference's LlamaIndex instrumentor -------------------------------------------------------

def scripted_llm(tool: str, args: dict[str, Any]) -> Any:
    """LlamaIndex's MockFunctionCallingLLM calling ``tool`` once, then answering."""
    from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
    from llama_index.core.llms.mock import MockFunctionCallingLLM

    def respond(messages: list[Any], **kwargs: Any) -> ChatMessage:
        if any(m.role == MessageRole.TOOL for m in messages):
            return ChatMessage(role="assistant", blocks=[TextBlock(text="done")])
        return ChatMessage(role="assistant", blocks=[ToolCallBlock(tool_call_id="call-1", tool_name=tool,
                                                                   tool_kwargs=args)])

    return MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)


@responses.activate
async def test_one_span_under_openinference_tool_span(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A FunctionAgent calling the Brave and Tavily specs with OpenInference's LlamaIndex instrumentor on: each
    call is one citetrace span, a child of OpenInference's own TOOL span for it (which is not doubled either)."""
    from llama_index.core.agent.workflow import FunctionAgent
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    responses.get(BRAVE, json=brave_body(2))
    responses.post(f"{TAVILY}/search", json=tavily_results(1))
    oi = LlamaIndexInstrumentor()
    oi.instrument(tracer_provider=cap.tracer_provider)
    try:
        for tool, spec in (("brave_search", BraveSearchToolSpec(api_key="k")), ("search", TavilyToolSpec(api_key="k"))):
            agent = FunctionAgent(name="researcher", tools=spec.to_tool_list(), streaming=False,
                                  llm=scripted_llm(tool, {"query": "otel"}))
            await agent.run("What is OTel?")
    finally:
        oi.uninstrument()
    spans = cap.spans
    by_id = {s.context.span_id: s for s in spans}
    ours = cap.tool_spans()
    assert [s.name for s in ours] == ["execute_tool llama_index.brave_search", "execute_tool llama_index.tavily_search"]
    oi_tools = [s for s in spans if (s.attributes or {}).get("openinference.span.kind") == "TOOL"]
    assert len(oi_tools) == 2
    assert [by_id[s.parent.span_id] for s in ours if s.parent] == oi_tools
