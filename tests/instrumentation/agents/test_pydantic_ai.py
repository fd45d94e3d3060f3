"""PydanticAI end to end: ``Agent.run``/``run_sync``/``iter``/``run_stream``/``run_stream_events`` become one
run each, with a scripted
``FunctionModel`` and PydanticAI's own ``tavily_search`` and ``web_fetch`` tools over a fake network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ._research import EXPECTED, ResearchWeb, figures, one_run, run_agent, runs, show, two_concurrent_runs

SCRIPT = "pydantic_ai_agent.py"
# the session: search (2 results), search "nothing" (empty), web_fetch page/a (ok), /gone/x (404), /slow/x (429)
PYDANTIC_EXPECTED = {**EXPECTED, "searches": 2, "reads": 3, "failed_reads": 2}




def _one_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> dict[str, Any]:
    return one_run(tmp_path, research_web, SCRIPT, mode)


@pytest.mark.parametrize("mode", ["run", "sync", "iter", "run_stream", "stream_events", "instrumented"])
def test_each_entry_point_is_one_summarized_run(tmp_path: Path, research_web: ResearchWeb, mode: str) -> None:
    """``Agent.run``, ``run_sync``, ``async with agent.iter()``, ``run_stream`` and ``run_stream_events`` each
    give exactly one run named after the agent (also with PydanticAI's own OpenTelemetry instrumentation on), with the question, the summary of what the built-in tools really did, and the output as answer."""
    run = _one_run(tmp_path, research_web, mode)
    assert (run["agent"], run["question"], run["answer"]) == ("researcher", "What is OpenTelemetry?", research_web.answer())
    assert figures(run) == PYDANTIC_EXPECTED
    assert run["error_type"] is None and run["ended_at"] is not None


def test_web_fetch_tool_reads_are_stored(tmp_path: Path, research_web: ResearchWeb) -> None:
    """The built-in ``web_fetch`` tool's calls are fetch calls of the run: the read page is stored, and the
    404 and the 429 are an error and a rate limit."""
    run = _one_run(tmp_path, research_web, "run")
    shown = show(tmp_path, run["run_id"])
    fetches = [(c["tool"], c["url"], c["status"]) for c in shown["calls"] if c["kind"] == "fetch"]
    assert fetches == [("pydantic_ai.web_fetch", f"{research_web.base}/page/a", "ok"),
                       ("pydantic_ai.web_fetch", f"{research_web.base}/gone/x", "error"),
                       ("pydantic_ai.web_fetch", f"{research_web.base}/slow/x", "rate_limited")]
    assert [d["url"] for d in shown["documents"] if d["status"] == "ok"] == [f"{research_web.base}/page/a"]


def test_failed_run_is_marked(tmp_path: Path, research_web: ResearchWeb) -> None:
    """A run stopped by its usage limit raises to the caller as before; the run ends with that error type,
    no answer, and the searches made before it stopped."""
    out = run_agent(tmp_path, SCRIPT, research_web.base, "usage_limit", research_web.answer())
    assert out.strip() == "UsageLimitExceeded"
    (run,) = runs(tmp_path)
    assert (run["error_type"], run["answer"], run["summary"]["searches"]) == ("UsageLimitExceeded", None, 2)


def test_delegated_agent_joins_the_outer_run(tmp_path: Path, research_web: ResearchWeb) -> None:
    """An agent run from another agent's tool (agent delegation) is part of the editor's run: one run, the
    editor's name and question, every tool call of the researcher in its summary."""
    run = _one_run(tmp_path, research_web, "nested")
    assert (run["agent"], run["question"], run["answer"]) == ("editor", "Write a cited note on OpenTelemetry",
                                                              research_web.answer())
    assert figures(run) == PYDANTIC_EXPECTED


def test_concurrent_runs_are_separate(tmp_path: Path, research_web: ResearchWeb) -> None:
    """Two ``Agent.run`` awaited together with ``asyncio.gather`` are two runs, each with its own calls."""
    found = two_concurrent_runs(tmp_path, research_web, SCRIPT, [("r1", "Q1"), ("r2", "Q2")])
    assert all(figures(r) == PYDANTIC_EXPECTED for r in found)
