"""The shipped corpus: enough pages, real material for citation and number checks, readable as served."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

from citetrace.demo import PAGE_FAULTS, html_to_text, load_corpus, page
from citetrace.demo._corpus import _parse


def test_corpus_has_thirty_pages_on_several_topics() -> None:
    """At least 30 pages with unique slugs, spread over at least four topics with five or more pages each."""
    pages = load_corpus()
    assert len(pages) >= 30
    assert len({p.slug for p in pages}) == len(pages)
    topics = Counter(p.topic for p in pages)
    assert len(topics) >= 4 and min(topics.values()) >= 5


def test_every_page_carries_checkable_facts() -> None:
    """Each page has a title, a date, numbers, and the corpus has percentages and currency amounts throughout."""
    pages = load_corpus()
    for p in pages:
        assert p.title and p.publisher and isinstance(p.date, dt.date)
        assert re.search(r"\d", p.body), p.slug
        assert len(p.text) >= 300, p.slug
    with_percent = [p for p in pages if re.search(r"\d %|per cent", p.body)]
    with_money = [p for p in pages if re.search(r"(\$|EUR )\d", p.body)]
    assert len(with_percent) >= 20 and len(with_money) >= 20


def test_pages_that_disagree_and_stale_pages_exist() -> None:
    """Two surveys disagree on the 2023 pack price, two sources on 2024 trips; several pages predate 2020."""
    assert "$139 per kWh" in page("battery-pack-prices-2023").body
    assert "$151 per kWh" in page("battery-prices-council-survey").body
    assert "4.2 million trips" in page("halverncycle-ridership-2024").body
    assert "3.8 million" in page("halverncycle-city-audit").body
    stale = [p for p in load_corpus() if p.date.year < 2020]
    assert len(stale) >= 4


def test_fault_pages_are_declared() -> None:
    """Exactly one page carries each page fault, and only known faults appear."""
    faults = Counter(p.fault for p in load_corpus() if p.fault)
    assert faults == Counter({f: 1 for f in PAGE_FAULTS})


def test_reader_text_equals_page_text() -> None:
    """The agent's HTML-to-text reader recovers exactly the page's title, byline and paragraphs."""
    for p in load_corpus():
        assert html_to_text(p.html()) == p.text


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ("no front matter", "missing front matter"),
        ("---\nslug: x\n---\nbody", "missing title"),
        ("---\nslug x\n---\nbody", "bad front-matter line"),
        ("---\nslug: y\ntitle: t\ndate: 2024-01-01\npublisher: p\ntopic: t\n---\nbody", "does not match"),
        ("---\nslug: x\ntitle: t\ndate: 2024-01-01\npublisher: p\ntopic: t\nfault: boom\n---\nb", "unknown fault"),
    ],
)
def test_bad_pages_are_rejected_with_the_problem_named(raw: str, problem: str) -> None:
    """A malformed corpus file raises ValueError naming the file and the problem."""
    with pytest.raises(ValueError, match=problem):
        _parse("x.md", raw)
