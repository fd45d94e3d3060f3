"""What the run page decides, checked without a browser: sequential reads, citation paths, quote cuts."""

from __future__ import annotations

from citetrace.store import MemoryStore, RunRecord, ToolCallRecord
from citetrace.view import build_run_view
from citetrace.view._model import _cut

T0 = 1_700_000_000.0


def _store(calls: list[ToolCallRecord], answer: str = "") -> tuple[MemoryStore, RunRecord]:
    store = MemoryStore()
    run = RunRecord("r1", "00" * 16, "agent", "q", T0, T0 + 60, answer)
    store.put_run(run)
    store.put_calls(calls)
    return store, run


def _fetch(seq: int, start_s: float, dur_ms: float, url: str, status: str = "ok") -> ToolCallRecord:
    return ToolCallRecord("r1", seq, "read", "fetch", status, T0 + start_s, dur_ms, url=url)


def test_back_to_back_slow_reads_are_one_sequential_stretch() -> None:
    """Three 2 s reads each starting after the last ended are flagged, with the time concurrency would save."""
    store, run = _store([_fetch(i, i * 2.0, 1900, f"https://a.example/{i}") for i in range(3)])
    view = build_run_view(store, run)
    assert [s.seqs for s in view.serial] == [(0, 1, 2)]
    assert view.serial[0].total_ms == 5700 and view.serial[0].longest_ms == 1900
    assert all(c.serial for c in view.calls)


def test_overlapping_or_quick_reads_are_not_flagged() -> None:
    """Reads that overlap, or back-to-back reads too quick to matter, are not a sequential stretch."""
    overlapping = [_fetch(i, i * 0.5, 1900, f"https://a.example/{i}") for i in range(4)]
    quick = [_fetch(i, i * 0.01, 5, f"https://b.example/{i}") for i in range(5)]
    for calls in (overlapping, quick):
        store, run = _store(calls)
        assert build_run_view(store, run).serial == ()


def test_citation_paths_fabricated_unfetched_and_uncited_fetches() -> None:
    """A cited URL no search returned is fabricated; one whose read failed is unfetched; a read page never
    cited is listed apart; URLs match through the canonical key (case, trailing slash, tracking)."""
    calls = [
        ToolCallRecord("r1", 0, "search", "search", "ok", T0, 10, urls_returned=("https://A.example/x/", "https://b.example/y")),
        _fetch(1, 1, 10, "https://a.example/x?utm_source=feed"),
        _fetch(2, 2, 10, "https://b.example/y", status="error"),
        _fetch(3, 3, 10, "https://c.example/never-cited"),
    ]
    answer = "One [1]. Two [2]. Three [3].\n\n[1] https://a.example/x\n[2] https://b.example/y\n[3] https://made.up/z"
    store, run = _store(calls, answer)
    view = build_run_view(store, run)
    got = {c.url: (c.fabricated, c.unfetched, c.fetch_status) for c in view.citations}
    assert got == {"https://a.example/x": (False, False, "ok"), "https://b.example/y": (False, True, "error"),
                   "https://made.up/z": (True, True, None)}
    assert view.fetched_not_cited == ("https://c.example/never-cited",)


def test_quote_is_cut_out_of_its_passage() -> None:
    """The judge's quote is found in the passage (case-insensitively) and split out; a missing quote is not."""
    text = "Intro. The Plant Employs 2,100 people. Outro."
    assert _cut(text, 7, 38, "the plant employs") == ("", "The Plant Employs", " 2,100 people.")
    assert _cut(text, 7, 38, "absent words") == ("The Plant Employs 2,100 people.", "", "")


def test_waterfall_positions_stay_inside_the_track() -> None:
    """Bars start within 0-100 % and never run past the end, even for a call that ends after the run."""
    calls = [_fetch(0, 0, 1000, "https://a.example/"), _fetch(1, 59.5, 5000, "https://b.example/")]
    store, run = _store(calls)
    for c in build_run_view(store, run).calls:
        assert 0 <= c.left_pct <= 100 and c.left_pct + c.width_pct <= 100.0001
