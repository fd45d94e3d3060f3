"""The closed set of faults the demo can show, and how a selection of them is parsed.

Server-side faults change what the local servers answer (a 429, a page that is gone, too slow, or behind a
cookie wall); agent-side faults change what the scripted agent does (a typo query that finds nothing, a
repeated query, a rephrase loop, a citation no search returned, a citation the agent never read).
"""

from __future__ import annotations

from typing import Final, Iterable

__all__ = [
    "EMPTY_SEARCH",
    "RATE_LIMIT",
    "NOT_FOUND",
    "TIMEOUT",
    "COOKIE_WALL",
    "REPEAT_QUERY",
    "UNCITED_CITATION",
    "UNFETCHED_CITATION",
    "SEARCH_LOOP",
    "FAULTS",
    "SERVER_FAULTS",
    "FAULT_HELP",
    "parse_faults",
]

EMPTY_SEARCH: Final = "empty_search"
RATE_LIMIT: Final = "rate_limit"
NOT_FOUND: Final = "not_found"
TIMEOUT: Final = "timeout"
COOKIE_WALL: Final = "cookie_wall"
REPEAT_QUERY: Final = "repeat_query"
UNCITED_CITATION: Final = "uncited_citation"
UNFETCHED_CITATION: Final = "unfetched_citation"
SEARCH_LOOP: Final = "search_loop"

FAULT_HELP: Final = {
    EMPTY_SEARCH: "a typo query that the search finds nothing for (status empty)",
    RATE_LIMIT: "the search endpoint answers HTTP 429 (status rate_limited)",
    NOT_FOUND: "a page the search still lists is gone: HTTP 404 (status error)",
    TIMEOUT: "a page answers slower than the reader's timeout (status error, ReadTimeout)",
    COOKIE_WALL: "a page answers 200 with only a cookie banner, < 200 characters of text (status empty)",
    REPEAT_QUERY: "the agent runs the same query again, differing only in case and spacing",
    UNCITED_CITATION: "the report cites a page no search returned (the agent read it from memory)",
    UNFETCHED_CITATION: "the report cites a search result the agent never read",
    SEARCH_LOOP: "the agent rephrases one question 11 times (more than the 10-search threshold)",
}
"""Each fault with a one-line description (for ``citetrace demo --list`` and the docs)."""

FAULTS: Final = tuple(FAULT_HELP)
"""Every fault, in the order the docs list them."""

SERVER_FAULTS: Final = (RATE_LIMIT, NOT_FOUND, TIMEOUT, COOKIE_WALL)
"""Faults the local servers apply (the rest are the agent's doing)."""


def parse_faults(spec: str | Iterable[str] | None) -> frozenset[str]:
    """A fault selection from ``"all"``, ``"none"``, a comma-separated list or an iterable of names.

    ``None`` means all faults. Unknown names raise ValueError naming them and the valid choices.
    """
    if spec is None:
        return frozenset(FAULTS)
    if isinstance(spec, str):
        raw = spec.strip().lower()
        if raw == "all":
            return frozenset(FAULTS)
        if raw in ("none", ""):
            return frozenset()
        items = [s.strip() for s in raw.split(",") if s.strip()]
    else:
        items = [str(s).strip().lower() for s in spec]
    unknown = sorted(set(items) - set(FAULTS))
    if unknown:
        raise ValueError(f"unknown fault(s) {', '.join(unknown)}; choose from {', '.join(FAULTS)}, all or none")
    return frozenset(items)
