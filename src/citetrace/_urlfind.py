"""The one URL extractor: where the http(s) URLs are in a piece of text.

Used by citation extraction (capture and eval), URL redaction inside free text and answers, plain-string search
results and markdown link lists, so that every part of citetrace sees the same URLs in the same text.

A URL runs from ``http://`` or ``https://`` to the first whitespace, quote, backtick, angle bracket, square
bracket, full-width punctuation mark (。，（）...) or typographic quote (“ ” „ « » …); non-ASCII letters stay in it. Trailing punctuation that ends a sentence or a markdown emphasis (``.,;:!?*_'"``) is not part of it,
and neither is a closing parenthesis without its opening one (``(see https://a.example/x)``, a markdown link
``[t](https://a.example/x)``), while a balanced one stays (``https://en.wikipedia.org/wiki/Mercury_(planet)``).
"""

from __future__ import annotations

import re
from typing import Iterator

__all__ = ["URL_PATTERN", "MARKDOWN_LINK", "AUTOLINK", "HTML_LINK", "url_spans", "urls_in", "first_url"]

_STOPS = "。，、；：！？（）【】「」『』《》〈〉“”‘’„‚«»…"
"""Full-width punctuation and typographic quotes: no URL holds them raw, and Chinese or Japanese text puts no
space after a URL ("https://a.example/x。下一句"), so without them a URL ran on into the next sentence."""
URL_PATTERN = rf"https?://[^\s<>\"'`\]\[{_STOPS}]+"
"""A URL's longest possible extent (``url_spans`` then trims trailing punctuation); for combined tokenizers."""
_URL = re.compile(URL_PATTERN, re.IGNORECASE)
MARKDOWN_LINK = re.compile(
    r"!?\[((?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]\(\s*<?(https?://(?:[^()\s<>]|\([^()\s<>]*\))+)>?(?:\s+\"[^\"]*\")?\s*\)")
"""A markdown link or image ``[title](url "optional title")``: group 1 the title, group 2 the URL. The title
may hold one level of brackets, as markdown allows: ``[[2]](url)`` is a link titled ``[2]`` (it read as a
bare marker ``[2]`` with no reference entry, and the report failed to parse). The URL may hold balanced
parentheses, as markdown allows too: ``[Wikipedia](https://en.wikipedia.org/wiki/Mercury_(planet))`` (it was
cut at the first ``)``, so the page the run fetched was cited as a page it never fetched)."""
AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
"""A markdown autolink ``<url>``: group 1 the URL."""
HTML_LINK = re.compile(
    r"""<a\s[^<>]*?\bhref\s*=\s*(["']?)(https?://[^"'\s<>]+)\1[^<>]*>((?:(?!</a\s*>)[^\n])*)</a\s*>""", re.I)
"""An HTML link ``<a href="url">label</a>`` on one line (agents write them inside markdown): group 2 the URL,
group 3 the label. It is a link like a markdown one: the href is what it cites, the label is text."""
_TRAILING = ".,;:!?*_'\""
_MIN = len("https://")


def url_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every URL in ``text``, in order."""
    for match in _URL.finditer(text):
        start, end = match.span()
        opens = closes = -1  # counted once, when a ")" is first met, then kept up to date (a run of ")" was quadratic)
        while end > start:
            last = text[end - 1]
            if last == ")":
                if opens < 0:
                    opens, closes = text.count("(", start, end), text.count(")", start, end)
                if opens >= closes:
                    break
                closes -= 1
            elif last not in _TRAILING:
                break
            end -= 1
        if end - start > _MIN:
            yield start, end


def urls_in(text: str) -> list[str]:
    """Every URL in ``text``, in order, repeats included."""
    return [text[s:e] for s, e in url_spans(text)]


def first_url(text: str) -> str | None:
    """The first URL in ``text``, or None."""
    for s, e in url_spans(text):
        return text[s:e]
    return None
