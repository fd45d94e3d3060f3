"""Values in the wrong slot, unit or role, times and spelled-out counts: the misses the hard set showed."""

from __future__ import annotations

import pytest

from citetrace.claims import split_claims
from citetrace.eval import CONTRADICTED
from citetrace.eval._facts import extract_facts

from ._checker import judge


PRICES = "Pro costs $12 per seat per month when billed annually, or $15 month to month."
BUDGET = "Of that, EUR 4.1 million goes to park upkeep and EUR 7.5 million to the tram network."


@pytest.mark.parametrize("claim, page, contradicted", [
    ("Pro costs $15 per seat per month on annual billing and $12 month to month.", PRICES, True),
    ("Pro costs $12 per seat per month on annual billing and $15 month to month.", PRICES, False),
    ("Park upkeep receives EUR 7.5 million and the tram network EUR 4.1 million.", BUDGET, True),
    ("Park upkeep receives EUR 4.1 million and the tram network EUR 7.5 million.", BUDGET, False),
    ("The vaccine cut infections by 12 % over ten weeks, against 40 % for placebo.",
     "The vaccine cut the rate of infections by 40 % over ten weeks, compared with 12 % for placebo.", True),
])
def test_a_value_in_another_values_slot_is_a_contradiction(claim: str, page: str, contradicted: bool) -> None:
    """Both values are on the page, but the claim attaches each to the other's words."""
    assert (judge(claim, page) == CONTRADICTED) is contradicted


def test_a_shared_word_says_nothing_about_which_slot() -> None:
    """A word that the page repeats ("packs") cannot tell two values apart, so no swap is read into it."""
    page = ("Home battery packs were cheaper than the average at $126 per kWh, while packs for buses and trucks "
            "cost $182 per kWh.")
    assert judge("Home battery packs cost $126 per kWh in 2023, below the average.", page) != CONTRADICTED


def test_a_value_of_another_unit_is_no_match() -> None:
    """1,300 homes on the page neither confirm 1,300 businesses nor explain the page's 240 businesses."""
    page = "About 1,300 homes were evacuated and 240 businesses flooded."
    assert judge("About 1,300 businesses were flooded and 240 homes were evacuated.", page) == CONTRADICTED
    assert judge("About 1,300 homes were evacuated and 240 businesses flooded.", page) != CONTRADICTED


def test_a_point_of_comparison_given_as_the_current_value() -> None:
    """"EUR 48.6 million, up from EUR 44.1 million" against a claim that the budget is 44.1, up from 48.6."""
    page = "The council approved a budget of EUR 48.6 million for 2025, up from EUR 44.1 million last year."
    assert judge("The 2025 budget of EUR 44.1 million is up from EUR 48.6 million.", page) == CONTRADICTED
    assert judge("The 2025 budget of EUR 48.6 million is up from EUR 44.1 million.", page) != CONTRADICTED
    page = "The audit counted 3.8 million trips in 2024, fewer than the 4.2 million reported by the operator."
    assert judge("The audit counted 3.8 million trips in 2024, fewer than the operator's 4.2 million.",
                 page) != CONTRADICTED


def test_times_of_day_are_values() -> None:
    """"9 am" is not "9 pm": the library opens at 8 am and closes at 9 pm."""
    page = "From 1 September the library will open at 8 am on weekdays and stay open until 9 pm on Thursdays."
    assert [f.value for f in extract_facts(page) if f.kind == "time"] == [480, 1260]
    assert judge("From 1 September the library opens at 9 am on weekdays.", page) == CONTRADICTED
    assert judge("From 1 September the library opens at 8 am on weekdays.", page) != CONTRADICTED
    assert [f.value for f in extract_facts("Open 10:00 to 17:30.") if f.kind == "time"] == [600, 1050]


def test_spelled_out_counts_are_numbers() -> None:
    """"two hours" against "four hours"; "a ten-year average" and "two thirds" are not counts."""
    page = "The site can deliver that output for four hours."
    assert judge("The site can deliver its output for two hours.", page) == CONTRADICTED
    assert [f.kind for f in extract_facts("the ten-year average")] == []
    assert [f.kind for f in extract_facts("two thirds of homes")] == ["percent"]


def test_a_rival_in_another_sentence_needs_the_claims_slot_words() -> None:
    """An amount in another sentence about something else ("raised EUR 18 million") does not contradict
    "revenue tripled to EUR 6 million" when the revenue sentence gives no figure."""
    page = ("The Lisbon start-up raised EUR 18 million in a Series A round. Its revenue roughly tripled in 2024, "
            "co-founder Marta Silva said, without giving figures.")
    assert judge("The start-up's revenue tripled to EUR 6 million in 2024.", page) != CONTRADICTED


def test_a_shared_subject_keeps_its_thousands_separator() -> None:
    """The subject given to "was driven by good weather" is "The harvest of 18,400 tonnes", not "400 tonnes"."""
    claims = split_claims("The harvest of 18,400 tonnes was the largest on record and was driven by good weather.")
    assert claims[1].text.startswith("The harvest of 18,400 tonnes")
