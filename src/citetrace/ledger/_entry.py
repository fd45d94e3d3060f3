"""The mechanical entry check for evidence, and the two things it recognises before entry.

A span is accepted only if it appears verbatim (after whitespace normalisation) in the text this run's
store holds for a fetch of the URL; ``retrieved_at`` is then that fetch's time. The check never fetches:
the store is the only witness. Before entry it also recognises syndicated copies (the same text under
another URL) and older records of the same page whose span the new fetch no longer contains (stale).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from citetrace._urls import url_key
from citetrace.ledger._model import Evidence, EvidenceError, normalise
from citetrace.store import Document, Store

__all__ = ["Fetch", "find_fetch", "same_url", "syndicated_origin", "superseded", "TextCache"]


class TextCache:
    """Normalised page text by content hash, so repeated entries against one page normalise it once."""

    def __init__(self, limit: int = 256) -> None:
        self._limit = limit
        self._texts: dict[str, str] = {}

    def get(self, sha256: str, text: str) -> str:
        found = self._texts.get(sha256)
        if found is None:
            if len(self._texts) >= self._limit:
                self._texts.pop(next(iter(self._texts)))
            found = self._texts[sha256] = normalise(text)
        return found


@dataclass(frozen=True)
class Fetch:
    """The stored fetch an accepted span was found in."""

    document: Document
    normalised_text: str


def same_url(stored: str, given: str) -> bool:
    """Whether a stored document's URL is the given one (the store keeps URLs redacted and as fetched)."""
    return stored == given or url_key(stored) == url_key(given)


def find_fetch(store: Store, run_id: str, url: str, span: str, cache: TextCache) -> Fetch:
    """The latest fetch of ``url`` in this run whose text holds ``span``; EvidenceError naming the URL if none."""
    wanted = normalise(span)
    if not wanted:
        raise EvidenceError(url, "the span is empty")
    docs = [d for d in store.documents(run_id) if same_url(d.url, url)]
    if not docs:
        raise EvidenceError(url, f"run {run_id} never fetched this URL")
    for doc in reversed(docs):
        text = cache.get(doc.sha256, doc.text)
        if wanted in text:
            return Fetch(doc, text)
    raise EvidenceError(url, f"the span is not verbatim in the stored text of any of its {len(docs)} fetch(es)")


def syndicated_origin(existing: Iterable[Evidence], url: str, span: str, content_hash: str) -> str | None:
    """The evidence id this would copy under another URL: same page text, or the same span, elsewhere."""
    canon = url_key(url)
    wanted = normalise(span)
    for ev in existing:
        if url_key(ev.url) == canon:
            continue
        if ev.content_hash == content_hash or normalise(ev.span) == wanted:
            return ev.origin
    return None


def superseded(existing: Iterable[Evidence], url: str, fetch: Fetch) -> list[Evidence]:
    """Live records of the same page from another fetch whose span the new fetch no longer contains."""
    canon = url_key(url)
    out = []
    for ev in existing:
        if ev.stale or url_key(ev.url) != canon or ev.content_hash == fetch.document.sha256:
            continue
        if ev.retrieved_at <= fetch.document.fetched_at and normalise(ev.span) not in fetch.normalised_text:
            out.append(ev)
    return out
