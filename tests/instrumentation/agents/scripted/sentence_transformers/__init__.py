"""A scripted embedding model under sentence-transformers' name, for knowledge-storm's venv.

knowledge-storm imports ``sentence_transformers.SentenceTransformer`` at import time and loads
``paraphrase-MiniLM-L6-v2`` from the Hugging Face hub when it writes an article. The real package needs torch
(with CUDA wheels, several GB) and the weights need the hub, neither of which CI has: like the scripted chat
model, this stands in for the model only. ``encode`` is a deterministic bag of hashed words, so a snippet
sharing words with a query scores higher, which is what STORM's retrieval needs from it. Only the test
scripts put this directory on ``sys.path``; it is never installed.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

import numpy as np

__all__ = ["SentenceTransformer"]

_DIM = 64


def _vector(text: str) -> Any:
    vec = np.zeros(_DIM)
    for word in re.findall(r"\w+", text.lower()):
        vec[int(hashlib.sha1(word.encode()).hexdigest(), 16) % _DIM] += 1.0
    norm = np.linalg.norm(vec)
    return vec / norm if norm else vec


class SentenceTransformer:
    """``SentenceTransformer(name).encode(text or texts)``, as knowledge-storm calls it."""

    def __init__(self, model_name_or_path: str = "", *args: Any, **kwargs: Any) -> None:
        self.model_name = model_name_or_path

    def encode(self, sentences: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(sentences, str):
            return _vector(sentences)
        return np.array([_vector(s) for s in sentences])
