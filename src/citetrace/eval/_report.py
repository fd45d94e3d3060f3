"""Read a research report into sentences with their citations.

Three citation styles are understood, and may be mixed: numbered inline markers with a reference list
(``... in 2024 [3].`` plus ``[3] https://...`` or a numbered list under a "References"/"Sources" heading),
markdown links (``[the BLS report](https://...)``, ``[the BLS report][bls]`` with ``[bls]: https://...``,
also bare and ``<...>`` URLs, and HTML ``<a href="...">label</a>`` links read the same way), and footnotes
(``[^3]`` with ``[^3]: https://...``). Markers and URLs are blanked with spaces before splitting, so
offsets stay true and a marker written after the full stop stays with its sentence. Fenced code cites nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from citetrace._reflist import INLINE_CODE, fenced_lines
from citetrace._reflist import references as _references
from citetrace._urlfind import AUTOLINK, HTML_LINK, MARKDOWN_LINK, url_spans
from citetrace.claims import Anchor, clean_claim_text, split_claims
from citetrace.claims._internal import blank_anchors
from citetrace.eval._claims import classify
from citetrace.eval._modelcites import PlacedCitation
from citetrace.eval._split import iter_blocks, line_spans, sentence_spans
from citetrace.eval._types import Citation, ReportParseError, Sentence

__all__ = ["Report", "parse_report"]

_LINK = MARKDOWN_LINK
_AUTOLINK = AUTOLINK
_MARKER = re.compile(r"\[(\d{1,4}(?:\s*(?:,|-|–)\s*\d{1,4})*)\](?!\()")
_REFLINK = re.compile(r"\[([^\]\n]+)\]\[([^\]\s^]{1,32})\]")
_FOOTNOTE = re.compile(r"\[\^([^\]\s]{1,32})\]")
_MAX_CHARS = 2_000_000


@dataclass(frozen=True)
class Report:
    """A parsed report: its sentences in order and the reference entries found (key -> URL or None)."""

    text: str
    sentences: tuple[Sentence, ...]
    references: dict[str, str | None]

    @property
    def cited_urls(self) -> list[str]:
        """Distinct resolved URLs in order of first citation."""
        out: list[str] = []
        for s in self.sentences:
            for c in s.citations:
                if c.url is not None and c.url not in out:
                    out.append(c.url)
        return out


def _expand(numbers: str) -> list[str]:
    out: list[str] = []
    for part in re.split(r"\s*,\s*", numbers):
        bounds = re.split(r"\s*[-–]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit() and 0 <= int(bounds[1]) - int(bounds[0]) <= 50:
            out.extend(str(k) for k in range(int(bounds[0]), int(bounds[1]) + 1))
        else:
            out.extend(b for b in bounds if b)
    return out


def _mask(chars: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if chars[k] not in "\r\n":
            chars[k] = " "


def _citations(text: str, refs: dict[str, str | None], skip: frozenset[int]) -> tuple[list[Citation], str]:
    """Every citation in the body (reference lines and code, fenced or inline, excluded) and the text with them
    blanked out: a ``[1]`` in code is code, and it made a report without a reference list unreadable."""
    chars = list(text)
    found: list[Citation] = []
    taken = [False] * len(text)
    lines = line_spans(text)
    for idx in skip | fenced_lines(text):  # reference lines and code are not body text
        ls, le = lines[idx]
        for k in range(ls, le):
            taken[k] = True

    for m in INLINE_CODE.finditer(text):  # `https://api.example/v1`, `refs[1]`: code, not citations
        for k in range(m.start(), m.end()):
            taken[k] = True

    def free(s: int, e: int) -> bool:
        return not any(taken[s:e])

    def claim(s: int, e: int) -> None:
        for k in range(s, e):
            taken[k] = True

    for m in HTML_LINK.finditer(text):  # <a href="url">label</a>: the label stays text, as a markdown link's
        if not free(m.start(), m.end()):
            continue
        found.append(Citation(f"[{m.group(3)}]", m.group(2), m.start(), m.end()))
        _mask(chars, m.start(), m.start(3))
        _mask(chars, m.end(3), m.end())
        claim(m.start(), m.end())
    for m in _LINK.finditer(text):
        if not free(m.start(), m.end()):
            continue
        found.append(Citation(m.group(0)[: m.start(2) - m.start()].rstrip("(<").rstrip(), m.group(2), m.start(), m.end()))
        _mask(chars, m.start(), m.start(1))
        _mask(chars, m.end(1), m.end())
        claim(m.start(), m.end())
    for m in _REFLINK.finditer(text):  # reference-style link: [anchor][key] with "[key]: url"
        anchor_is_marker = m.group(1).startswith("^") or _MARKER.fullmatch(f"[{m.group(1)}]") is not None
        if free(m.start(), m.end()) and m.group(2) in refs and not anchor_is_marker:
            key = m.group(2)
            found.append(Citation(f"[{key}]", refs[key], m.start(), m.end(),
                                  None if refs[key] else f"reference [{key}] has no URL"))
            _mask(chars, m.start(), m.start(1))
            _mask(chars, m.end(1), m.end())
            claim(m.start(), m.end())
    for m in _AUTOLINK.finditer(text):
        if free(m.start(), m.end()):
            found.append(Citation(m.group(0), m.group(1), m.start(), m.end()))
            _mask(chars, m.start(), m.end())
            claim(m.start(), m.end())
    for start, end in url_spans(text):
        if free(start, end):
            found.append(Citation(text[start:end], text[start:end], start, end))
            _mask(chars, start, end)
            claim(start, end)
    for pattern, prefix in ((_FOOTNOTE, "^"), (_MARKER, "")):
        for m in pattern.finditer(text):
            if not free(m.start(), m.end()):
                continue
            keys = [prefix + m.group(1)] if prefix else _expand(m.group(1))
            for key in keys:
                url = refs.get(key)
                problem = None
                if key not in refs:
                    problem = f"marker [{key}] has no entry in the reference list"
                elif url is None:
                    problem = f"reference [{key}] has no URL"
                found.append(Citation(f"[{key}]", url, m.start(), m.end(), problem))
            _mask(chars, m.start(), m.end())
            claim(m.start(), m.end())
    found.sort(key=lambda c: c.start)
    return found, "".join(chars)


def _clean(masked: str, table: bool = False) -> str:
    """The claim as a judge should read it: markers and URLs gone, quote marks, emphasis and table pipes off."""
    text = masked
    if table:
        text = " | ".join(cell.strip() for cell in text.strip().strip("|").split("|"))
    text = re.sub(r"(\*\*|__|`)", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\(\s+", "(", text)
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text)
    return re.sub(r"\(\)", "", text).strip()


def _anchor(text: str, c: Citation, offset: int, key: int) -> Anchor:
    """The claim splitter's view of a citation: its span in the sentence, and a link's visible label."""
    raw = text[c.start:c.end]
    html = HTML_LINK.fullmatch(raw)
    if html:
        return Anchor(c.marker, c.start - offset, c.end - offset, c.url, html.group(3), str(key),
                      label_start=c.start - offset + html.start(3))
    label = c.marker[1:-1] if raw.startswith("[") and "](" in raw and c.marker.startswith("[") else None
    if raw.startswith("[") and "][" in raw and not raw.startswith("[^"):  # reference-style link
        label = raw[1:raw.index("][")]
    return Anchor(c.marker, c.start - offset, c.end - offset, c.url, label, str(key))


def _model_citations(placed: Sequence[PlacedCitation], s: int, e: int) -> list[Citation]:
    """The model citations whose span overlaps the sentence ``[s, e)``, each as a zero-width citation on the
    last character of the overlap: a span covering the whole sentence sits after its last word (every claim
    of the sentence inherits it); one covering a clause sits in that clause."""
    out = []
    for p in placed:
        lo, hi = max(p.start, s), min(p.end, e)
        if lo < hi:
            at = max(lo, hi - 1)
            out.append(Citation(p.kind, p.url, at, at))
    return out


def parse_report(text: str, url_map: Mapping[str, str] | None = None,
                 model_citations: Sequence[PlacedCitation] = ()) -> Report:
    """Parse a report; raise ``ReportParseError`` naming the problem when it is not a readable report.

    ``url_map`` (marker number -> URL) resolves bare ``[n]`` markers the text lists no entry for, as a run's
    recorded source map does (knowledge-storm's ``url_to_unified_index``); see ``citetrace._reflist``.
    ``model_citations`` are spans of ``text`` a provider tied to a URL (``_modelcites``): each sentence they
    overlap cites that URL, as if it carried a marker.
    """
    if not isinstance(text, str):
        raise ReportParseError(f"report must be text, got {type(text).__name__}")
    if "\x00" in text:
        raise ReportParseError("report contains NUL bytes: it looks like a binary file, not text")
    if len(text) > _MAX_CHARS:
        raise ReportParseError(f"report is {len(text)} characters; the limit is {_MAX_CHARS}")
    if not text.strip():
        raise ReportParseError("report is empty")
    refs, skip = _references(text, url_map)
    citations, masked = _citations(text, refs, skip)
    # blockquote markers would read as sentence starts to the splitter: blank them (same length)
    masked = re.sub(r"(?m)^[ \t]{0,3}(?:>[ \t]?)+", lambda m: " " * len(m.group(0)), masked)
    numbered = [c for c in citations if c.problem and "no entry" in c.problem]
    if numbered and not refs:
        first = numbered[0]
        line = text.count("\n", 0, first.start) + 1
        raise ReportParseError(
            f"citation marker {first.marker} on line {line} but the report has no reference list "
            "(expected lines like '[1] https://...' or '[^1]: https://...')"
        )
    sentences: list[Sentence] = []
    for block in iter_blocks(text, skip):
        if block.kind in ("paragraph", "list"):
            spans = sentence_spans(masked, block.start, block.end)
        else:  # a heading or table row is one unit
            spans = [(block.start, block.end)]
        for s, e in spans:
            cites = tuple(sorted((*(c for c in citations if s <= c.start < e), *_model_citations(model_citations, s, e)),
                                 key=lambda c: c.start))
            anchors = [_anchor(text, c, s, k) for k, c in enumerate(cites)]
            prose = block.kind in ("paragraph", "list")
            table = block.kind.startswith("table")
            clean = (clean_claim_text(blank_anchors(masked[s:e], anchors)) if prose
                     else _clean(blank_anchors(masked[s:e], anchors) if table else masked[s:e], table=table))
            if not clean and not cites:
                continue
            needs, reason = classify(clean, block.kind, bool(cites))
            claims = tuple(split_claims(masked[s:e], anchors)) if prose and needs else ()
            sentences.append(Sentence(len(sentences), clean, s, e, block.kind, cites, needs, reason, claims))
    if not sentences:
        raise ReportParseError("report has no sentences outside code blocks and the reference list")
    return Report(text, tuple(sentences), refs)
