"""LangGraph agents with a scripted chat model and LangChain's own web tools (not citetrace-aware).

Usage: ``python langgraph_agent.py BASE MODE[,MODE...]``, the modes in turn. MODE ``create_agent`` runs a
``langchain.agents.create_agent`` graph named ``scout`` four times: ``invoke``, ``ainvoke``, ``stream``, ``astream``. ``react`` runs
``langgraph.prebuilt.create_react_agent`` once. ``report`` runs a hand-built StateGraph whose writer node
puts the report under ``final_report`` and whose researcher node calls the agent graph (a nested graph).
``user_run`` invokes the agent inside the application's own ``research_run`` (named ``app``).
``concurrent`` invokes a graph named ``crowd`` four times at once: two asyncio tasks (``ainvoke``) and two
threads (``invoke``). Prints ``{"answers": {MODE: [answer, ...]}}``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import warnings
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test directory, for the fake network

from _fakenet import reroute  # noqa: E402

BASE, MODES = sys.argv[1], sys.argv[2].split(",")
reroute(BASE)
warnings.simplefilter("ignore")

import trafilatura  # noqa: E402
from langchain_community.tools import DuckDuckGoSearchResults  # noqa: E402
from langchain_community.tools.tavily_search import TavilySearchResults  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from trafilatura.settings import use_config  # noqa: E402

ANSWER = "Solar grew fast [1](https://news.example/a), says [2](https://never.example/z)."
VISITS = ["https://news.example/a", "https://gone.example/x", "https://slow.example/y"]
CFG = use_config()
CFG.set("DEFAULT", "SSRF_PROTECTION", "False")  # the fake web is on 127.0.0.1
CFG.set("DEFAULT", "MAX_REDIRECTS", "0")


@tool
def fetch(url: str) -> str:
    """Download a web page and return its text."""
    html = trafilatura.fetch_url(url, config=CFG)
    return (trafilatura.extract(html) or "") if html else "could not fetch"


DDG = DuckDuckGoSearchResults()


@tool
def duckduckgo_results_json(query: str) -> str:
    """Search DuckDuckGo (ddgs raises when nothing is found; the agent gets the message instead)."""
    try:
        return str(DDG.invoke({"query": query}))
    except Exception as exc:  # noqa: BLE001
        return f"search failed: {exc}"


class Scripted(GenericFakeChatModel):
    """GenericFakeChatModel that accepts tools (the script decides the calls)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def model() -> Scripted:
    calls = [
        [{"name": "tavily_search_results_json", "args": {"query": "solar growth"}, "id": "t1"}],
        [{"name": "duckduckgo_results_json", "args": {"query": "nothing"}, "id": "d1"}],
        [{"name": "fetch", "args": {"url": u}, "id": f"f{i}"} for i, u in enumerate(VISITS)],
    ]
    messages = [AIMessage(content="", tool_calls=c) for c in calls] + [AIMessage(content=ANSWER)]
    return Scripted(messages=iter(messages))


def tools() -> list[Any]:
    return [TavilySearchResults(max_results=2, tavily_api_key="k"), duckduckgo_results_json, fetch]


def agent(name: str = "scout") -> Any:
    from langchain.agents import create_agent

    return create_agent(model(), tools(), name=name)


def last_text(state: dict[str, Any]) -> str:
    return str(state["messages"][-1].content)


QUESTION = {"messages": [("user", "How fast is solar growing?")]}


def create_agent_four_ways() -> list[str]:
    answers = [last_text(agent().invoke(QUESTION)), last_text(asyncio.run(agent().ainvoke(QUESTION)))]
    chunks = list(agent().stream(QUESTION, stream_mode="updates"))
    answers.append(str(chunks[-1]["model"]["messages"][-1].content))

    async def astream() -> str:
        state: Any = None
        async for state in agent().astream(QUESTION, stream_mode="values"):
            pass
        return last_text(state)

    answers.append(asyncio.run(astream()))
    return answers


def user_run() -> list[str]:
    from citetrace import research_run

    with research_run("How fast is solar growing? (app)", agent="app"):
        return [last_text(agent().invoke(QUESTION))]


def concurrent() -> list[str]:
    import threading

    async def two_tasks() -> list[Any]:
        return list(await asyncio.gather(agent("crowd").ainvoke(QUESTION), agent("crowd").ainvoke(QUESTION)))

    states: list[Any] = []
    threads = [threading.Thread(target=lambda: states.append(agent("crowd").invoke(QUESTION))) for _ in range(2)]
    for t in threads:
        t.start()
    states.extend(asyncio.run(two_tasks()))
    for t in threads:
        t.join()
    return [last_text(state) for state in states]


def react() -> list[str]:
    from langgraph.prebuilt import create_react_agent

    return [last_text(create_react_agent(model(), tools()).invoke(QUESTION))]


def report() -> list[str]:
    from langgraph.graph import END, START, StateGraph

    class State(TypedDict, total=False):
        question: str
        notes: str
        final_report: str

    def research(state: State) -> State:
        return {"notes": last_text(agent().invoke({"messages": [("user", state["question"])]}))}

    def write(state: State) -> State:
        return {"final_report": "Report. " + state["notes"]}

    graph = StateGraph(State)
    graph.add_node("research", research)
    graph.add_node("write", write)
    graph.add_edge(START, "research")
    graph.add_edge("research", "write")
    graph.add_edge("write", END)
    return [graph.compile(name="writer").invoke({"question": "How fast is solar growing?"})["final_report"]]


RUNS = {"create_agent": create_agent_four_ways, "user_run": user_run, "concurrent": concurrent, "react": react,
        "report": report}
print(json.dumps({"answers": {mode: RUNS[mode]() for mode in MODES}}))
