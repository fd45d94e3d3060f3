"""summary's interface to its sibling packages (the span processor, serve): the run accumulator both fold
spans into, so a summary is computed the same way wherever it is made.

An explicit internal module: other citetrace packages import these names from here (never from
``summary``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.summary._summarize import RunAccumulator

__all__ = ["RunAccumulator"]
