"""Threads end to end: an agent whose tool fans its reads out through ThreadPoolExecutor.submit, .map or
loop.run_in_executor is one run, one trace, with every read in its summary (env vars only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .._net import LocalServer
from ._e2e import figures, run_agent
from .test_smolagents_e2e import ANSWER, EXPECTED


@pytest.mark.parametrize("mode", ["submit", "map", "run_in_executor"])
def test_reads_in_worker_threads_stay_in_the_run(tmp_path: Path, web: LocalServer, mode: str) -> None:
    """The three reads made in worker threads are counted in the run's summary (404, 429 included)."""
    printed, runs = run_agent(tmp_path, "smolagents_agent.py", web.base, mode)
    assert printed["answer"] == ANSWER
    (run,) = runs
    assert run["answer"] == ANSWER
    assert figures(run) == EXPECTED
