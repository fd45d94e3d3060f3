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
