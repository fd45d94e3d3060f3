"""The claim state machine as pure functions, so the ledger and the audit apply exactly the same rules.

Within a pass only ``insufficient`` may move, to ``verified``, ``contradicted`` or ``unverifiable``; the
verdict then holds for the pass. Re-verification opens a new pass at ``insufficient``. A claim whose
verdicts flip between ``verified`` and ``contradicted`` across passes ``contested_after`` times becomes
``contested``: final, never repaired, rendered with both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from citetrace import names
from citetrace.ledger._model import IllegalTransition

__all__ = ["ClaimState", "apply_verdict", "open_pass", "DEFAULT_CONTESTED_AFTER"]

DEFAULT_CONTESTED_AFTER = 2
"""Flips between verified and contradicted before a claim is contested (one flip is a correction)."""

_DECISIVE = (names.CLAIM_VERIFIED, names.CLAIM_CONTRADICTED)


@dataclass(frozen=True)
class ClaimState:
    """What the state machine needs: status, pass, how the pass was opened, last decisive verdict, flips."""

    status: str = names.CLAIM_INSUFFICIENT
    pass_no: int = 1
    pass_reason: str = "initial"
    last_decisive: str | None = None
    flips: int = 0


def apply_verdict(cid: str, state: ClaimState, verdict: str, *,
                  contested_after: int = DEFAULT_CONTESTED_AFTER) -> ClaimState:
    """The state after ``verify(cid, verdict)``; IllegalTransition for any move the contract forbids."""
    if verdict not in names.CLAIM_VERDICTS:
        raise IllegalTransition(cid, state.status, verdict,
                                f"a verdict is one of {', '.join(names.CLAIM_VERDICTS)}")
    if state.status == names.CLAIM_CONTESTED:
        raise IllegalTransition(cid, state.status, verdict, "contested is final")
    if state.status != names.CLAIM_INSUFFICIENT:
        raise IllegalTransition(cid, state.status, verdict,
                                f"pass {state.pass_no} is decided; re-verify to open a new pass")
    if verdict not in _DECISIVE:
        return replace(state, status=verdict)
    flips = state.flips + (1 if state.last_decisive not in (None, verdict) else 0)
    status = names.CLAIM_CONTESTED if flips >= contested_after else verdict
    return replace(state, status=status, last_decisive=verdict, flips=flips)


def open_pass(cid: str, state: ClaimState, reason: str) -> ClaimState:
    """The state after re-verification: a new pass at ``insufficient``."""
    if state.status == names.CLAIM_CONTESTED:
        raise IllegalTransition(cid, state.status, names.CLAIM_INSUFFICIENT, "contested is final")
    if state.status == names.CLAIM_INSUFFICIENT:
        raise IllegalTransition(cid, state.status, names.CLAIM_INSUFFICIENT,
                                f"pass {state.pass_no} is still open")
    return replace(state, status=names.CLAIM_INSUFFICIENT, pass_no=state.pass_no + 1, pass_reason=reason)
