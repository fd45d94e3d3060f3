"""Consent walls are empty reads: a page whose visible text is a cookie/consent notice with little else
(outside check hout: "We and our 842 partners..." over 200 characters was an ``ok`` read). Ordinary pages
that mention cookies, consent or privacy stay ``ok``. The corpus is tests/capture/_consent_corpus.py."""

from __future__ import annotations

from typing import Any

import pytest

from citetrace import names, research_run, traced_tool
from citetrace.capture._consent import is_consent_wall
from citetrace.capture._extract import read_status
from citetrace.store import MemoryStore
from citetrace.testing import capture_spans

from ._consent_corpus import ARTICLES, WALLS


@pytest.mark.parametrize("name", list(WALLS))
def test_every_wall_of_the_corpus_is_empty(name: str) -> None:
    """No misses: each wall shape reads ``empty`` with the reason ``consent_wall``."""
    assert len(WALLS[name]) > 200
    assert read_status(WALLS[name], 200) == (names.STATUS_EMPTY, names.CONSENT_WALL)


@pytest.mark.parametrize("name", list(ARTICLES))
def test_no_ordinary_page_of_the_corpus_is_a_wall(name: str) -> None:
    """No false alarms: articles about cookie law, cookie recipes, a privacy policy, a cookie footer."""
    assert len(ARTICLES[name]) > 200
    assert read_status(ARTICLES[name], 200) == (names.STATUS_OK, None)


def test_a_wall_in_front_of_the_whole_article_is_a_read() -> None:
    """A consent banner served with the article's full text is the article: ok."""
    page = WALLS["html_noscript"].replace("</body>", f"<article><p>{ARTICLES['cookie_law']}</p></article></body>")
    assert read_status(page, 200) == (names.STATUS_OK, None)


def test_long_text_is_never_a_wall() -> None:
    """Past the bound the rule does not look (a wall is short)."""
    assert not is_consent_wall(WALLS["tcf_partners"] * 10)


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
