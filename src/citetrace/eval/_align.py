"""Aligning a claim with passage sentences: content words reduced to their Snowball stems.

The deterministic checker compares numbers only inside the passage sentences that share content words with
the claim. Five-letter prefixes (the first version) failed on short words ("heat"/"heating", "pump"/"pumps"
never matched) and merged unrelated long ones ("gover" for govern/government/governor is fine, "inter" for
interest/internet/interim is not). The English Snowball stemmer (``snowballstemmer``, a maintained pure
Python package) does what a prefix was standing in for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from citetrace._extras import require

__all__ = ["anchor_words", "stem", "content_stems"]

_MONTH_WORDS = ("jan january feb february mar march apr april may jun june jul july aug august sep sept september "
                "oct october nov november dec december").split()
STOP = frozenset(
    "the a an and or of to in on for by with from at as is are was were be been being that this these those it its "
    "than then into over under about after before since per also has have had not but which who whom what when "
    "where while more most less least very such can could may might will would should their there they them he she "
    "his her our we you your new reported report according said says percent million billion year years "
    "currently current now today still latest".split()
) | frozenset(_MONTH_WORDS)
"""Words that never anchor an alignment (function words, reporting verbs, units and time words)."""
_WORD = re.compile(r"[a-z][a-z\-']+")


@lru_cache(maxsize=1)
def _stemmer() -> object:
    require("eval")
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=20_000)
def stem(word: str) -> str:
    """The Snowball stem of one lower-cased word (possessives and hyphens handled first)."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'-")
    return str(_stemmer().stemWord(w))  # type: ignore[attr-defined]


def content_stems(text: str) -> list[str]:
    """Stems of the content words of ``text``, in order (stop words and words of two letters dropped)."""
    return [stem(w) for w in _WORD.findall(text.lower().replace("’", "'")) if len(w) > 2 and w not in STOP]


def anchor_words(text: str) -> set[str]:
    """The set of content stems used to align claim and passage sentences."""
    return set(content_stems(text))
