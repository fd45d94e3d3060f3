"""Consent walls: a fetched page whose visible text is a cookie/consent notice and little else.

A fetch that lands on a consent wall ("We and our 842 partners store and/or access information on a
device...") read nothing of the page it asked for, but its text is over the ``empty`` size rule, so it was
an ``ok`` read that eval then searched for the claim. The size rule cannot see it; the words can.

The rule, deliberately narrow (an ordinary page wrongly called empty hides a real read):

- the text is cut into sentences and lines (buttons are lines of their own);
- a **consent sentence** names a consent subject (cookies, consent, partners, vendors, tracking,
  personalised ads, privacy, personal data, opting out) *and* speaks to the reader as the site ("we", "our",
  "you", "your", "my"), or is a button label made only of consent-interface words ("Accept all", "Manage
  preferences", "Use necessary cookies only");
- a page is a wall when consent sentences are at least 60 % of its visible text, what is left is under 400
  characters, and one of them asks the reader to accept (accept, agree, allow, consent to).

So an article *about* cookie law, a recipe for cookies, a privacy policy, a consent-platform vendor's
page, a help page on changing cookie settings or an article with a one-line cookie footer stay ``ok``: they
talk about cookies in the third person, have far more than 400 characters of other text, or ask nothing. Pages over ``MAX_CHARS`` visible characters are never walls (a wall is short;
the bound also bounds the cost). tests/capture/test_consent.py runs it over a corpus of walls and ordinary
pages (tests/capture/_consent_corpus.py) and reports the misses and false alarms.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "hinted", "is_consent_wall"]

MAX_CHARS = 6000
"""Visible text longer than this is a page, not a wall."""
MIN_SHARE = 0.6
MAX_OTHER = 400

_STEMS = ("ookie", "onsent", "rivacy", "atenschutz")
"""A cheap first look (substring searches, ~20x faster than one case-blind regex over a page): a text without
any of these is not a wall. Lower-case stems match "Cookie" and "cookie"; an all-capitals-only wall is missed."""


def hinted(text: str) -> bool:
    """The text names cookies, consent or privacy somewhere: worth the closer look."""
    return any(stem in text for stem in _STEMS)
_SUBJECT = re.compile(
    r"\bcookies?\b|\bconsent|\bpartners?\b|\bvendors?\b|\btracking\b|\bpersonali[sz]|\bprivacy\b|"
    r"\bpersonal\s+(?:data|information)\b|\bopt[\s-]?out\b|\blegitimate\s+interest|\bdatenschutz|"
    r"\beinwilligung|\bcookie",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"\b(?:we|our|ours|us|you|your|you've|you're|my|wir|unser\w*|ihr\w*|nous|vous|votre)\b",
                      re.IGNORECASE)
_ACTION = re.compile(r"\b(?:accept\w*|agree\w*|allow\w*|consent(?:ing)?\s+to|akzeptieren|zustimmen|accepter)\b",
                     re.IGNORECASE)
"""A wall asks the reader to accept: a help page on changing cookie settings only explains how."""
_BUTTON_WORDS = frozenset(
    "accept accepted agree disagree reject refuse decline allow deny continue manage preferences settings options "
    "more save confirm my choices choice customise customize necessary essential only all cookies cookie use "
    "selection show details statistics marketing functional analytics privacy policy and & i ok okay got it "
    "alle akzeptieren ablehnen einstellungen".split()
)
_PIECES = re.compile(r"[^\n.!?]+(?:[.!?]+|$)", re.MULTILINE)
_MD_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\s]*\)")
_WORDS = re.compile(r"[\w&']+")


def _is_button(piece: str) -> bool:
    words = [w.lower() for w in _WORDS.findall(piece)]
    return 0 < len(words) <= 6 and all(w in _BUTTON_WORDS for w in words)


def is_consent_wall(visible: str) -> bool:
    """True when ``visible`` (a page's visible text: plain text, markdown, or HTML's text) is a consent notice
    with little other content; see the module docstring for the rule."""
    if len(visible) > MAX_CHARS or not hinted(visible):
        return False
    text = _MD_LINK.sub(r"\1", visible).replace("*", "").replace("_", " ")
    consent = other = 0
    asks = False
    for m in _PIECES.finditer(text):
        piece = m.group(0).strip(" \t#>-|:\"'")
        size = len(piece)
        if not size:
            continue
        button = _is_button(piece)
        if button or (_SUBJECT.search(piece) and _ADDRESS.search(piece)):
            consent += size
            asks = asks or bool(_ACTION.search(piece))
        else:
            other += size
        if other >= MAX_OTHER:
            return False
    total = consent + other
    return asks and total > 0 and consent / total >= MIN_SHARE
