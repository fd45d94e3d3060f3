"""LlamaIndex agent workflows end to end: ``FunctionAgent.run`` and ``AgentWorkflow.run`` become one run each,
with a scripted ``MockFunctionCallingLLM`` and ``TavilyToolSpec``'s search/extract tools over a fake network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ._research import EXPECTED, ResearchWeb, figures, one_run, run_agent, runs, two_concurrent_runs

SCRIPT = "llamaindex_agent.py"




def _one_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> dict[str, Any]:
    return one_run(tmp_path, research_web, SCRIPT, mode)


@pytest.mark.parametrize("mode", ["run", "stream", "workflow"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> None:
    """An awaited ``FunctionAgent.run``, one whose ``stream_events()`` is drained, and an ``AgentWorkflow``
    each give exactly one run named after the agent, with the question, the summary of what the tool spec
    really did, and the agent's response as the answer."""
    run = _one_run(tmp_path, research_web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("researcher", "What is OpenTelemetry?", research_web.answer())
    assert figures(run) == EXPECTED
    assert run["error_type"] is None and run["ended_at"] is not None


def test_failed_workflow_marks_the_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """An agent stopped by ``max_iterations`` raises to the caller as before; its run ends with that error
    type, no answer, and the search it made before stopping."""
    out = run_agent(tmp_path, SCRIPT, research_web.base, "max_iterations", research_web.answer())
    assert out.strip() == "WorkflowRuntimeError"
    (run,) = runs(tmp_path)
    assert (run["error_type"], run["answer"], run["summary"]["searches"]) == ("WorkflowRuntimeError", None, 1)


def test_agent_called_from_a_tool_joins_the_outer_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """A researcher agent run from the editor agent's tool is part of the editor's run: one run, the
    editor's name and question, every tool call of the researcher in its summary."""
    run = _one_run(tmp_path, research_web, "nested")
    assert (run["agent"], run["question"], run["answer"]) == ("editor", "Write a cited note on OpenTelemetry",
                                                              research_web.answer())
    assert figures(run) == EXPECTED


def test_concurrent_runs_are_separate(tmp_path: Path, research_web: ResearchWeb) -> None:
    """Two agent handlers awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    found = two_concurrent_runs(tmp_path, research_web, SCRIPT, [("r1", "Q1"), ("r2", "Q2")])
    assert all(figures(r) == EXPECTED for r in found)
