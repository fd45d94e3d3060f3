"""The labelling queue: stratified, weighted sampling; the keyboard session; double labelling and kappa."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from citetrace.eval import evaluate_run, load_labels
from citetrace.eval._review import ReviewItem, append_queue, candidates, merge_labels, read_queue, sample
from citetrace.eval._review_ui import label_session
from citetrace.store import MemoryStore, SQLiteStore

from .conftest import make_run

REPORT = ("Unemployment rose to 4.2% in March 2024 [1]. The labour force grew by 12,000 people [1].\n"
          "Wages currently rise 3.4 percent a year [1]. Construction firms cut 4,500 jobs [2][3].\n\n"
          "[1] https://stats.example/unemployment\n[2] https://jobs.example/2024/march\n"
          "[3] https://broken.example/page\n")


def item(i: int, label: str, reasons: list[str] | None = None) -> ReviewItem:
    return ReviewItem(f"i{i}", "run", f"claim {i}", f"claim {i}", "passage", "https://x.example", None, "det",
                      label, None, reasons or [])


def test_sample_is_stratified_by_judge_label() -> None:
    """Each judge label gets an equal share; a small stratum's leftover goes to the others."""
    items = [item(i, "PARTIAL") for i in range(40)] + [item(100 + i, "CONTRADICTED") for i in range(10)] + \
        [item(200 + i, "ABSENT") for i in range(2)]
    got = Counter(it.judge_label for it in sample(items, 12, seed=1))
    assert got == {"ABSENT": 2, "CONTRADICTED": 5, "PARTIAL": 5}
    assert len(sample(items, 500)) == 52  # never more than there is
    assert {it.id for it in sample(items, 12, seed=3)} == {it.id for it in sample(items, 12, seed=3)}
    with pytest.raises(ValueError, match="n >= 1"):
        sample(items, 0)


def test_sample_favours_disagreement_and_numeric_pairs() -> None:
    """Over many seeds, a pair two judges disagree on is drawn far more often than a plain one."""
    items = [item(i, "PARTIAL") for i in range(9)] + [item(9, "PARTIAL", ["numeric", "high_impact", "disagreement"])]
    draws = Counter(it.id for seed in range(400) for it in sample(items, 1, seed=seed))
    assert draws["i9"] > 3 * (sum(draws.values()) - draws["i9"]) / 9


def test_candidates_from_a_real_evaluation(tmp_path: Path) -> None:
    """Judged pairs become candidates with their reasons; the unfetched citation is not one."""
    store = MemoryStore()
    make_run(store, REPORT)
    ev = evaluate_run(store, "run-1")
    got = candidates(ev, "How is the labour market?")
    assert [c.claim for c in got][:2] == ["Unemployment rose to 4.2% in March 2024.",
                                          "The labour force grew by 12,000 people."]
    assert all("broken.example" not in c.url for c in got)
    assert "numeric" in got[0].reasons and "high_impact" in got[0].reasons
    assert got[0].question == "How is the labour market?" and "4.2%" in got[0].passage
    queue = str(tmp_path / "q.jsonl")
    assert append_queue(queue, got) == len(got)
    assert append_queue(queue, got) == 0  # a standing queue never holds a pair twice
    assert [q.id for q in read_queue(queue)] == [c.id for c in got]


def test_a_claim_the_ledger_marked_high_impact_is_high_impact() -> None:
    """A late claim with no amount is high-impact only when the run's ledger marked it so (matched by stems)."""
    from citetrace.eval._review import ledger_high_impact
    from citetrace.ledger import Ledger

    store = MemoryStore()
    make_run(store, REPORT)
    ev = evaluate_run(store, "run-1")
    jobs = [c for c in candidates(ev, None, None, ledger_high_impact(store, "run-1")) if "4,500" in c.claim]
    assert jobs and "high_impact" not in jobs[0].reasons and ledger_high_impact(store, "run-1") == []
    ledger = Ledger.open("run-1", store=store)
    ledger.add_claim("Construction firms cut 4,500 jobs in March.", impact="high")
    ledger.add_claim("Wages rose.", impact="normal")
    assert ledger_high_impact(store, "run-1") == ["Construction firms cut 4,500 jobs in March."]
    jobs = [c for c in candidates(ev, None, None, ledger_high_impact(store, "run-1")) if "4,500" in c.claim]
    assert "high_impact" in jobs[0].reasons


def test_keyboard_session_writes_judge_eval_labels(tmp_path: Path) -> None:
    """s, skip, c, undo, a, quit: the file holds two labels with labeller and time, readable by judge-eval."""
    items = [item(i, "PARTIAL") for i in range(4)]
    out = str(tmp_path / "labels.jsonl")
    keys = iter(["s", "n", "c", "u", "x", "a", "q"])
    screens: list[str] = []
    n = label_session(items, lambda: next(keys), screens.append, labeller="ana", out_path=out,
                      clock=lambda: 1_700_000_000.0, clear=False)
    assert n == 2
    rows = [json.loads(line) for line in open(out, encoding="utf-8")]
    assert [(r["id"], r["label"], r["labeller"], r["labelled_at"]) for r in rows] == [
        ("i0", "SUPPORTED", "ana", 1_700_000_000.0), ("i2", "ABSENT", "ana", 1_700_000_000.0)]
    assert any("unknown key 'x'" in s for s in screens) and "CLAIM" in screens[0]
    assert [p.label for p in load_labels(out)] == ["SUPPORTED", "ABSENT"]
    # a new session resumes with what this labeller has not labelled yet
    keys2 = iter(["p", "q"])
    label_session(items, lambda: next(keys2), screens.append, labeller="ana", out_path=out, clear=False)
    assert [json.loads(line)["id"] for line in open(out, encoding="utf-8")] == ["i0", "i2", "i1"]


def test_double_labelling_gives_kappa(tmp_path: Path) -> None:
    """Two labellers' files merge into label1/label2 with Cohen's kappa; disagreements are marked."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    labels_a = ["SUPPORTED", "PARTIAL", "CONTRADICTED", "ABSENT"]
    labels_b = ["SUPPORTED", "PARTIAL", "CONTRADICTED", "CONTRADICTED"]
    for path, labels, who in ((a, labels_a, "ana"), (b, labels_b, "ben")):
        path.write_text("".join(json.dumps({"id": f"i{k}", "claim": f"c{k}", "passage": "p", "label": lab,
                                            "labeller": who}) + "\n" for k, lab in enumerate(labels)))
    rows, kappa, n = merge_labels(str(a), str(b))
    assert n == 4 and kappa == pytest.approx((0.75 - 0.25) / (1 - 0.25))
    assert [r.get("needs_adjudication", False) for r in rows] == [False, False, False, True]
    merged = tmp_path / "m.jsonl"
    merged.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [p.label2 for p in load_labels(str(merged))] == labels_b


def _read_until(fd: int, needle: bytes, seconds: float = 20.0) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while needle not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_review_label_on_a_real_terminal(tmp_path: Path) -> None:
    """`citetrace review sample` fills a queue; `review label` in a pseudo-terminal takes single keys."""
    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    make_run(store, REPORT)  # type: ignore[arg-type]
    store.close()
    queue, out = str(tmp_path / "q.jsonl"), str(tmp_path / "labels.jsonl")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "citetrace", "review", "sample", "run-1", "--queue", queue,
                           "--store", f"sqlite:///{db}", "--judge", "deterministic", "--n", "3"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "3 pairs added" in done.stdout
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", "review", "label", "--queue", queue,
                             "--labeller", "ana", "--out", out], stdin=slave, stdout=slave, stderr=slave,
                            env=env, close_fds=True)
    os.close(slave)
    try:
        assert b"PASSAGES" in _read_until(master, b"[q] quit")
        os.write(master, b"c")
        assert b"pair 2/3" in _read_until(master, b"pair 2/3")
        os.write(master, b"q")
        assert b"1 labels written" in _read_until(master, b"labels written")
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    (row,) = [json.loads(line) for line in open(out, encoding="utf-8")]
    assert row["label"] == "CONTRADICTED" and row["labeller"] == "ana" and row["labelled_at"] > 0


def test_merge_keeps_the_pairs_one_person_labelled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """"Two people on a share of them, then ``review merge``, then ``judge-eval team.jsonl``" (docs/eval.md): the
    merged file holds every labelled pair, the doubly labelled ones with label1/label2. Before (outside check
    hout6), merge wrote only the pairs both labelled, so judge-eval measured the judge on that share alone."""
    from citetrace.cli import main

    a, b, out = tmp_path / "ana.jsonl", tmp_path / "ben.jsonl", tmp_path / "team.jsonl"
    claims = {"i0": ("Solar grew 24 % in 2024.", "Solar grew 24 % in 2024."),
              "i1": ("Solar grew 30 % in 2024.", "Solar grew 24 % in 2024."),
              "i2": ("Wind grew 9 % in 2024.", "Solar grew 24 % in 2024."),
              "i3": ("Hydro fell 2 % in 2024.", "Solar grew 24 % in 2024."),
              "i4": ("Solar grew 24 % in 2024.", "Solar grew 24 % in 2024.")}
    ana = {"i0": "SUPPORTED", "i1": "CONTRADICTED", "i2": "ABSENT", "i3": "ABSENT"}
    ben = {"i0": "SUPPORTED", "i1": "CONTRADICTED", "i4": "SUPPORTED"}
    for path, labels, who in ((a, ana, "ana"), (b, ben, "ben")):
        path.write_text("".join(json.dumps({"id": k, "claim": claims[k][0], "passage": claims[k][1], "label": lab,
                                            "labeller": who}) + "\n" for k, lab in labels.items()))
    assert main(["review", "merge", str(a), str(b), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("5 labelled pairs, 2 labelled by both; Cohen's kappa 1.000;")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["label"], r.get("label2")) for r in rows] == [
        ("i0", "SUPPORTED", "SUPPORTED"), ("i1", "CONTRADICTED", "CONTRADICTED"), ("i2", "ABSENT", None),
        ("i3", "ABSENT", None), ("i4", "SUPPORTED", None)]
    assert rows[4]["labeller"] == "ben"
    assert main(["judge-eval", str(out), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == 5
