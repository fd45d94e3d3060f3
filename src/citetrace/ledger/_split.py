"""The one call the ledger makes to split text into atomic claims: the shared splitter, ``citetrace.claims``.

``citetrace eval`` judges the same atomic claims, so a claim in the ledger and a claim eval checks are cut
the same way. Text is cut into sentences first (eval's segmentation), then each sentence into claims.
"""

from __future__ import annotations

from citetrace.claims import split_claims as _split_sentence
from citetrace.eval._internal import simple_sentences

__all__ = ["split_claims"]


def split_claims(text: str) -> list[str]:
    """The atomic claims of ``text``, in order ("SSO on Business and Enterprise, and $12 per seat" is two)."""
    out: list[str] = []
    for start, end in simple_sentences(text):
        sentence = text[start:end].strip()
        if sentence:
            out.extend(c.text.strip() for c in _split_sentence(sentence) if c.text.strip())
    return out
