"""Measuring a judge against hand labels: confusion matrix, Cohen's kappa, per-label precision and recall,
macro-F1, and the false-support / false-contradiction rates with Wilson 95 % intervals.

The labels file is JSON Lines, one pair per line: ``{"id", "claim", "passage", "label"}`` and optionally
``"label1"``/``"label2"`` (two independent labelling passes; ``label`` is then the adjudicated gold) so that
judge-vs-human agreement can be shown next to the human-human ceiling.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from citetrace.eval._jsonl import read_jsonl
from citetrace.eval._types import ABSENT, CONTRADICTED, JUDGE_ERROR, JUDGE_LABELS, PARTIAL, SUPPORTED, Passage

__all__ = ["LabelledPair", "load_labels", "cohen_kappa", "wilson", "JudgeReport", "evaluate_judge", "confusion",
           "TARGETS"]

TARGETS = {
    "false_contradiction_sp": ("at most", 0.05),
    "contradicted_recall": ("at least", 0.75),
    "absent_precision": ("at least", 0.90),
    "false_support": ("at most", 0.02),
}
"""The flagger targets of an offline checker (issue 15): false contradictions on SUPPORTED/PARTIAL gold,
CONTRADICTED recall, ABSENT precision, and the false-support ceiling that allows an offline SUPPORTED."""


@dataclass(frozen=True)
class LabelledPair:
    id: str
    claim: str
    passage: str
    label: str
    label2: str | None = None
    source: str | None = None
    label1: str | None = None


def load_labels(path: str) -> list[LabelledPair]:
    """Read a labels file; ValueError names the file, line and problem."""
    out: list[LabelledPair] = []
    for n, row in read_jsonl(path, "labels"):
        for key in ("claim", "passage", "label"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise ValueError(f"{path}:{n}: missing string field {key!r}")
        for key in ("label", "label1", "label2"):
            if row.get(key) is not None and row[key] not in JUDGE_LABELS:
                raise ValueError(f"{path}:{n}: {key} {row[key]!r} is not one of {', '.join(JUDGE_LABELS)}")
        out.append(LabelledPair(str(row.get("id", n)), row["claim"], row["passage"], row["label"],
                                row.get("label2"), row.get("source"), row.get("label1")))
    if not out:
        raise ValueError(f"labels file {path!r} has no pairs")
    return out


def confusion(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str]) -> list[list[int]]:
    """matrix[i][j] = pairs with gold labels[i] predicted labels[j]."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred):
        matrix[index[g]][index[p]] += 1
    return matrix


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa of two labellings of the same items (None when chance agreement is total)."""
    if len(a) != len(b) or not a:
        raise ValueError("kappa needs two non-empty labellings of equal length")
    n = len(a)
    observed = sum(1 for x, y in zip(a, b) if x == y) / n
    # fsum over sorted categories: a plain sum over a set depends on the set's order, which str hashing salts
    # per process, so two runs over the same labels printed kappas that differed in their last digit
    count_a, count_b = Counter(a), Counter(b)
    expected = math.fsum((count_a[c] / n) * (count_b[c] / n) for c in sorted(set(count_a) | set(count_b)))
    return None if expected == 1.0 else (observed - expected) / (1 - expected)


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """Wilson score interval for a proportion (None when n == 0)."""
    if n == 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class JudgeReport:
    judge: str
    labels: tuple[str, ...]
    matrix: list[list[int]]
    n: int
    accuracy: float
    kappa: float | None
    per_label: dict[str, dict[str, float | None]]
    macro_f1: float
    false_support: tuple[int, int]
    false_contradiction: tuple[int, int]
    judge_errors: int
    human_kappa: float | None
    human_n: int
    flagger: dict[str, tuple[int, int]] = field(default_factory=dict)
    """The target figures as (numerator, denominator): see ``TARGETS``."""

    def target_met(self, name: str) -> bool | None:
        """True/False against ``TARGETS`` (on the point estimate), None when nothing was counted."""
        num, den = self.flagger[name] if name in self.flagger else (0, 0)
        if not den:
            return None
        direction, bound = TARGETS[name]
        return num / den <= bound if direction == "at most" else num / den >= bound

    def as_dict(self) -> dict[str, Any]:
        fs, fc = self.false_support, self.false_contradiction
        return {
            "judge": self.judge, "n": self.n, "labels": list(self.labels), "confusion": self.matrix,
            "accuracy": self.accuracy, "kappa": self.kappa, "per_label": self.per_label, "macro_f1": self.macro_f1,
            "false_support_rate": {"numerator": fs[0], "denominator": fs[1],
                                   "value": fs[0] / fs[1] if fs[1] else None, "wilson95": wilson(*fs)},
            "false_contradiction_rate": {"numerator": fc[0], "denominator": fc[1],
                                         "value": fc[0] / fc[1] if fc[1] else None, "wilson95": wilson(*fc)},
            "judge_errors": self.judge_errors, "human_kappa": self.human_kappa, "human_n": self.human_n,
            "targets": {name: {"numerator": n, "denominator": d, "value": n / d if d else None,
                               "wilson95": wilson(n, d), "target": f"{TARGETS[name][0]} {TARGETS[name][1]:.2f}",
                               "met": self.target_met(name)} for name, (n, d) in self.flagger.items()},
        }


def evaluate_judge(
    pairs: Sequence[LabelledPair],
    judge_fn: Callable[[str, Sequence[Passage]], str],
    judge_name: str,
    progress: Callable[[int, int], None] | None = None,
) -> JudgeReport:
    """Run ``judge_fn(claim, [passage]) -> label`` over every labelled pair and score it against the gold label."""
    labels = (*JUDGE_LABELS, JUDGE_ERROR)
    gold: list[str] = []
    pred: list[str] = []
    for i, item in enumerate(pairs, 1):
        gold.append(item.label)
        pred.append(judge_fn(item.claim, [Passage(item.passage, 0, len(item.passage))]))
        if progress is not None:
            progress(i, len(pairs))
    matrix = confusion(gold, pred, labels)
    per_label: dict[str, dict[str, float | None]] = {}
    f1s: list[float] = []
    for i, label in enumerate(JUDGE_LABELS):
        tp = matrix[i][i]
        predicted = sum(row[i] for row in matrix)
        actual = sum(matrix[i])
        precision = tp / predicted if predicted else None
        recall = tp / actual if actual else None
        f1 = (2 * precision * recall / (precision + recall)) if precision and recall else 0.0
        f1s.append(f1)
        per_label[label] = {"precision": precision, "recall": recall, "f1": f1, "support": float(actual)}
    negatives = [p for g, p in zip(gold, pred) if g in (ABSENT, CONTRADICTED)]
    not_contra = [p for g, p in zip(gold, pred) if g != CONTRADICTED]
    doubled = [(p.label1 or p.label, p.label2) for p in pairs if p.label2 is not None]
    human = cohen_kappa([a for a, _ in doubled], [b for _, b in doubled if b is not None]) if doubled else None
    sp = [p for g, p in zip(gold, pred) if g in (SUPPORTED, PARTIAL)]
    flagger = {
        "false_contradiction_sp": (sp.count(CONTRADICTED), len(sp)),
        "contradicted_recall": (matrix[2][2], sum(matrix[2])),
        "absent_precision": (matrix[3][3], sum(row[3] for row in matrix)),
        "false_support": (negatives.count(SUPPORTED), len(negatives)),
    }
    return JudgeReport(
        flagger=flagger,
        judge=judge_name, labels=labels, matrix=matrix, n=len(pairs),
        accuracy=sum(1 for g, p in zip(gold, pred) if g == p) / len(pairs),
        kappa=cohen_kappa(gold, pred), per_label=per_label, macro_f1=sum(f1s) / len(f1s),
        false_support=(negatives.count(SUPPORTED), len(negatives)),
        false_contradiction=(not_contra.count(CONTRADICTED), len(not_contra)),
        judge_errors=pred.count(JUDGE_ERROR), human_kappa=human, human_n=len(doubled),
    )
