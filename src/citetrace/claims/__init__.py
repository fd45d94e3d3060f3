"""Atomic claims: one sentence in, the separately checkable claims out, each with its own citations.

Shared by ``citetrace eval`` (which judges every atomic claim against the citations that belong to it and
aggregates the verdicts per sentence) and the claim ledger (whose claim table holds atomic claims). The
splitter is rule-based and conservative; see :mod:`citetrace.claims._split` for the rules.

>>> [c.text for c in split_claims(
...     "The vendor supports SSO on Business and Enterprise tiers, and it costs $12 per seat [1].")]
['The vendor supports SSO on Business and Enterprise tiers', 'it costs $12 per seat.']
"""

from __future__ import annotations

from citetrace.claims._anchors import Anchor, find_anchors
from citetrace.claims._clean import clean_claim_text
from citetrace.claims._split import MAX_CLAIMS, AtomicClaim, split_claims

__all__ = ["Anchor", "AtomicClaim", "MAX_CLAIMS", "clean_claim_text", "find_anchors", "split_claims"]
