"""Which rule of the deterministic checker produced each CONTRADICTED verdict, and how often it was right, per
labelled set: ``python -m citetrace.eval._audit [--set NAME ...] [--json]``.

A flagger is trusted by its false flags, and a rule family tuned on one set can be precise there and cry wolf
on pages it never saw. Every CONTRADICTED verdict carries a ``rule:NAME`` flag (``_deterministic.RULE``);
this tabulates, per family and per set, the verdicts that were right (gold CONTRADICTED) and wrong (any other
gold label), so a family can be judged on the sets it was not tuned on (docs/eval.md, "det-6" and "det-7").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Sequence

from citetrace.eval._data import LABEL_SETS
from citetrace.eval._deterministic import RULE, DeterministicJudge
from citetrace.eval._judge_eval import LabelledPair, load_labels
from citetrace.eval._judges import judge_atomic
from citetrace.eval._types import CONTRADICTED, Passage

__all__ = ["rule_audit", "main"]

AUDITED_SETS = ("shipped", "hard", "heldout", "heldout2", "heldout3", "heldout4")
"""The sets the audit reads by default: the shipped sets that are tuning sets (docs/eval.md says which)."""


def rule_audit(pairs: Sequence[LabelledPair], judge: DeterministicJudge | None = None) -> dict[str, list[int]]:
    """{rule: [right, wrong]} over the CONTRADICTED verdicts on ``pairs`` (each claim split into atomic claims
    as ``eval`` does; a compound claim counts once, under its first contradicting rule)."""
    judge = judge or DeterministicJudge()
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for pair in pairs:
        verdict, _ = judge_atomic(judge, pair.claim, [Passage(pair.passage, 0, len(pair.passage))])
        if verdict.label != CONTRADICTED:
            continue
        rule = next((f[len(RULE):] for f in verdict.flags if f.startswith(RULE)), "unnamed")
        out[rule][0 if pair.label == CONTRADICTED else 1] += 1
    return dict(out)


def _table(audits: dict[str, dict[str, list[int]]]) -> str:
    """Rules as rows, sets as columns, each cell "right/wrong"."""
    rules = sorted({r for a in audits.values() for r in a})
    sets = list(audits)
    lines = ["rule (right/wrong)".ljust(22) + "".join(s.rjust(10) for s in sets)]
    for r in rules:
        cells = ["{}/{}".format(*audits[s].get(r, [0, 0])) for s in sets]
        lines.append(r.ljust(22) + "".join(c.rjust(10) for c in cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the per-rule table (or JSON) for the named sets."""
    parser = argparse.ArgumentParser(prog="python -m citetrace.eval._audit", description=__doc__)
    parser.add_argument("--set", action="append", choices=sorted(LABEL_SETS), help="a labelled set (repeatable)")
    parser.add_argument("--json", action="store_true", help="print {set: {rule: [right, wrong]}}")
    args = parser.parse_args(argv)
    audits = {name: rule_audit(load_labels(LABEL_SETS[name]())) for name in (args.set or AUDITED_SETS)}
    sys.stdout.write((json.dumps(audits, indent=1, sort_keys=True) if args.json else _table(audits)) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
