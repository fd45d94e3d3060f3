"""det-6: precision first. A CONTRADICTED verdict names the rule behind it, and each rule family abstains
(PARTIAL) where its evidence is weak; each false-flag shape here has the true contradiction of the same family
next to it, which must stay CONTRADICTED."""

from __future__ import annotations

from citetrace.eval import CONTRADICTED, PARTIAL, SUPPORTED, Verdict
from citetrace.eval._audit import rule_audit
from citetrace.eval._deterministic import RULE
from citetrace.eval._judge_eval import LabelledPair

from ._checker import verdict


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


def test_a_change_is_no_slot_rival_of_a_level() -> None:
    """"Dipped to 4.9 %" is the level of "fell 0.3 percentage points to 4.9 percent", not the change: PARTIAL;
    the level given as another value's still contradicts by its slot."""
    page = ("Payrolls in Corran rose by 8,200 in May, and the unemployment rate fell 0.3 percentage points to 4.9 "
            "percent.")
    assert verdict("Corran's unemployment rate dipped to 4.9 % in May.", page).label == PARTIAL
    v = verdict("Corran's electric fleet now numbers 38 of its 410 buses.",
                "The council took delivery of 38 battery-electric buses, bringing the electric fleet to 95 of its "
                "410 buses, roughly a quarter.")
    assert v.label == CONTRADICTED and rule_of(v) == "slot", v


def test_a_breakdown_in_parentheses_is_no_clause_value() -> None:
    """"600 g flour (I use 500 g white and 100 g rye)" breaks the flour down: the 12 g of salt is not
    contradicted by the aside's 500 g; a value from the other clause still is."""
    page = ("For two loaves: 600 g flour (I use 500 g white and 100 g rye), 420 g water, 120 g levain, and 12 g "
            "salt.")
    assert verdict("Each batch of two loaves takes 600 g flour, 420 g water, 120 g levain and 12 g salt.",
                   page).label == PARTIAL
    v = verdict("The 32 GB, 2 TB model of the Lumen 16 is priced at $1,899.",
                "The Lumen 16 starts at $1,899 with 16 GB and a 1 TB drive; our test unit, with 32 GB and 2 TB, "
                "costs $2,349.")
    assert v.label == CONTRADICTED and rule_of(v) == "clause_value", v


def test_one_quantity_in_two_measures_is_no_rival() -> None:
    """"Compared with $44.0 million, or $0.97 per share": the $0.97 is the point of comparison too, and the
    $31.5 million restates the $0.71 of its own clause: PARTIAL; another per-share figure still contradicts."""
    page = ("Net income was $31.5 million, or $0.71 per diluted share, compared with $44.0 million, or $0.97 per "
            "diluted share, a year earlier; the decline reflects a $9.0 million impairment charge.")
    claim = ("Ostrava Tools' diluted earnings fell to $0.71 a share from $0.97, reflecting a $9 million impairment "
             "charge.")
    assert verdict(claim, page).label == PARTIAL
    v = verdict("Ostrava Tools' net income was $31.5 million, or $0.77 per diluted share.", page)
    assert v.label == CONTRADICTED, v


def test_a_count_that_refers_back_states_the_value() -> None:
    """"14 were later admitted from it" states the claim's 14 (its noun is the list named before): the 860
    applicants of that sentence are no rival, PARTIAL; the same numbers with their nouns swapped contradict."""
    page = "Another 860 applicants joined the waitlist at Corran College; 14 were later admitted from it, all in June."
    claim = "All 14 applicants taken off Corran College's waitlist were admitted in June."
    assert verdict(claim, page).label == PARTIAL
    v = verdict("About 900 homes were flooded and 150 businesses were evacuated in Corran.",
                "About 900 businesses were evacuated and 150 homes flooded in Corran.")
    assert v.label == CONTRADICTED and rule_of(v) == "rival_stating", v


def test_a_value_under_a_norm_or_a_condition_has_no_direction() -> None:
    """"Must stay above 30 %" against "should never fall below 30 %", and a thermostat's "when ... drops
    below 18 °C", state rules, not changes: PARTIAL; the same value's opposite change still contradicts."""
    assert verdict("The Orrin reservoir must stay above 30 % capacity, the utility says.",
                   "The utility says the Orrin reservoir is 28 % full and should never fall below 30 % capacity."
                   ).label == PARTIAL
    assert verdict("The Corran heater switches on when the room temperature drops below 18 °C.",
                   "The Corran heater switches on once the room cools below 18 °C and off when it rises above 21 °C."
                   ).label == PARTIAL
    v = verdict("The Orrin reservoir level fell 30 % over the summer.",
                "The Orrin reservoir level rose 30 % over the summer, after heavy rain in June.")
    assert v.label == CONTRADICTED, v


def test_an_open_bound_agrees_only_with_the_values_inside_it() -> None:
    """"More than 210,000" agrees with 250,000, never with 83,000 (an infinite bound once made every value
    agree), so the rival 38,000 contradicts a claim of 83,000 again."""
    from citetrace.eval._quantities import values_agree

    assert values_agree((250000.0, None, "", "250,000"), (210000.0, None, "more", "210,000"))
    assert not values_agree((83000.0, None, "about", "83,000"), (210000.0, None, "more", "210,000"))
    v = verdict("Two days after the storm, about 83,000 Corran customers were still without power.",
                "More than 210,000 Corran customers lost power at the peak, and about 38,000 were still without "
                "power 48 hours later.")
    assert v.label == CONTRADICTED, v


def test_a_lone_m_after_a_plain_number_is_no_million() -> None:
    """"4.3 m" of river is 4.3, not 4.3 million, so "peaked at 4.3 metres" is stated: PARTIAL, and "3.1
    metres" on Sunday still meets the Sunday peak of 4.3 m as a rival; "$4.3m" is still money in millions."""
    from citetrace.eval._facts import extract_facts

    page = "The Ivel peaked at 4.3 m on Sunday evening, its highest since 2007, before falling to 3.1 m by Tuesday."
    assert [f.value for f in extract_facts(page) if f.kind == "number"] == [4.3, 3.1]
    assert [f.value for f in extract_facts("It raised $4.3m.")] == [("USD", 4.3e6)]
    assert verdict("The Ivel river peaked at 4.3 metres on Sunday.", page).label == PARTIAL
    assert verdict("The Ivel river peaked at 5.2 metres on Sunday.", page).label == CONTRADICTED


def test_a_bound_is_no_point_of_comparison() -> None:
    """"Fewer than 200 wolves remain" is a bound, not a comparison with 200: PARTIAL against "between 150 and
    190 ..., down from about 400"; a claim giving the old 400 as the current count still contradicts."""
    page = "Surveys count between 150 and 190 Ashby wolves in the wild, down from about 400 in 1990."
    assert verdict("Fewer than 200 Ashby wolves remain in the wild.", page).label == PARTIAL
    assert verdict("About 400 Ashby wolves remain in the wild, surveys count.", page).label == CONTRADICTED


def test_the_total_of_a_part_is_no_rival_in_its_slot() -> None:
    """"120 of the 850 jobs at its Dene plant": the 850 is the part's total, so "cut 120 jobs at its Dene
    plant" is no swap: PARTIAL; a swap between two parts still contradicts."""
    page = "Harlow Foods said on Monday it would cut 120 of the 850 jobs at its Dene plant by March."
    assert verdict("Harlow Foods cut 120 jobs at its Dene plant.", page).label == PARTIAL
    v = verdict("Harlow Foods will cut 120 jobs at its Dene plant and 45 at its Tarn depot.",
                "Harlow Foods will cut 45 jobs at its Dene plant and 120 at its Tarn depot.")
    assert v.label == CONTRADICTED, v


def test_extractive_support_needs_each_value_in_its_place() -> None:
    """"Opened 9 branches in 2025" against "opened 14 branches in 2025 and closed 9": the words are in order and
    9 is in the sentence, but not where the claim puts it: never SUPPORTED (a det-5 false support); the
    sentence's own words and values still are."""
    page = "Sorrel Bank opened 14 branches in 2025 and closed 9, ending the year with 212 across the country."
    assert verdict("Sorrel Bank opened 9 branches in 2025.", page).label != SUPPORTED
    assert verdict("Sorrel Bank opened 14 branches in 2025.", page).label == SUPPORTED
