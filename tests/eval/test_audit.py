"""python -m citetrace.eval._audit: the per-rule count of right and wrong CONTRADICTED verdicts on a shipped set."""

from __future__ import annotations

import json

import pytest

from citetrace.eval import CONTRADICTED, DeterministicJudge
from citetrace.eval._audit import main, rule_audit
from citetrace.eval._data import LABEL_SETS
from citetrace.eval._judge_eval import evaluate_judge, load_labels
from citetrace.eval._judges import judge_atomic


def test_the_cli_prints_the_same_counts_as_rule_audit(capsys: pytest.CaptureFixture[str]) -> None:
    """--json on the hard set prints {set: {rule: [right, wrong]}}, equal to rule_audit on that set, whose rights
    and wrongs add up to judge-eval's CONTRADICTED column (gold CONTRADICTED, and every other gold label)."""
    assert main(["--set", "hard", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = rule_audit(load_labels(LABEL_SETS["hard"]()))
    assert printed == {"hard": expected}
    judge = DeterministicJudge()
    report = evaluate_judge(load_labels(LABEL_SETS["hard"]()), lambda c, ps: judge_atomic(judge, c, ps)[0].label,
                            judge.name)
    column = [row[report.labels.index(CONTRADICTED)] for row in report.matrix]
    assert sum(right for right, _ in expected.values()) == column[report.labels.index(CONTRADICTED)]
    assert sum(wrong for _, wrong in expected.values()) == sum(column) - column[report.labels.index(CONTRADICTED)]


def test_the_table_has_a_row_per_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """The text table names the set in its header and each rule in a row of "right/wrong" cells."""
    main(["--set", "hard"])
    lines = capsys.readouterr().out.splitlines()
    assert "hard" in lines[0]
    rules = rule_audit(load_labels(LABEL_SETS["hard"]()))
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(rules)
    assert all("/" in line.split()[1] for line in lines[1:])
