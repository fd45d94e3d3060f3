"""A page's own date, for the ``stale`` check: HTML metadata first, then a dateline, never body text.

Two ways this went wrong before: a date cue anywhere in the first 5,000 characters ("the election date",
"updated its forecast in May 2019") beat the page's real dateline, and the cue had no leading word boundary
("candidate" matched "date"). Both made fresh pages look stale. The order now:

1. HTML metadata (``article:published_time``, JSON-LD ``datePublished``, ``<time>`` ...) read by htmldate, a
   maintained extractor, when the stored text is HTML (its content type says so or it starts with a tag).
   Only metadata is read (no "extensive search" of the body) and the original publication date is asked for.
2. A dateline: a line that starts with a cue ("Published:", "Updated", "Posted", "Date:", "As of",
   "Last reviewed"...) within the opening 1,500 characters, followed by a date with at least a month.
3. The first full or month date in the opening 300 characters (a byline date such as "Oslo, 2 April 2024").

A bare year never dates a page, and neither do decades ("the 2000's").
"""

from __future__ import annotations

import logging
import re
from datetime import date

from citetrace.eval._facts import find_dates

__all__ = ["page_date", "metadata_date"]

_log = logging.getLogger("citetrace.eval")

_DATELINE = re.compile(
    r"(?im)^[\s*_>#|-]{0,6}\b(?:first\s+)?(published|updated|posted|last\s+(?:modified|updated|reviewed)|date|dated|"
    r"as\s+of|released|issued)\b\s*(?:on\s*)?[:\-–]?\s*"
)
_OPENING = 300
_DATELINE_WINDOW = 1500


def _looks_like_html(text: str, content_type: str | None) -> bool:
    return bool(content_type and "html" in content_type.lower()) or text.lstrip()[:1] == "<"


def metadata_date(html: str) -> date | None:
    """The publication date in the page's HTML metadata, via htmldate (None when absent or not installed)."""
    try:
        import htmldate
    except ImportError:  # optional: citetrace[eval] installs it
        return None
    try:
        found = htmldate.find_date(html, extensive_search=False, original_date=True, outputformat="%Y-%m-%d")
    except Exception:  # a third-party parser on arbitrary HTML may raise anything
        _log.debug("citetrace eval: htmldate failed on a stored page", exc_info=True)
        return None
    if not found:
        return None
    try:
        return date.fromisoformat(str(found)[:10])
    except ValueError:
        return None


def _first_dated(text: str) -> date | None:
    for fact in find_dates(text):
        y, m, d = fact.value
        if m is not None:
            return date(y, m, d or 1)
    return None


def page_date(text: str, content_type: str | None = None) -> date | None:
    """The page's own date (metadata, then a dateline, then the opening), or None when it has none."""
    if _looks_like_html(text, content_type):
        found = metadata_date(text)
        if found is not None:
            return found
    head = text[:_DATELINE_WINDOW]
    for cue in _DATELINE.finditer(head):
        line_end = text.find("\n", cue.end())
        found = _first_dated(text[cue.end(): cue.end() + 60 if line_end < 0 else min(line_end, cue.end() + 60)])
        if found is not None:
            return found
    return _first_dated(text[:_OPENING])
