"""The secret corpus as a test: 0 leaks in every sink, with content capture off and on, and the gate matches a
cited URL that carries a secret with the redacted one the store holds."""

from __future__ import annotations

import pytest

from .corpus import CASES, PATH_CASES, SINKS, Case, run_corpus


def test_the_corpus_has_the_documented_size() -> None:
    """56 cases (the count docs/privacy.md reports), each with its own secret."""
    assert len(CASES) == 56
    assert len({c.secret for c in CASES}) == len(CASES)


@pytest.mark.parametrize("capture_content", [False, True], ids=["capture-off", "capture-on"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_no_sink_holds_the_secret(case: Case, capture_content: bool) -> None:
    """The secret appears in no span attribute, span event, store row, eval, gate or show output."""
    (outcome,) = run_corpus((case,), capture_content=capture_content)
    assert [sink for sink in SINKS if outcome.leaked[sink]] == []
    assert outcome.gate_right and outcome.gate_right_raw_report, "the gate called a fetched citation unfetched"


def test_path_segments_are_kept_as_documented() -> None:
    """Path segments are not redacted (a path names a page): these cases stay visible, listed apart in the docs."""
    for outcome in run_corpus(PATH_CASES, capture_content=False):
        assert outcome.leaked["span attributes"] and outcome.leaked["store, answer aside"], outcome.case.id
        assert outcome.gate_right, outcome.case.id
