"""LangGraph end to end: create_agent / create_react_agent graphs and a report graph with LangChain's own
tools over a fake network, configured by environment variables only: one run per invocation."""

from __future__ import annotations

from typing import Any

import pytest

from .._net import LocalServer
from ._e2e import figures, run_agent, serve_search_api, serve_web

ANSWER = "Solar grew fast [1](https://news.example/a), says [2](https://never.example/z)."
# 2 searches (DuckDuckGo's empty), 3 reads (a 404 and a 429), 2 citations: never.example neither returned nor read
EXPECTED = {"searches": 2, "reads": 3, "empty_searches": 1, "failed_reads": 2, "rate_limited": 1, "citations": 2,
            "uncited_from_retrieval": 1, "cited_not_fetched": 1}


MODES = ("create_agent", "react", "report", "user_run", "concurrent")
Runs = tuple[dict[str, Any], list[dict[str, Any]]]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """One agent process going through every mode (one process start for the module): 4 + 1 + 1 + 1 + 4
    invocations."""
    srv = serve_web(LocalServer())
    serve_search_api(srv, ["https://news.example/a", "https://news.example/b"])
    try:
        return run_agent(tmp_path_factory.mktemp("langgraph"), "langgraph_agent.py", srv.base, ",".join(MODES))
    finally:
        srv.close()


def _by_agent(listed: list[dict[str, Any]], agent: str) -> list[dict[str, Any]]:
    return [r for r in listed if r["agent"] == agent]


def test_exactly_one_run_per_invocation(runs: Runs) -> None:
    """Eleven top-level invocations, eleven runs: the nested graph inside the report graph is not one."""
    _, listed = runs
    assert sorted(r["agent"] for r in listed) == sorted(["scout"] * 4 + ["LangGraph", "writer", "app"] + ["crowd"] * 4)
    assert len({r["trace_id"] for r in listed}) == 11


def test_create_agent_invoke_ainvoke_stream_astream(runs: Runs) -> None:
    """create_agent graph: invoke, ainvoke, stream, astream are four runs named after the graph, with the
    same figures and the last AI message as the stored answer."""
    printed, listed = runs
    assert printed["answers"]["create_agent"] == [ANSWER] * 4
    scouts = _by_agent(listed, "scout")
    assert [r["answer"] for r in scouts] == [ANSWER] * 4
    assert [figures(r) for r in scouts] == [EXPECTED] * 4


def test_create_react_agent(runs: Runs) -> None:
    """langgraph.prebuilt.create_react_agent (LangGraph's default name) is one run too."""
    (run,) = _by_agent(runs[1], "LangGraph")
    assert run["answer"] == ANSWER and figures(run) == EXPECTED


def test_report_key_wins_and_nested_graph_joins(runs: Runs) -> None:
    """A graph whose node runs the agent graph is one run; its answer is the final_report state key."""
    printed, listed = runs
    assert printed["answers"]["report"] == ["Report. " + ANSWER]
    (run,) = _by_agent(listed, "writer")
    assert run["answer"] == "Report. " + ANSWER
    assert figures(run) == EXPECTED


def test_user_research_run_is_joined_not_doubled(runs: Runs) -> None:
    """Inside the application's research_run the graph joins it: one run, the application's name and
    question, and the graph's answer recorded on it (the application recorded none)."""
    (run,) = _by_agent(runs[1], "app")
    assert run["question"] == "How fast is solar growing? (app)"
    assert run["answer"] == ANSWER and figures(run) == EXPECTED


def test_concurrent_invocations_are_separate_runs(runs: Runs) -> None:
    """Two asyncio tasks and two threads invoking at once: four runs, each with exactly its own tool calls."""
    printed, listed = runs
    assert printed["answers"]["concurrent"] == [ANSWER] * 4
    crowd = _by_agent(listed, "crowd")
    assert [figures(r) for r in crowd] == [EXPECTED] * 4
