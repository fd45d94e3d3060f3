"""The secret corpus as a test: 0 leaks in every sink, with content capture off and on, and the gate matches a
cited URL that carries a secret with the redacted one the store holds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citetrace.store import RunRecord, SQLiteStore

from .corpus import CASES, PATH_CASES, SINKS, Case, _cli, run_corpus


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


def test_a_store_written_before_redaction_is_redacted_on_display(tmp_path: Path) -> None:
    """A run whose stored answer and question still hold a raw secret URL (an older store) is shown by
    `citetrace show`, `show --json` and the `view` page without the secret."""
    store = SQLiteStore(tmp_path / "old.db")
    raw = "https://api.example.com/doc?id=7&token=t-old-4242"
    store.put_run(RunRecord("old-run", "0" * 32, "agent", f"read {raw}", time.time()))
    store.finish_run("old-run", ended_at=time.time(), answer=f"Prices fell [1].\n\n[1] {raw}\n", error_type=None)
    store.close()
    uri = f"sqlite:///{tmp_path / 'old.db'}"
    outputs = [_cli(argv)[1] for argv in (["show", "old-run", "--store", uri], ["show", "old-run", "--store", uri,
                                          "--json"], ["view", "old-run", "--store", uri, "-o", "-"])]
    assert all("old-run" in out for out in outputs)
    assert all("t-old-4242" not in out for out in outputs)
