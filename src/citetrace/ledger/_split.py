"""The one call the ledger makes to split text into atomic claims.

The shared splitter (``citetrace.claims``) is used when it is installed with this tree; until then this
falls back to eval's sentence segmentation, one claim per sentence. Swapping is a change here only.
"""

from __future__ import annotations

import importlib

__all__ = ["split_claims"]


def split_claims(text: str) -> list[str]:
    """Atomic claims of ``text`` (the shared splitter), or its sentences when that splitter is absent."""
    try:
        claims = importlib.import_module("citetrace.claims")
    except ModuleNotFoundError:
        claims = None
    fn = getattr(claims, "split_claims", None) if claims is not None else None
    if callable(fn):
        out = fn(text)
        return [str(getattr(c, "text", c)) for c in out]
    from citetrace.eval._passages import simple_sentences

    return [text[s:e].strip() for s, e in simple_sentences(text) if text[s:e].strip()]
