"""LangGraph end to end: create_agent / create_react_agent graphs and a report graph with LangChain's own
tools over a fake network, configured by environment variables only: one run per invocation."""

from __future__ import annotations

from pathlib import Path

import pytest

from .._net import LocalServer
from ._e2e import figures, run_agent

ANSWER = "Solar grew fast [1](https://news.example/a), says [2](https://never.example/z)."
# 2 searches (DuckDuckGo's empty), 3 reads (a 404 and a 429), 2 citations: never.example neither returned nor read
EXPECTED = {"searches": 2, "reads": 3, "empty_searches": 1, "failed_reads": 2, "rate_limited": 1, "citations": 2,
            "uncited_from_retrieval": 1, "cited_not_fetched": 1}


def test_create_agent_invoke_ainvoke_stream_astream(tmp_path: Path, web: LocalServer) -> None:
    """Four invocations of a create_agent graph (invoke, ainvoke, stream, astream) are four runs, each named
    after the graph, with the same figures and the last AI message as the stored answer."""
    printed, runs = run_agent(tmp_path, "langgraph_agent.py", web.base, "create_agent")
    assert printed["answers"] == [ANSWER] * 4
    assert len(runs) == 4, [r["run_id"] for r in runs]
    assert {r["agent"] for r in runs} == {"scout"}
    assert [r["answer"] for r in runs] == [ANSWER] * 4
    assert [figures(r) for r in runs] == [EXPECTED] * 4
    assert len({r["trace_id"] for r in runs}) == 4


def test_create_react_agent(tmp_path: Path, web: LocalServer) -> None:
    """langgraph.prebuilt.create_react_agent is one run too."""
    _, runs = run_agent(tmp_path, "langgraph_agent.py", web.base, "react")
    assert len(runs) == 1
    assert runs[0]["answer"] == ANSWER and figures(runs[0]) == EXPECTED


def test_report_key_wins_and_nested_graph_joins(tmp_path: Path, web: LocalServer) -> None:
    """A graph whose node runs the agent graph is one run; its answer is the final_report state key."""
    printed, runs = run_agent(tmp_path, "langgraph_agent.py", web.base, "report")
    assert printed["answers"] == ["Report. " + ANSWER]
    assert len(runs) == 1
    assert runs[0]["agent"] == "writer"
    assert runs[0]["answer"] == "Report. " + ANSWER
    assert figures(runs[0]) == EXPECTED


def test_user_research_run_is_joined_not_doubled(tmp_path: Path, web: LocalServer) -> None:
    """Inside the application's research_run the graph joins it: one run, the application's name, and the
    graph's answer recorded on it (the application recorded none)."""
    _, runs = run_agent(tmp_path, "langgraph_agent.py", web.base, "user_run")
    assert len(runs) == 1
    assert runs[0]["agent"] == "app" and runs[0]["question"] == "How fast is solar growing? (app)"
    assert runs[0]["answer"] == ANSWER and figures(runs[0]) == EXPECTED


def test_concurrent_invocations_are_separate_runs(tmp_path: Path, web: LocalServer) -> None:
    """Two asyncio tasks and two threads invoking at once: four runs, each with exactly its own tool calls."""
    printed, runs = run_agent(tmp_path, "langgraph_agent.py", web.base, "concurrent")
    assert printed["answers"] == [ANSWER] * 4
    assert len(runs) == 4
    assert [figures(r) for r in runs] == [EXPECTED] * 4
