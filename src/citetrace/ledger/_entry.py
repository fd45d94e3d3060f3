"""The mechanical entry check for evidence, and the two things it recognises before entry.

A span is accepted only if it appears verbatim (after whitespace normalisation) in the text this run's
store holds for a fetch of the URL; ``retrieved_at`` is then that fetch's time. The check never fetches:
the store is the only witness. Before entry it also recognises syndicated copies (the same text under
another URL) and older records of the same page whose span the new fetch no longer contains (stale).
"""

from __future__ import annotations

from dataclasses import dataclass
from citetrace._urls import url_key
from citetrace.ledger._model import Evidence, EvidenceError, normalise
from citetrace.store import Document, Store

__all__ = ["EvidenceIndex", "Fetch", "find_fetch", "same_url", "syndicated_origin", "superseded", "TextCache"]


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
    latest = store.get(run_id, url)
    if latest is not None:  # the common case, one indexed read: the latest fetch holds the span
        text = cache.get(latest.sha256, latest.text)
        if wanted in text:
            return Fetch(latest, text)
    docs = [d for d in store.documents(run_id) if same_url(d.url, url)]
    if not docs:
        raise EvidenceError(url, f"run {run_id} never fetched this URL")
    for doc in reversed(docs):
        text = cache.get(doc.sha256, doc.text)
        if wanted in text:
            return Fetch(doc, text)
    raise EvidenceError(url, f"the span is not verbatim in the stored text of any of its {len(docs)} fetch(es)")


def syndicated_origin(index: "EvidenceIndex", url: str, span: str, content_hash: str) -> str | None:
    """The evidence id this would copy under another URL: same page text, or the same span, elsewhere."""
    canon = url_key(url)
    candidates: list[IndexEntry] = [*index.by_hash.get(content_hash, ()), *index.by_span.get(normalise(span), ())]
    for entry in candidates:
        if entry.canon != canon:
            return entry.origin
    return None


def superseded(index: "EvidenceIndex", evidence: dict[str, Evidence], url: str, fetch: Fetch) -> list[Evidence]:
    """Live records of the same page from another fetch whose span the new fetch no longer contains."""
    out = []
    for entry in index.by_canon.get(url_key(url), ()):
        ev = evidence[entry.id]
        if ev.stale or ev.content_hash == fetch.document.sha256:
            continue
        if ev.retrieved_at <= fetch.document.fetched_at and normalise(ev.span) not in fetch.normalised_text:
            out.append(ev)
    return out


@dataclass(frozen=True)
class IndexEntry:
    """What the syndication and staleness checks need of a record, found without scanning the ledger."""

    id: str
    origin: str
    canon: str


class EvidenceIndex:
    """Evidence by content hash, by normalised span and by canonical URL (kept as records are entered)."""

    def __init__(self) -> None:
        self.by_hash: dict[str, list[IndexEntry]] = {}
        self.by_span: dict[str, list[IndexEntry]] = {}
        self.by_canon: dict[str, list[IndexEntry]] = {}

    def add(self, ev: Evidence) -> None:
        entry = IndexEntry(ev.id, ev.origin, url_key(ev.url))
        self.by_hash.setdefault(ev.content_hash, []).append(entry)
        self.by_span.setdefault(normalise(ev.span), []).append(entry)
        self.by_canon.setdefault(entry.canon, []).append(entry)
