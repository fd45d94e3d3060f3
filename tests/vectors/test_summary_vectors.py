"""The shared summary vectors: committed, current, and equal through serve's path and the embedded processor.

The same files are run by ``go test`` in collector/citetracesummary (tests/test_go_component.py runs it), so a
difference between the Python summary and the Go connector fails both suites.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citetrace import _gonames

from vectors import generate_summary
from vectors._runner import all_vectors, by_run, hot_only, load, run_embedded, run_serve

REPO = Path(__file__).resolve().parents[2]
VECTORS = all_vectors()
REQUIRED = {
    "healthy_run", "failures", "uncited_and_unfetched", "secrets_in_urls", "canonical_forms", "too_many_searches",
    "agent_error", "multiple_roots", "foreign_root", "wrong_attribute_types", "huge_url_lists", "spans_per_trace",
    "sampling_decision", "batches_duplicates_late", "capacity_eviction", "held_bytes", "provider_search",
    "label_caps", "edge_spans", "nested_runs", "ledger_iterations", "retried_queries",
    "redirected_fetch", "split_runs", "out_of_order", "unreadable_reads",
}


def test_vectors_cover_the_edge_cases() -> None:
    """Every edge case the connector must match has a committed vector (and nothing else is committed)."""
    assert {p.stem for p in VECTORS} == REQUIRED == set(generate_summary.CASES)


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_committed_vector_is_current(name: str) -> None:
    """Regenerating a vector from the Python summary gives the committed file byte for byte."""
    path = generate_summary.VECTORS / f"{name}.json"
    assert path.read_text() == generate_summary.render(generate_summary.build(name)), (
        f"{path} is stale: run PYTHONPATH=src:tests python tests/vectors/generate_summary.py")


def test_url_vector_is_current() -> None:
    """The URL-key vector equals url_key/redact_url/canonical_url today (the Go suite checks the same file)."""
    data = generate_summary.url_vector()
    assert len(data["cases"]) > 1000
    assert generate_summary.URL_VECTOR.read_text() == generate_summary.render_urls(data)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_serve_path(path: Path) -> None:
    """serve's decoder + assembler + metrics give the vector's summaries, metric samples and refused spans."""
    case = load(path)
    got = run_serve(case)
    assert got["summaries"] == case["expected"]["summaries"]
    assert got["metrics"] == case["expected"]["metrics"]
    assert got["refused"] == case["expected"]["refused"]


@pytest.mark.parametrize("path", [p for p in VECTORS if load(p)["embedded"]], ids=lambda p: p.stem)
def test_embedded_processor(path: Path) -> None:
    """The in-process TraceSummaryProcessor, fed the vector's spans as they end, gives the same summaries and
    summary metrics (vectors marked ``embedded: false`` exercise serve-only bounds or foreign roots)."""
    case = load(path)
    got = run_embedded(case)
    assert by_run(got["summaries"]) == by_run(case["expected"]["summaries"])
    assert got["metrics"] == hot_only(case["expected"]["metrics"])


def test_every_vector_has_results() -> None:
    """No vector is vacuous: each finalises at least one run or refuses a span."""
    for path in VECTORS:
        expected: dict[str, Any] = load(path)["expected"]
        assert expected["summaries"] or any(expected["refused"].values()), path.stem


def test_go_names_are_generated_from_names_py() -> None:
    """The Go connector's constants file is exactly what ``python -m citetrace._gonames`` writes."""
    committed = (REPO / _gonames.GO_FILE).read_text()
    assert committed == _gonames.generate(), "regenerate: python -m citetrace._gonames > " + _gonames.GO_FILE
