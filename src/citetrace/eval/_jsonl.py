"""Reading the JSON Lines files eval keeps (labels, review queues, judge-eval histories) in one way.

Every reader wants the same: blank lines skipped, each line an object, and a bad line named by file and
line number in a one-line error.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

__all__ = ["read_jsonl"]


def read_jsonl(path: str, what: str, *, missing_ok: bool = False) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; ValueError names the file, the line and the problem
    (``what`` says what the file should be). An absent file yields nothing when ``missing_ok``."""
    if missing_ok and not os.path.exists(path):
        return
    try:
        fh = open(path, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path!r}: {exc.strerror}") from exc
    with fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}:{n}: not JSON ({exc})") from exc
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{n}: expected a JSON object in the {what}")
            yield n, row
