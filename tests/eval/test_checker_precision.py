"""det-4: shapes that made the checker cry wolf on unseen pages (versions, multipliers, fiscal years,
identifiers, neighbouring sentences, possessive names, less precise dates, savings, other periods), each
with the contradiction the same shape must still raise."""

from __future__ import annotations

import pytest

from citetrace.eval import CONTRADICTED
from citetrace.eval._facts import extract_facts

from ._checker import judge


RELEASE = ("Quillbase 7.0 release notes\n\nQuillbase 7.0 ships a new query engine. Queries run up to 2x faster than in "
           "6.2, and indexes are about 30% smaller on typical workloads.\n\nQuillbase 6.2 keeps receiving fixes. "
           "The legacy planner is deprecated and will be dropped in 8.0.")
NURSES = "In 2023–24 the trust recruited 340 nurses, up from 290 in 2022–23. Vacancies fell to 6 %."
CROPS = ("Rye output rose 8 % to 2.1 million tonnes. Spelt output, by contrast, fell 3 % to 0.4 million tonnes as "
         "farmers switched land to rye.")
CAREER = ("She trained in Lyon and spent six years in the Paris studio of Renzo Pilar before starting her own "
          "firm in 2004.")
RULING = "The regulator expects to publish its decision in the first half of 2027."
SAVING = "Spending on consultants was cut by a quarter, to £6 million."
PLAN = "The company still expects to reach full output of 40,000 units a month by the end of 2027."


@pytest.mark.parametrize("claim, page", [
    ("Indexes are about 30% smaller in 7.0, and queries run up to twice as fast.", RELEASE),
    ("Queries in Quillbase 7.0 run up to two times faster than in 6.2.", RELEASE),
    ("The trust recruited 340 nurses in 2023–24.", NURSES),
    ("Rye output grew 8 % to 2.1 million tonnes.", CROPS),
    ("She spent six years in Renzo Pilar's Paris studio before starting her own firm in 2004.", CAREER),
    ("The regulator expects to publish its decision by March 2027.", RULING),
    ("Consultancy spending was cut by a quarter, saving £2 million.", SAVING),
    ("The company expects to reach full output by the end of 2027, with output rising to 55,000 units a month "
     "in 2029.", PLAN),
])
def test_shapes_that_are_not_contradictions(claim: str, page: str) -> None:
    """Each claim agrees with its page (or adds what the page does not say): never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Queries in Quillbase 7.0 run up to 5x faster than in 6.2.", RELEASE),
    ("The legacy planner will be dropped in 7.0.", RELEASE),
    ("Patched releases are Quill 8.2.3 and 8.1.8.", "The flaw is fixed in Quill 8.2.3 and 8.1.9."),
    ("The trust recruited 340 nurses in 2021–22.", NURSES),
    ("Rye output fell 8 % to 2.1 million tonnes.", CROPS),
    ("The regulator expects to publish its decision by March 2028.", RULING),
    ("Consultancy spending was cut by a quarter, to £9 million.", SAVING),
    ("The company expects to reach full output of 45,000 units a month by the end of 2027.", PLAN),
    ("The board voted 6–1 to approve the budget.", "The board voted 5–2 to approve the budget."),
])
def test_the_same_shapes_still_contradict(claim: str, page: str) -> None:
    """Another multiplier, version, period, direction in the stating sentence, year or level: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


def test_identifiers_versions_periods_and_multiples_are_their_own_kinds() -> None:
    """"TOI-2284", "CVE-2025-41877" and "COVID-19" are names; "3.4.2" and "Quillbase 7.0" versions; "2024–25" a
    period (not 2024 and 25); "3x", "1.6 times" and "twice as" multiples; "2020–2023" stays two years; "5–2"
    a vote or score, "40-50" a range."""
    kinds = [(f.kind, f.value) for f in extract_facts(
        "TOI-2284 c and CVE-2025-41877 (COVID-19): Quillbase 7.0 and 3.4.2, 3x and 1.6 times, twice as many, "
        "in 2024–25 and 2020–2023; voted 5–2 for 40-50 jobs.")]
    assert kinds == [("version", "7"), ("version", "3.4.2"), ("multiple", 3.0), ("multiple", 1.6),
                     ("multiple", 2.0), ("period", (2024, 2025)), ("date", (2020, None, None)),
                     ("date", (2023, None, None)), ("score", (5, 2)), ("number", 40.0)]
