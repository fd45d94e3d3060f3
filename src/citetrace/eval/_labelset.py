"""Build the shipped labelled set (``data/labels.jsonl``) from the hand-written claims and a corpus (the demo's).

``data/claims.tsv`` holds one hand-written claim per line with the corpus page, the paragraph it is judged
against and its first-pass label; ``data/relabel.tsv`` holds the blind second pass on a subset, and
``data/adjudicated.tsv`` the final label of every pair on which the two passes disagreed. The passage
text is taken from the corpus at build time, so the set cannot drift from the pages it describes (a test
rebuilds it and compares).
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Callable

from citetrace.eval._types import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED

__all__ = ["build_labels", "read_claims", "build_hard_labels", "build_heldout_labels", "build_heldout2_labels",
           "build_heldout3_labels", "build_heldout4_labels", "build_heldout5_labels"]

_CODES = {"S": SUPPORTED, "P": PARTIAL, "C": CONTRADICTED, "A": ABSENT}


def _data(name: str) -> str:
    return resources.files("citetrace.eval").joinpath("data").joinpath(name).read_text(encoding="utf-8")


def _rows(name: str) -> list[list[str]]:
    return [line.split("\t") for line in _data(name).splitlines() if line.strip() and not line.startswith("#")]


def read_claims() -> list[tuple[str, str, int, str, str]]:
    """(id, slug, paragraph, label, claim) for every hand-written claim, ids in file order."""
    out = []
    for n, (slug, para, code, claim) in enumerate(_rows("claims.tsv"), 1):
        out.append((f"c{n:03d}", slug, int(para), _CODES[code], claim.strip()))
    return out


def build_labels(paragraph: Callable[[str, int], str]) -> str:
    """The JSON Lines text of the labelled set; ``paragraph(slug, n)`` is the corpus text a claim is judged
    against (the demo corpus's: ``citetrace.demo.page(slug).paragraphs[n]``). Passed in, so eval does not
    depend on the demo."""
    second = {row[0]: _CODES[row[1]] for row in _rows("relabel.tsv")}
    final = {row[0]: _CODES[row[1]] for row in _rows("adjudicated.tsv")}
    lines = []
    for cid, slug, para, label, claim in read_claims():
        passage = paragraph(slug, para)
        if cid in second and second[cid] != label and cid not in final:
            raise ValueError(f"{cid}: the two labelling passes disagree and adjudicated.tsv has no final label")
        row = {"id": cid, "claim": claim, "passage": passage, "label": final.get(cid, label), "label1": label,
               "label2": second.get(cid), "source": f"{slug}#p{para}"}
        lines.append(json.dumps(row, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def _passes(relabel: str, adjudicated: str) -> tuple[dict[str, str], dict[str, str]]:
    """(second-pass label, adjudicated label) by pair id, from a set's two side files."""
    return ({row[0]: _CODES[row[1]] for row in _rows(relabel)},
            {row[0]: _CODES[row[1]] for row in _rows(adjudicated)})


def _final(pid: str, label: str, second: dict[str, str], final: dict[str, str], adjudicated: str) -> str:
    if pid in second and second[pid] != label and pid not in final:
        raise ValueError(f"{pid}: the two labelling passes disagree and {adjudicated} has no final label")
    return final.get(pid, label)


def build_hard_labels() -> str:
    """The JSON Lines text of the harder set, from ``data/hard.tsv`` (passages written as page prose), with its
    second labelling pass (``hard_relabel.tsv``) and adjudication (``hard_adjudicated.tsv``)."""
    second, final = _passes("hard_relabel.tsv", "hard_adjudicated.tsv")
    lines = []
    slug, passage, n = "", "", 0
    for row in _rows("hard.tsv"):
        if row[0] == "PAGE":
            slug, passage = row[1], row[2].strip()
            continue
        code, shape, claim = row
        n += 1
        hid, label = f"h{n:03d}", _CODES[code]
        lines.append(json.dumps({"id": hid, "claim": claim.strip(), "passage": passage,
                                 "label": _final(hid, label, second, final, "hard_adjudicated.tsv"),
                                 "label1": label, "label2": second.get(hid), "source": f"hard/{slug}",
                                 "shape": shape}, ensure_ascii=False))
    return "\n".join(lines) + "\n"


HELDOUT_SHA256 = "2219e060809823cab547fa91cddcdeb4bbdbaf1166e7200c60176ef8baffcc61"
"""Digest of ``data/heldout.tsv`` as committed (4a51b39) before the checker was tuned: a test fails on any
edit, so the held-out pages and claims cannot be changed quietly after their figures were seen."""


def _build_pages(tsv: str, prefix: str, relabel: str, adjudicated: str) -> str:
    """The JSON Lines text of a whole-page set (``PAGE`` rows, "\\n" escapes decoded, then label rows), with
    its second labelling pass and adjudication applied as for the shipped set."""
    second, final = _passes(relabel, adjudicated)
    lines = []
    slug, passage, n = "", "", 0
    for row in _rows(tsv):
        if row[0] == "PAGE":
            slug, passage = row[1], row[2].strip().replace("\\n", "\n")
            continue
        code, claim = row
        n += 1
        pid, label = f"{prefix}{n:03d}", _CODES[code]
        lines.append(json.dumps({"id": pid, "claim": claim.strip(), "passage": passage,
                                 "label": _final(pid, label, second, final, adjudicated), "label1": label,
                                 "label2": second.get(pid), "source": f"{tsv.removesuffix('.tsv')}/{slug}"},
                                ensure_ascii=False))
    return "\n".join(lines) + "\n"


def build_heldout_labels() -> str:
    """The JSON Lines text of the held-out set, from ``data/heldout.tsv`` (whole pages), with its second
    labelling pass (``heldout_relabel.tsv``) and adjudication (``heldout_adjudicated.tsv``)."""
    return _build_pages("heldout.tsv", "o", "heldout_relabel.tsv", "heldout_adjudicated.tsv")


HELDOUT2_SHA256 = "adff78534ae7fa5d0f587eba17ff68633484b2aebc81afe9aedc3bb76ac6ba55"
"""Digest of ``data/heldout2.tsv`` as committed before any work on ``det-4``: the second held-out set, built
like the first and measured once, at the end of that work."""


def build_heldout2_labels() -> str:
    """The JSON Lines text of the second held-out set, from ``data/heldout2.tsv`` (whole pages, other genres),
    with its second labelling pass (``heldout2_relabel.tsv``) and adjudication (``heldout2_adjudicated.tsv``)."""
    return _build_pages("heldout2.tsv", "q", "heldout2_relabel.tsv", "heldout2_adjudicated.tsv")


HELDOUT3_SHA256 = "ac48ba0ab57be16bf15583fc3d390500e5504b7aa72031db9288279e420948c6"
"""Digest of ``data/heldout3.tsv`` as committed (daea5e0), written blind while the checker was being revised: the third
held-out set, measured once, at the end of that work."""


def build_heldout3_labels() -> str:
    """The JSON Lines text of the third held-out set, from ``data/heldout3.tsv`` (whole pages, other genres
    again), with its second labelling pass (``heldout3_relabel.tsv``, by an independent labeller on the ids of
    ``heldout3_relabel_todo.tsv``) and adjudication (``heldout3_adjudicated.tsv``)."""
    return _build_pages("heldout3.tsv", "r", "heldout3_relabel.tsv", "heldout3_adjudicated.tsv")


HELDOUT4_SHA256 = "cc1768642a2d37071d89cf90ffd1ddd8526de8f50f11743cf375c18e2c07c2fa"
"""Digest of ``data/heldout4.tsv`` as committed (4df8900), written blind while the checker was being revised: the
fourth held-out set, measured once, at the end of that work."""


def build_heldout4_labels() -> str:
    """The JSON Lines text of the fourth held-out set, from ``data/heldout4.tsv`` (whole pages, other genres
    again), with its second labelling pass (``heldout4_relabel.tsv``, by an independent labeller on the ids of
    ``heldout4_relabel_todo.tsv``) and adjudication (``heldout4_adjudicated.tsv``)."""
    return _build_pages("heldout4.tsv", "v", "heldout4_relabel.tsv", "heldout4_adjudicated.tsv")


HELDOUT5_SHA256 = "c4470819307a06baeba9436d4ac5fee739d97ae5f834aac147762cf38202e4c5"
"""Digest of ``data/heldout5.tsv`` as committed (c1084cd), written blind while the checker was being revised: the fifth
held-out set, measured once, by the lead, after it landed."""


def build_heldout5_labels() -> str:
    """The JSON Lines text of the fifth held-out set, from ``data/heldout5.tsv`` (whole pages, other genres
    again), with its second labelling pass (``heldout5_relabel.tsv``, by an independent labeller on the ids of
    ``heldout5_relabel_todo.tsv``) and adjudication (``heldout5_adjudicated.tsv``)."""
    return _build_pages("heldout5.tsv", "w", "heldout5_relabel.tsv", "heldout5_adjudicated.tsv")
