"""The offline checker on one whole page, as every checker test module calls it (one copy, not one per module)."""

from __future__ import annotations

from citetrace.eval import DeterministicJudge, Passage, Verdict

__all__ = ["verdict", "judge"]


def verdict(claim: str, page: str) -> Verdict:
    """The deterministic checker's verdict on ``claim`` against ``page`` given as one passage."""
    return DeterministicJudge().judge(claim, [Passage(page, 0, len(page))])


def judge(claim: str, page: str) -> str:
    """Just the label of :func:`verdict`."""
    return verdict(claim, page).label
