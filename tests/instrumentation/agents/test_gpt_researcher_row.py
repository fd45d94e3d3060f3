"""The gpt-researcher rows, run by the real Patcher on a stand-in ``gpt_researcher.agent`` module with the
library's method signatures (the library itself cannot be installed here: see docs/frameworks.md)."""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, Iterator

import pytest

from citetrace.instrumentation._agents import _gpt_researcher
from citetrace.instrumentation._patcher import Patcher
from citetrace.instrumentation.package import SUPPORTED
from citetrace.testing import Captured, capture_spans

REPORT = "# Solar\n\nGrowth was fast [1].\n\n## References\n\n[1]: https://iea.example/solar"


class GPTResearcher:
    """Stand-in with gpt-researcher 0.15's interface: the query on the instance, two async calls."""

    def __init__(self, query: str, search: Callable[[], None] | None = None) -> None:
        self.query = query
        self.search = search
        self.context: list[str] = []

    async def conduct_research(self, on_progress: Any = None) -> list[str]:
        if self.search is not None:
            self.search()
        self.context = ["ctx"]
        return self.context

    async def write_report(self, existing_headers: list[Any] = [], relevant_written_contents: list[Any] = [],  # noqa: B006
                           ext_context: Any = None, custom_prompt: str = "") -> str:
        return REPORT


@pytest.fixture
def patched() -> Iterator[Patcher]:
    """The rows applied to the stand-in module by the instrumentor's Patcher, removed after."""
    module = types.ModuleType("gpt_researcher.agent")
    module.GPTResearcher = GPTResearcher  # type: ignore[attr-defined]
    sys.modules["gpt_researcher.agent"] = module
    originals = (vars(GPTResearcher)["conduct_research"], vars(GPTResearcher)["write_report"])
    patcher = Patcher(SUPPORTED)
    patcher.start(_gpt_researcher.ROWS, check_versions=False)
    try:
        yield patcher
    finally:
        patcher.stop()
        del sys.modules["gpt_researcher.agent"]
        assert (vars(GPTResearcher)["conduct_research"], vars(GPTResearcher)["write_report"]) == originals


@pytest.fixture
def cap() -> Iterator[Captured]:
    """Spans in memory, runs in a memory store."""
    with capture_spans() as captured:
        yield captured


async def test_research_then_report_is_one_run(patched: Patcher, cap: Captured) -> None:
    """conduct_research + write_report on one researcher: one run, question = query, answer = the report."""
    researcher = GPTResearcher("How fast is solar growing?")
    assert await researcher.conduct_research() == ["ctx"]
    assert await researcher.write_report() == REPORT
    (run,) = cap.store.runs()
    assert (run.agent, run.question, run.answer) == ("gpt-researcher", "How fast is solar growing?", REPORT)
    (root,) = cap.run_spans()
    assert list((root.attributes or {})["citetrace.citations"]) == ["https://iea.example/solar"]


async def test_two_researchers_are_two_runs(patched: Patcher, cap: Captured) -> None:
    """Each instance keeps its own run, even interleaved."""
    a, b = GPTResearcher("a"), GPTResearcher("b")
    await a.conduct_research()
    await b.conduct_research()
    await b.write_report()
    await a.write_report()
    assert sorted(r.question or "" for r in cap.store.runs()) == ["a", "b"]
    assert all(r.answer == REPORT for r in cap.store.runs())
