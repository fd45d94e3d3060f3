"""Per-run numbers with explicit denominators, from judged pairs.

A claim is scored over the union of its citations (its best pair wins). Dead, unfetched and unjudgeable
citations stay in every denominator: a rate that quietly loses its failures is the DeepResearch-Bench trap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from citetrace.eval._types import ABSENT, CONTRADICTED, JUDGE_ERROR, PARTIAL, SUPPORTED, UNFETCHED

__all__ = ["Rate", "RATE_NAMES", "aggregate_claims", "claim_label", "compute_rates"]

_ORDER = (SUPPORTED, PARTIAL, CONTRADICTED, ABSENT, JUDGE_ERROR, UNFETCHED)

RATE_NAMES = (
    "citation_coverage",
    "support_rate",
    "partial_rate",
    "contradicted_rate",
    "dead_or_unfetched_rate",
    "judge_error_rate",
)
"""Every per-run rate, in display order (also the closed set of the ``rate`` metric label)."""

_DESCRIBE = {
    "citation_coverage": ("claims with a citation", "claims needing one"),
    "support_rate": ("cited claims SUPPORTED by some citation", "cited claims"),
    "partial_rate": ("cited claims at best PARTIAL", "cited claims"),
    "contradicted_rate": ("cited claims at best CONTRADICTED", "cited claims"),
    "dead_or_unfetched_rate": ("citations unfetched in the run or dead now", "citations"),
    "judge_error_rate": ("fetched citations the judge could not answer", "fetched citations"),
}


@dataclass(frozen=True)
class Rate:
    """numerator / denominator, with what each counts; ``value`` is None when nothing was counted."""

    name: str
    numerator: int
    denominator: int

    @property
    def value(self) -> float | None:
        return self.numerator / self.denominator if self.denominator else None

    @property
    def counts(self) -> tuple[str, str]:
        """(what the numerator counts, what the denominator counts)."""
        return _DESCRIBE[self.name]

    def as_dict(self) -> dict[str, object]:
        num, den = self.counts
        return {"value": self.value, "numerator": self.numerator, "denominator": self.denominator,
                "numerator_counts": num, "denominator_counts": den}


def claim_label(labels: Iterable[str]) -> str:
    """The best label among a claim's citations."""
    present = set(labels)
    return next((label for label in _ORDER if label in present), UNFETCHED)


def aggregate_claims(labels: Iterable[str]) -> str:
    """A sentence's label from its atomic claims' labels: one CONTRADICTED claim makes it CONTRADICTED,
    SUPPORTED needs every claim SUPPORTED, any support makes it PARTIAL; otherwise an unjudgeable claim
    (JUDGE_ERROR) outranks ABSENT, which outranks UNFETCHED."""
    present = list(labels)
    if not present:
        return UNFETCHED
    if CONTRADICTED in present:
        return CONTRADICTED
    if all(label == SUPPORTED for label in present):
        return SUPPORTED
    if SUPPORTED in present or PARTIAL in present:
        return PARTIAL
    return next(label for label in (JUDGE_ERROR, ABSENT, UNFETCHED) if label in present)


def compute_rates(
    claims_needing: int,
    cited_claim_labels: Sequence[str],
    pair_labels: Sequence[str],
    dead_or_unfetched: int,
) -> dict[str, Rate]:
    """All rates; ``pair_labels`` and ``dead_or_unfetched`` count citations (pairs with a marker or URL)."""
    cited = len(cited_claim_labels)
    fetched = sum(1 for label in pair_labels if label != UNFETCHED)
    return {
        "citation_coverage": Rate("citation_coverage", cited, claims_needing),
        "support_rate": Rate("support_rate", cited_claim_labels.count(SUPPORTED), cited),
        "partial_rate": Rate("partial_rate", cited_claim_labels.count(PARTIAL), cited),
        "contradicted_rate": Rate("contradicted_rate", cited_claim_labels.count(CONTRADICTED), cited),
        "dead_or_unfetched_rate": Rate("dead_or_unfetched_rate", dead_or_unfetched, len(pair_labels)),
        "judge_error_rate": Rate("judge_error_rate", list(pair_labels).count(JUDGE_ERROR), fetched),
    }
