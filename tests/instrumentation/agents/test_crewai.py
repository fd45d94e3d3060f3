"""CrewAI end to end: ``Crew.kickoff``/``akickoff``/``kickoff_async`` become one run each, with a scripted
``BaseLLM`` and crewai-tools' own ``SerperDevTool`` and ``ScrapeWebsiteTool`` over a fake network.

CrewAI cannot be installed next to the other frameworks (docs/frameworks.md), so the agent runs in the
CrewAI venv that ``scripts/setup`` builds (``.venv-crewai``; ``CREWAI_PYTHON`` points elsewhere). A missing
venv fails the test: it is a missing set-up step, not a reason to skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from .._sidevenv import side_python
from ._research import EXPECTED, ResearchWeb, figures, one_run, run_agent, runs, two_concurrent_runs

SCRIPT = "crewai_agent.py"
PYTHON = side_python("crewai")
ENV = {"SERPER_API_KEY": "k", "CREWAI_TOOLS_ALLOW_UNSAFE_PATHS": "true",  # the pages are on 127.0.0.1
       "CREWAI_DISABLE_TELEMETRY": "true", "CREWAI_DISABLE_TRACKING": "true"}  # no network for CrewAI's own


@pytest.fixture
def web(research_web: ResearchWeb) -> ResearchWeb:
    """The fake Serper API and pages, with an empty request log; the CrewAI venv must exist."""
    assert Path(PYTHON).exists(), f"no CrewAI venv at {PYTHON}: run scripts/setup"
    research_web.requests.clear()
    return research_web


def _served(web: ResearchWeb) -> dict[str, int]:
    """What the crew really did, from the server's own log: CrewAI retries a failing tool call, and each
    attempt is a real request, so the searches and rate limits are counted where they were answered."""
    searches = [status for method, path, status in web.requests if path.startswith("/serper/")]
    reads = [status for method, path, status in web.requests if method == "GET"]
    return {"searches": len(searches), "rate_limited": searches.count(429) + reads.count(429),
            "reads": len(reads), "failed_reads": sum(s != 200 for s in reads)}


def _one_run(tmp_path: Path, web: ResearchWeb, mode: str) -> dict[str, Any]:
    return one_run(tmp_path, web, SCRIPT, mode, extra_env=ENV, python=PYTHON)


@pytest.mark.parametrize("mode", ["kickoff", "akickoff", "kickoff_async", "stream"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, web: ResearchWeb, mode: str) -> None:
    """``kickoff``, ``akickoff``, ``kickoff_async`` and a streaming crew's ``kickoff`` (drained) each give
    exactly one run named after the crew, with
    the topic as question, ``CrewOutput.raw`` as the answer, and the summary of what the tools really did."""
    run = _one_run(tmp_path, web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("research crew", "What is OpenTelemetry?",
                                                              web.answer().strip())
    served = _served(web)
    assert served["searches"] > EXPECTED["searches"]  # the throttled search was retried: each try counts
    assert figures(run) == {**EXPECTED, **served}
    assert run["error_type"] is None and run["ended_at"] is not None


def test_native_parallel_tool_calls_land_in_the_run(tmp_path: Path, web: ResearchWeb) -> None:
    """With function calling (two tool calls per model turn, which CrewAI runs in parallel worker threads)
    every call is in the one run: the figures are exactly those of the session, as the server saw it."""
    run = _one_run(tmp_path, web, "native")
    assert run["answer"] == web.answer().strip()
    assert figures(run) == EXPECTED == {**EXPECTED, **_served(web)}


def test_concurrent_crews_are_separate(tmp_path: Path, web: ResearchWeb) -> None:
    """Two crews awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    found = two_concurrent_runs(tmp_path, web, SCRIPT, [("c1", "Q1"), ("c2", "Q2")], extra_env=ENV, python=PYTHON)
    both = {k: sum(figures(r)[k] for r in found) for k in ("searches", "reads", "rate_limited", "failed_reads")}
    assert both == _served(web)
    assert all(figures(r)["citations"] == 3 and figures(r)["empty_searches"] == 1 for r in found)


def test_kickoff_for_each_is_one_run_per_input(tmp_path: Path, web: ResearchWeb) -> None:
    """``kickoff_for_each`` over two inputs is two runs, one per input, each with its topic as question."""
    out = run_agent(tmp_path, SCRIPT, web.base, "for_each", web.answer(), extra_env=ENV, python=PYTHON)
    assert out.strip() == "[True, True]"
    found = runs(tmp_path)
    assert sorted((r["agent"], r["question"]) for r in found) == [("research crew", "Q1"), ("research crew", "Q2")]
    assert all(r["answer"] == web.answer().strip() and figures(r)["citations"] == 3 for r in found)
