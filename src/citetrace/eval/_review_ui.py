"""The keyboard labelling screen of ``citetrace review label``: one pair at a time, one key per label.

Keys: ``s`` SUPPORTED, ``p`` PARTIAL, ``c`` CONTRADICTED, ``a`` ABSENT, ``n`` skip, ``u`` undo the last label,
``q`` quit. The screen shows the claim (and its sentence when it was split from one), the passages the judge
saw, the page link and the run context (run id, the question asked, the judge's label and why the pair was
sampled). Every label is appended to the labels file at once, so quitting or a crash loses nothing. The
session logic takes a key reader and a writer, so it runs the same under a test and on a real terminal
(``tty_keys`` puts the terminal in cbreak mode and restores it).
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence, TextIO

from citetrace.eval._jsonl import read_jsonl
from citetrace.eval._review import ReviewItem, label_record
from citetrace.eval._types import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED

__all__ = ["KEYS", "render", "label_session", "tty_keys", "labelled_ids"]

KEYS = {"s": SUPPORTED, "p": PARTIAL, "c": CONTRADICTED, "a": ABSENT}
"""Key -> label."""
_HELP = "[s] SUPPORTED  [p] PARTIAL  [c] CONTRADICTED  [a] ABSENT  [n] skip  [u] undo  [q] quit"
_CLEAR = "\x1b[2J\x1b[H"


def render(item: ReviewItem, position: int, total: int, width: int = 100) -> str:
    """The screen for one pair."""
    def wrap(text: str, indent: str = "  ", gap: str = "\n") -> str:
        return gap.join(textwrap.fill(par, width, initial_indent=indent, subsequent_indent=indent)
                        for par in text.split("\n\n") if par.strip())

    lines = [f"pair {position}/{total}   run {item.run_id}   judge {item.judge}: {item.judge_label}"
             + (f" (other judge: {item.other_label})" if item.other_label else "")]
    if item.reasons:
        lines.append(f"sampled for: {', '.join(item.reasons)}")
    if item.question:
        lines.append(f"question: {item.question}")
    lines += ["", "CLAIM", wrap(item.claim)]
    if item.sentence and item.sentence.strip() != item.claim.strip():
        lines += ["from the sentence", wrap(item.sentence)]
    lines += ["", f"PASSAGES from {item.url}", wrap(item.passage, gap="\n\n"), "", _HELP]
    return "\n".join(lines) + "\n"


def labelled_ids(path: str, labeller: str) -> set[str]:
    """Ids this labeller already labelled in ``path`` (a labelling session resumes where it stopped)."""
    return {str(r.get("id")) for _, r in read_jsonl(path, "labels", missing_ok=True) if r.get("labeller") == labeller}


def _drop_last(path: str, item_id: str) -> None:
    with open(path, encoding="utf-8") as fh:
        lines = fh.readlines()
    for k in range(len(lines) - 1, -1, -1):
        if lines[k].strip() and json.loads(lines[k]).get("id") == item_id:
            del lines[k]
            break
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(lines)


def label_session(items: Sequence[ReviewItem], read_key: Callable[[], str], write: Callable[[str], None], *,
                  labeller: str, out_path: str, clock: Callable[[], float] = time.time,
                  clear: bool = True) -> int:
    """Label the items this labeller has not labelled yet; returns how many labels were written."""
    done = labelled_ids(out_path, labeller)
    todo = [it for it in items if it.id not in done]
    written: list[str] = []
    k = 0
    while k < len(todo):
        item = todo[k]
        write((_CLEAR if clear else "") + render(item, k + 1, len(todo)))
        key = read_key().lower()
        if key in KEYS:
            with open(out_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(label_record(item, KEYS[key], labeller, clock()), ensure_ascii=False) + "\n")
            written.append(item.id)
            k += 1
        elif key == "n":
            k += 1
        elif key == "u" and written:
            last = written.pop()
            _drop_last(out_path, last)
            k = next(i for i, it in enumerate(todo) if it.id == last)
        elif key in ("q", "\x03", "\x04", ""):
            break
        else:
            write(f"unknown key {key!r}: {_HELP}\n")
    write(f"{len(written)} labels written to {out_path}\n")
    return len(written)


@contextmanager
def tty_keys(stream: TextIO | None = None) -> Iterator[Callable[[], str]]:
    """A one-key reader on a real terminal (cbreak mode, restored on exit); ValueError without a terminal."""
    stream = stream or sys.stdin
    if not stream.isatty():
        raise ValueError("citetrace review label needs a terminal (stdin is not a TTY)")
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield lambda: os.read(fd, 1).decode("utf-8", "replace")
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
