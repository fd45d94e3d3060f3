"""Threads end to end: an agent whose tool fans its reads out through ThreadPoolExecutor.submit, .map or
loop.run_in_executor is one run, one trace, with every read in its summary (env vars only)."""

from __future__ import annotations

from typing import Any

import pytest

from .._net import LocalServer
from ._e2e import figures, run_agent, serve_web
from .test_smolagents_e2e import ANSWER, EXPECTED


MODES = ("submit", "map", "run_in_executor")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One agent process making one invocation per executor (one process start for the module)."""
    srv = serve_web(LocalServer())
    try:
        return run_agent(tmp_path_factory.mktemp("threads"), "smolagents_agent.py", srv.base, ",".join(MODES))
    finally:
        srv.close()


@pytest.mark.parametrize("mode", MODES)
def test_reads_in_worker_threads_stay_in_the_run(runs: tuple[dict[str, Any], list[dict[str, Any]]],
                                                 mode: str) -> None:
    """The three reads made in worker threads are counted in the run's summary (404, 429 included): one run
    per invocation, one trace."""
    printed, listed = runs
    assert len(listed) == len(MODES)
    assert printed["answers"][mode] == ANSWER
    (run,) = [r for r in listed if r["agent"] == f"{mode}_agent"]
    assert run["answer"] == ANSWER
    assert figures(run) == EXPECTED
