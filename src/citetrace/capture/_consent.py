"""Consent walls: a fetched page whose visible text is a cookie/consent notice and little else.

A fetch that lands on a consent wall ("We and our 842 partners store and/or access information on a
device...") read nothing of the page it asked for, but its text is over the ``empty`` size rule, so it was
an ``ok`` read that eval then searched for the claim. The size rule cannot see it; the words can.

The rule, deliberately narrow (an ordinary page wrongly called empty hides a real read):

- the text is cut into sentences and lines (buttons are lines of their own);
- a **consent sentence** names a consent subject (cookies, consent, partners, vendors, tracking,
  personalised ads, advertising profiles, identifiers, privacy, personal data, opting out, "your data/device/
  activity") *and* speaks to the reader as the site ("we", "our", "you", "your", "my"), or is a button label
  made only of consent-interface words ("Accept all", "Manage preferences", "Legitimate interest"); the
  same in German, French, Spanish, Italian and Dutch (Einwilligung/wir/Sie, consentement/nous/vous,
  consentimiento/nosotros/tu, consenso/noi/tuo, toestemming/wij/u...);
- a page is a wall when consent sentences are at least 60 % of its visible text, what is left is under 400
  characters or a quarter of the text (a layer with every purpose spelled out has purpose titles and
  toggles), and one of them asks the reader to accept (accept, agree, allow, consent to; akzeptieren,
  zustimmen, accepter, aceptar, accettare, accepteren, akkoord...).

So an article *about* cookie law, a recipe for cookies, a privacy policy, a consent-platform vendor's
page, a help page on changing cookie settings or an article with a one-line cookie footer stay ``ok``: they
talk about cookies in the third person, have far more other text, or ask nothing. The look stops as soon as
400 characters of other text outweigh the consent text (an ordinary page says so in its first paragraphs),
which also bounds the cost. Pages over ``MAX_CHARS`` visible characters are never walls, and a text that
names no cookie, consent or privacy stem in its first ``HINT_CHARS`` is not looked at. tests/capture/
test_consent.py and test_consent_languages.py run it over a corpus of walls and ordinary pages
(tests/capture/_consent_corpus.py, _consent_corpus_intl.py) and report the misses and false alarms.
"""

from __future__ import annotations

import re

__all__ = ["MAX_CHARS", "hinted", "is_consent_wall"]

MAX_CHARS = 20_000
"""Visible text longer than this is a page, not a wall. A first layer is under 2,000 characters; a layer with
every purpose spelled out (the IAB TCF second layer) is 6,000-10,000."""
MIN_SHARE = 0.6
MAX_OTHER = 400
OTHER_SHARE = 0.25
"""Other text allowed besides ``MAX_OTHER``, as a share of the visible text: a long layer has purpose titles and
per-purpose toggles that are not sentences to the reader. The 60 % consent share still has to hold."""

_STEMS = ("ookie", "onsen", "rivacy", "atenschutz", "inwilligung", "oestemming", "OOKIE")
"""A cheap first look (substring searches, ~20x faster than one case-blind regex over a page): a text without
any of these is not a wall. Lower-case stems match "Cookie" and "cookie" (every language here writes it so),
"onsen" consent/consentement/consentimiento/consenso, and "OOKIE" a wall set in capitals."""
HINT_CHARS = 2000
"""How far into a plain text the stems are looked for: a wall names cookies or consent in its first lines."""


def hinted(text: str) -> bool:
    """The text names cookies, consent or privacy somewhere: worth the closer look."""
    return any(stem in text for stem in _STEMS)


_SUBJECT = re.compile(
    r"\b(?:"  # one word-boundary test, then the alternatives (a leading \b on each cost ~5x per piece)
    # English
    r"cookies?\b|consent|partners?\b|vendors?\b|tracking\b|personali[sz]|privacy\b|"
    r"personal\s+(?:data|information|aspects)\b|opt[\s-]?out\b|legitimate\s+interest|advertis|"
    r"profiles?\b|identifiers?\b|geolocation|your\s+(?:data|device|activity|interactions?|interests|location|"
    r"choices)\b|"
    # German, French, Spanish, Italian, Dutch
    r"datenschutz|einwilligung|zustimm|personenbezogen|personalisiert|werbung|"
    r"consentement|partenaires?\b|traceurs?\b|donn[ée]es\s+personnelles|confidentialit|vie\s+priv|"
    r"publicit|consentimiento|socios?\b|privacidad|datos\s+personales|consenso|fornitori|"
    r"terze\s+parti|dati\s+personali|toestemming|persoonsgegevens|gepersonaliseerd|advertenties?\b)",
    re.IGNORECASE,
)
_ADDRESS = re.compile(
    r"\b(?:we|our|ours|us|you|your|you've|you're|my"
    r"|wir|uns|unser\w*|sie|ihr\w*|du|dein\w*"  # German
    r"|nous|notre|nos|vous|votre|vos|tu|ton|tes"  # French
    r"|nosotros|nuestr[oa]s?|usted(?:es)?|su|sus|tus?"  # Spanish
    r"|noi|nostr[oiae]|tuoi|tuo|tua|tue|vostr[oiae]"  # Italian
    r"|wij|ons|onze|je|jouw|jij|u|uw)\b",  # Dutch
    re.IGNORECASE)
_ACTION = re.compile(
    r"\b(?:accept\w*|agree\w*|allow\w*|consent(?:ing)?\s+to|akzeptier\w*|zustimm\w*|stimmen\b.*\bzu|"
    r"einwillig\w*|willigen\b.*\bein|einverstanden|accepter|acceptez|j'accepte|consentez|acepta\w*|acepto|"
    r"consiente\w*|accett\w*|acconsent\w*|accepteren|akkoord|toestaan)\b",
    re.IGNORECASE)
"""A wall asks the reader to accept: a help page on changing cookie settings only explains how."""
_BUTTON_WORDS = frozenset(
    "accept accepted agree disagree reject refuse decline allow deny continue manage preferences settings options "
    "more save confirm my choices choice customise customize necessary essential only all cookies cookie use "
    "selection show details statistics marketing functional analytics privacy policy and & i ok okay got it "
    "consent legitimate interest object purposes vendors partners features "
    "alle akzeptieren ablehnen einstellungen verwalten zustimmen einwilligen und weiter nur notwendige auswahl "
    "speichern "
    "tout accepter refuser paramétrer mes choix personnaliser gérer en savoir plus continuer sans "
    "aceptar todo todas rechazar configurar y continuar "
    "accetta tutto tutti rifiuta gestisci le preferenze scopri di più e personalizza continua senza "
    "alles accepteren weigeren afwijzen instellingen beheren voorkeuren akkoord".split()
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
    if len(visible) > MAX_CHARS or not hinted(visible[:HINT_CHARS]):
        return False
    text = _MD_LINK.sub(r"\1", visible) if "](" in visible else visible  # a markdown link: its words only
    text = text.replace("*", "").replace("_", " ")
    budget = max(MAX_OTHER, OTHER_SHARE * len(text))
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
        if other >= budget or (other >= MAX_OTHER and other > consent):
            return False  # the second: an ordinary page says so in its first paragraphs (a wall opens with consent)
    total = consent + other
    return asks and total > 0 and consent / total >= MIN_SHARE
