"""det-5: contradictions the second held-out set showed the checker missing, as general shapes: a change
against "unchanged", an outcome said of the other clause's object, a negation whose subject is a value or
a model, a version branch in another's slot, a value whose clause names someone else, "opens with ... closes
with" swapped, a state that ended ("until 1974") against "still", "the full cost" against a cap; each with
the paraphrase or near miss that must stay uncontradicted."""

from __future__ import annotations

import pytest

from citetrace.eval import ABSENT, CONTRADICTED

from ._checker import judge


TAX = "The council tax was unchanged at £1,840 for a Band D home."
FEES = "Parking fees are unchanged, starting at £2, and residents pay £1 for any bay."
FEES_MIXED = "Parking fees rose this year, while permits were unchanged at £40."
POOL = ("The council approved a new library for 2026 but rejected a plan to close the swimming pool, citing a cost "
        "of £2 million.")
LIBRARY = "The council approved a new library and rejected a new car park."
NOTICE = ("Security notice for Cobalt: a parser flaw affects versions 2.9.0 to 3.1.4. Versions 2.8 and earlier are not "
          "affected, because the parser was added in 2.9.0.")
PORTS = "The Nimbus 15 has three USB-C ports, but no HDMI port and no card reader."
BRANCHES = ("Fixed versions are 5.2.3 and 5.1.9. The 5.1 branch reaches end of life on 30 June 2026; the maintainers "
            "recommend moving to 5.2.")
WEATHER = "The coldest night, −9.1 °C, was at Alston on 3 January; the warmest day, 31.2 °C, at Kelby on 18 July."
STUD = ("The foal's dam, Juno, came from a stud in Kent in 2021; its sire, Atlas, has been at Redfield since 2016.")
FESTIVAL = "The festival opens on 4 June with Verdi's Requiem and closes on 30 June with Bach's Mass in B Minor."
FERRY = "The ferry carried passengers across the Tay until 1966, when the road bridge opened."
LIBRARY_HOURS = "The library is open until 8 pm on weekdays."
FERRY_PLAN = "The ferry will carry passengers across the Tay until 2030, when a new bridge opens."
GRANTS = "Grants cover up to 60 % of eligible costs; the rest must come from the group's own funds."


@pytest.mark.parametrize("claim, page", [
    ("The council tax was raised to £1,840 for a Band D home.", TAX),
    ("Parking fees rise this year, starting at £2.", FEES),
    ("The council approved closing the swimming pool.", POOL),
    ("Cobalt 2.8 is also affected by the parser flaw.", NOTICE),
    ("The Nimbus 15 includes an HDMI port and a card reader.", PORTS),
    ("The 5.2 branch reaches end of life in June 2026, so users should move to 5.1.", BRANCHES),
    ("The warmest day, 31.2 °C, was recorded at Alston on 18 July.", WEATHER),
    ("The foal's sire, Atlas, came to Redfield from a stud in Kent in 2021.", STUD),
    ("The festival opens with Bach's Mass in B Minor.", FESTIVAL),
    ("The ferry still carries passengers across the Tay.", FERRY),
    ("Grants cover the full cost of eligible work.", GRANTS),
])
def test_contradictions_in_these_shapes(claim: str, page: str) -> None:
    """Each claim says what its page denies: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("The council tax stayed at £1,840 for a Band D home.", TAX),
    ("Parking fees rose this year.", FEES_MIXED),
    ("The council approved a new library.", LIBRARY),
    ("The council approved a new library for 2026.", POOL),
    ("Cobalt 2.8 has a memory leak.", NOTICE),
    ("Cobalt 3.0 is affected by the parser flaw.", NOTICE),
    ("Version 2.8 is supported on Linux.", "Cobalt runs on Linux and Windows. Version 2.8 is not supported on Windows."),
    ("The Nimbus 15 has three USB-C ports.", PORTS),
    ("The 5.1 branch reaches end of life in June 2026.", BRANCHES),
    ("The warmest day, 31.2 °C, was recorded at Kelby on 18 July.", WEATHER),
    ("The foal's dam, Juno, came from a stud in Kent in 2021.", STUD),
    ("The festival opens with Verdi's Requiem.", FESTIVAL),
    ("The library is still open on weekdays.", LIBRARY_HOURS),
    ("The ferry still carries passengers across the Tay.", FERRY_PLAN),
    ("Grants cover part of the cost of eligible work.", GRANTS),
])
def test_the_near_misses_are_not_contradicted(claim: str, page: str) -> None:
    """The same shapes said rightly, or about something the page does not deny: never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


def test_a_shared_value_aligns_a_paraphrase_that_shares_one_word() -> None:
    """"301 hours of bright weather, nearly double the norm" shares one content word with "301 hours of
    sunshine, almost twice the June average", and the value: it is judged, not ABSENT; a claim sharing the
    one word and no value stays ABSENT."""
    page = "June was exceptionally sunny: 301 hours of sunshine, almost twice the June average."
    assert judge("June brought 301 hours of bright weather, nearly double the norm.", page) != ABSENT
    assert judge("June brought 280 hours of bright weather.", page) == ABSENT


REVIEW = ("Review: Vega 15 (2025)\n\nThe Vega 15 is the lightest yet at 1.4 kg, down from 1.7 kg for last year's "
          "model.")
CONFIGS = "Prices start at $999 with 8 GB of memory; our test unit, with 16 GB and 1 TB, costs $1,399."
SEASONS = "The spring was dry, with 58 % of average rainfall, but October was exceptionally wet."


@pytest.mark.parametrize("claim, page", [
    ("The 2025 Vega 15 weighs 1.7 kg, more than its predecessor.", REVIEW),
    ("The Vega 15 with 16 GB of memory and a 1 TB drive costs $999.", CONFIGS),
    ("The spring was wetter than average.", SEASONS),
])
def test_more_contradictions_in_two_clause_sentences(claim: str, page: str) -> None:
    """The sentence stating the measured value (not the title's year), a price from the other clause, a
    comparative against its opposite in the clause the claim is about: CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("The Vega 15 weighs 1.4 kg, less than last year's 1.7 kg model.", REVIEW),
    ("The Vega 15 with 16 GB of memory and a 1 TB drive costs $1,399.", CONFIGS),
    ("The Vega 15 starts at $999 with 8 GB of memory.", CONFIGS),
    ("October was wetter than average.", SEASONS),
])
def test_their_near_misses_are_not_contradicted(claim: str, page: str) -> None:
    """The same sentences read rightly: never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


@pytest.mark.parametrize("claim, page, absent", [
    ("Timekeeping slipped from 93.2 % to 90.1 %.", "Punctuality for trams fell from 93.2 % to 90.1 %.", False),
    ("Timekeeping slipped from 93.2 % to 88.0 %.", "Punctuality for trams fell from 93.2 % to 90.1 %.", True),
    ("2024 was the warmest year ever recorded, beating 2020.",
     "The year 2024 was the second-warmest on record; only 2020 was warmer.", False),
])
def test_alignment_by_two_values_or_a_compound_word(claim: str, page: str, absent: bool) -> None:
    """Two values of the claim in one sentence align it with no shared word; a hyphenated word's parts
    ("second-warmest") align; one value alone does not."""
    assert (judge(claim, page) == ABSENT) is absent


@pytest.mark.parametrize("claim, page", [
    ("The spring of 2024 was wetter than average.",
     "The year 2024 was the second-warmest on record, with a mean of 10.1 °C. The spring was dry, with 58 % of "
     "average rainfall."),
    ("The 2025 Aero 16 weighs 2.1 kg, more than its predecessor.",
     "Review: Corvid Aero 16 (2025)\n\nThe Aero 16 is Corvid's lightest laptop yet at 1.8 kg, down from 2.1 kg for "
     "last year's model."),
])
def test_a_year_or_a_model_number_does_not_choose_the_stating_sentence(claim: str, page: str) -> None:
    """A claim's year, or its model's number, is stated by a title or another sentence too: the sentence the
    claim is about (its season, its measured weight) is read as well, and contradicts it."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Tram journeys grew 4 %.",
     "Bus journeys rose 4 %, while tram journeys were flat at 9.1 million after the depot closed."),
    ("2023 was the wettest year on record for the county.",
     "The year 2023 was the second-wettest on record for the county, after 2012."),
    ("The restoration replaced all 2,400 of the pier's rivets.", "The work replaced 310 of the 2,400 rivets."),
])
def test_flat_a_second_place_and_a_part_of_a_total(claim: str, page: str) -> None:
    """"were flat" is the unchanged state; "the wettest" against "the second-wettest"; "all 2,400" against
    "310 of the 2,400": CONTRADICTED."""
    assert judge(claim, page) == CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Bus journeys rose 4 % while tram journeys were flat.",
     "Bus journeys rose 4 %, while tram journeys were flat at 9.1 million after the depot closed."),
    ("2023 was the second-wettest year on record for the county.",
     "The year 2023 was the second-wettest on record for the county, after 2012."),
    ("Bergen is the largest city in the region.", "Bergen is the largest city in the region; Voss is the "
     "second-largest."),
    ("The repair replaced 310 of the pier's 2,400 rivets.", "The repair replaced 310 of the 2,400 rivets."),
    ("The pier has 2,400 rivets.", "The repair replaced 310 of the 2,400 rivets."),
])
def test_their_right_readings_are_not_contradicted(claim: str, page: str) -> None:
    """The same facts said rightly: never CONTRADICTED."""
    assert judge(claim, page) != CONTRADICTED


@pytest.mark.parametrize("claim, page", [
    ("Revenue was $5 million in 2023, before Ana Ruiz took over.",
     "Revenue was $5 million in 2023; in 2024, under new chief executive Ana Ruiz, it rose to $7 million."),
    ("The harvest was the earliest on record.", "The second harvest came in October; the first was the earliest "
     "on record."),
    ("The orchard's harvest began in August.", "The orchard's second harvest began in August."),
])
def test_a_name_in_another_role_and_a_noun_ending_in_est(claim: str, page: str) -> None:
    """A name the claim gives in another role (no other name holds its values' clause), and a noun that
    merely ends in "est" ("harvest"), raise no contradiction."""
    assert judge(claim, page) != CONTRADICTED
