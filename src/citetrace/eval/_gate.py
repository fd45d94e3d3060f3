"""The CI gate: a hard rule on unfetched citations, and a band learned from repeated runs of the same agent.

An agent is not deterministic (search results, model sampling), so a fixed threshold on support rate either
flaps or hides regressions. ``citetrace baseline`` runs the unchanged agent N times; each rate's band is
[mean - k*sd - tol, mean + k*sd + tol] widened to cover every observed value, clipped to [0, 1]. A gate fails
only in the bad direction of a rate (coverage and support may rise freely; contradictions may fall freely).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from citetrace import names
from citetrace.eval._evaluate import RunEvaluation
from citetrace.eval._rates import RATE_NAMES

__all__ = ["build_baseline", "load_baseline", "gate", "GateResult", "DIRECTIONS"]

DIRECTIONS = {
    "citation_coverage": "higher_is_better",
    "support_rate": "higher_is_better",
    "partial_rate": "two_sided",
    "contradicted_rate": "lower_is_better",
    "dead_or_unfetched_rate": "lower_is_better",
    "judge_error_rate": "lower_is_better",
}
BASELINE_VERSION = 1


def build_baseline(evals: Sequence[RunEvaluation], *, k: float = 3.0, tolerance: float = 0.02) -> dict[str, Any]:
    """The spread of every rate over ``evals`` (runs of the unchanged agent) and the band derived from it."""
    if len(evals) < 2:
        raise ValueError(f"a baseline needs at least 2 runs to measure a spread, got {len(evals)}")
    metrics: dict[str, Any] = {}
    for name in RATE_NAMES:
        values = [v for v in (ev.rates[name].value for ev in evals) if v is not None]
        if not values:
            continue
        mean = sum(values) / len(values)
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
        low = max(0.0, min(mean - k * sd - tolerance, min(values)))
        high = min(1.0, max(mean + k * sd + tolerance, max(values)))
        metrics[name] = {"values": values, "mean": mean, "sd": sd, "min": min(values), "max": max(values),
                         "low": low, "high": high, "direction": DIRECTIONS[name]}
    return {"version": BASELINE_VERSION, "created_at": time.time(), "k": k, "tolerance": tolerance,
            "judge": evals[0].judge, "runs": [ev.run_id for ev in evals], "metrics": metrics}


def load_baseline(path: str) -> dict[str, Any]:
    """Read a baseline file; ValueError names the problem."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise ValueError(f"cannot read baseline {path!r}: {exc.strerror}") from exc
    except ValueError as exc:
        raise ValueError(f"baseline {path!r} is not JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("version") != BASELINE_VERSION or not isinstance(data.get("metrics"), dict):
        raise ValueError(f"baseline {path!r} is not a citetrace baseline (version {BASELINE_VERSION})")
    for name, band in data["metrics"].items():
        if name not in DIRECTIONS or not all(isinstance(band.get(k), (int, float)) for k in ("low", "high")):
            raise ValueError(f"baseline {path!r}: bad entry for {name!r}")
    return data


@dataclass
class GateResult:
    """Whether the run passes, and every failure as (reason, message)."""

    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def gate(ev: RunEvaluation, baseline: dict[str, Any] | None = None) -> GateResult:
    """Fail on any cited URL the run never fetched (naming it), then on any rate outside its band."""
    result = GateResult()
    for url in ev.unfetched_urls:
        result.failures.append((names.GATE_UNFETCHED, f"cited but never fetched in run {ev.run_id}: {url}"))
    if baseline is None:
        return result
    if baseline.get("judge") and baseline["judge"] != ev.judge:
        raise ValueError(f"baseline was measured with the {baseline['judge']} judge, this run with {ev.judge}; "
                         "rates from different judges are not comparable")
    for name, band in baseline["metrics"].items():
        value = ev.rates[name].value
        if value is None:
            continue
        direction = band.get("direction", DIRECTIONS[name])
        low, high = float(band["low"]), float(band["high"])
        too_low = value < low and direction in ("higher_is_better", "two_sided")
        too_high = value > high and direction in ("lower_is_better", "two_sided")
        if too_low or too_high:
            r = ev.rates[name]
            result.failures.append((names.GATE_OUT_OF_BAND,
                                    f"{name} = {value:.3f} ({r.numerator}/{r.denominator}) is outside the baseline "
                                    f"band [{low:.3f}, {high:.3f}] ({direction.replace('_', ' ')})"))
    return result
