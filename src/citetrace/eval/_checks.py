"""Mechanical checks that need no model: was the cited page fetched in the run, did a search return it,
and is it stale (the page's own date is old while the claim speaks of the present).

Everything here reads the run store only. URLs are compared by ``citetrace._urls.url_key`` (redacted, canonical, http and
https alike), the same key the run summary uses for ``cited_not_fetched``: a cited URL carrying a secret meets
the redacted URL the store holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from citetrace import names
from citetrace._urls import url_key as _key
from citetrace.eval._dates import page_date
from citetrace.store import Document, Store

__all__ = ["RunIndex", "page_date", "phrased_as_current", "is_stale"]


@dataclass
class RunIndex:
    """What one run fetched and what its searches returned, keyed for same-page lookups."""

    documents: dict[str, Document] = field(default_factory=dict)
    failed: dict[str, Document] = field(default_factory=dict)
    searched: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, store: Store, run_id: str) -> "RunIndex":
        index = cls()
        for doc in store.documents(run_id):
            usable = doc.status in (names.STATUS_OK, names.STATUS_EMPTY) and bool(doc.text.strip())
            (index.documents if usable else index.failed)[_key(doc.url)] = doc
        for key in list(index.failed):
            if key in index.documents:
                del index.failed[key]
        for call in store.calls(run_id):
            if call.kind == names.TOOL_KIND_SEARCH:
                index.searched.update(_key(u) for u in call.urls_returned)
        return index

    def fetched(self, url: str) -> Document | None:
        """The latest usable stored text for ``url``, or None when the run never read it successfully."""
        return self.documents.get(_key(url))

    def fetch_failed(self, url: str) -> bool:
        """True when the run tried to read ``url`` and got no usable text."""
        return _key(url) in self.failed

    def returned_by_search(self, url: str) -> bool:
        """True when some search of the run listed ``url`` among its results."""
        return _key(url) in self.searched


_CURRENT = re.compile(
    r"\b(currently|current|now|today|at present|presently|latest|nowadays|this year|so far this year|"
    r"as of (now|today)|to date|ongoing|still)\b",
    re.IGNORECASE,
)


def phrased_as_current(claim: str) -> bool:
    """True when the claim speaks of the present ("currently", "now", "the latest", "as of today"...)."""
    return bool(_CURRENT.search(claim))


def is_stale(claim: str, text: str, *, now: float, max_age_days: int, content_type: str | None = None) -> bool:
    """The page's date is more than ``max_age_days`` before ``now`` while the claim is phrased as current."""
    if not phrased_as_current(claim):
        return False
    when = page_date(text, content_type)
    if when is None:
        return False
    today = datetime.fromtimestamp(now, tz=timezone.utc).date()
    return (today - when).days > max_age_days
