"""det-5: the bugs the second held-out set exposed (a modal "may" read as a month, "above"/"below" never
compared, the direction rule switched off by an unrelated negation, a screen resolution read as a year, a
model number read as a quantity, a change "higher than a year earlier" taken for a point of comparison),
each with the contradiction the same shape must still raise."""

from __future__ import annotations

import pytest

from citetrace.eval import CONTRADICTED
from citetrace.eval._facts import extract_facts

from ._checker import judge


def kinds(text: str) -> list[tuple[str, object]]:
    return [(f.kind, f.value) for f in extract_facts(text)]


def test_a_modal_may_after_a_number_is_no_month() -> None:
    """"Phase 2 may bid" holds no date; "on 3 May" and "3 May 2026" still do."""
    assert not [k for k, _ in kinds("Teams chosen in Phase 2 may bid again.") if k == "date"]
    assert ("date", (None, 5, 3)) in kinds("The hall reopens on 3 May.")
    assert ("date", (2026, 5, 3)) in kinds("The hall reopens on 3 May 2026.")


def test_a_screen_resolution_is_no_year() -> None:
    """"1920 x 1200" is a dimension, never the year 1920 (nor the number 1200)."""
    assert kinds("It has a 1920 x 1200 display.") == [("dimension", (1920.0, 1200.0))]


def test_a_model_number_is_part_of_the_name() -> None:
    """"the Nimbus 15" and "Round 3" are labels, compared only with the same name's labels; "Grade II" too."""
    assert kinds("The Nimbus 15 weighs 1.9 kg.") == [("label", ("nimbus", "15")), ("number", 1.9)]
    assert kinds("Groups funded in Round 3 can apply.") == [("label", ("round", "3"))]
    assert kinds("It was listed at Grade II in 1951.") == [("label", ("grade", "2")), ("date", (1951, None, None))]
    assert kinds("About 40 firms and Some 300 jobs.") == [("number", 40.0), ("number", 300.0)]
    assert kinds("Phase 2 trials enrolled 300 patients.") == [("label", ("phase", "2")), ("number", 300.0)]
    assert kinds("These 12 sites open at 10:00.") == [("number", 12.0), ("time", 600)]


def test_a_change_on_a_year_earlier_is_no_point_of_comparison() -> None:
    """"2.5 % higher than a year earlier" is the change, not the value a year earlier; "against 272 a year
    earlier" still is."""
    facts = {f.text: f.baseline for f in extract_facts(
        "Exports were 2.5 % higher than a year earlier, and orders reached 310, against 272 a year earlier.")}
    assert facts == {"2.5 %": False, "310": False, "272": True}


EXPORTS = ("Exports were £4.1 billion in May, 2.5 % higher than a year earlier but 1.1 % lower than in April.")
LAPTOP = "The Nimbus 15 review unit has 16 GB of memory and lasted 12 hours on battery."
SCREEN = "The model weighs 1.4 kg and has a 3200 x 1800 display."
STORM = "Storm Dara on 3 March brought gusts of 80 mph to the north coast and left 9,000 homes without water."
AVERAGE = "Output was 1.2 % above the five-year average, its best result since 2019."
PRICES = "Prices did not fall in March, the agency said."


@pytest.mark.parametrize("claim, page", [
    ("Exports of £4.1 billion in May were 2.5 % higher than a year before.", EXPORTS),
    ("The Nimbus 15 has 16 GB of memory.", LAPTOP),
    ("The 2024 model weighs 1.4 kg.", SCREEN),
    ("Prices rose in March.", PRICES),
])
def test_shapes_that_are_not_contradictions(claim: str, page: str) -> None:
    """A change, a model number, a resolution, a negated direction: never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Exports of £4.1 billion in May were 3.5 % higher than a year before.", EXPORTS),
    ("Reviewers preferred the Nimbus 15 keyboard.", "Reviewers preferred the Nimbus 13 keyboard."),
    ("The bridge was listed at Grade II in 1951.", "The bridge was listed at Grade I in 1951."),
    ("Storm Dara on 3 March brought gusts of 80 mph to the south coast.", STORM),
    ("Output was 1.2 % below the five-year average.", AVERAGE),
])
def test_the_same_shapes_still_contradict(claim: str, page: str) -> None:
    """Another change, model, grade, coast or side of the average: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


SEASON = "The league has 20 clubs, up from 18 last season, including 4 promoted sides."
RIDERSHIP = "Tolls raised $52 million, against costs of $140 million, so tolls covered about 37 % of costs (2022–23: 33 %)."
REVIEW = "The Vega 15 keeps the 15-inch 3200 x 1800 screen and weighs 1.9 kg."
FIX = "It was reported on 2 June 2025; the vendor shipped a fix 41 days later."
CASE = "Summary of judgment: Arden v Coldwell Homes Ltd [2025] EWCA 2231 (Civ)"


@pytest.mark.parametrize("claim, page", [
    ("The league has 20 clubs, two more than last season.", SEASON),
    ("Tolls covered roughly 37 % of costs in 2023–24, up from 33 % the year before.", RIDERSHIP),
    ("A 17-inch version of the Vega is planned.", REVIEW),
    ("The vendor shipped the fix within a month of its 60-day deadline.", FIX),
    ("Ms Arden had rented from Coldwell Homes for six years.", CASE),
])
def test_false_flags_of_held_out_two_shapes(claim: str, page: str) -> None:
    """A difference against the page's point of comparison, a comparison in parentheses, an attributive
    measure of another thing ("a 60-day deadline", "a 17-inch version"), a law report's citation number:
    no rival, never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("The league has 21 clubs, up from 18 last season.", SEASON),
    ("Tolls covered 45 % of costs, up from 33 % the year before.", RIDERSHIP),
    ("The Vega 15 keeps its 13-inch screen.", "The Vega 15 keeps the 15-inch screen and weighs 1.9 kg."),
    ("The vendor shipped a fix 30 days later.", FIX),
])
def test_the_same_shapes_with_another_value_still_contradict(claim: str, page: str) -> None:
    """Another level, another current share, another screen size, another delay: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Phase 2 trials enrolled 300 patients.",
     "The Phase 2 trial enrolled 300 patients across 12 sites; Phase 3 will enrol 1,200."),
    ("All 30 schools took part.", "All 30 schools took part, and 12 of the 30 reported higher attendance."),
    ("The firm still employed 40 people in 2023.", "The firm employed 40 people until 2024, when it closed."),
    ("Rainfall was 20 % above average in June, a wet month.",
     "June was wet, with rainfall 20 % above average, though July was dry."),
])
def test_probes_of_the_new_rules_that_must_stay_uncontradicted(claim: str, page: str) -> None:
    """A claim opening with a model's name, "all 30" where the page says so too, "still" before the year a
    state ended, and "was" read as a list's head noun ("June was ..., July was ..."): never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED
