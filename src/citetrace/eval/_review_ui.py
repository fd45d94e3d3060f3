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

__all__ = ["KEYS", "LabelQueue", "render", "label_session", "tty_keys", "labelled_ids"]

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


class LabelQueue:
    """One labeller's pass over a queue: the pairs not labelled yet, in order, with skip and undo.

    The terminal screen (``label_session``) and the run viewer's review page (``citetrace ui
    --review-queue``) both drive this one object, so a key means the same in both and each label is
    appended to ``out_path`` in the judge-eval format the moment it is given (nothing is lost on a crash).
    """

    def __init__(self, items: Sequence[ReviewItem], *, labeller: str, out_path: str,
                 clock: Callable[[], float] = time.time) -> None:
        done = labelled_ids(out_path, labeller)
        self.todo = [it for it in items if it.id not in done]
        self.labeller, self.out_path, self._clock = labeller, out_path, clock
        self.position = 0
        self.written: list[str] = []

    def current(self) -> ReviewItem | None:
        """The pair on screen, or None when the queue is done."""
        return self.todo[self.position] if self.position < len(self.todo) else None

    def press(self, key: str) -> bool:
        """Apply one key (``KEYS``, ``n`` skip, ``u`` undo); False for a key that means nothing here."""
        item = self.current()
        if key in KEYS and item is not None:
            with open(self.out_path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(label_record(item, KEYS[key], self.labeller, self._clock()),
                                    ensure_ascii=False) + "\n")
            self.written.append(item.id)
            self.position += 1
        elif key == "n" and item is not None:
            self.position += 1
        elif key == "u" and self.written:
            last = self.written.pop()
            _drop_last(self.out_path, last)
            self.position = next(i for i, it in enumerate(self.todo) if it.id == last)
        else:
            return False
        return True


def label_session(items: Sequence[ReviewItem], read_key: Callable[[], str], write: Callable[[str], None], *,
                  labeller: str, out_path: str, clock: Callable[[], float] = time.time,
                  clear: bool = True) -> int:
    """Label the items this labeller has not labelled yet; returns how many labels were written."""
    queue = LabelQueue(items, labeller=labeller, out_path=out_path, clock=clock)
    while (item := queue.current()) is not None:
        write((_CLEAR if clear else "") + render(item, queue.position + 1, len(queue.todo)))
        key = read_key().lower()
        if key in ("q", "\x03", "\x04", ""):
            break
        if not queue.press(key):
            write(f"unknown key {key!r}: {_HELP}\n")
    write(f"{len(queue.written)} labels written to {out_path}\n")
    return len(queue.written)


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
