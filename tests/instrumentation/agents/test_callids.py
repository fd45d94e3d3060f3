"""gen_ai.tool.call.id on the tool spans of smolagents, LangChain and the OpenAI Agents SDK: the model's own
tool-call id, one per call, also when calls run in parallel. Real frameworks; the model is scripted and
only the network is replaced (``responses``)."""

from __future__ import annotations

import asyncio
from typing import Any

import responses
from smolagents import ToolCallingAgent, VisitWebpageTool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction

from citetrace import names, traced_tool
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._smolscript import Scripted

PAGE = "<html><body><p>" + "Readable article text. " * 20 + "</p></body></html>"
URLS = ("https://page.example/a", "https://page.example/b")


def _ids(cap: Captured) -> dict[str, str]:
    """url.full (or tool name) -> gen_ai.tool.call.id of each tool span."""
    out: dict[str, str] = {}
    for span in cap.tool_spans():
        attrs = dict(span.attributes or {})
        out[str(attrs.get(names.URL_FULL) or attrs[names.GEN_AI_TOOL_NAME])] = str(attrs.get(names.GEN_AI_TOOL_CALL_ID))
    return out


def _visits(*calls: tuple[str, str]) -> ChatMessage:
    return ChatMessage(role="assistant", content="", tool_calls=[
        ChatMessageToolCall(ChatMessageToolCallFunction(name="visit_webpage", arguments={"url": url}), id=call_id,
                            type="function") for call_id, url in calls])


def _final() -> ChatMessage:
    function = ChatMessageToolCallFunction(name="final_answer", arguments={"answer": "done"})
    return ChatMessage(role="assistant", content="", tool_calls=[ChatMessageToolCall(function, id="fin", type="function")])


@responses.activate
def test_smolagents_tool_calls_carry_their_ids(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A single call and two parallel calls (threads) each carry the model's id for that call."""
    for url in URLS:
        responses.get(url, body=PAGE, content_type="text/html")
    model = Scripted([_visits(("call_1", URLS[0])), _visits(("call_2", URLS[0]), ("call_3", URLS[1])), _final()])
    agent = ToolCallingAgent(tools=[VisitWebpageTool()], model=model, max_steps=4, verbosity_level=0)
    assert agent.run("read both") == "done"
    spans = [dict(s.attributes or {}) for s in cap.tool_spans()]
    pairs = sorted((str(a[names.URL_FULL]), str(a[names.GEN_AI_TOOL_CALL_ID])) for a in spans)
    assert pairs == [(URLS[0], "call_1"), (URLS[0], "call_2"), (URLS[1], "call_3")]


@responses.activate
def test_langchain_tool_call_id(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """tool.invoke(ToolCall) (what ToolNode and create_agent do) puts its id on the span; a plain invoke has none."""
    from langchain_tavily import TavilySearch

    responses.post("https://api.tavily.com/search", json={"query": "q", "results": [{"url": URLS[0], "content": "c"}]})
    tool = TavilySearch(tavily_api_key="k")
    message = tool.invoke({"name": tool.name, "args": {"query": "q"}, "id": "call_lc_7", "type": "tool_call"})
    assert message.tool_call_id == "call_lc_7"
    assert list(_ids(cap).values()) == ["call_lc_7"]
    cap.clear()
    tool.invoke({"query": "q"})
    assert names.GEN_AI_TOOL_CALL_ID not in dict(cap.tool_spans()[0].attributes or {})


def test_openai_agents_tool_call_id(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """A function tool run by the OpenAI Agents SDK carries the ToolContext's tool_call_id."""
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.testing import ScriptedModel, assistant_message, function_call

    set_tracing_disabled(True)

    @traced_tool(kind="search")
    def search(query: str) -> list[dict[str, Any]]:
        return [{"url": URLS[0], "title": query}]

    @function_tool
    def web_search(query: str) -> str:
        """Search the web."""
        return str(search(query))

    steps = [[function_call("web_search", {"query": "q1"}, call_id="call_oa_1"),
              function_call("web_search", {"query": "q2"}, call_id="call_oa_2")], [assistant_message("done")]]
    agent = Agent(name="r", instructions="research", tools=[web_search], model=ScriptedModel(steps))
    result = asyncio.run(Runner.run(agent, "q"))
    assert result.final_output == "done"
    assert sorted(str((s.attributes or {})[names.GEN_AI_TOOL_CALL_ID]) for s in cap.tool_spans()) == [
        "call_oa_1", "call_oa_2"]


@responses.activate
def test_no_ids_once_uninstrumented(cap: Captured) -> None:
    """Without the instrumentor nothing is recorded (and the frameworks run as before)."""
    responses.get(URLS[0], body=PAGE, content_type="text/html")
    model = Scripted([_visits(("call_1", URLS[0])), _final()])
    assert ToolCallingAgent(tools=[VisitWebpageTool()], model=model, max_steps=3, verbosity_level=0).run("x") == "done"
    assert cap.tool_spans() == []
