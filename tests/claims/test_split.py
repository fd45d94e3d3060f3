"""The atomic claim splitter: compound sentences, anchors per claim, and what must stay whole."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citetrace.claims import Anchor, AtomicClaim, split_claims


def texts(sentence: str) -> list[str]:
    return [c.text for c in split_claims(sentence)]


def markers(claim: AtomicClaim) -> list[str]:
    return [a.marker for a in claim.anchors]


def test_issue_example_is_two_claims() -> None:
    """The vendor sentence from the issue splits at ", and" and keeps "Business and Enterprise" whole."""
    got = split_claims("The vendor supports SSO on Business and Enterprise tiers, and it costs $12 per seat [1].")
    assert [c.text for c in got] == ["The vendor supports SSO on Business and Enterprise tiers",
                                     "it costs $12 per seat."]
    assert [markers(c) for c in got] == [["[1]"], ["[1]"]]
    assert [c.inherited for c in got] == [True, False]


def test_each_claim_keeps_its_own_citation() -> None:
    """A marker written inside a clause belongs to that clause only."""
    for sentence in ("Revenue rose 5 % [1] and profit fell 2 % [2].", "Revenue rose 5 % [1], and profit fell 2 % [2]."):
        got = split_claims(sentence)
        assert [c.text for c in got] == ["Revenue rose 5 %", "profit fell 2 %."]
        assert [markers(c) for c in got] == [["[1]"], ["[2]"]]
        assert not any(c.inherited for c in got)


def test_verb_phrase_gets_the_shared_subject() -> None:
    """"... and costs $12 per seat" is judged as "The vendor costs $12 per seat", recorded as shared."""
    got = split_claims("The vendor supports SSO on Business and Enterprise tiers and costs $12 per seat [1][2].")
    assert got[1].text == "The vendor costs $12 per seat."
    assert got[1].shared_subject == "The vendor"
    assert markers(got[0]) == markers(got[1]) == ["[1]", "[2]"]


def test_semicolon_while_but_split() -> None:
    """Semicolons and ", but" / "while" between two clauses make separate claims."""
    assert texts("Phoenix aims for 25 % by 2035; Tucson targets 30 % by 2040 [1].") == [
        "Phoenix aims for 25 % by 2035", "Tucson targets 30 % by 2040."]
    assert texts("Solar output grew 12 % in 2024 while wind output fell 3 % [1].") == [
        "Solar output grew 12 % in 2024", "wind output fell 3 %."]
    assert texts("Rates were cut twice in 2023, but inflation stayed above 3 % [1].") == [
        "Rates were cut twice in 2023", "inflation stayed above 3 %."]


@pytest.mark.parametrize("sentence", [
    "Sales rose between 2019 and 2023, the report says [1].",
    "The plan covers buses, trams, and the new ferry lines [1].",
    "The fund invests in wind and solar farms across the region [1].",
    "He called the deal \"a colossal benefit, and a turning point for us\" in March [2].",
    "Both the council (which met in May, and again in June) and the mayor agreed [1].",
    "Prices rose and fell [1].",
])
def test_what_stays_one_claim(sentence: str) -> None:
    """Ranges, Oxford-comma lists, noun coordination, quotations and parentheses are never cut."""
    assert len(split_claims(sentence)) == 1


def test_dangling_attribution_and_source_names_leave_the_text() -> None:
    """"according to <URL>" and a trailing source-name link do not reach the claim text."""
    assert texts("Unemployment reached 4.2 % according to https://stats.example/x.") == ["Unemployment reached 4.2 %."]
    assert texts("Home prices rose 4 % this year [Coastal Realty Journal](https://crj.example/a).") == [
        "Home prices rose 4 % this year."]
    assert texts("Home prices rose 4 % (see https://crj.example/a).") == ["Home prices rose 4 %."]
    # a link label that is part of the sentence stays
    assert texts("The [statistics office](https://s.example) said the rate rose in [Oslo](https://o.example).") == [
        "The statistics office said the rate rose in Oslo."]


def test_final_anchors_cover_claims_without_their_own() -> None:
    """Sentence-final anchors go to every claim that has none; a mid-sentence anchor stays put."""
    got = split_claims("Output grew 12 % in 2024 [1], while costs fell 3 % in 2024 [2].")
    assert [markers(c) for c in got] == [["[1]"], ["[2]"]]
    got = split_claims("Output grew 12 % in 2024 [1], while costs fell 3 % in 2024.")
    assert [markers(c) for c in got] == [["[1]"], ["[1]"]] and got[1].inherited


def test_given_anchors_are_used_and_checked() -> None:
    """Anchors passed in (as eval does) replace detection; an anchor outside the sentence is an error."""
    sentence = "Revenue rose 5 % (A) and profit fell 2 % (B)."
    a = Anchor("(A)", 17, 20, url="https://a.example", key="a")
    b = Anchor("(B)", 41, 44, url="https://b.example", key="b")
    got = split_claims(sentence, [a, b])
    assert [c.urls for c in got] == [("https://a.example",), ("https://b.example",)]
    assert [c.text for c in got] == ["Revenue rose 5 %", "profit fell 2 %."]
    with pytest.raises(ValueError, match="outside the sentence"):
        split_claims(sentence, [Anchor("[9]", 40, 99)])
    with pytest.raises(TypeError, match="sentence string"):
        split_claims(None)  # type: ignore[arg-type]


def test_spans_point_into_the_sentence() -> None:
    """Each claim's span covers its clause in the original sentence, conjunction excluded."""
    sentence = "Revenue rose 5 % [1], and profit fell 2 % [2]."
    got = split_claims(sentence)
    assert sentence[got[0].start:got[0].end].startswith("Revenue rose 5 %")
    assert sentence[got[1].start:got[1].end] == "profit fell 2 % [2]."


def test_empty_and_anchor_only_sentences() -> None:
    """A sentence with no words gives no claim, or one empty claim carrying its anchors."""
    assert split_claims("   ") == []
    only = split_claims("[1]")
    assert len(only) == 1 and only[0].text == "" and markers(only[0]) == ["[1]"]


_WORDS = st.sampled_from("the vendor supports costs and but while rose fell 12 % 2024 tiers seat , ; it [1] per".split())


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORDS, min_size=1, max_size=30))
def test_claims_are_ordered_bounded_and_keep_every_anchor(words: list[str]) -> None:
    """For any word soup: claims are in order, at most MAX_CLAIMS, and every anchor lands in some claim."""
    sentence = " ".join(words)
    got = split_claims(sentence)
    assert len(got) <= 8
    assert [c.index for c in got] == list(range(len(got)))
    assert all(a.start <= b.start for a, b in zip(got, got[1:]))
    if "[1]" in sentence:
        assert all(c.anchors for c in got)


@pytest.mark.parametrize(("sentence", "claims"), [
    ("Inflation fell to 3.1% in 2024 ([Bureau of Labor Statistics, 2024](https://www.bls.gov/cpi/)).",
     ["Inflation fell to 3.1% in 2024."]),
    ("The Fed held rates, and unemployment rose to 4.2% ([Federal Reserve, 2023](https://fed.example/a); "
     "[Smith et al., n.d.](https://bls.example/b)).", ["The Fed held rates", "unemployment rose to 4.2%."]),
    ("Prices rose (see [the March 2024 figures](https://bls.example/m)).",
     ["Prices rose (see the March 2024 figures)."]),
])
def test_apa_in_text_citation_is_not_claim_text(sentence: str, claims: list[str]) -> None:
    """gpt-researcher's ``([Author, 2024](url))`` is a source, not words of the claim; other link labels stay."""
    assert [c.text for c in split_claims(sentence)] == claims
