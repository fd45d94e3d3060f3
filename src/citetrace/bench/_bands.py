"""Bands learnt from a bench's repeats, the gate against them, and the comparison of two benches.

A metric's band is mean ± (k·std + tolerance) over the baseline bench's repeats, per question. A bench
is clearly outside when its mean for that question leaves the band. ``compare`` also flags a *different
failure profile*: within one question, one metric clearly up while another is clearly down (coverage up
and support down, say), which an average over metrics would hide.
"""

from __future__ import annotations

from typing import Any, Mapping

from citetrace.bench._runner import METRICS
from citetrace.bench._stats import band

__all__ = ["baseline_from_bench", "gate_bench", "compare_benches", "BandError", "BAD_DIRECTION", "UNGATED"]

BAD_DIRECTION: dict[str, int] = {
    "passed": -1, "citation_coverage": -1, "support_rate": -1,
    "dead_or_unfetched_rate": 1, "empty_searches": 1, "failed_reads": 1, "rate_limited": 1,
    "uncited_from_retrieval": 1, "cited_not_fetched": 1,
    "searches": 0, "reads": 0, "citations": 0,
}
"""Which way a figure's move fails the gate: -1 falling, +1 rising, 0 either (what the agent does changed).
Decision: as ``citetrace gate`` treats eval's rates, a bench that got better is not a regression."""

UNGATED = ("total_ms",)
"""Reported and compared, never gated: wall-clock time depends on the machine and on replay (a replayed
bench makes no HTTP call), so the documented CI workflow (replay in CI, gate on a recorded baseline) would
fail every question on it."""


class BandError(ValueError):
    """A bench or baseline that does not fit (another kind of file, other questions); the message says why."""


def _questions(bench: Mapping[str, Any], what: str) -> dict[str, Mapping[str, Any]]:
    items = bench.get("questions") if isinstance(bench, Mapping) else None
    if not isinstance(items, list) or not all(isinstance(q, Mapping) and "spread" in q for q in items):
        raise BandError(f"{what} is not a `citetrace bench --json` result")
    return {str(q["id"]): q for q in items}


def baseline_from_bench(bench: Mapping[str, Any], *, k: float = 3.0, tolerance: float = 0.02) -> dict[str, Any]:
    """Per question and metric: the mean, the spread and the band."""
    out: dict[str, Any] = {}
    for qid, q in _questions(bench, "the bench").items():
        out[qid] = {}
        for metric in METRICS:
            s = q["spread"].get(metric) or {}
            if s.get("n"):
                low, high = band(float(s["mean"]), float(s["std"]), k=k, tolerance=tolerance)
                out[qid][metric] = {"mean": s["mean"], "std": s["std"], "n": s["n"], "low": low, "high": high}
    return {"made_from": "bench", "agent": bench.get("agent"), "repeat": bench.get("repeat"), "k": k,
            "tolerance": tolerance, "questions": out}


def gate_bench(bench: Mapping[str, Any], baseline: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(rule, message) for every failure: a known answer missed, or a metric clearly outside its band."""
    if baseline.get("made_from") != "bench":
        raise BandError("the baseline was not made from a bench (use `citetrace baseline --from-bench`)")
    questions = _questions(bench, "the bench")
    failures: list[tuple[str, str]] = []
    for qid, q in questions.items():
        raised = [r["error"] for r in q.get("repeats") or () if isinstance(r, Mapping) and r.get("error")]
        if raised:  # the agent's exception failed the question, known answer or not: say that, not "missed"
            failures.append(("agent_error", f"question {qid}: the agent raised in {len(raised)} of "
                                            f"{len(q.get('repeats') or ())} repeats ({raised[0]})"))
        elif q.get("passed") is False:
            failures.append(("known_answer", f"question {qid}: the report missed the known answer ({q.get('answer')})"))
        for metric, b in (baseline["questions"].get(qid) or {}).items():
            mean = (q["spread"].get(metric) or {}).get("mean")
            if mean is not None and metric not in UNGATED and _bad_move(metric, mean, b["low"], b["high"]):
                failures.append(("outside_band", f"question {qid}: {metric} {mean:.3g} is outside "
                                                 f"[{b['low']:.3g}, {b['high']:.3g}]"))
    missing = sorted(set(baseline["questions"]) - set(questions))
    if missing:
        failures.append(("missing_question", f"the bench has no result for {', '.join(missing)}"))
    return failures


def _bad_move(metric: str, mean: float, low: float, high: float) -> bool:
    """Whether ``mean`` left the band on the side that fails ``metric`` (both sides for an unknown figure)."""
    direction = BAD_DIRECTION.get(metric, 0)
    return (direction <= 0 and mean < low) or (direction >= 0 and mean > high)


def compare_benches(a: Mapping[str, Any], b: Mapping[str, Any], *, k: float = 3.0,
                    tolerance: float = 0.02) -> dict[str, Any]:
    """Per question and metric: A's mean, B's, the delta, whether it is clearly outside A's band; and the
    questions whose failure profile changed (one metric clearly up, another clearly down)."""
    qa, qb = _questions(a, "A"), _questions(b, "B")
    rows: list[dict[str, Any]] = []
    profiles: list[dict[str, Any]] = []
    for qid in [q for q in qa if q in qb]:
        up: list[str] = []
        down: list[str] = []
        for metric in METRICS:
            sa, sb = qa[qid]["spread"].get(metric) or {}, qb[qid]["spread"].get(metric) or {}
            if sa.get("mean") is None or sb.get("mean") is None:
                continue
            low, high = band(float(sa["mean"]), float(sa["std"]), k=k, tolerance=tolerance)
            delta = float(sb["mean"]) - float(sa["mean"])
            outside = not low <= float(sb["mean"]) <= high
            rows.append({"question": qid, "metric": metric, "a": sa["mean"], "b": sb["mean"], "delta": delta,
                         "band": [low, high], "outside": outside})
            if outside:
                (up if delta > 0 else down).append(metric)
        if up and down:
            profiles.append({"question": qid, "up": up, "down": down})
    return {"rows": rows, "different_profile": profiles,
            "only_in_a": sorted(set(qa) - set(qb)), "only_in_b": sorted(set(qb) - set(qa))}
