"""The one URL extractor (citetrace._urlfind): where URLs end in prose, and in linear time."""

from __future__ import annotations

import pytest

from citetrace._urlfind import urls_in


@pytest.mark.parametrize(("text", "expected"), [
    ("(see https://a.example/x)", ["https://a.example/x"]),
    ("[t](https://a.example/x).", ["https://a.example/x"]),
    ("https://en.wikipedia.org/wiki/Mercury_(planet)).", ["https://en.wikipedia.org/wiki/Mercury_(planet)"]),
    ("https://a.example/x).;", ["https://a.example/x"]),
    ("https://a.example/(a)(b)))", ["https://a.example/(a)(b)"]),
])
def test_trailing_punctuation_and_unbalanced_parentheses_end_a_url(text: str, expected: list[str]) -> None:
    """Sentence punctuation and a closing parenthesis without its opening one are not part of the URL."""
    assert urls_in(text) == expected


@pytest.mark.timeout(60)  # quadratic before: each ")" recounted the URL (40,000 took 0.5 s, these would take hours)
def test_a_run_of_closing_parentheses_is_trimmed_in_linear_time() -> None:
    """An answer or page with a URL followed by a million ")" is read in linear time."""
    assert urls_in("see https://a.example/x" + ")" * 2_000_000) == ["https://a.example/x"]
