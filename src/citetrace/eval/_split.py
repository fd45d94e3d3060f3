"""Markdown-aware sentence splitting that keeps character offsets into the original report.

Off-the-shelf splitters (pysbd here) handle abbreviations and decimals but not markdown structure, URLs, or
citation markers placed after the full stop. So: cut the text into markdown blocks first (headings, list
items, table rows, paragraphs; code fences skipped), let the caller blank out URLs and markers with spaces of
the same length (offsets survive), split each block with pysbd, and map every segment back to its span. A
marker after a full stop then sits in the trailing whitespace of the sentence it belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

from citetrace._reflist import FENCE, line_spans

__all__ = ["Block", "iter_blocks", "sentence_spans", "line_spans"]

_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_=])(\s*\1){2,}\s*$")
_FENCE = FENCE
_QUOTE = re.compile(r"^\s{0,3}(>\s?)+")


@dataclass(frozen=True)
class Block:
    """A markdown block: ``kind`` is heading, list, table_header, table_row or paragraph."""

    kind: str
    start: int
    end: int


def iter_blocks(text: str, skip: frozenset[int] = frozenset()) -> Iterator[Block]:
    """Yield the blocks of ``text`` in order; lines whose index is in ``skip`` end a block and are dropped."""
    lines = line_spans(text)
    in_fence = False
    current: list[int] | None = None  # [kind_index, start, end]
    kinds = ("paragraph", "list")
    table_rows_seen = 0

    def flush() -> Iterator[Block]:
        nonlocal current
        if current is not None:
            yield Block(kinds[current[0]], current[1], current[2])
            current = None

    for i, (ls, le) in enumerate(lines):
        line = text[ls:le]
        if _FENCE.match(line):
            yield from flush()
            in_fence = not in_fence
            continue
        if in_fence or i in skip or not line.strip() or _RULE.match(line):
            yield from flush()
            if not line.strip().startswith("|"):
                table_rows_seen = 0
            continue
        quote = _QUOTE.match(line)
        body_start = ls + (quote.end() if quote else 0)
        body = text[body_start:le]
        heading = _HEADING.match(body)
        if heading:
            yield from flush()
            yield Block("heading", body_start + heading.end(), le)
            continue
        if body.lstrip().startswith("|"):
            yield from flush()
            if _TABLE_SEP.match(body):
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else None
            is_header = table_rows_seen == 0 and nxt is not None and bool(_TABLE_SEP.match(text[nxt[0]:nxt[1]]))
            table_rows_seen += 1
            yield Block("table_header" if is_header else "table_row", body_start, le)
            continue
        table_rows_seen = 0
        bullet = _BULLET.match(body)
        if bullet:
            yield from flush()
            current = [1, body_start + bullet.end(), le]
            continue
        if current is None:
            current = [0, body_start + (len(body) - len(body.lstrip())), le]
        else:
            current[2] = le
    yield from flush()


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    import pysbd  # a base dependency: the ledger splits claims with it too

    return pysbd.Segmenter(language="en", clean=False, char_span=False)


PYSBD_CHARS = 20_000
"""Most characters handed to pysbd at once. Its ``segment`` compiles every sentence it finds as a regex and
searches the whole text for it (its span pass runs even with ``char_span=False``), so the time grows with the
square of a sentence's length: one 5 MB paragraph without a full stop took over a minute. Longer text is taken a
piece at a time; a piece's last sentence may run on past it, so it is segmented again at the head of the next
piece, and ordinary prose splits exactly as it would whole. A piece pysbd finds no boundary in (no full stop in
20,000 characters) is cut at its last space."""


def _starts(chunk: str, a: int, b: int) -> list[int]:
    """Where pysbd's sentences of ``chunk[a:b]`` start, as offsets into ``chunk``."""
    starts: list[int] = []
    cursor = a
    for seg in _segmenter().segment(chunk[a:b]):
        piece = str(seg).strip()
        if not piece:
            continue
        found = chunk.find(piece, cursor, b)
        if found < 0:  # the segmenter altered the text: fall back to the cursor
            found = cursor
        starts.append(found)
        cursor = found + len(piece)
    return starts


def sentence_spans(masked: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans inside ``masked[start:end]``; each span runs to the start of the next (whitespace kept)."""
    # inside one block a line break is a soft wrap (blank lines already separate blocks); pysbd would treat it
    # as a sentence boundary
    chunk = masked[start:end].replace("\r", " ").replace("\n", " ")
    if not chunk.strip():
        return []
    starts: list[int] = []
    pos = 0
    while pos < len(chunk):
        stop = min(len(chunk), pos + PYSBD_CHARS)
        found = _starts(chunk, pos, stop)
        if stop == len(chunk):
            starts += found
            break
        if len(found) > 1:  # the last sentence may go on past the piece: segment it again with what follows
            starts += found[:-1]
            pos = found[-1]
        else:
            starts += found
            space = chunk.rfind(" ", pos + 1, stop)
            pos = space + 1 if space > pos else stop
            starts.append(pos)
    starts = sorted(set(starts))
    spans: list[tuple[int, int]] = []
    for k, s in enumerate(starts):
        e = starts[k + 1] if k + 1 < len(starts) else len(chunk)
        if chunk[s:e].strip():
            spans.append((start + s, start + e))
    return spans
