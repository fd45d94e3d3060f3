"""serve's interface to its sibling packages (the dashboards generator): the typed summary attributes.

An explicit internal module: other citetrace packages import these names from here (never from
``serve``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.serve._schema import ATTRIBUTE_TYPES

__all__ = ["ATTRIBUTE_TYPES"]
