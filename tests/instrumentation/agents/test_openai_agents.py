"""OpenAI Agents SDK end to end: ``Runner.run``/``run_sync``/``run_streamed`` become one run each, with the
framework's own ``ScriptedModel`` and function tools calling Tavily over a fake network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ._research import EXPECTED, ResearchWeb, figures, one_run, two_concurrent_runs

SCRIPT = "openai_agents_agent.py"
ENV = {"OPENAI_AGENTS_DISABLE_TRACING": "1"}  # the SDK's own exporter would try to reach OpenAI




def _one_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> dict[str, Any]:
    return one_run(tmp_path, research_web, SCRIPT, mode, extra_env=ENV)


@pytest.mark.parametrize("mode", ["run", "sync", "streamed"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> None:
    """``Runner.run``, ``run_sync`` and a drained ``run_streamed`` each give exactly one run named after the
    agent, with the question, the summary of what the tools really did, and ``final_output`` as the answer."""
    run = _one_run(tmp_path, research_web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("researcher", "What is OpenTelemetry?", research_web.answer())
    assert figures(run) == EXPECTED
    assert run["error_type"] is None and run["ended_at"] is not None


def test_undrained_stream_still_ends_its_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """A ``run_streamed`` whose events nobody reads still ends its run when the agent loop finishes, with
    ``final_output`` as the answer."""
    run = _one_run(tmp_path, research_web, "streamed_undrained")
    assert run["answer"] == research_web.answer() and run["ended_at"] is not None
    assert figures(run) == EXPECTED


def test_stream_failure_marks_the_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """``MaxTurnsExceeded``, which the SDK stores for ``stream_events()`` to raise, fails the run: its type is
    recorded, there is no answer, and the two searches made before it are in the summary."""
    run = _one_run(tmp_path, research_web, "streamed_max_turns")
    assert (run["error_type"], run["answer"]) == ("MaxTurnsExceeded", None)
    assert (run["summary"]["searches"], run["summary"]["reads"]) == (2, 0)


def test_hosted_web_search_lands_in_the_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """The SDK's hosted ``WebSearchTool`` over the real ``OpenAIResponsesModel`` (a Responses API server on
    127.0.0.1): its server-side search and page open are the run's search and read, read from the response
    by citetrace's provider rows; the one URL no search returned is the uncited one (sources the model
    consulted count as read, so only it is also unfetched)."""
    run = _one_run(tmp_path, research_web, "hosted")
    assert (run["agent"], run["answer"]) == ("researcher", research_web.answer())
    assert figures(run) == {**EXPECTED, "searches": 1, "reads": 1, "empty_searches": 0, "failed_reads": 0,
                            "rate_limited": 0, "cited_not_fetched": 1}


def test_agent_as_tool_joins_the_outer_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """A sub-agent called through ``as_tool`` runs inside the editor's run: one run, the editor's name and
    question, every tool call of the sub-agent in its summary."""
    run = _one_run(tmp_path, research_web, "nested")
    assert (run["agent"], run["question"]) == ("editor", "Write a cited note on OpenTelemetry")
    assert run["answer"] == research_web.answer()
    assert figures(run) == EXPECTED


def test_concurrent_runs_are_separate(tmp_path: Path, research_web: ResearchWeb) -> None:
    """Two ``Runner.run`` awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    found = two_concurrent_runs(tmp_path, research_web, SCRIPT, [("r1", "Q1"), ("r2", "Q2")], extra_env=ENV)
    assert all(figures(r) == EXPECTED for r in found)


def test_research_run_around_it_is_not_doubled(tmp_path: Path, research_web: ResearchWeb) -> None:
    """Inside the user's own ``research_run`` the SDK's run joins it: one run, the user's name and question,
    and the SDK's answer recorded on it."""
    run = _one_run(tmp_path, research_web, "user_run")
    assert (run["agent"], run["question"], run["answer"]) == ("mine", "my question", research_web.answer())
    assert figures(run) == EXPECTED
