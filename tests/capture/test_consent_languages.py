"""The consent-wall check beyond English and beyond 6,000 characters, over the whole corpus (each wall and page
is also its own case in test_consent.py): walls in German, French, Spanish, Italian and Dutch (plain text,
HTML, markdown), a consent layer with every purpose spelled out (over 6,000 visible characters, also in capitals
and as German HTML), and ordinary pages in the same languages that talk about cookies, consent or privacy.
Corpus: tests/capture/_consent_corpus_intl.py (written for this check)."""

from __future__ import annotations

from citetrace import names
from citetrace.capture._consent import MAX_CHARS
from citetrace.capture._extract import read_status

from ._consent_corpus import ARTICLES as EN_ARTICLES, WALLS as EN_WALLS
from ._consent_corpus_intl import ARTICLES, WALLS


def test_the_long_walls_are_long() -> None:
    """The long walls are over the old 6,000-character bound, and under the new one."""
    for name in ("en_long_layer", "en_long_layer_capitals"):
        assert 6000 < len(WALLS[name]) <= MAX_CHARS, name
    assert len(ARTICLES["en_long_article_quoting_a_banner"]) > 6000
    assert len(ARTICLES["en_long_privacy_policy"]) > 6000


def test_the_whole_corpus_scores_clean() -> None:
    """Over both corpora (English and the rest): 0 misses, 0 false alarms."""
    walls = {**EN_WALLS, **WALLS}
    pages = {**EN_ARTICLES, **ARTICLES}
    misses = [n for n, t in walls.items() if read_status(t, 200)[1] != names.CONSENT_WALL]
    alarms = [n for n, t in pages.items() if read_status(t, 200)[0] != names.STATUS_OK]
    assert (misses, alarms) == ([], [])
