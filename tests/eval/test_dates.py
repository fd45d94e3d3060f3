"""A page's own date for the stale check: metadata, then a dateline; body text and decades never date it."""

from __future__ import annotations

from datetime import date

from citetrace.eval import is_stale, page_date
from citetrace.eval._facts import extract_facts

NOW = 1_733_000_000.0  # 2024-11-30


def test_body_cue_does_not_beat_the_dateline() -> None:
    """A "date" cue in the body ("the election date ... 3 May 2019") loses to the page's dateline."""
    text = ("Oslo, 2 April 2024 — The council met on Tuesday.\n\n"
            "The election date was set for 3 May 2019 at the time, officials recalled.\n")
    assert page_date(text) == date(2024, 4, 2)


def test_cue_needs_a_word_boundary() -> None:
    """"candidate" is not the cue "date": its date stays body text."""
    text = "City news\n\n" + "intro " * 60 + "Each candidate 4 March 2015 filed papers, the office said.\n"
    assert page_date(text) is None


def test_dateline_line_is_read() -> None:
    """A line that starts with "Published:" / "Last updated" gives the date, even below a title."""
    assert page_date("Title\n\nPublished: 2 April 2024.\n\nBody.") == date(2024, 4, 2)
    assert page_date("Title\n" + "intro " * 80 + "\n**Last updated** 12 March 2023\n") == date(2023, 3, 12)


def test_html_metadata_wins() -> None:
    """The HTML page's article:published_time (read by htmldate) beats any date in the visible text."""
    html = ('<html><head><meta property="article:published_time" content="2015-03-02T10:00:00Z"></head>'
            "<body><p>Updated 3 May 2024.</p></body></html>")
    assert page_date(html, "text/html") == date(2015, 3, 2)
    assert is_stale("Prices are currently rising.", html, now=NOW, max_age_days=365, content_type="text/html")


def test_decades_are_not_years() -> None:
    """"the 2000's" and "1990s" are decades: no year 2000 or 1990 is read from them."""
    facts = extract_facts("Growth in the 2000's and the 1990s was slower than in 2024.")
    assert [(f.kind, f.value) for f in facts] == [("date", (2024, None, None))]
