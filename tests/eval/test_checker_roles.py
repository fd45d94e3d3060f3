"""Word-level contradictions without numbers: agents, lists, stances, states, and more direction words."""

from __future__ import annotations

import pytest

from citetrace.eval import CONTRADICTED

from ._checker import judge


ROUND = "The start-up's Series B was led by Harbour Capital, with participation from two existing investors."
PLANS = "Audit logging is available on the Team and Enterprise plans. The Basic plan has email support only."
VOTE = "Councillor Ana Pell, who voted against, said the scheme ignores the suburbs."
TRIAL = "Evening opening at the pool, trialled over the winter, becomes permanent in April."


@pytest.mark.parametrize("claim, page, contradicted", [
    ("The start-up's Series B was led by an existing investor.", ROUND, True),
    ("The start-up's Series B was led by Harbour Capital.", ROUND, False),
    ("The start-up's Series B was led by a sovereign wealth fund.", ROUND, False),  # not on the page: unjudged
    ("Audit logging is included in the Basic plan.", PLANS, True),
    ("Audit logging is included in the Enterprise plan.", PLANS, False),
    ("Councillor Ana Pell voted for the scheme.", VOTE, True),
    ("Councillor Ana Pell voted against the scheme.", VOTE, False),
    ("The pool's evening opening trial is ending in April.", TRIAL, True),
    ("The pool's evening opening, trialled over the winter, is becoming permanent.", TRIAL, False),
    ("About 900 lead pipes remain in the new town.", "About 900 lead pipes remain in the old town.", True),
    ("About 900 lead pipes remain in the old town.", "About 900 lead pipes remain in the old town.", False),
])
def test_a_word_in_the_claims_slot_that_the_page_fills_otherwise(claim: str, page: str, contradicted: bool) -> None:
    """The page fills the claim's slot (agent, list member, stance, state) with something else."""
    assert (judge(claim, page) == CONTRADICTED) is contradicted


def test_negation_switches_the_word_rules_off() -> None:
    """"was not led by an existing investor" is not read as a role claim at all."""
    assert judge("The start-up's Series B was not led by an existing investor.", ROUND) != CONTRADICTED


def test_more_direction_words_and_to_from_order() -> None:
    """"slipped by 4 %" is down; "slipped to 28 % from 31 %" is the reverse of "rose from 28 % to 31 %"."""
    page = "Demand for air pumps rose fastest, while ground-source installations slipped by about 4 %."
    assert judge("Ground-source installations grew by about 4 %.", page) == CONTRADICTED
    page = "Rail's share of port traffic slipped to 28 % from 31 %, which the authority blamed on works."
    assert judge("Rail's share of port traffic rose from 28 % to 31 %.", page) == CONTRADICTED
    assert judge("Rail's share of port traffic fell from 31 % to 28 %.", page) != CONTRADICTED
