"""Spread over repeats, and the bands a baseline learns from it."""

from __future__ import annotations

import statistics
from typing import Iterable

__all__ = ["spread", "band"]


def spread(values: Iterable[float | None]) -> dict[str, float | int | None]:
    """mean, standard deviation (sample; 0 for one value), min, max and n of the values that are known."""
    known = [float(v) for v in values if v is not None]
    if not known:
        return {"mean": None, "std": None, "min": None, "max": None, "n": 0}
    return {"mean": statistics.fmean(known), "std": statistics.stdev(known) if len(known) > 1 else 0.0,
            "min": min(known), "max": max(known), "n": len(known)}


def band(mean: float, std: float, *, k: float, tolerance: float) -> tuple[float, float]:
    """The interval outside which a value is clearly different: mean ± (k·std + tolerance)."""
    half = k * std + tolerance
    return mean - half, mean + half
