"""The shipped labelled set: size, balance, provenance, agreement, and the deterministic checker's figures."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from citetrace.demo import page
from citetrace.eval import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED, DeterministicJudge, evaluate_judge, load_labels
from citetrace.eval._data import labels_path
from citetrace.eval._labelset import build_labels


def test_shipped_file_is_the_build_of_claims_and_corpus() -> None:
    """labels.jsonl equals a fresh build from claims.tsv, relabel.tsv, adjudicated.tsv and the demo corpus."""
    with open(labels_path(), encoding="utf-8") as fh:
        assert fh.read() == build_labels(lambda slug, n: page(slug).paragraphs[n])


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


def test_judge_eval_computes_the_figures_on_a_known_set() -> None:
    """On ten pairs with hand-computed answers, judge-eval's matrix, targets and Wilson intervals are exact."""
    from citetrace.eval._judge_eval import LabelledPair, wilson

    rows = [  # (gold, what the scripted judge answers)
        (SUPPORTED, SUPPORTED), (SUPPORTED, PARTIAL), (SUPPORTED, CONTRADICTED), (PARTIAL, PARTIAL),
        (PARTIAL, PARTIAL), (CONTRADICTED, CONTRADICTED), (CONTRADICTED, PARTIAL), (CONTRADICTED, SUPPORTED),
        (ABSENT, ABSENT), (ABSENT, CONTRADICTED),
    ]
    pairs = [LabelledPair(f"k{i}", f"claim {i}", "passage", gold) for i, (gold, _) in enumerate(rows)]
    answers = {f"claim {i}": pred for i, (_, pred) in enumerate(rows)}
    report = evaluate_judge(pairs, lambda claim, _: answers[claim], "scripted")
    assert report.matrix[:4] == [[1, 1, 1, 0, 0], [0, 2, 0, 0, 0], [1, 1, 1, 0, 0], [0, 0, 1, 1, 0]]
    assert report.accuracy == 0.5
    assert report.flagger == {"false_contradiction_sp": (1, 5), "contradicted_recall": (1, 3),
                              "absent_precision": (1, 1), "false_support": (1, 5)}
    assert report.false_contradiction == (2, 7)
    assert report.target_met("false_contradiction_sp") is False and report.target_met("absent_precision") is True
    d = report.as_dict()["targets"]["contradicted_recall"]
    assert d["value"] == 1 / 3 and d["wilson95"] == wilson(1, 3)
    low, high = wilson(1, 3)  # type: ignore[misc]
    assert round(low, 4) == 0.0615 and round(high, 4) == 0.7923  # the textbook Wilson 95 % interval for 1/3


def test_hard_set_is_built_deduplicated_and_has_the_shapes() -> None:
    """hard.jsonl is the build of hard.tsv; no claim repeats (even near-verbatim) on one page, no claim is
    labelled two ways, and every shape the issue lists is present."""
    import re

    from citetrace.eval._data import hard_labels_path
    from citetrace.eval._labelset import build_hard_labels

    with open(hard_labels_path(), encoding="utf-8") as fh:
        assert fh.read() == build_hard_labels()
    rows = [json.loads(line) for line in build_hard_labels().splitlines()]
    assert len(rows) >= 80 and sum(r["label2"] is not None for r in rows) == 30
    words = [set(re.findall(r"\w+", r["claim"].lower())) for r in rows]
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if rows[i]["source"] == rows[j]["source"]:
                jaccard = len(words[i] & words[j]) / len(words[i] | words[j])
                assert jaccard < 0.9 or rows[i]["label"] != rows[j]["label"], (rows[i]["id"], rows[j]["id"])
    labels: dict[str, set[str]] = {}
    for r in rows:
        labels.setdefault(r["claim"].lower().rstrip("."), set()).add(r["label"])
    assert all(len(v) == 1 for v in labels.values())
    assert {r["shape"] for r in rows} >= {"paraphrase", "inflection", "fraction", "compound", "quotes",
                                          "body-date", "multi-number"}


def test_judge_eval_prints_the_targets_for_either_set(capsys: pytest.CaptureFixture[str]) -> None:
    """`citetrace judge-eval --set hard` prints the flagger targets with Wilson intervals (figures not asserted)."""
    from citetrace.cli import main

    assert main(["judge-eval", "--set", "hard", "--judge", "deterministic"]) == 0
    out = capsys.readouterr().out
    assert "CONTRADICTED recall:" in out and "Wilson 95 %" in out and "labelled pairs" in out


HELDOUT_SETS = ["heldout", "heldout2", "heldout3", "heldout4", "heldout5"]
"""The whole-page held-out sets, in the order they were made (each must be new against all before it)."""

QUEUE_SEEDS = {"heldout3": 20261204, "heldout4": 20261205, "heldout5": 20261206}
"""The sets whose second pass is done by an independent labeller on a seeded queue, with the queue's seed."""

SECOND_PASS_PENDING: set[str] = set()
"""Sets whose queued second pass has not been written yet (their relabel file is still empty)."""


@pytest.mark.parametrize("name", HELDOUT_SETS)
def test_heldout_set_is_built_deduplicated_and_new(name: str) -> None:
    """A held-out file is the build of its tsv, frozen at the digest it had before tuning: whole pages (several
    paragraphs), every label present, its doubly labelled pairs (40; for a queued set exactly its second-pass
    queue, or none while that pass is pending), no near-verbatim claim on one page, and no claim close to any
    claim of the sets made before it."""
    import hashlib
    import re
    from importlib import resources

    from citetrace.eval import _labelset
    from citetrace.eval._data import LABEL_SETS

    frozen = resources.files("citetrace.eval").joinpath("data").joinpath(f"{name}.tsv").read_bytes()
    assert hashlib.sha256(frozen).hexdigest() == getattr(_labelset, f"{name.upper()}_SHA256")  # as frozen
    built = getattr(_labelset, f"build_{name}_labels")()
    with open(LABEL_SETS[name](), encoding="utf-8") as fh:
        assert fh.read() == built
    rows = [json.loads(line) for line in built.splitlines()]
    assert len(rows) >= 100 and {r["label"] for r in rows} == {"SUPPORTED", "PARTIAL", "CONTRADICTED", "ABSENT"}
    assert all(r["passage"].count("\n\n") >= 2 for r in rows)
    doubled = [r for r in rows if r["label2"] is not None]
    if name in QUEUE_SEEDS:  # its second pass is done by an independent labeller, on exactly the queued ids
        done, queued = {r["id"] for r in doubled}, {pid for pid, _ in _relabel_todo(name)}
        assert done == queued or (name in SECOND_PASS_PENDING and not done), sorted(done ^ queued)
    else:
        assert len(doubled) == 40
    assert all(r["label"] == r["label1"] for r in rows if r["label1"] == r["label2"])

    def words(text: str) -> set[str]:
        return set(re.findall(r"\w+", text.lower()))

    mine = [words(r["claim"]) for r in rows]
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if rows[i]["source"] == rows[j]["source"]:
                assert len(mine[i] & mine[j]) / len(mine[i] | mine[j]) < 0.9, (rows[i]["id"], rows[j]["id"])
    earlier = ["shipped", "hard"] + HELDOUT_SETS[:HELDOUT_SETS.index(name)]
    others = []
    for other in earlier:
        with open(LABEL_SETS[other](), encoding="utf-8") as fh:
            others += [words(json.loads(line)["claim"]) for line in fh]
    for i, w in enumerate(mine):
        assert all(len(w & o) / len(w | o) < 0.6 for o in others), rows[i]["id"]


def _relabel_todo(name: str) -> list[tuple[str, str]]:
    """(id, claim) rows of a set's second-pass queue, in file order."""
    from importlib import resources

    text = resources.files("citetrace.eval").joinpath("data").joinpath(f"{name}_relabel_todo.tsv").read_text("utf-8")
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#")]
    return [(pid, claim) for pid, claim in (line.split("\t") for line in lines)]


@pytest.mark.parametrize("name", sorted(QUEUE_SEEDS))
def test_second_pass_queue_is_the_seeded_sample(name: str) -> None:
    """A set's NAME_relabel_todo.tsv lists, in sampled order, the 45 ids random.Random(seed) draws from the
    set, each with its claim verbatim and no label, so the second labeller sees nothing of the first pass."""
    import random

    from citetrace.eval import _labelset

    rows = [json.loads(line) for line in getattr(_labelset, f"build_{name}_labels")().splitlines()]
    queue = _relabel_todo(name)
    assert [pid for pid, _ in queue] == random.Random(QUEUE_SEEDS[name]).sample([r["id"] for r in rows], 45)
    claims = {r["id"]: r["claim"] for r in rows}
    assert all(claim == claims[pid] for pid, claim in queue)
