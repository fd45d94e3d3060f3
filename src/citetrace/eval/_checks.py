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
from citetrace.store import Document, Store, ToolCallRecord, searched_keys

__all__ = ["RunIndex", "page_date", "phrased_as_current", "is_stale"]


@dataclass
class RunIndex:
    """What one run fetched and what its searches returned, keyed for same-page lookups."""

    documents: dict[str, Document] = field(default_factory=dict)
    failed: dict[str, Document] = field(default_factory=dict)
    searched: set[str] = field(default_factory=set)
    reads: dict[str, ToolCallRecord] = field(default_factory=dict)
    """The last fetch call of each URL: a read with no document at all (a PDF the model fetched server-side,
    a read whose text could not be taken) was still a read, as the run summary counts it."""

    @classmethod
    def load(cls, store: Store, run_id: str) -> "RunIndex":
        index = cls()
        for doc in store.documents(run_id):
            usable = doc.status in (names.STATUS_OK, names.STATUS_EMPTY) and bool(doc.text.strip())
            (index.documents if usable else index.failed)[_key(doc.url)] = doc
        for key in list(index.failed):
            if key in index.documents:
                del index.failed[key]
        calls = store.calls(run_id)
        index.searched = searched_keys(calls)  # search results, and redirect targets standing for them
        for call in calls:
            if call.kind == names.TOOL_KIND_FETCH and call.url:
                index.reads[_key(call.url)] = call
                if call.url_final:  # a redirected read read its final URL too
                    index.reads[_key(call.url_final)] = call
        return index

    def fetched(self, url: str) -> Document | None:
        """The latest usable stored text for ``url``, or None when the run never read it successfully."""
        return self.documents.get(_key(url))

    def fetch_failed(self, url: str) -> bool:
        """True when the run tried to read ``url`` and got no usable text."""
        key = _key(url)
        return key not in self.documents and (key in self.failed or key in self.reads)

    def read_outcome(self, url: str) -> str | None:
        """For a read that gave no usable text, what it ended as (``error, HTTP 404``; ``ok``); None otherwise."""
        key = _key(url)
        if key in self.documents:
            return None
        doc, call = self.failed.get(key), self.reads.get(key)
        status = call.status if call is not None else doc.status if doc is not None else None
        if status is None:
            return None
        code = (call.http_status if call is not None else None) or (doc.http_status if doc is not None else None)
        return f"{status}, HTTP {code}" if code else status

    def returned_by_search(self, url: str) -> bool:
        """True when some search of the run listed ``url`` among its results (or ``url`` is where the fetch of
        such a result was redirected: ``searched_keys``)."""
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
