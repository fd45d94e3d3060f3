"""A LangGraph research graph that stops for a human's approval (``interrupt()``, MemorySaver) and is resumed.

Usage: ``python langgraph_interrupt_agent.py BASE MODE ANSWER``. The graph: ``plan`` fans out with ``Send``
to ``research`` (tavily-python search + extract over the fake network, one topic each, in LangGraph's
threads), ``review`` calls ``interrupt()``, ``write`` puts ANSWER under ``final_report``. MODE:

- ``resume``: ``stream(..., stream_mode=["updates", "messages"])`` until the interrupt, then
  ``invoke(Command(resume="yes"))`` on the same thread;
- ``aresume``: the same with ``astream`` and ``ainvoke``;
- ``threads``: two threads paused in turn, resumed in the other order;
- ``fresh``: paused, then the thread is started again with a new input (not resumed);
- ``never``: paused and never resumed (the process exits).

Prints ``True`` when every resumed graph wrote ANSWER (``fresh``/``never``: when the interrupt was seen).
Imports nothing of citetrace.
"""
import asyncio
import operator
import sys
from typing import Annotated, TypedDict

from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt
from tavily import TavilyClient

base, mode, answer = sys.argv[1], sys.argv[2], sys.argv[3]
client = TavilyClient(api_key="tvly-k", api_base_url=base)


class State(TypedDict, total=False):
    question: str
    topics: list
    notes: Annotated[list, operator.add]
    approved: str
    final_report: str


def plan(state: State) -> State:
    return {"topics": ["what is opentelemetry", "nothing at all"]}


def fan_out(state: State) -> list:
    return [Send("research", {"topic": t}) for t in state["topics"]]


def research(topic: dict) -> State:
    found = client.search(topic["topic"])["results"]
    pages = client.extract([r["url"] for r in found[:1]])["results"] if found else []
    return {"notes": [p["url"] for p in pages]}


def review(state: State) -> State:
    return {"approved": interrupt({"draft": state["notes"]})}


def write(state: State) -> State:
    return {"final_report": answer}


graph = StateGraph(State)
for name, node in (("plan", plan), ("research", research), ("review", review), ("write", write)):
    graph.add_node(name, node)
graph.add_edge(START, "plan")
graph.add_conditional_edges("plan", fan_out, ["research"])
graph.add_edge("research", "review")
graph.add_edge("review", "write")
graph.add_edge("write", END)
app = graph.compile(checkpointer=MemorySaver(), name="reviewed")
MODES = ["updates", "messages"]


def cfg(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


def pause(thread: str, question: str = "What is OpenTelemetry?") -> bool:
    chunks = list(app.stream({"question": question}, cfg(thread), stream_mode=MODES))
    return any(mode_ == "updates" and "__interrupt__" in chunk for mode_, chunk in chunks)


def resume(thread: str) -> bool:
    return app.invoke(Command(resume="yes"), cfg(thread))["final_report"] == answer


async def aresume() -> bool:
    chunks = [c async for c in app.astream({"question": "What is OpenTelemetry?"}, cfg("a"), stream_mode=MODES)]
    paused = any(m == "updates" and "__interrupt__" in c for m, c in chunks)
    done = await app.ainvoke(Command(resume="yes"), cfg("a"))
    return paused and done["final_report"] == answer


if mode == "resume":
    print(pause("t1") and resume("t1"))
elif mode == "aresume":
    print(asyncio.run(aresume()))
elif mode == "threads":
    print(pause("t1") and pause("t2", "What is tracing?") and resume("t2") and resume("t1"))
elif mode == "fresh":
    print(pause("t1") and pause("t1", "What is tracing?"))
elif mode == "never":
    print(pause("t1"))
else:
    raise SystemExit(f"unknown mode {mode}")
