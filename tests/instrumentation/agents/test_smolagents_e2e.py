"""smolagents end to end: a real agent with its own web tools over a fake network, configured by
environment variables only, is one run per invocation with the right summary and stored answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from .._net import LocalServer

from ._e2e import figures, run_agent

ANSWER = "Solar grew fast [1](https://lite.example/0), says [2](https://never.example/z)."
# 2 searches (one empty), 3 reads (a 404 and a 429), 2 citations: never.example was neither returned nor read
EXPECTED = {"searches": 2, "reads": 3, "empty_searches": 1, "failed_reads": 2, "rate_limited": 1, "citations": 2,
            "uncited_from_retrieval": 1, "cited_not_fetched": 1}


@pytest.mark.parametrize("mode", ["tool", "stream", "code", "managed"])
def test_one_run_per_invocation(tmp_path: Path, web: LocalServer, mode: str) -> None:
    """ToolCallingAgent (run and the stream=True generator), CodeAgent (tools in its executor's thread) and a
    managed agent (joins its manager's run): exactly one run, its figures, its stored answer."""
    printed, runs = run_agent(tmp_path, "smolagents_agent.py", web.base, mode)
    assert printed["answer"] == ANSWER
    assert len(runs) == 1, runs
    (run,) = runs
    assert run["answer"] == ANSWER
    assert run["agent"] == ("boss" if mode == "managed" else "CodeAgent" if mode == "code" else "ToolCallingAgent")
    assert figures(run) == EXPECTED
