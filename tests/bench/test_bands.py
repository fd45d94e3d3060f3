"""The bench gate's bands: which way each figure may move, and the figures it never gates."""

from __future__ import annotations

from typing import Any

from citetrace.bench._bands import baseline_from_bench, gate_bench
from citetrace.bench._runner import METRICS


def _bench(**means: float) -> dict[str, Any]:
    """A one-question bench whose repeats all gave these figures (spread zero); the rest are 1.0."""
    spread = {m: {"mean": float(means.get(m, 1.0)), "std": 0.0, "min": 0.0, "max": 0.0, "n": 3} for m in METRICS}
    return {"agent": "a:b", "repeat": 3, "questions": [{"id": "q", "passed": True, "spread": spread}]}


BASE = baseline_from_bench(_bench(total_ms=1500.0, citation_coverage=0.5, support_rate=0.5,
                                  dead_or_unfetched_rate=0.5, failed_reads=1.0, searches=2.0))


def _rules(bench: dict[str, Any]) -> list[str]:
    return [msg.split(": ")[1].split(" ")[0] for _rule, msg in gate_bench(bench, BASE)]


def test_a_faster_run_is_not_a_failure_and_time_is_never_gated() -> None:
    """A bench replayed from its recording (the documented CI workflow) takes a fraction of the live time.
    Before, total_ms left its band (mean ± 3·0 + 0.02 ms) and failed every question; wall-clock time depends on
    the machine and on replay, so it is compared (``citetrace compare``), never gated."""
    assert _rules(_bench(total_ms=1500.0, citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5,
                         searches=2.0)) == []
    assert _rules(_bench(total_ms=3.0, citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5,
                         searches=2.0)) == []
    assert _rules(_bench(total_ms=90_000.0, citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5,
                         searches=2.0)) == []


def test_each_figure_fails_only_in_its_bad_direction() -> None:
    """Coverage and support may rise, dead/unfetched and failure counts may fall; what the agent does
    (searches, reads, citations) fails either way, as a changed behaviour."""
    better = _bench(total_ms=1500.0, citation_coverage=1.0, support_rate=1.0, dead_or_unfetched_rate=0.0,
                    failed_reads=0.0, empty_searches=0.0, rate_limited=0.0, uncited_from_retrieval=0.0,
                    cited_not_fetched=0.0, searches=2.0)
    assert _rules(better) == []
    worse = _bench(total_ms=1500.0, citation_coverage=0.2, support_rate=0.2, dead_or_unfetched_rate=0.9,
                   failed_reads=3.0, searches=2.0)
    assert _rules(worse) == ["citation_coverage", "support_rate", "dead_or_unfetched_rate", "failed_reads"]
    fewer = _bench(citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5, searches=0.0)
    more = _bench(citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5, searches=6.0)
    assert _rules(fewer) == ["searches"] and _rules(more) == ["searches"]


def test_a_question_whose_agent_raised_fails_naming_the_error_not_a_missed_answer() -> None:
    """A repeat whose agent raised fails the question. The gate said "the report missed the known answer (None)"
    for a question with no known answer; it now names the error and how many repeats raised."""
    bench = _bench(citation_coverage=0.5, support_rate=0.5, dead_or_unfetched_rate=0.5, searches=2.0)
    q = bench["questions"][0]
    q.update(passed=False, answer=None, repeats=[{"error": "RuntimeError: boom"}, {"error": None},
                                                   {"error": "RuntimeError: boom"}])
    assert gate_bench(bench, BASE) == [("agent_error", "question q: the agent raised in 2 of 3 repeats "
                                                       "(RuntimeError: boom)")]
    q.update(answer="contains '860 MW'", repeats=[{"error": None}] * 3)
    assert gate_bench(bench, BASE) == [("known_answer", "question q: the report missed the known answer "
                                                        "(contains '860 MW')")]
