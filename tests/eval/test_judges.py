"""The deterministic checker and the judge factory."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citetrace import names
from citetrace.eval import (
    ABSENT, CONTRADICTED, PARTIAL, SUPPORTED, DeterministicJudge, LLMJudge, Passage, judge_with_checker, make_judge,
)
from citetrace.eval._facts import extract_facts, facts_equal

from .conftest import UNEMPLOYMENT


def P(text: str) -> list[Passage]:
    return [Passage(text, 0, len(text))]


@pytest.mark.parametrize("claim, label, flag", [
    ("The unemployment rate rose to 4.2% in March 2024.", SUPPORTED, "extractive_match"),
    ("Unemployment reached 4.2% in March 2024.", PARTIAL, "facts_match"),  # paraphrase: never offline SUPPORTED
    ("The unemployment rate rose to 4.5% in March 2024.", CONTRADICTED, "percent_mismatch"),
    ("The unemployment rate rose to 4.2% in March 2023.", CONTRADICTED, "date_mismatch"),
    ("Wages rose 3.1 percent over the year.", SUPPORTED, "extractive_match"),
    ("Wages rose 3.4 percent over the year.", CONTRADICTED, "percent_mismatch"),
    ("The labour force grew by 15,000 people.", CONTRADICTED, "number_mismatch"),
    ("The central bank raised interest rates to 6 percent.", ABSENT, None),
    ("The unemployment rate rose sharply.", PARTIAL, "nothing_checkable"),
])
def test_deterministic_checker_labels(claim: str, label: str, flag: str | None) -> None:
    """Numbers, percentages and dates are compared only in aligned sentences; mismatches contradict."""
    v = DeterministicJudge().judge(claim, P(UNEMPLOYMENT))
    assert v.label == label
    if flag:
        assert flag in v.flags


def test_value_stated_elsewhere_on_the_page_is_not_a_mismatch() -> None:
    """A month stated elsewhere on the page is 'not found' where the claim aligns; a bare year is not excused;
    the sentence that states the claim's other values giving another month is a mismatch."""
    text = "The harvest fell to 900 tonnes last spring.\n\nThe museum opened 4 new rooms in March 2019."
    v = DeterministicJudge().judge("The harvest fell to 900 tonnes in March 2019.", P(text))
    assert v.label == PARTIAL and "date_not_found" in v.flags
    text = "The harvest fell to 900 tonnes in March 2023.\n\nThe museum opened 4 new rooms in March 2019."
    v = DeterministicJudge().judge("The harvest fell to 900 tonnes in March 2019.", P(text))
    assert v.label == CONTRADICTED and "date_mismatch" in v.flags
    text = "The harvest fell to 900 tonnes in 2023.\n\nThe museum opened 4 new rooms in 2019."
    v = DeterministicJudge().judge("The harvest fell to 900 tonnes in 2019.", P(text))
    assert v.label == CONTRADICTED and "date_mismatch" in v.flags


def test_plain_numbers_are_compared_only_with_the_same_unit() -> None:
    """1,600 jobs is not contradicted by 40,000 wafers, but is by 2,100 jobs."""
    page = "The fab will produce 40,000 wafers a month."
    assert DeterministicJudge().judge("The fab will produce wafers and create 1,600 jobs.", P(page)).label == PARTIAL
    page = "The fab will produce wafers and create 2,100 jobs."
    assert DeterministicJudge().judge("The fab will produce wafers and create 1,600 jobs.", P(page)).label == CONTRADICTED


def test_currency_scale_words_are_normalised() -> None:
    """'$1.2 billion' and '1,200 million dollars' are the same amount; '$1.3 billion' is not."""
    a, b, c, d = (extract_facts(t)[0] for t in ("$1.2 billion", "1,200 million dollars", "$1.3 billion", "USD 1.2 billion"))
    assert facts_equal(a, b) and not facts_equal(a, c) and facts_equal(d, a)
    assert extract_facts("EUR 312 million")[0].value == ("EUR", 312e6)
    assert extract_facts("Sixty-four per cent")[0].value == ("%", 64.0)


def test_claim_precision_rounding() -> None:
    """A claim of 4.2% matches a page saying 4.23%, but a claim of 4.23% does not match 4.2%."""
    a, b = (extract_facts(t)[0] for t in ("4.2%", "4.23 percent"))
    assert facts_equal(a, b) and not facts_equal(b, a)


def test_quotes_must_appear_where_the_claim_aligns() -> None:
    """A quotation in the claim is checked verbatim against the aligned passage sentences."""
    page = 'The minister said "we will not raise the fuel tax this year" at the press conference.'
    ok = DeterministicJudge().judge('The minister said "we will not raise the fuel tax this year".', P(page))
    bad = DeterministicJudge().judge('The minister said "we will raise the fuel tax next spring".', P(page))
    assert ok.label == SUPPORTED and "extractive_match" in ok.flags
    assert bad.label == CONTRADICTED and "quote_mismatch" in bad.flags


@settings(max_examples=80, deadline=None)
@given(st.text(min_size=1, max_size=120), st.text(min_size=1, max_size=300))
def test_deterministic_checker_supports_only_extracts(claim: str, page: str) -> None:
    """Whatever the input, the checker never raises, and says SUPPORTED only with the extractive flag (and
    never with the rule switched off)."""
    v = DeterministicJudge().judge(claim, P(page))
    assert v.label != SUPPORTED or v.flags == ("extractive_match",)
    assert DeterministicJudge(extractive_support=False).judge(claim, P(page)).label != SUPPORTED


def test_auto_judge_picks_llm_only_with_endpoint_and_model() -> None:
    """auto is deterministic without an endpoint, the LLM judge with OPENAI_BASE_URL and a model."""
    assert isinstance(make_judge("auto", environ={}), DeterministicJudge)
    assert isinstance(make_judge("auto", environ={names.ENV_OPENAI_BASE_URL: "http://127.0.0.1:9/v1"}),
                      DeterministicJudge)
    j = make_judge("auto", environ={names.ENV_OPENAI_BASE_URL: "http://127.0.0.1:9/v1", names.ENV_JUDGE_MODEL: "m"})
    assert isinstance(j, LLMJudge) and j.url == "http://127.0.0.1:9/v1/chat/completions"


@pytest.mark.parametrize("kind, kwargs, message", [
    ("llm", {}, "needs an endpoint"),
    ("llm", {"base_url": "http://127.0.0.1:9/v1"}, "needs a model"),
    ("nli", {}, "needs --nli-model"),
    ("nli", {"nli_model": "/nonexistent/model"}, "not found"),
    ("magic", {}, "unknown judge"),
    ("auto", {"model": "m"}, "--judge-model m given but OPENAI_BASE_URL is not set"),
])
def test_judge_factory_names_what_is_missing(kind: str, kwargs: dict[str, str], message: str) -> None:
    """A judge that cannot be built raises ValueError naming the missing piece."""
    with pytest.raises(ValueError, match=message):
        make_judge(kind, environ={}, **kwargs)


class _Fixed:
    name, version = "llm", "test"

    def __init__(self, label: str) -> None:
        self.label = label

    def judge(self, claim: str, passages: object) -> object:
        from citetrace.eval import Verdict

        return Verdict(self.label, "llm", "x")


def test_checker_caps_a_supported_verdict_with_a_wrong_number() -> None:
    """A model judge's SUPPORTED becomes PARTIAL, flagged, when the checker finds a mismatched number."""
    final, check = judge_with_checker(_Fixed(SUPPORTED), "The unemployment rate rose to 4.9% in March 2024.",
                                      P(UNEMPLOYMENT))  # type: ignore[arg-type]
    assert final.label == PARTIAL and "checker_mismatch" in final.flags
    assert check is not None and check.label == CONTRADICTED
    kept, _ = judge_with_checker(_Fixed(SUPPORTED), "The unemployment rate rose to 4.2% in March 2024.",
                                 P(UNEMPLOYMENT))  # type: ignore[arg-type]
    assert kept.label == SUPPORTED
