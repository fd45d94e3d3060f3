"""LangGraph beside OpenInference's and OpenLLMetry's real LangChain instrumentors, end to end in
subprocesses with only environment variables: the application's exporter gets every span it gets without
citetrace, with the same parents (their root stays the root, or the application's own root does), plus
citetrace's beneath, all in one trace; the run is summarized, stored and listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citetrace import names

from ._net import LocalServer
from ._neighbours import DUMP, PAGE, PRELUDE, cli, run_app, shape, split

QUESTION = "How fast is solar growing?"

APP = PRELUDE + '''
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

import searchlib


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return "\\n".join(r["url"] for r in searchlib.search(query, base))


class Scripted(GenericFakeChatModel):
    """A chat model answering from a script; it accepts tools (the script decides the calls)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


messages = [AIMessage(content="", tool_calls=[{"name": "web_search", "args": {"query": "solar"}, "id": "c1"}]),
            AIMessage(content=f"Solar grew [1]({base}/page/0).")]
agent = create_agent(Scripted(messages=iter(messages)), tools=[web_search])
question = {"messages": [{"role": "user", "content": "''' + QUESTION + '''"}]}
if "app-root" in sys.argv:  # the application's own span as the trace's root (the Langfuse pattern)
    with trace.get_tracer("my-app").start_as_current_span("handle request"):
        result = agent.invoke(question)
else:
    result = agent.invoke(question)
answer = result["messages"][-1].content
''' + DUMP

ROOTS = {"openinference-langchain": "LangGraph", "openllmetry-langchain": "invoke_agent LangGraph"}
"""Each instrumentation's root for the graph run (OpenLLMetry's is over its ``LangGraph.workflow`` span; it
also makes a trace of its own for ``create_agent``, with or without citetrace)."""


def _traces(spans: list[dict[str, Any]]) -> int:
    return len({s["trace_id"] for s in spans})


@pytest.fixture
def web(server: LocalServer) -> LocalServer:
    """Two pages on a local server."""
    server.routes["/page/"] = (200, PAGE, "text/html")
    return server


def _both(tmp_path: Path, web: LocalServer, others: tuple[str, ...], **extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
    plain, _ = run_app(tmp_path, web, APP, citetrace=False, others=others)
    traced, stderr = run_app(tmp_path, web, APP, citetrace=True, others=others, **extra)
    assert "Overriding of current TracerProvider" not in stderr
    assert traced["answer"] == plain["answer"]
    return plain, traced


def _one_run(tmp_path: Path) -> dict[str, Any]:
    proc = cli(tmp_path, "runs", "--json")
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads(proc.stdout)
    return run  # type: ignore[no-any-return]


@pytest.mark.parametrize("instrumentation", sorted(ROOTS))
def test_their_root_stays_the_root_and_the_run_joins_its_trace(tmp_path: Path, web: LocalServer,
                                                               instrumentation: str) -> None:
    """Nothing current at the application's call: their graph root keeps no parent, every other span of theirs
    keeps its parent, citetrace's run span is a child of their root (adopted for OpenInference, whose root
    starts inside the call citetrace wraps; current at the call for OpenLLMetry, which wraps it too) and its
    tool span is in the same trace; the run is listed with the question, the search and the answer."""
    plain, traced = _both(tmp_path, web, (instrumentation,))
    ours, theirs = split(traced["spans"], names.INSTRUMENTATION_SCOPE)
    assert shape(theirs, traced["spans"]) == shape(plain["spans"])  # not one parent changed, the root included
    (root,) = [s for s in theirs if s["parent"] is None and s["name"] == ROOTS[instrumentation]]
    by_name = {s["name"]: s for s in ours}
    assert sorted(by_name) == ["execute_tool search", "invoke_agent LangGraph"]
    assert by_name["invoke_agent LangGraph"]["parent"] == root["span_id"]  # the run adopted their root
    assert {s["trace_id"] for s in ours} == {root["trace_id"]}  # ours are in their graph's trace
    assert _traces(traced["spans"]) == _traces(plain["spans"])  # and no trace of our own
    run = _one_run(tmp_path)
    assert run["trace_id"] == root["trace_id"] and run["summary"]["searches"] == 1
    assert run["answer"] == plain["answer"] and run["question"] == QUESTION
    shown = cli(tmp_path, "show", root["trace_id"][:12], "--json")
    assert shown.returncode == 0, shown.stderr
    assert [c["tool"] for c in json.loads(shown.stdout)["calls"]] == ["search"]


@pytest.mark.parametrize("instrumentation", sorted(ROOTS))
def test_under_the_applications_own_root(tmp_path: Path, web: LocalServer, instrumentation: str) -> None:
    """The application's own span current at the call (the Langfuse pattern): it stays the trace's root and
    the parent of their graph root; citetrace's run is beneath it (beside their root); the run is listed and
    summarized."""
    plain, traced = _both(tmp_path, web, (instrumentation, "app-root"))
    ours, theirs = split(traced["spans"], names.INSTRUMENTATION_SCOPE)
    assert shape(theirs, traced["spans"]) == shape(plain["spans"])
    (root,) = [s for s in traced["spans"] if s["name"] == "handle request"]
    assert root["parent"] is None
    run_span = next(s for s in ours if s["name"] == "invoke_agent LangGraph")
    parent = next(s for s in traced["spans"] if s["span_id"] == run_span["parent"])
    # OpenInference's graph root starts inside the call citetrace wraps; OpenLLMetry's wraps that call itself
    assert (parent["scope"], parent["name"]) == (("my-app", "handle request") if instrumentation.startswith(
        "openinference") else (theirs[0]["scope"], ROOTS[instrumentation]))
    assert {s["trace_id"] for s in ours} == {root["trace_id"]}
    assert _traces(traced["spans"]) == _traces(plain["spans"])
    run = _one_run(tmp_path)
    assert run["trace_id"] == root["trace_id"] and run["summary"]["searches"] == 1
