"""Drift checks for judges: a judge-eval history per judge and model version, a canary alert rule, and a
band on the production label distribution.

LLM judges drift (a provider updates the model behind a name; a prompt changes), and so does what agents
write. Two checks, both cheap enough for a schedule (cron, CI):

- **Canary**: ``citetrace judge-eval LABELS --history FILE --max-drop 0.05`` appends one line per run to a
  history (judge, judge version, model, the labels file's digest, accuracy, kappa, the flagger targets) and
  compares it with the last entry for the same judge, model and labels. The alert rule: agreement
  (accuracy against the labels) more than ``--max-drop`` below that entry prints ``ALERT ...`` and exits 1.
  The agreement is also written to ``--metrics-file`` as ``citetrace_judge_agreement_ratio{judge,set}``.
- **Label distribution**: ``citetrace review drift`` compares the share of each label among the judged pairs
  of recent runs with a saved reference; a share outside reference +- ``--band`` (absolute, default 0.10)
  prints ``DRIFT ...`` and exits 1.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from typing import Any, Mapping

from citetrace.eval._jsonl import read_jsonl
from citetrace.eval._judge_eval import JudgeReport
from citetrace.eval._types import JUDGE_LABELS, PAIR_LABELS

__all__ = ["history_entry", "append_history", "last_comparable", "agreement_alert", "label_shares",
           "distribution_alerts"]


def _digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()[:16]


def history_entry(report: JudgeReport, labels_path: str, *, judge_version: str, judge_model: str | None,
                  at: float | None = None) -> dict[str, Any]:
    """One history line for a judge-eval run."""
    return {"at": time.time() if at is None else at, "judge": report.judge, "judge_version": judge_version,
            "judge_model": judge_model, "labels": os.path.basename(labels_path), "labels_sha256": _digest(labels_path),
            "n": report.n, "accuracy": report.accuracy, "kappa": report.kappa, "macro_f1": report.macro_f1,
            "targets": {k: (n / d if d else None) for k, (n, d) in report.flagger.items()}}


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("judge", "judge_model", "labels_sha256"))


def last_comparable(path: str, entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """The latest earlier entry for the same judge, model and labels (None for a first run or a new file)."""
    found = None
    for _, row in read_jsonl(path, "judge-eval history", missing_ok=True):
        if _same(row, entry):
            found = row
    return found


def append_history(path: str, entry: Mapping[str, Any]) -> None:
    """Append one entry (the history is append-only JSON Lines)."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(dict(entry)) + "\n")


def agreement_alert(previous: Mapping[str, Any] | None, entry: Mapping[str, Any], max_drop: float) -> str | None:
    """The alert message when agreement fell by more than ``max_drop`` since the comparable entry."""
    if previous is None or previous.get("accuracy") is None:
        return None
    drop = float(previous["accuracy"]) - float(entry["accuracy"])
    if drop <= max_drop:
        return None
    version = "" if previous.get("judge_version") == entry.get("judge_version") else \
        f" (judge version {previous.get('judge_version')} -> {entry.get('judge_version')})"
    return (f"judge {entry['judge']}{'/' + str(entry['judge_model']) if entry.get('judge_model') else ''} "
            f"agreement on {entry['labels']} fell from {float(previous['accuracy']):.3f} to "
            f"{float(entry['accuracy']):.3f} (drop {drop:.3f} > {max_drop:.3f}){version}")


def label_shares(counts: Mapping[str, int]) -> dict[str, float]:
    """Each judge label's share of the judged pairs (JUDGE_ERROR counted, UNFETCHED not: nothing was judged)."""
    judged = {k: int(v) for k, v in counts.items() if k in PAIR_LABELS and k != "UNFETCHED"}
    total = sum(judged.values())
    labels = (*JUDGE_LABELS, "JUDGE_ERROR")
    return {k: (judged.get(k, 0) / total if total else 0.0) for k in labels}


def distribution_alerts(reference: Mapping[str, float], counts: Mapping[str, int], band: float) -> list[str]:
    """One message per label whose share left reference +- band."""
    if not 0 < band < 1:
        raise ValueError(f"--band must be between 0 and 1, got {band}")
    now = label_shares(counts)
    out = []
    for label, ref in reference.items():
        share = now.get(label, 0.0)
        if abs(share - float(ref)) > band:
            out.append(f"{label} share {share:.3f} is outside the band [{max(0.0, float(ref) - band):.3f}, "
                       f"{min(1.0, float(ref) + band):.3f}] around the reference {float(ref):.3f}")
    return out
