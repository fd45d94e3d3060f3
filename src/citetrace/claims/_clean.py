"""The claim text a judge reads: anchors out, no dangling attribution, no source name left hanging.

Removing a URL from "according to https://..." leaves "according to ."; removing the link from "... this
year [Coastal Realty Journal](https://...)." leaves the journal's name glued to the claim as if it were
part of what is claimed. Both mislead a judge (and the deterministic checker's word alignment), so a
trailing link whose label reads as a source name is dropped, and an attribution phrase with nothing after
it is removed.
"""

from __future__ import annotations

import re
from typing import Sequence

from citetrace.claims._anchors import Anchor
from citetrace.claims._words import PREPOSITIONS, is_verb

__all__ = ["blank_anchors", "clean_claim_text", "is_source_label"]

_ATTRIBUTION = re.compile(
    r"\(?\s*\b(?:according\s+to|as\s+reported\s+(?:by|in)|reported\s+by|as\s+(?:stated|noted)\s+(?:by|in)|"
    r"per|via|sources?\s*:|see(?:\s+also)?|cited\s+in|citing|from)\s*\)?(?=\s*(?:[,.;:!?)]|$))",
    re.I,
)
_ARTICLES = frozenset("the a an its their this that these those our his her my your".split())
_IN_TEXT = re.compile(r"^[A-Z][^()\[\]]*?,?\s+(?:\d{4}[a-z]?|n\.\s?d\.)$")
"""An APA in-text citation label: "Bureau of Labor Statistics, 2024", "Smith et al., 2023a", "Lee, n.d."."""
_GENERIC = frozenset("source sources src link links ref refs reference references citation cite".split())
"""Link labels that only say "here is where it came from" (``... in 2024 [source](url).``)."""
_HOST = re.compile(r"(?:https?://)?(?:[a-z0-9-]+\.)+[a-z]{2,}(?:[/?#]\S*)?", re.I)
"""A label that is a host name or a URL (``[reuters.com](url)``, ``[https://a.org/x](https://a.org/x)``)."""
INLINE_TAG = re.compile(r"</?(?:sup|sub|b|i|em|strong|span|small|cite|u|mark)\b[^<>]*>", re.I)
"""Inline HTML markup around a citation (``<sup><a href=...>[1]</a></sup>``): formatting, not words."""
_LEAD = re.compile(r"^[\s,;:.)\]]+|^(?:and|but|while|whereas|yet|although|though)\s+", re.I)


def _word_before(text: str, pos: int) -> str:
    m = re.search(r"([A-Za-z]+)\W*$", text[:pos])
    return m.group(1).lower() if m else ""


def _names_a_source(label: str) -> bool:
    """The label reads as the name of a source: capitalised with no digits ("Coastal Realty Journal"), a host
    name or URL ("news.test", "https://a.org/x"), or a word that only points at one ("source", "link")."""
    if not label:
        return False
    if label.lower() in _GENERIC or _HOST.fullmatch(label):
        return True
    return not any(ch.isdigit() for ch in label) and label[0].isupper()


def is_source_label(sentence: str, anchor: Anchor) -> bool:
    """A link label that names the source rather than saying something: it ends its clause, reads as a
    source's name (``_names_a_source``), and does not follow a preposition, an article or a verb that would
    make it part of the claim ("in [Norway](...)", "said [Reuters](...)", "the [source](...)" stay)."""
    label = (anchor.label or "").strip()
    if _IN_TEXT.match(label) and _in_parentheses(sentence, anchor):  # gpt-researcher's ([Author, 2024](url))
        return True
    if not _names_a_source(label):
        return False
    after = sentence[anchor.end:]
    if not re.match(r"\s*(?:\[[^\]]*\]\s*)*(?:[,.;:!?)|]|$)", after):  # "|": a table cell ends
        return False
    before = sentence[: anchor.start].rstrip()
    if before.endswith("("):
        return True
    word = _word_before(sentence, anchor.start)
    if re.search(r"(according\s+to|reported\s+by|per|via|source:?)\s*$", before, re.I):
        return True
    return not (word in PREPOSITIONS or word in _ARTICLES or is_verb(word))


def _in_parentheses(sentence: str, anchor: Anchor) -> bool:
    """The link is a whole item of a parenthesis: ``(`` or ``;`` before it, ``)`` or ``;`` after it."""
    before = sentence[: anchor.start].rstrip()
    after = sentence[anchor.end:].lstrip()
    return before.endswith(("(", ";")) and after.startswith((")", ";"))


_FILL = "\x01"
"""Stands for an anchor's span while looking for citation-only groups (no report holds it: NUL-free text)."""
_CITATION_GROUP = re.compile(r"\((?:[\s\x01,;&/|]|and\b)*\)|\[(?:[\s\x01,;&/|]|and\b)*\]")
"""A parenthesis or bracket holding only anchors and the separators between them."""
_MARKER_LABEL = re.compile(r"\[\^?\d{1,4}(?:\s*[,\-–]\s*\d{1,4})*\]|\^?\d{1,4}(?:\s*[,\-–]\s*\d{1,4})*")
_CLAUSE_END = re.compile(r"[\s\x01]*(?:[,.;:!?)\]|]|$)")


def _filled(sentence: str, anchors: Sequence[Anchor]) -> str:
    """``sentence`` with every anchor's span replaced by ``_FILL`` (same length): what is left is prose."""
    chars = list(sentence)
    for a in anchors:
        chars[a.start:a.end] = _FILL * (a.end - a.start)
    return "".join(chars)


def _is_marker_label(sentence: str, filled: str, anchor: Anchor) -> bool:
    """A link titled like a marker: ``[[2]](url)`` always; ``[1](url)`` when it ends its clause and does not
    follow a preposition ("rose to [12](url)." keeps its number, "rose [1](url)." does not)."""
    label = (anchor.label or "").strip()
    if not _MARKER_LABEL.fullmatch(label):
        return False
    if label.startswith(("[", "^")):
        return True
    return bool(_CLAUSE_END.match(filled, anchor.end)) and _word_before(sentence, anchor.start) not in PREPOSITIONS


def blank_anchors(sentence: str, anchors: Sequence[Anchor]) -> str:
    """``sentence`` with every anchor blanked by spaces of the same length (offsets survive); a link's label
    stays readable unless it is a trailing source name or a marker-like title.

    A parenthesis or bracket that held only anchors (``([source](url))``, ``([1](url), [Reuters](url))``,
    ``[[1](url)]``) is blanked whole, labels, separators and brackets included: it cites, it does not claim.
    A group with words of its own ("(see [the table](url) below)") keeps them and the labels.
    """
    chars = list(sentence)
    filled = _filled(sentence, anchors)
    for a in anchors:
        keep: tuple[int, int] | None = None
        if a.label and not is_source_label(sentence, a) and not _is_marker_label(sentence, filled, a):
            keep = (a.label_at, a.label_at + len(a.label))
        for k in range(a.start, a.end):
            if keep is None or not keep[0] <= k < keep[1]:
                if chars[k] not in "\r\n":
                    chars[k] = " "
    for m in _CITATION_GROUP.finditer(filled):
        if _FILL in m.group(0):
            for k in range(m.start(), m.end()):
                if chars[k] not in "\r\n":
                    chars[k] = " "
    return "".join(chars)


def clean_claim_text(text: str) -> str:
    """Normalise a clause (anchors already blanked) into the text a judge reads."""
    out = re.sub(r"(\*\*|__|`)", "", text)
    out = INLINE_TAG.sub("", out)
    out = re.sub(r"\s+", " ", out)
    for _ in range(2):  # "(see according to )" style leftovers take two passes
        out = _ATTRIBUTION.sub("", out)
        out = re.sub(r"\(\s*[,;]?\s*\)", "", out)
    out = re.sub(r"\(\s+", "(", out)
    out = re.sub(r"\s+([.,;:!?)。，、；：！？）])", r"\1", out)  # full-width marks too: "24% 。" read as a gap
    out = re.sub(r"([,;:])(?=[.,;:!?])", "", out)
    prev = None
    while prev != out:
        prev, out = out, _LEAD.sub("", out.strip())
    return out.strip().rstrip(",;").strip()  # a trailing ":" stays: it marks a transition ("In summary:")
