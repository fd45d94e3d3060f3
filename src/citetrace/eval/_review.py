"""The labelling queue: sample (claim, citation) pairs from recent runs for people to label.

A judge can only be trusted where it was measured, and the shipped sets are not your agent's reports. So
``citetrace review`` samples judged pairs from recent runs into a standing queue (a JSON Lines file; new
samples are appended, a pair already queued is never queued twice):

- stratified by the judge's label, so that rare labels (CONTRADICTED, ABSENT) get labelled at all: each label
  present gets an equal share of the sample, and what a small stratum cannot fill goes to the others;
- inside a stratum, sampling favours what matters most (weights): numeric claims (+1), high-impact claims
  (+1: a money amount or percentage, the report's first claims, which conclusions lean on, or a claim the
  run's own claim ledger marked ``impact="high"``, the conclusion depending on it), and pairs on
  which two judges disagree (+2: the model judge and the checker, or the checker and ``--second-judge``);
- seeded, so a queue can be rebuilt.

A person labels with the keyboard (``_review_ui``); each label is a line in the ``judge-eval`` format with the
labeller and the time. Two labellers' files merge into one labels file with ``label1``/``label2`` (Cohen's
kappa printed); ``citetrace judge-eval`` then measures any judge on the team's own labels.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from citetrace._redact import redact_url
from citetrace.eval._align import content_stems
from citetrace.eval._evaluate import RunEvaluation
from citetrace.eval._facts import extract_facts
from citetrace.eval._jsonl import read_jsonl
from citetrace.eval._judge_eval import cohen_kappa
from citetrace.eval._types import JUDGE_LABELS

__all__ = ["ReviewItem", "candidates", "ledger_high_impact", "sample", "read_queue", "append_queue", "merge_labels", "label_record"]

_HIGH_IMPACT_SENTENCES = 3


@dataclass
class ReviewItem:
    """One queued pair with what a labeller needs to see and why it was sampled."""

    id: str
    run_id: str
    claim: str
    sentence: str
    passage: str
    url: str
    question: str | None
    judge: str
    judge_label: str
    other_label: str | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def weight(self) -> float:
        return 1.0 + ("numeric" in self.reasons) + ("high_impact" in self.reasons) + 2.0 * ("disagreement" in self.reasons)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "run_id": self.run_id, "claim": self.claim, "sentence": self.sentence,
                "passage": self.passage, "url": self.url, "question": self.question, "judge": self.judge,
                "judge_label": self.judge_label, "other_label": self.other_label, "reasons": self.reasons}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "ReviewItem":
        return cls(str(d["id"]), str(d["run_id"]), str(d["claim"]), str(d.get("sentence") or d["claim"]),
                   str(d["passage"]), str(d.get("url") or ""), d.get("question"), str(d.get("judge") or ""),
                   str(d["judge_label"]), d.get("other_label"), list(d.get("reasons") or []))


def _item_id(run_id: str, claim: str, url: str) -> str:
    return "r" + hashlib.sha256(f"{run_id}\n{claim}\n{url}".encode()).hexdigest()[:12]


_SAME_CLAIM = 0.8
"""Share of content stems two claim texts must share (Jaccard) to be the same claim (report vs ledger)."""


def _same_claim(a: set[str], b: set[str]) -> bool:
    return bool(a and b) and len(a & b) / len(a | b) >= _SAME_CLAIM


def candidates(ev: RunEvaluation, question: str | None = None,
               second: dict[tuple[str, str], str] | None = None,
               high_impact: Sequence[str] = ()) -> list[ReviewItem]:
    """Every judged pair of one evaluation as a review candidate (unfetched and unjudgeable pairs skipped:
    there is nothing to label against). ``second`` maps (claim, url) to another judge's label;
    ``high_impact`` are claim texts the run's ledger marked high-impact (matched by content stems, since the
    report may word a ledger claim slightly differently)."""
    ledger_claims = [set(content_stems(text)) for text in high_impact]
    out: list[ReviewItem] = []
    first_claims = sorted({p.pair.sentence.index for p in ev.pairs if p.has_citation})[:_HIGH_IMPACT_SENTENCES]
    for p in ev.pairs:
        if p.verdict is None or p.label not in JUDGE_LABELS or not p.passages or not p.pair.url:
            continue
        facts = extract_facts(p.pair.claim)
        reasons = []
        if facts:
            reasons.append("numeric")
        stems = set(content_stems(p.pair.claim))
        if (any(f.kind in ("money", "percent") for f in facts) or p.pair.sentence.index in first_claims
                or any(_same_claim(stems, c) for c in ledger_claims)):
            reasons.append("high_impact")
        other = p.checker.label if p.checker is not None else (second or {}).get((p.pair.claim, p.pair.url))
        if other is not None and other != p.label:
            reasons.append("disagreement")
        passage = "\n\n".join(x.text.strip() for x in p.passages)
        out.append(ReviewItem(_item_id(ev.run_id, p.pair.claim, p.pair.url), ev.run_id, p.pair.claim,
                              p.pair.sentence.text, passage, redact_url(p.pair.url), question, ev.judge,
                              str(p.label), other, reasons))
    return out


def sample(items: Sequence[ReviewItem], n: int, *, seed: int = 0, exclude: Iterable[str] = ()) -> list[ReviewItem]:
    """``n`` items stratified by judge label (equal shares, leftovers passed on), weighted inside a stratum."""
    if n < 1:
        raise ValueError(f"a review sample needs n >= 1, got {n}")
    skip = set(exclude)
    pool: dict[str, list[ReviewItem]] = {}
    seen: set[str] = set()
    for item in items:
        if item.id in skip or item.id in seen:
            continue
        seen.add(item.id)
        pool.setdefault(item.judge_label, []).append(item)
    rng = random.Random(seed)
    chosen: list[ReviewItem] = []
    strata = sorted(pool, key=lambda label: (len(pool[label]), label))  # smallest first: leftovers flow on
    remaining = min(n, sum(len(v) for v in pool.values()))
    for k, label in enumerate(strata):
        share = -(-remaining // (len(strata) - k))  # ceil: an equal share of what is left
        take = min(share, len(pool[label]))
        chosen.extend(_weighted(pool[label], take, rng))
        remaining -= take
    return chosen


def _weighted(items: list[ReviewItem], k: int, rng: random.Random) -> list[ReviewItem]:
    """``k`` items without replacement, each draw proportional to its weight (Efraimidis-Spirakis keys)."""
    keyed = sorted(items, key=lambda it: -(rng.random() ** (1.0 / it.weight)))
    return keyed[:k]


def read_queue(path: str) -> list[ReviewItem]:
    """The queued items (an absent file is an empty queue); ValueError names a bad line."""
    out: list[ReviewItem] = []
    for n, row in read_jsonl(path, "review queue", missing_ok=True):
        try:
            out.append(ReviewItem.from_dict(row))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a review queue line (missing {exc})") from exc
    return out


def append_queue(path: str, items: Sequence[ReviewItem]) -> int:
    """Append the items not queued yet; returns how many were added."""
    have = {it.id for it in read_queue(path)}
    new = [it for it in items if it.id not in have]
    with open(path, "a", encoding="utf-8") as fh:
        for it in new:
            fh.write(json.dumps(it.as_dict(), ensure_ascii=False) + "\n")
    return len(new)


def label_record(item: ReviewItem, label: str, labeller: str, at: float, note: str = "") -> dict[str, Any]:
    """One labelled pair in the judge-eval format, with who labelled it and when."""
    if label not in JUDGE_LABELS:
        raise ValueError(f"label {label!r} is not one of {', '.join(JUDGE_LABELS)}")
    return {"id": item.id, "claim": item.claim, "passage": item.passage, "label": label, "labeller": labeller,
            "labelled_at": at, "source": f"{item.run_id} {item.url}", "judge_label": item.judge_label,
            **({"note": note} if note else {})}


def _rows(path: str) -> dict[str, dict[str, Any]]:
    return {str(row.get("id", n)): row for n, row in read_jsonl(path, "labels")}


def merge_labels(first: str, second: str) -> tuple[list[dict[str, Any]], float | None, int]:
    """Merge two labellers' files: every pair both labelled gets ``label1``/``label2`` (``label`` = label1
    until adjudicated; ``needs_adjudication`` when they differ); a pair one of them labelled keeps that label
    (the workflow is two people on a share of the pairs, and judge-eval measures the judge on all of them).
    Rows in the first file's order, then the second file's own. Returns (rows, kappa, pairs in common)."""
    a, b = _rows(first), _rows(second)
    common = [k for k in a if k in b]
    rows = []
    for k in a:
        row = dict(a[k])
        if k in b:
            row.update(label1=a[k]["label"], label2=b[k]["label"], labeller2=b[k].get("labeller"))
            if a[k]["label"] != b[k]["label"]:
                row["needs_adjudication"] = True
        rows.append(row)
    rows.extend(dict(b[k]) for k in b if k not in a)
    kappa = cohen_kappa([a[k]["label"] for k in common], [b[k]["label"] for k in common]) if common else None
    return rows, kappa, len(common)


def ledger_high_impact(store: Any, run_id: str) -> list[str]:
    """Texts of the claims the run's claim ledger marked ``impact="high"`` ([] for a run without a ledger)."""
    if not store.ledger_entries(run_id):
        return []
    from citetrace.ledger import Ledger

    return [c.text for c in Ledger.open(run_id, store=store).claims() if c.impact == "high"]
