"""ledger's interface to its sibling packages (serve): the ledger metrics, recorded the same way in serve.

An explicit internal module: other citetrace packages import these names from here (never from
``ledger``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.ledger._metrics import LedgerMetrics

__all__ = ["LedgerMetrics"]
