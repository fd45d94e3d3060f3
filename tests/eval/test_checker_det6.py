"""det-6: precision first. A CONTRADICTED verdict names the rule behind it, and each rule family abstains
(PARTIAL) where its evidence is weak; each false-flag shape here has the true contradiction of the same family
next to it, which must stay CONTRADICTED."""

from __future__ import annotations

from citetrace.eval import CONTRADICTED, PARTIAL, DeterministicJudge, Passage, Verdict
from citetrace.eval._audit import rule_audit
from citetrace.eval._deterministic import RULE
from citetrace.eval._judge_eval import LabelledPair


def verdict(claim: str, page: str) -> Verdict:
    return DeterministicJudge().judge(claim, [Passage(page, 0, len(page))])


def rule_of(v: Verdict) -> str | None:
    return next((f[len(RULE):] for f in v.flags if f.startswith(RULE)), None)


_ADMISSIONS = ("Westfield University received 9,870 applications for the autumn intake, up from 9,100 a year "
               "earlier. Its spring round admitted 310 of the 1,240 transfer applicants.")


def test_every_contradiction_names_its_rule() -> None:
    """A value rival, a whole-sentence direction and a swapped slot each carry their rule:NAME flag."""
    assert rule_of(verdict("The survey interviewed 1,850 farmers in 14 districts.",
                           "The survey interviewed 1,850 farmers in 41 districts last spring.")) == "rival_stating"
    assert rule_of(verdict("Grain exports rose sharply last year.",
                           "Grain exports fell sharply last year, the ministry said.")) == "direction_sentence"


def test_a_rival_in_a_weakly_aligned_sentence_abstains() -> None:
    """The sentence sharing two of the claim's many words states other numbers: no evidence against 310 of
    1,240, which the page states elsewhere (a det-5 false flag of this shape)."""
    claim = "About a quarter of Westfield's transfer applicants, 310 of 1,240, were admitted in the spring round."
    page = "Westfield University received 9,870 applications for the autumn intake, up from 9,100 a year earlier."
    v = verdict(claim, page)
    assert v.label == PARTIAL, v


def test_a_rival_in_a_strongly_aligned_sentence_still_contradicts() -> None:
    """The sentence stating the claim's own words gives another count: CONTRADICTED, by the value rival."""
    v = verdict("The survey interviewed 1,850 farmers in 14 districts.",
                "The survey interviewed 1,850 farmers in 41 districts last spring.")
    assert v.label == CONTRADICTED and rule_of(v) == "rival_stating"
    v = verdict("Westfield's spring round admitted 310 of the 1,420 transfer applicants.", _ADMISSIONS)
    assert v.label == CONTRADICTED, v


def test_the_audit_counts_right_and_wrong_per_rule() -> None:
    """rule_audit counts a correct and a false CONTRADICTED under their rules, and ignores other verdicts."""
    pairs = [
        LabelledPair("a", "The survey interviewed 1,850 farmers in 14 districts.",
                     "The survey interviewed 1,850 farmers in 41 districts last spring.", CONTRADICTED),
        LabelledPair("b", "The survey interviewed 1,850 farmers in 14 districts.",
                     "The survey interviewed 1,850 farmers in 41 districts last spring.", "SUPPORTED"),
        LabelledPair("c", "Grain exports rose sharply last year.",
                     "Grain exports fell sharply last year, the ministry said.", CONTRADICTED),
        LabelledPair("d", "The survey interviewed farmers.", "The survey interviewed farmers.", "SUPPORTED"),
    ]
    assert rule_audit(pairs) == {"rival_stating": [1, 1], "direction_sentence": [1, 0]}


def test_a_level_against_a_change_abstains() -> None:
    """"Slowed to 3.8 %" (a level) says nothing against "rose 3.8 percent" (a change): PARTIAL."""
    v = verdict("Tallis's wage growth slowed to 3.8 %, easing pressure on the bank to raise rates.",
                "Average hourly wages in Tallis rose 3.8 percent on the year, after a 4.1 percent increase in "
                "September.")
    assert v.label == PARTIAL, v


def test_a_bound_is_no_direction() -> None:
    """"From more than 9,000 ... to 1,200" is a fall; "more than" is a bound, not a rise: PARTIAL."""
    v = verdict("Puffin burrows on Hestur have dropped from more than 9,000 in 1990 to 1,200 now.",
                "Puffins on Hestur continued their decline: 1,200 burrows, against more than 9,000 in 1990.")
    assert v.label == PARTIAL, v


def test_the_opposite_direction_next_to_the_same_change_still_contradicts() -> None:
    """"Fell 3.8 percent" against "rose 3.8 percent" (both changes), and "fell to" against "rose to" (both
    levels): CONTRADICTED by the value's direction."""
    page = "Hourly wages in Tallis rose{} 3.8 percent on the year, after hours worked fell in September."
    for to in ("", " to"):
        v = verdict(f"Hourly wages in Tallis fell{to} 3.8 percent on the year.", page.format(to))
        assert v.label == CONTRADICTED and rule_of(v) == "direction_value", v


def test_a_direction_under_a_condition_or_a_norm_abstains() -> None:
    """A rule ("must be kept at 5 °C or below") or a condition ("closes when the level falls below") states no
    direction that happened: PARTIAL."""
    v = verdict("Milk in the Corran café fridge was at 9 °C, well above the 5 °C limit.",
                "Milk in the Corran café fridge measured 9 °C; chilled food must be kept at 5 °C or below.")
    assert v.label == PARTIAL, v
    v = verdict("The float valve stays shut until the tank level climbs past the upper mark.",
                "The float valve opens when the tank level falls below the lower mark, refilling the tank.")
    assert v.label == PARTIAL, v


def test_the_opposite_direction_of_an_event_still_contradicts() -> None:
    """The same sentences without a condition, and "in 1974, when" (a date, no condition): CONTRADICTED."""
    v = verdict("Milk in the Corran café fridge was above the 5 °C mark.",
                "Milk in the Corran café fridge was below the 5 °C mark at the inspection.")
    assert v.label == CONTRADICTED and rule_of(v) == "direction_sentence", v
    v = verdict("In 1974 a new ferry pier was built 200 metres upstream of the Orrin weir.",
                "Barges used the weir until 1974, when a ferry pier was built 200 metres downstream of the Orrin weir.")
    assert v.label == CONTRADICTED, v
