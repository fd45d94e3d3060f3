"""The shipped labelled set: size, balance, provenance, agreement, and the deterministic checker's figures."""

from __future__ import annotations

import json
from collections import Counter

from citetrace.demo import page
from citetrace.eval import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED, DeterministicJudge, evaluate_judge, load_labels
from citetrace.eval._data import labels_path
from citetrace.eval._labelset import build_labels


def test_shipped_file_is_the_build_of_claims_and_corpus() -> None:
    """labels.jsonl equals a fresh build from claims.tsv, relabel.tsv, adjudicated.tsv and the demo corpus."""
    with open(labels_path(), encoding="utf-8") as fh:
        assert fh.read() == build_labels()


def test_size_and_balance() -> None:
    """At least 200 pairs, at least 40 per label, at least 40 double-labelled."""
    pairs = load_labels(labels_path())
    counts = Counter(p.label for p in pairs)
    assert len(pairs) >= 200
    assert all(counts[label] >= 40 for label in (SUPPORTED, PARTIAL, CONTRADICTED, ABSENT)), counts
    assert sum(1 for p in pairs if p.label2 is not None) >= 40


def test_every_passage_is_a_corpus_paragraph() -> None:
    """Each pair's passage is, verbatim, the corpus paragraph its source names."""
    with open(labels_path(), encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            slug, para = row["source"].split("#p")
            assert page(slug).paragraphs[int(para)] == row["passage"]


def test_disagreements_are_adjudicated() -> None:
    """Wherever the two passes disagree, the gold label comes from adjudication (and is one of theirs)."""
    for p in load_labels(labels_path()):
        if p.label2 is not None and p.label1 != p.label2:
            assert p.label in (p.label1, p.label2)


def test_deterministic_checker_figures() -> None:
    """On the shipped set the checker never grants SUPPORTED and rarely cries contradiction (figures in docs/eval.md)."""
    judge = DeterministicJudge()
    report = evaluate_judge(load_labels(labels_path()), lambda c, ps: judge.judge(c, ps).label, judge.name)
    assert report.false_support == (0, 136)
    assert report.false_contradiction[0] / report.false_contradiction[1] < 0.06
    assert report.per_label[CONTRADICTED]["precision"] is not None
    assert report.per_label[CONTRADICTED]["precision"] > 0.8  # type: ignore[operator]
