"""det-7: general mechanisms that produced false contradictions on pages no rule was tuned on (the fourth
held-out set's first half, docs/eval.md "The deterministic checker det-7"). Each false-flag shape here is an
invented page, not a set's, with the true contradiction of the same family next to it, which must stay
CONTRADICTED."""

from __future__ import annotations

from citetrace.eval import CONTRADICTED
from citetrace.eval._deterministic import RULE
from citetrace.eval._facts import extract_facts

from ._checker import verdict

_TRIAL = ("At week 12, 58.3% of patients receiving the drug achieved a 75% reduction in pain scores, compared "
          "with 9.1% of patients on placebo.")


def _rule(claim: str, page: str) -> str | None:
    v = verdict(claim, page)
    return next((f[len(RULE):] for f in v.flags if f.startswith(RULE)), None) if v.label == CONTRADICTED else None


def test_a_qualifier_after_a_comparison_word_keeps_the_value_a_point_of_comparison() -> None:
    """"versus roughly 9 %" is the placebo arm, as the page's "compared with 9.1 %" is: no value in another
    role (det-6 read the claim's 9 % as a current value, so the page's 75 % became its rival)."""
    claim = "About 58% of patients on the drug responded at week 12, versus roughly 9% of those on placebo."
    assert _rule(claim, _TRIAL) is None
    assert [f.baseline for f in extract_facts("compared with under 1% of placebo patients")] == [True]
    page = ("Full remission was reached by 41.2% of patients on the drug versus 0.6% on placebo, and 52% of "
            "treated patients reported less fatigue, against 13% on placebo.")
    assert _rule("About 41% of patients on the drug reached full remission, compared with under 1% of placebo "
                 "patients.", page) is None


def test_another_placebo_figure_still_contradicts() -> None:
    claim = "About 58% of patients on the drug responded at week 12, versus roughly 19% of those on placebo."
    assert _rule(claim, _TRIAL) == "rival_stating"


def test_a_value_with_no_slot_words_of_its_own_is_no_swap() -> None:
    """In "nausea (3.1% vs 1.2%)" the page's 3.1 % has no slot words, so the claim's "of patients on the drug"
    cannot be said to belong to the page's 39 % instead."""
    page = ("Side effects were reported in 39% of patients on the drug and 37% on placebo; the most common were "
            "headache (8.2% vs 7.5%) and nausea (3.1% vs 1.2%).")
    assert _rule("Nausea was reported by 3.1% of patients on the drug, more than twice the placebo rate.", page) \
        is None


def test_a_swap_between_two_values_with_slot_words_still_contradicts() -> None:
    page = "Nausea was reported by 1.2% of patients on placebo and 3.1% of patients on the drug."
    assert _rule("Nausea was reported by 3.1% of patients on placebo.", page) == "slot"


_FERRY = ("Ferry traffic grew, with 940 sailings and 312,000 passengers, compared with 902 sailings and 287,000 "
          "passengers in 2024.")


def test_the_second_value_of_a_comparison_list_is_a_point_of_comparison_too() -> None:
    """"compared with 902 sailings and 287,000 passengers": 287,000 is last year's figure, as the claim's
    "from 287,000" says."""
    assert [f.baseline for f in extract_facts(_FERRY) if f.kind == "number"] == [False, False, True, True]
    assert _rule("Ferry passengers at Dunmore rose to 312,000 in 2025 from 287,000, on 940 sailings.", _FERRY) \
        is None


def test_another_point_of_comparison_still_contradicts() -> None:
    assert _rule("Ferry passengers at Dunmore rose to 312,000 in 2025 from 278,000, on 940 sailings.", _FERRY) \
        == "rival_stating"


_FEE = "For a typical member the fee will be £310 a year, £40 lower than the current fee of £350."


def test_a_bound_before_a_value_is_no_direction() -> None:
    """"pay more than £40" states a bound, not a rise against the page's "£40 lower"; nor does "up to three
    times faster" rise against "about 40% smaller" once "up to 3x" is read as a bound on both sides."""
    assert _rule("Most members will pay more than £40 a year.", _FEE) is None
    page = "Bulk loads are up to 3x faster than in 4.8, and the on-disk format is about 40% smaller."
    assert _rule("Bulk loads are up to three times faster.", page) is None


def test_the_opposite_direction_still_contradicts() -> None:
    assert _rule("The fee will rise to £310 a year.", _FEE) == "direction_sentence"


_PLAN = ("The plan also funds new priorities: $500,000 for three extra bus routes, $350,000 to expand nursery "
         "provision from 4 to 6 rooms, and $200,000 for a reading pilot at both libraries.")


def test_the_first_number_of_from_a_to_b_has_b_s_unit() -> None:
    """"from 4 to 6 rooms": 4 counts rooms, so it is no rival of "two libraries"; a preposition ends a unit
    ("44,500 during 2024" counts nothing named "during")."""
    assert [f.unit for f in extract_facts("from 4 to 6 rooms")] == ["room", "room"]
    assert [f.unit for f in extract_facts("fell to 44,500 during 2024") if f.kind == "number"] == [""]
    assert _rule("The plan sets aside $200,000 for a reading pilot in the town's two libraries.", _PLAN) is None


def test_another_count_of_the_same_unit_still_contradicts() -> None:
    assert _rule("The plan funds an expansion of nursery provision from 4 to 8 rooms.", _PLAN) == "rival_stating"


def test_a_number_after_a_hash_is_no_count() -> None:
    """"Incident Update #7" in a page's title numbers the update; it is no rival of "18,000 acres"."""
    page = "Oak Hollow Fire — Incident Update #7.\n\nThe Oak Hollow Fire has burned 17,840 acres as of 3 May."
    assert not extract_facts("Incident Update #7")
    assert _rule("The Oak Hollow Fire had burned nearly 18,000 acres by 3 May.", page) is None


_STORM = ("The storm dropped about 30 mm of rain yesterday, far less than the 90 mm it dropped on Tuesday, when the "
          "river burst its banks.")


def test_a_point_of_comparison_the_claim_dates_with_the_same_day_is_the_claim_s_value() -> None:
    """"less than the 90 mm it dropped on Tuesday" states Tuesday's 90 mm, which "On Tuesday the storm dropped
    about 90 mm" claims; a day word the claim gives another of its values does not count ("last year" dates
    48.6 in "44.1 million is up from 48.6 million last year")."""
    assert _rule("On Tuesday the storm dropped about 90 mm of rain on the valley.", _STORM) is None
    page = "The 2025 transport budget is EUR 48.6 million, up from EUR 44.1 million last year."
    assert _rule("The 2025 transport budget of EUR 44.1 million is up from EUR 48.6 million last year.", page) \
        == "role"


def test_another_amount_on_the_same_day_still_contradicts() -> None:
    assert _rule("On Tuesday the storm dropped about 60 mm of rain on the valley.", _STORM) == "rival_stating"


def test_an_initial_before_a_sentence_opening_word_ends_the_sentence() -> None:
    """pysbd keeps "influenza B. There were" together (a capital read as an initial); the next sentence's
    numbers are then no rivals of the claim's. Initials before names stay whole."""
    from citetrace.eval._passages import simple_sentences

    text = "Of the samples, 70 percent were influenza A and 30 percent influenza B. There were 140 admissions."
    assert [text[s:e] for s, e in simple_sentences(text)] == [
        "Of the samples, 70 percent were influenza A and 30 percent influenza B.", "There were 140 admissions."]
    names = "Dr. J. Smith and A. Jones wrote it. Prices fell."
    assert [names[s:e] for s, e in simple_sentences(names)] == ["Dr. J. Smith and A. Jones wrote it.",
                                                                "Prices fell."]
    page = ("Of the samples typed, 70 percent were influenza A and 30 percent influenza B. There were 140 influenza "
            "admissions in the valley this week, the twelfth of the season.")
    assert _rule("The valley had 140 influenza admissions in week 12.", page) is None
