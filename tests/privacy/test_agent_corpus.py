"""The agent-shaped secret corpus (``agent_corpus.py``) as a test: 0 leaks in every sink and no lost span, with
content capture off and on."""

from __future__ import annotations

from typing import Any

import pytest

from .agent_corpus import CASES, SINKS, run_corpus

pytestmark = pytest.mark.slow


def test_the_corpus_has_the_documented_size() -> None:
    """50 cases (the count docs/privacy.md reports), each with its own secret."""
    assert len(CASES) == 50
    assert len({c.secret for c in CASES}) == len(CASES)


@pytest.fixture(scope="module", params=[False, True], ids=["capture-off", "capture-on"])
def outcome(request: Any) -> dict[str, dict[str, bool]]:
    """Every case run once per capture mode (one store, one `ui`, one `serve`: about 15 s)."""
    return run_corpus(CASES, capture_content=request.param)


@pytest.mark.parametrize("sink", SINKS)
def test_no_case_leaks_into_the_sink(outcome: dict[str, dict[str, bool]], sink: str) -> None:
    """No case's secret appears in the sink (and no run lost a tool span)."""
    assert len(outcome) == len(CASES)
    assert [case for case, leaked in outcome.items() if leaked[sink]] == []
