"""claims' interface to its sibling packages (eval): the anchor blanking the report parser reuses.

An explicit internal module: other citetrace packages import these names from here (never from
``claims``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.claims._clean import blank_anchors

__all__ = ["blank_anchors"]
