"""eval's interface to its sibling packages (ledger, view, bench): the pieces they reuse beyond the public API.

An explicit internal module: other citetrace packages import these names from here (never from
``eval``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.eval._format import ProgressBar
from citetrace.eval._passages import simple_sentences
from citetrace.eval._review import read_queue
from citetrace.eval._review_ui import KEYS, LabelQueue

__all__ = ["KEYS", "LabelQueue", "ProgressBar", "read_queue", "simple_sentences"]
