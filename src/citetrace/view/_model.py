"""What a run page shows, computed from the run store alone (and an evaluation, when one is given).

The page template only lays this out: every decision (which citation came back from a search, which reads
ran one after another, where a judge's quote sits in a passage) is made here, where tests can reach it.
The viewer only reads: nothing here writes to the store or touches the network.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace._redact import redact_report
from citetrace.capture import cited_urls
from citetrace.store import Document, RunRecord, Store, ToolCallRecord, searched_keys
from citetrace.summary import url_key

__all__ = [
    "DOC_CHARS",
    "CallView",
    "CitationView",
    "DocumentView",
    "JudgedPair",
    "RunView",
    "SerialStretch",
    "build_run_view",
    "failure_reasons",
    "run_outcome",
]

_SERIAL_MIN = 3
"""Fewest back-to-back reads that count as a sequential stretch worth pointing at."""
_SERIAL_SAVING_MS = 500.0
DOC_CHARS = 20_000
"""Characters of each stored document shown on the page (the rest is counted, not shown)."""
_CONTEXT_CHARS = 600
"""Characters of a judged passage shown on each side of the judge's quote."""
"""...and only when running them concurrently would have saved at least this much time."""


@dataclass(frozen=True)
class CallView:
    """One tool call, placed on the waterfall (offsets in ms from the run's start)."""

    record: ToolCallRecord
    offset_ms: float
    left_pct: float
    width_pct: float
    serial: bool = False
    """Part of a stretch of reads that ran one after another."""


@dataclass(frozen=True)
class SerialStretch:
    """Reads that each started after the previous one ended: they could have run concurrently."""

    seqs: tuple[int, ...]
    total_ms: float
    longest_ms: float


@dataclass(frozen=True)
class JudgedPair:
    """One (claim, this URL) verdict from an evaluation, with the passage cut around the judge's quote."""

    claim: str
    label: str | None
    flags: tuple[str, ...]
    judge: str | None
    explanation: str
    before: str = ""
    quote: str = ""
    after: str = ""


@dataclass(frozen=True)
class CitationView:
    """A cited URL and its path back through the run: search, fetch, verdicts."""

    url: str
    returned_by_search: bool
    fetch_status: str | None
    """The status of the last fetch of this URL, or None when it was never fetched."""
    http_status: int | None
    judged: tuple[JudgedPair, ...] = ()
    fetch_seq: int | None = None
    """The seq of the fetch call ``fetch_status`` is from (the page links the citation to it)."""
    read_with_search: bool = False
    """No fetch call read it, but its text came with a search result (Tavily ``raw_content``, Exa ``text``) and
    is stored: read, as the summary's ``pages_from_search`` counts it."""

    @property
    def fabricated(self) -> bool:
        """Cited, but no search of this run returned it (``uncited_from_retrieval``)."""
        return not self.returned_by_search

    @property
    def unfetched(self) -> bool:
        """Cited, but never read successfully: no ok fetch, and no page text that came with a search."""
        return self.fetch_status != names.STATUS_OK and not self.read_with_search


@dataclass(frozen=True)
class DocumentView:
    """A stored document, and whether the answer cites it."""

    doc: Document
    cited: bool
    shown: str = ""
    """The first ``DOC_CHARS`` characters of the text, redacted (the page shows only these)."""
    hidden: int = 0
    """Characters of the text not shown."""


@dataclass(frozen=True)
class RunView:
    """Everything the run page shows."""

    run: RunRecord
    calls: tuple[CallView, ...]
    citations: tuple[CitationView, ...]
    documents: tuple[DocumentView, ...]
    fetched_not_cited: tuple[str, ...]
    serial: tuple[SerialStretch, ...]
    total_ms: float
    evaluation: Mapping[str, Any] | None = None
    ledger: Mapping[str, Any] | None = None
    failure_reasons: tuple[str, ...] = field(default=())

    @property
    def outcome(self) -> str:
        """See ``run_outcome``."""
        return run_outcome(self.run)


def failure_reasons(run: RunRecord) -> tuple[str, ...]:
    """The summary's failure reasons (none before the summary is written)."""
    return tuple(str(r) for r in (run.summary or {}).get("failure_reasons") or ())


def run_outcome(run: RunRecord) -> str:
    """``failed`` (a failure reason), ``error`` (the run raised), ``ok``, or ``running`` (no summary yet)."""
    if failure_reasons(run):
        return "failed"
    if run.error_type:
        return "error"
    return "ok" if run.summary else "running"


def _waterfall(run: RunRecord, calls: Sequence[ToolCallRecord]) -> tuple[list[CallView], float]:
    t0 = run.started_at * 1000
    end = max([c.started_at * 1000 + c.duration_ms for c in calls] + [(run.ended_at or run.started_at) * 1000])
    total = max(end - t0, 1e-3)
    views = []
    for c in calls:
        offset = max(0.0, c.started_at * 1000 - t0)
        left = min(100.0, offset / total * 100)
        views.append(CallView(c, offset, left, max(0.4, min(100.0 - left, c.duration_ms / total * 100))))
    return views, end - t0


def _serial_stretches(calls: Sequence[ToolCallRecord]) -> list[SerialStretch]:
    """Runs of >= 3 fetches, each begun after the previous one ended, that concurrency would have sped up."""
    reads = sorted((c for c in calls if c.kind == names.TOOL_KIND_FETCH), key=lambda c: c.started_at)
    out: list[SerialStretch] = []
    stretch: list[ToolCallRecord] = []
    for c in reads:
        if stretch and c.started_at * 1000 < stretch[-1].started_at * 1000 + stretch[-1].duration_ms:
            if _worth_it(stretch):
                out.append(_stretch(stretch))
            stretch = []
        stretch.append(c)
    if _worth_it(stretch):
        out.append(_stretch(stretch))
    return out


def _worth_it(calls: Sequence[ToolCallRecord]) -> bool:
    durations = [c.duration_ms for c in calls]
    return len(calls) >= _SERIAL_MIN and sum(durations) - max(durations) >= _SERIAL_SAVING_MS


def _stretch(calls: Sequence[ToolCallRecord]) -> SerialStretch:
    return SerialStretch(tuple(c.seq for c in calls), sum(c.duration_ms for c in calls),
                         max(c.duration_ms for c in calls))


def _cut(text: str, start: int, end: int, quote: str | None) -> tuple[str, str, str]:
    """The passage text split around the judge's quote (case-insensitive find), or all in ``before``; at most
    ``_CONTEXT_CHARS`` each side of the quote (a page without sentence breaks is one passage, megabytes long)."""
    passage = text[max(0, start):max(start, end)]
    if quote:
        at = passage.find(quote)
        if at < 0:
            at = passage.lower().find(quote.lower())
        if at >= 0:
            before, after = passage[:at], passage[at + len(quote):]
            return (("…" + before[-_CONTEXT_CHARS:]) if len(before) > _CONTEXT_CHARS else before,
                    _clip(passage[at:at + len(quote)], 2 * _CONTEXT_CHARS), _clip(after, _CONTEXT_CHARS))
    return _clip(passage, 2 * _CONTEXT_CHARS), "", ""


def _clip(text: str, chars: int) -> str:
    return text[:chars] + "…" if len(text) > chars else text


def _judged(evaluation: Mapping[str, Any] | None, store: Store, run_id: str) -> dict[str, list[JudgedPair]]:
    """Verdicts from an evaluation (``citetrace eval --json``), keyed by URL key."""
    out: dict[str, list[JudgedPair]] = {}
    if not evaluation:
        return out
    for pair in evaluation.get("pairs") or ():
        url = pair.get("url")
        if not isinstance(url, str):
            continue
        judge = pair.get("judge") or {}
        before = quote = after = ""
        passages = pair.get("passages") or ()
        doc = store.get(run_id, url) if passages else None
        if doc is not None and passages:
            first = passages[0]
            before, quote, after = _cut(doc.text, int(first.get("start", 0)), int(first.get("end", 0)),
                                        judge.get("quote"))
        out.setdefault(url_key(url), []).append(JudgedPair(
            claim=str(pair.get("claim") or ""), label=pair.get("label"),
            flags=tuple(str(f) for f in pair.get("flags") or ()), judge=judge.get("name"),
            explanation=str(judge.get("explanation") or ""), before=before, quote=quote, after=after))
    return out


def _citations(run: RunRecord, calls: Sequence[ToolCallRecord], judged: Mapping[str, list[JudgedPair]],
               documents: Sequence[Document] = ()) -> list[CitationView]:
    returned = searched_keys(calls)
    fetched: dict[str, ToolCallRecord] = {}
    for c in calls:
        if c.kind == names.TOOL_KIND_FETCH and c.url:
            for key in {url_key(u) for u in (c.url, c.url_final) if u}:  # a redirected read read its final URL
                prev = fetched.get(key)
                if prev is None or prev.status != names.STATUS_OK:
                    fetched[key] = c
    stored = {url_key(d.url) for d in documents if d.status == names.STATUS_OK and d.text.strip()}
    out = []
    for url in cited_urls(run.answer or ""):
        key = url_key(url)
        call = fetched.get(key)
        ok_read = call is not None and call.status == names.STATUS_OK
        out.append(CitationView(url, key in returned, call.status if call else None,
                                call.http_status if call else None, tuple(judged.get(key, ())),
                                fetch_seq=call.seq if call else None, read_with_search=not ok_read and key in stored))
    return out


def _redacted_call(call: ToolCallRecord) -> ToolCallRecord:
    """The call as shown: capture stores URLs and queries redacted, but a store an older version (or another
    writer) filled may hold them raw, so the page redacts again (a no-op on redacted text). Matching is done
    on the stored record, by ``url_key``, before this."""
    return replace(call, url=redact_report(call.url) if call.url else call.url,
                   url_final=redact_report(call.url_final) if call.url_final else call.url_final,
                   urls_returned=tuple(redact_report(u) for u in call.urls_returned),
                   query_text=redact_report(call.query_text) if call.query_text else call.query_text)


def _shown_doc(doc: Document, cited: bool) -> DocumentView:
    """The document as shown (see ``_redacted_call``): its URL redacted, and its first ``DOC_CHARS`` characters
    with the URLs in them redacted. The head is taken to the next whitespace first, so a URL across the cut is
    redacted whole, never shown in part; a 5 MB page costs the redaction of 20 KB."""
    end = DOC_CHARS
    while end < min(len(doc.text), DOC_CHARS + 4096) and not doc.text[end].isspace():
        end += 1
    shown = redact_report(doc.text[:end])[:DOC_CHARS]
    return DocumentView(replace(doc, url=redact_report(doc.url)), cited, shown, max(0, len(doc.text) - DOC_CHARS))


def build_run_view(store: Store, run: RunRecord, *, evaluation: Mapping[str, Any] | None = None,
                   ledger: Mapping[str, Any] | None = None) -> RunView:
    """Read one run's calls and documents from ``store`` and lay out its page."""
    # stores written before answers were stored redacted still hold raw cited URLs: redact on display too
    run = replace(run, answer=redact_report(run.answer) if run.answer else run.answer,
                  question=redact_report(run.question) if run.question else run.question)
    calls = store.calls(run.run_id)
    views, total = _waterfall(run, calls)
    stretches = _serial_stretches(calls)
    serial = {seq for s in stretches for seq in s.seqs}
    views = [CallView(_redacted_call(v.record), v.offset_ms, v.left_pct, v.width_pct, v.record.seq in serial)
             for v in views]
    documents = store.documents(run.run_id)
    citations = _citations(run, calls, _judged(evaluation, store, run.run_id), documents)
    cited = {url_key(c.url) for c in citations}
    docs = [_shown_doc(d, url_key(d.url) in cited) for d in documents]
    not_cited: list[str] = []
    for c in calls:
        if c.kind == names.TOOL_KIND_FETCH and c.url and c.status == names.STATUS_OK and url_key(c.url) not in cited:
            if redact_report(c.url) not in not_cited:
                not_cited.append(redact_report(c.url))
    return RunView(run, tuple(views), tuple(citations), tuple(docs), tuple(not_cited), tuple(stretches), total,
                   evaluation, ledger, failure_reasons(run))
