"""smolagents end to end: a real agent with its own web tools over a fake network, configured by
environment variables only, is one run per invocation with the right summary and stored answer."""

from __future__ import annotations

from typing import Any

import pytest

from .._net import LocalServer
from ._e2e import figures, run_agent, serve_web

ANSWER = "Solar grew fast [1](https://lite.example/0), says [2](https://never.example/z)."
# 2 searches (one empty), 3 reads (a 404 and a 429), 2 citations: never.example was neither returned nor read
EXPECTED = {"searches": 2, "reads": 3, "empty_searches": 1, "failed_reads": 2, "rate_limited": 1, "citations": 2,
            "uncited_from_retrieval": 1, "cited_not_fetched": 1}


MODES = ("tool", "stream", "code", "managed")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One agent process making the four invocations in turn (one process start for the module)."""
    srv = serve_web(LocalServer())
    try:
        return run_agent(tmp_path_factory.mktemp("smol"), "smolagents_agent.py", srv.base, ",".join(MODES))
    finally:
        srv.close()


def test_exactly_one_run_per_invocation(runs: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Four invocations, four runs: the managed agent's own run joined its manager's."""
    _, listed = runs
    assert sorted(r["agent"] for r in listed) == sorted(["tool_agent", "stream_agent", "code_agent", "boss"])


@pytest.mark.parametrize("mode", MODES)
def test_each_run_has_its_figures_and_answer(runs: tuple[dict[str, Any], list[dict[str, Any]]], mode: str) -> None:
    """ToolCallingAgent (run and the stream=True generator), CodeAgent (tools in its executor's thread) and a
    managed agent: the run's figures are what the tools really did, and its answer is stored."""
    printed, listed = runs
    assert printed["answers"][mode] == ANSWER
    (run,) = [r for r in listed if r["agent"] == ("boss" if mode == "managed" else f"{mode}_agent")]
    assert run["answer"] == ANSWER
    assert figures(run) == EXPECTED
