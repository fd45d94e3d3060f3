"""LlamaIndex agent workflows end to end: ``FunctionAgent.run`` and ``AgentWorkflow.run`` become one run each,
with a scripted ``MockFunctionCallingLLM`` and ``TavilyToolSpec``'s search/extract tools over a fake network."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from ._research import EXPECTED, ResearchWeb, figures, run_agent, runs

SCRIPT = "llamaindex_agent.py"


@pytest.fixture(scope="module")
def web() -> Iterator[ResearchWeb]:
    """The fake Tavily API and pages, shared by this module's agents."""
    srv = ResearchWeb()
    try:
        yield srv
    finally:
        srv.close()


def _one_run(tmp_path: Path, web: ResearchWeb, mode: str) -> dict[str, Any]:
    out = run_agent(tmp_path, SCRIPT, web.base, mode, web.answer())
    assert out.strip() == "True", out
    found = runs(tmp_path)
    assert len(found) == 1, [r["agent"] for r in found]
    return found[0]


@pytest.mark.parametrize("mode", ["run", "stream", "workflow"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, web: ResearchWeb, mode: str) -> None:
    """An awaited ``FunctionAgent.run``, one whose ``stream_events()`` is drained, and an ``AgentWorkflow``
    each give exactly one run named after the agent, with the question, the summary of what the tool spec
    really did, and the agent's response as the answer."""
    run = _one_run(tmp_path, web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("researcher", "What is OpenTelemetry?", web.answer())
    assert figures(run) == EXPECTED
    assert run["error_type"] is None and run["ended_at"] is not None


def test_agent_called_from_a_tool_joins_the_outer_run(tmp_path: Path, web: ResearchWeb) -> None:
    """A researcher agent run from the editor agent's tool is part of the editor's run: one run, the
    editor's name and question, every tool call of the researcher in its summary."""
    run = _one_run(tmp_path, web, "nested")
    assert (run["agent"], run["question"], run["answer"]) == ("editor", "Write a cited note on OpenTelemetry",
                                                              web.answer())
    assert figures(run) == EXPECTED


def test_concurrent_runs_are_separate(tmp_path: Path, web: ResearchWeb) -> None:
    """Two agent handlers awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    out = run_agent(tmp_path, SCRIPT, web.base, "concurrent", web.answer())
    assert out.strip() == "[True, True]"
    found = runs(tmp_path)
    assert sorted((r["agent"], r["question"]) for r in found) == [("r1", "Q1"), ("r2", "Q2")]
    assert len({r["trace_id"] for r in found}) == 2
    assert all(figures(r) == EXPECTED for r in found)
