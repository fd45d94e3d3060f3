"""det-4: contradictions in words (negation, accepted/rejected, a state in words, a split vote, another actor,
a list member under another noun, another birthplace, another lender, the date a plan was moved from), each
with the paraphrase that must stay uncontradicted."""

from __future__ import annotations

import pytest

from citetrace.eval import CONTRADICTED

from ._checker import judge


VACCINES = "Neither vaccine has yet been approved by the regulator; both are in late-stage trials."
GLASS = "Glass is no longer collected at the kerb since May; take it to one of the bottle banks."
PORTS = "No other port in the region handled more containers than Velsen last year."
MERGER = "Shareholders approved the merger of the two insurers on Tuesday."
PAPER = "The team's paper has been accepted by the Journal of Soil Science and will appear in May."
APPEAL = "The tribunal allowed the landlord's appeal and ordered a new hearing."
BARLEY = "Barley was little changed at 5.2 million tonnes, while oats rose 4 %."
BOARD = "The board voted 5–2 to approve the budget for next year."
MATCH = ("Wexford Athletic beat Carlow United 3–1 on Sunday. United finished with ten men after their goalkeeper "
         "was sent off, and Athletic scored twice in the last ten minutes.")
FIRM = "The firm has offices in Leeds and York and a warehouse in Hull."
POET = "Ines Vidal (born 1948 in Porto) moved to Lisbon in 1970, where she taught for thirty years."
LOAN = "The gallery's star loan, a twelfth-century psalter, was lent by the Royal Library of Turin."
DEPOT = "The new bus depot, delayed from 2023, is now expected to open in autumn 2025."


@pytest.mark.parametrize("claim, page", [
    ("Both vaccines have already been approved by the regulator.", VACCINES),
    ("The merger of the two insurers was not approved by shareholders.", MERGER),
    ("The team's paper was rejected by the Journal of Soil Science.", PAPER),
    ("The tribunal dismissed the landlord's appeal.", APPEAL),
    ("Barley rose sharply to 5.2 million tonnes.", BARLEY),
    ("The board unanimously approved the budget for next year.", BOARD),
    ("Athletic finished with ten men after their goalkeeper was sent off.", MATCH),
    ("The firm has offices in Leeds and Hull and a warehouse in York.", FIRM),
    ("Ines Vidal was born in Lisbon in 1948.", POET),
    ("The twelfth-century psalter was lent by the Ashmolean Museum.", LOAN),
    ("The new bus depot opened in 2023.", DEPOT),
])
def test_contradictions_in_words(claim: str, page: str) -> None:
    """The stating sentence negates the claim, says the opposite outcome, state or vote, names another actor
    for the same event, or places a list member under another noun: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Neither vaccine has been approved by the regulator yet.", VACCINES),
    ("Since May glass has to go to a bottle bank instead of the kerbside collection.", GLASS),
    ("Velsen handled more containers than any other port in the region last year.", PORTS),
    ("Shareholders approved the merger of the two insurers.", MERGER),
    ("The Journal of Soil Science accepted the team's paper.", PAPER),
    ("Barley output held steady at 5.2 million tonnes.", BARLEY),
    ("The board voted 5–2 to approve next year's budget.", BOARD),
    ("Carlow United ended the match with ten men after their goalkeeper's dismissal.", MATCH),
    ("The firm has offices in York and Leeds.", FIRM),
    ("Not every office of the firm is in Leeds; it also has one in York.", FIRM),
    ("Ines Vidal, born in Porto in 1948, taught in Lisbon for thirty years.", POET),
    ("Ines Vidal was born in Portugal in 1948.", "Ines Vidal was born in Porto, Portugal, in 1948."),
    ("The council raised council tax by 3 % last year.", "The council has not raised council tax this year."),
    ("The twelfth-century psalter was lent by a library in Turin.", LOAN),
    ("The new bus depot was originally due to open in 2023.", DEPOT),
    ("The new bus depot, delayed from 2023, should open in autumn 2025.", DEPOT),
])
def test_paraphrases_of_the_same_sentences_are_not_contradicted(claim: str, page: str) -> None:
    """The same facts in other words (or negated on both sides, or a comparative negation): not CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED
