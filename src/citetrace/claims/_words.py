"""Small word lists the splitter uses to tell a clause from a noun phrase, without a tagger.

A part-of-speech tagger would need model data that no offline package ships (nltk's tagger downloads its
data at run time). The splitter only has to answer "does this stretch of text contain a finite verb" and
"does it start with one", so a list of common verbs with their inflections, the auxiliaries, and the
``-ed`` ending are enough, and they fail safe: when in doubt the splitter does not split.
"""

from __future__ import annotations

import re

__all__ = ["WORD", "is_verb", "starts_like_verb", "PREPOSITIONS", "PRONOUN_SUBJECTS"]

WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d[\d,.]*%?|[$€£]\d[\d,.]*")
"""Words and numbers of a clause, as the splitter counts them."""

_AUX = frozenset(
    "is are was were be been being am has have had will would can could may might must shall should does do did "
    "isn't aren't wasn't weren't hasn't haven't hadn't won't wouldn't can't couldn't doesn't don't didn't".split()
)
_BASE = (
    "account aim add announce appear approve arrive ask attract average back bring build buy call claim climb close "
    "collect come complete contain continue contribute control cost count cover create cut decline decrease deliver "
    "depend describe design develop die double drop earn employ end enter estimate exceed expand expect explain "
    "export face fall fail find finish fund gain generate get give go grow handle have hire hit hold host import "
    "improve include increase introduce invest issue join keep launch lead leave limit list lose make manage mean "
    "measure meet move need note offer open operate own pay plan plunge produce project propose provide publish "
    "purchase raise rank reach read receive record reduce reject release remain replace report represent require "
    "rise run save say see sell send serve set show shrink sign slip slow soar spend stand start state stay stop "
    "supply support surge surpass take target tell top total trade treble triple turn use vote want warn win "
    "work write yield"
).split()
_IRREGULAR = frozenset(
    "rose risen fell fallen grew grown won lost made paid took taken gave given became begun began cut hit sold "
    "bought spent built ran led kept held left meant set sank shrank drew drove fought found got gotten went gone "
    "knew known saw seen said told thought brought caught taught stood wrote written spoke spoken broke broken "
    "chose chosen froze met put read sent shut slid split spread struck swung threw thrown understood withdrew".split()
)
_NOT_VERB = frozenset("hundred red bed speed seed need feed breed indeed proceed shed sled bred united".split())


def _forms(base: str) -> set[str]:
    out = {base}
    if base.endswith("y") and base[-2:-1] not in "aeiou":
        out |= {base[:-1] + "ies", base[:-1] + "ied"}
    elif base.endswith(("s", "sh", "ch", "x", "z", "o")):
        out |= {base + "es", base + "ed"}
    else:
        out |= {base + "s", base + ("d" if base.endswith("e") else "ed")}
    return out


_VERBS = frozenset().union(*(_forms(b) for b in _BASE)) | _AUX | _IRREGULAR

PREPOSITIONS = frozenset(
    "in on at of for from to by with between among across over under into onto after before since during per "
    "than about around through via against without within".split()
)
"""Words that start a phrase, not a clause."""
PRONOUN_SUBJECTS = frozenset("it they he she we this these that those its their there".split())
"""Words that start an independent clause whose subject is elsewhere in the sentence."""


def is_verb(word: str) -> bool:
    """A common verb form, an auxiliary, or a word ending in -ed that is not a known noun or adjective."""
    w = word.lower().replace("’", "'")
    return w in _VERBS or (len(w) >= 5 and w.endswith("ed") and w not in _NOT_VERB and w.isalpha())


def starts_like_verb(words: list[str]) -> bool:
    """True when a clause opens with a verb ("costs $12", "is expected to", "rose to 5 %")."""
    return bool(words) and words[0][:1].islower() and is_verb(words[0])
