"""Finding a run by run id, trace id or a unique prefix of either, in both store backends."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from _pgserver import BACKENDS, make_store

from citetrace.store import AmbiguousRunId, MemoryStore, RunRecord, SQLiteStore, Store


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A store of each backend with three runs: two sharing a run-id prefix, one filed under its trace id."""
    s = make_store(request.param, tmp_path, request)
    s.put_run(RunRecord("20260101-aaaa", "1" * 32, "scout", None, 1.0))
    s.put_run(RunRecord("20260101-aaab", "2" * 32, "scout", None, 2.0))
    s.put_run(RunRecord("ab" * 16, "ab" * 16, "ToolCallingAgent", None, 3.0))  # a foreign root's run
    yield s
    s.close()


def _id(store: Store, ref: str) -> str | None:
    run = store.get_run(ref)
    return run.run_id if run is not None else None


def test_by_id_trace_id_and_unique_prefixes(store: Store) -> None:
    """Exact run id, exact trace id, a unique run-id prefix and a unique trace-id prefix all find the run."""
    assert _id(store, "20260101-aaab") == "20260101-aaab"
    assert _id(store, "2" * 32) == "20260101-aaab"
    assert _id(store, "20260101-aaaa") == "20260101-aaaa"
    assert _id(store, "1111") == "20260101-aaaa"
    assert _id(store, "abab") == "ab" * 16


def test_ambiguous_prefix_says_how_many(store: Store) -> None:
    """A prefix two runs share names the count."""
    with pytest.raises(AmbiguousRunId, match=r"'20260101-aa' matches 2 runs"):
        store.get_run("20260101-aa")


def test_no_match_and_wildcards_are_literal(store: Store) -> None:
    """No run matches: None; SQL wildcards in the reference match nothing by themselves."""
    assert store.get_run("zzz") is None
    assert store.get_run("2026010__aaaa") is None
