"""The promtool unit tests have teeth: a weakened rule file makes them fail."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MUTATIONS = [
    ("> 0.25 and", "> 0.6 and"),  # failed-run threshold raised: a 50% failure rate no longer fires
    (">= 10)", ">= 1)"),  # minimum-traffic guard dropped: the low-volume agent would fire
    ("citetrace_uncited_citations_total unless citetrace_uncited_citations_total offset 15m",
     "citetrace_uncited_citations_total"),  # first uncited citation of an agent missed / old ones re-fire
    (' or on(job) (absent(up{job=~"citetrace-serve|citetrace-summary"}) * 0)', ""),  # summarizer never scraped goes unnoticed
    ('up{job=~"citetrace-serve|citetrace-summary"} or', 'up{job=~"citetrace-serve"} or'),  # a fleet's tier 2 unwatched
    ("> 2 * (", "> 0 * ("),  # "rising" becomes "high": a steady level would fire
]


@pytest.mark.parametrize(("old", "new"), MUTATIONS)
def test_mutated_rule_fails_unit_tests(tmp_path: Path, old: str, new: str) -> None:
    """Each mutation of the rule file is caught by `promtool test rules`."""
    assert shutil.which("promtool"), "promtool is not installed (scripts/setup apt-installs it)"
    rules = (ROOT / "prometheus" / "rules" / "citetrace.rules.yml").read_text()
    assert old in rules
    (tmp_path / "rules").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "rules" / "citetrace.rules.yml").write_text(rules.replace(old, new))
    shutil.copy(ROOT / "prometheus" / "tests" / "citetrace.test.yml", tmp_path / "tests")
    proc = subprocess.run(
        ["promtool", "test", "rules", str(tmp_path / "tests" / "citetrace.test.yml")],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode != 0, f"mutation {old!r} -> {new!r} survived"
