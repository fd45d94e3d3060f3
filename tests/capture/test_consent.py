"""Consent walls are empty reads: a page whose visible text is a cookie/consent notice with little else
(outside check hout: "We and our 842 partners..." over 200 characters was an ``ok`` read). Ordinary pages
that mention cookies, consent or privacy stay ``ok``. The corpus is tests/capture/_consent_corpus.py and
_consent_corpus_intl.py (other languages, long walls)."""

from __future__ import annotations

from typing import Any

import pytest

from citetrace import names, research_run, traced_tool
from citetrace.capture._consent import is_consent_wall
from citetrace.capture._extract import read_status
from citetrace.store import MemoryStore
from citetrace.testing import capture_spans

from ._consent_corpus import ARTICLES, WALLS
from ._consent_corpus_intl import ARTICLES as MORE_ARTICLES, WALLS as MORE_WALLS

ALL_WALLS = {**WALLS, **MORE_WALLS}
ALL_ARTICLES = {**ARTICLES, **MORE_ARTICLES}


@pytest.mark.parametrize("name", list(ALL_WALLS))
def test_every_wall_of_the_corpus_is_empty(name: str) -> None:
    """No misses: each wall shape (both corpora: English, and German, French, Spanish, Italian, Dutch and the
    long layers) reads ``empty`` with the reason ``consent_wall``."""
    assert len(ALL_WALLS[name]) > 200
    assert read_status(ALL_WALLS[name], 200) == (names.STATUS_EMPTY, names.CONSENT_WALL)


@pytest.mark.parametrize("name", list(ALL_ARTICLES))
def test_no_ordinary_page_of_the_corpus_is_a_wall(name: str) -> None:
    """No false alarms: articles about cookie law, cookie recipes, privacy policies, cookie footers, a court
    ruling, a long article quoting a banner, in every language of the corpus."""
    assert len(ALL_ARTICLES[name]) > 200
    assert read_status(ALL_ARTICLES[name], 200) == (names.STATUS_OK, None)


def test_a_wall_in_front_of_the_whole_article_is_a_read() -> None:
    """A consent banner served with the article's full text is the article: ok."""
    page = WALLS["html_noscript"].replace("</body>", f"<article><p>{ARTICLES['cookie_law']}</p></article></body>")
    assert read_status(page, 200) == (names.STATUS_OK, None)


def test_long_text_is_never_a_wall() -> None:
    """Past the bound (``MAX_CHARS``: a wall with every purpose spelled out is under it) the rule does not look."""
    from citetrace.capture._consent import MAX_CHARS

    wall = WALLS["tcf_partners"]
    assert is_consent_wall("\n\n".join([wall] * 10))  # 10 KB of consent text: a long wall
    assert not is_consent_wall("\n\n".join([wall] * (MAX_CHARS // len(wall) + 1)))


def test_a_wall_fetched_by_a_traced_tool_is_an_empty_read() -> None:
    """Through @traced_tool: the span's status is empty and says why; the text is still stored (it is what
    the fetch saw), and the run counts no read."""
    store = MemoryStore()

    @traced_tool(kind="fetch")
    def fetch(url: str) -> str:
        return WALLS["tcf_partners"]

    with capture_spans(store=store) as cap:
        with research_run(question="q") as run:
            fetch("https://news.example/article/42")
    (span,) = cap.tool_spans()
    attrs: dict[str, Any] = dict(span.attributes or {})
    assert (attrs[names.TOOL_STATUS], attrs[names.CONTENT_UNREADABLE]) == ("empty", names.CONSENT_WALL)
    doc = store.get(run.id, "https://news.example/article/42")
    assert doc is not None and doc.status == "empty"
