"""OpenAI Agents SDK end to end: ``Runner.run``/``run_sync``/``run_streamed`` become one run each, with the
framework's own ``ScriptedModel`` and function tools calling Tavily over a fake network."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from ._research import EXPECTED, ResearchWeb, figures, run_agent, runs

SCRIPT = "openai_agents_agent.py"
ENV = {"OPENAI_AGENTS_DISABLE_TRACING": "1"}  # the SDK's own exporter would try to reach OpenAI


@pytest.fixture(scope="module")
def web() -> Iterator[ResearchWeb]:
    """The fake Tavily API and pages, shared by this module's agents."""
    srv = ResearchWeb()
    try:
        yield srv
    finally:
        srv.close()


def _one_run(tmp_path: Path, web: ResearchWeb, mode: str) -> dict[str, object]:
    out = run_agent(tmp_path, SCRIPT, web.base, mode, web.answer(), extra_env=ENV)
    assert "False" not in out, out
    found = runs(tmp_path)
    assert len(found) == 1, [r["agent"] for r in found]
    return found[0]


@pytest.mark.parametrize("mode", ["run", "sync", "streamed"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, web: ResearchWeb, mode: str) -> None:
    """``Runner.run``, ``run_sync`` and a drained ``run_streamed`` each give exactly one run named after the
    agent, with the question, the summary of what the tools really did, and ``final_output`` as the answer."""
    run = _one_run(tmp_path, web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("researcher", "What is OpenTelemetry?", web.answer())
    assert figures(run) == EXPECTED
    assert run["error_type"] is None and run["ended_at"] is not None


def test_undrained_stream_still_ends_its_run(tmp_path: Path, web: ResearchWeb) -> None:
    """A ``run_streamed`` whose events nobody reads still ends its run when the agent loop finishes, with
    ``final_output`` as the answer."""
    run = _one_run(tmp_path, web, "streamed_undrained")
    assert run["answer"] == web.answer() and run["ended_at"] is not None
    assert figures(run) == EXPECTED


def test_stream_failure_marks_the_run(tmp_path: Path, web: ResearchWeb) -> None:
    """``MaxTurnsExceeded``, which the SDK stores for ``stream_events()`` to raise, fails the run: its type is
    recorded, there is no answer, and the two searches made before it are in the summary."""
    run = _one_run(tmp_path, web, "streamed_max_turns")
    assert (run["error_type"], run["answer"]) == ("MaxTurnsExceeded", None)
    assert (run["summary"]["searches"], run["summary"]["reads"]) == (2, 0)


def test_hosted_web_search_lands_in_the_run(tmp_path: Path, web: ResearchWeb) -> None:
    """The SDK's hosted ``WebSearchTool`` over the real ``OpenAIResponsesModel`` (a Responses API server on
    127.0.0.1): its server-side search and page open are the run's search and read, read from the response
    by citetrace's provider rows; the one URL no search returned is the uncited one (sources the model
    consulted count as read, so only it is also unfetched)."""
    run = _one_run(tmp_path, web, "hosted")
    assert (run["agent"], run["answer"]) == ("researcher", web.answer())
    assert figures(run) == {**EXPECTED, "searches": 1, "reads": 1, "empty_searches": 0, "failed_reads": 0,
                            "rate_limited": 0, "cited_not_fetched": 1}


def test_agent_as_tool_joins_the_outer_run(tmp_path: Path, web: ResearchWeb) -> None:
    """A sub-agent called through ``as_tool`` runs inside the editor's run: one run, the editor's name and
    question, every tool call of the sub-agent in its summary."""
    run = _one_run(tmp_path, web, "nested")
    assert (run["agent"], run["question"]) == ("editor", "Write a cited note on OpenTelemetry")
    assert run["answer"] == web.answer()
    assert figures(run) == EXPECTED


def test_concurrent_runs_are_separate(tmp_path: Path, web: ResearchWeb) -> None:
    """Two ``Runner.run`` awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    out = run_agent(tmp_path, SCRIPT, web.base, "concurrent", web.answer(), extra_env=ENV)
    assert out.strip() == "[True, True]"
    found = runs(tmp_path)
    assert sorted((r["agent"], r["question"]) for r in found) == [("r1", "Q1"), ("r2", "Q2")]
    assert len({r["trace_id"] for r in found}) == 2
    assert all(figures(r) == EXPECTED for r in found)


def test_research_run_around_it_is_not_doubled(tmp_path: Path, web: ResearchWeb) -> None:
    """Inside the user's own ``research_run`` the SDK's run joins it: one run, the user's name and question,
    and the SDK's answer recorded on it."""
    run = _one_run(tmp_path, web, "user_run")
    assert (run["agent"], run["question"], run["answer"]) == ("mine", "my question", web.answer())
    assert figures(run) == EXPECTED
