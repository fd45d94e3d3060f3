"""PydanticAI's built-in search tools inside a real ``Agent`` run with a scripted ``FunctionModel``:
``duckduckgo_search_tool`` (ddgs in a worker thread, primp replaced by the forwarding stand-in),
``tavily_search_tool`` and ``exa_answer_tool`` (httpx replaced by respx). They are the ddgs, Tavily and Exa rows
(no row of their own): each tool call is exactly one search span of the run, with the status the library's answer
deserves."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import ddgs
import httpx
import pytest
import respx
from ddgs.exceptions import DDGSException
from pydantic_ai import Agent
from pydantic_ai.common_tools.duckduckgo import duckduckgo_search_tool
from pydantic_ai.common_tools.exa import exa_answer_tool
from pydantic_ai.common_tools.tavily import tavily_search_tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from tavily import UsageLimitExceededError

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from .._net import FakePrimp, LocalServer
from ..conftest import one_tool_span

DDG_PATH = "/html.duckduckgo.com/html/"
TAVILY = "https://api.tavily.com/search"
EXA = "https://api.exa.ai/answer"
PAGE = "Cited page text that Exa returned with its answer, long enough to check a claim against."


def ddg_html(n: int) -> str:
    """A DuckDuckGo HTML result page with ``n`` results, in the shape ddgs parses."""
    items = "".join(f'<div class="result results_links web-result"><div class="links_main body">'
                    f'<h2><a href="https://ddg.example/{i}">Title {i}</a></h2>'
                    f'<a class="result__snippet" href="https://ddg.example/{i}">Snippet {i}</a></div></div>'
                    for i in range(n))
    return f"<html><body>{items}</body></html>"


def scripted(tool: str, args: dict[str, Any]) -> FunctionModel:
    """A model that calls ``tool`` once with ``args``, then answers with what the tool returned."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [p for m in messages for p in getattr(m, "parts", ()) if isinstance(p, ToolReturnPart)]
        if returns:
            return ModelResponse(parts=[TextPart(f"answer from {len(str(returns[-1].content))} chars")])
        return ModelResponse(parts=[ToolCallPart(tool, args, tool_call_id="call-1")])

    return FunctionModel(respond)


def agent_with(tool: Any, name: str, args: dict[str, Any]) -> Agent[None, str]:
    """An agent whose only tool is ``tool`` and whose scripted model calls it once."""
    return Agent(scripted(name, args), tools=[tool], name="researcher")


@pytest.fixture
def primp(server: LocalServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """ddgs' primp module replaced by the stand-in forwarding to the local server."""
    monkeypatch.setattr(ddgs.http_client, "primp", FakePrimp(server))
    yield server


def ddg_tool() -> Any:
    """PydanticAI's DuckDuckGo tool on ddgs' DuckDuckGo engine only (deterministic)."""
    client = ddgs.DDGS()
    original: Callable[..., Any] = client.text
    client.text = lambda query, **kw: original(query, backend="duckduckgo", **kw)  # type: ignore[method-assign]
    return duckduckgo_search_tool(client, max_results=5)


def run_span(cap: Captured) -> Any:
    """The run's ``invoke_agent`` span."""
    (span,) = cap.run_spans()
    return span


def test_duckduckgo_tool_is_a_search_span_of_the_run(instrumented: CiteTraceInstrumentor, cap: Captured,
                                                    primp: LocalServer) -> None:
    """duckduckgo_search (ddgs.text in anyio's worker thread) is one ok search span carrying the run's id,
    with the result URLs the model got."""
    primp.routes[DDG_PATH] = (200, ddg_html(3), "text/html")
    out = agent_with(ddg_tool(), "duckduckgo_search", {"query": "what is otel"}).run_sync("What is OTel?")
    assert out.output.startswith("answer from")
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("ddgs.text", names.STATUS_OK)
    assert list(attrs[names.URLS_RETURNED]) == [f"https://ddg.example/{i}" for i in range(3)]
    assert attrs[names.RUN_ID] == run_span(cap).attributes[names.RUN_ID]


@pytest.mark.parametrize(("status", "body", "expected"), [
    (200, ddg_html(0), names.STATUS_EMPTY), (429, "slow down", names.STATUS_RATE_LIMITED),
    (500, "boom", names.STATUS_ERROR)])
def test_duckduckgo_tool_failures(instrumented: CiteTraceInstrumentor, cap: Captured, primp: LocalServer,
                                  status: int, body: str, expected: str) -> None:
    """Nothing found, a 429 and a 500 all raise ddgs' DDGSException out of the run; the span tells them apart
    (empty, rate_limited, error) and the run ends with the error."""
    primp.routes[DDG_PATH] = (status, body, "text/html")
    with pytest.raises(DDGSException):
        agent_with(ddg_tool(), "duckduckgo_search", {"query": "q"}).run_sync("Q?")
    assert one_tool_span(cap)[names.TOOL_STATUS] == expected
    assert run_span(cap).attributes[names.ERROR_TYPE] == "DDGSException"


async def test_tavily_tool(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """tavily_search (AsyncTavilyClient.search) is one ok search span of the run; no results is empty; a 429
    (UsageLimitExceededError out of the run) rate_limited."""
    results = {"query": "q", "results": [{"url": f"https://tv.example/{i}", "title": "t", "content": "c",
                                          "score": 0.9} for i in range(2)]}
    agent = agent_with(tavily_search_tool(api_key="k"), "tavily_search", {"query": "otel"})
    with respx.mock() as mock:
        route = mock.post(TAVILY)
        route.mock(return_value=httpx.Response(200, json=results))
        await agent.run("What is OTel?")
        attrs = one_tool_span(cap)
        assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("tavily.search", names.STATUS_OK)
        assert list(attrs[names.URLS_RETURNED]) == ["https://tv.example/0", "https://tv.example/1"]
        assert attrs[names.RUN_ID] == run_span(cap).attributes[names.RUN_ID]
        cap.clear()
        route.mock(return_value=httpx.Response(200, json={"query": "q", "results": []}))
        await agent.run("Q?")
        assert one_tool_span(cap)[names.TOOL_STATUS] == names.STATUS_EMPTY
        cap.clear()
        route.mock(return_value=httpx.Response(429, json={"detail": {"error": "limit"}}))
        with pytest.raises(UsageLimitExceededError):
            await agent.run("Q?")
    assert one_tool_span(cap)[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED


async def test_exa_answer_tool_citations_are_documents(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """exa_answer (AsyncExa.answer with text=True) is one search span whose results are the citations, each
    citation's text stored as a document of the run."""
    body = {"answer": "It is a framework.", "citations": [
        {"id": str(i), "url": f"https://cite.example/{i}", "title": f"C{i}", "text": f"{PAGE} {i}"} for i in range(2)]}
    with respx.mock() as mock:
        mock.post(EXA).mock(return_value=httpx.Response(200, json=body))
        await agent_with(exa_answer_tool(api_key="k"), "exa_answer", {"query": "otel"}).run("What is OTel?")
    attrs = one_tool_span(cap)
    assert (attrs[names.GEN_AI_TOOL_NAME], attrs[names.TOOL_STATUS]) == ("exa.answer", names.STATUS_OK)
    assert list(attrs[names.PAGES_RETURNED]) == ["https://cite.example/0", "https://cite.example/1"]
    run_id = str(attrs[names.RUN_ID])
    assert {d.url: d.text for d in cap.store.documents(run_id)} == {
        f"https://cite.example/{i}": f"{PAGE} {i}" for i in range(2)}
