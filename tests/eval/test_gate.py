"""The CI gate and its baseline band; judge-eval statistics."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from citetrace import names
from citetrace.eval import build_baseline, cohen_kappa, evaluate_run, gate, load_baseline, wilson
from citetrace.eval._judge_eval import confusion
from citetrace.store import MemoryStore

from .conftest import make_run

GOOD = "Unemployment rose to 4.2% in March 2024 [1]. It was the highest since January 2021 [2].\n\n" \
       "[1] https://stats.example/unemployment\n[2] https://jobs.example/2024/march\n"
BAD = GOOD.replace("[2].", "[3].") + "[3] https://never.example/fetched\n"


def _eval(report: str, run_id: str = "run-1"):  # type: ignore[no-untyped-def]
    store = MemoryStore()
    make_run(store, report, run_id=run_id)
    return evaluate_run(store, run_id)


def test_unfetched_citation_fails_and_names_the_url() -> None:
    """A cited URL the run never fetched fails the gate even without a baseline, naming the URL."""
    result = gate(_eval(BAD))
    assert not result.passed
    assert result.failures == [(names.GATE_UNFETCHED, "cited but never fetched in run run-1: https://never.example/fetched")]
    assert gate(_eval(GOOD), rules=(names.GATE_UNFETCHED,)).passed


def test_band_from_repeated_runs_and_direction() -> None:
    """The band covers every baseline value; only the bad direction of a rate fails."""
    evs = [_eval(GOOD, f"r{i}") for i in range(3)]
    base = build_baseline(evs, k=3.0, tolerance=0.02)
    cov = base["metrics"]["citation_coverage"]
    assert cov["values"] == [1.0, 1.0, 1.0] and cov["sd"] == 0.0 and (cov["low"], cov["high"]) == (0.98, 1.0)
    worse = _eval(GOOD + "\nAn uncited claim about 7 ministries.\n")
    result = gate(worse, base, rules=())
    assert [r for r, _ in result.failures] == [names.GATE_OUT_OF_BAND]
    assert "citation_coverage = 0.667 (2/3) is outside the baseline band [0.980, 1.000]" in result.failures[0][1]


def test_baseline_needs_two_runs_and_files_are_validated(tmp_path: object) -> None:
    """One run is no spread; a file that is not a baseline is rejected with its path in the message."""
    with pytest.raises(ValueError, match="at least 2 runs"):
        build_baseline([_eval(GOOD)])
    bad = f"{tmp_path}/b.json"
    with open(bad, "w") as fh:
        json.dump({"hello": 1}, fh)
    with pytest.raises(ValueError, match="not a citetrace baseline"):
        load_baseline(bad)
    with pytest.raises(ValueError, match="cannot read baseline"):
        load_baseline(f"{tmp_path}/missing.json")


@pytest.mark.parametrize("band", [{"low": float("nan"), "high": 1.0}, {"low": 0.2, "high": float("inf")},
                                  {"low": 0.9, "high": 0.1}])
def test_a_baseline_band_that_is_not_finite_or_inverted_is_refused(tmp_path: object, band: dict[str, float]) -> None:
    """A band with NaN or infinity (JSON allows both) or low above high would pass or fail every run without
    saying so: the file is refused, naming the entry."""
    good = build_baseline([_eval(GOOD), _eval(GOOD)])
    good["metrics"]["support_rate"].update(band)
    path = f"{tmp_path}/b.json"
    with open(path, "w") as fh:
        json.dump(good, fh)
    with pytest.raises(ValueError, match="bad entry for 'support_rate'"):
        load_baseline(path)


def test_kappa_and_wilson_known_values() -> None:
    """Cohen's kappa and the Wilson interval match hand-computed values."""
    a = ["S", "S", "S", "A", "A", "A", "S", "A", "S", "S"]
    b = ["S", "S", "A", "A", "A", "S", "S", "A", "S", "S"]
    # observed 0.8; expected 0.6*0.6 + 0.4*0.4 = 0.52; kappa = 0.28 / 0.48
    assert cohen_kappa(a, b) == pytest.approx(0.28 / 0.48)
    assert cohen_kappa(["x", "x"], ["x", "x"]) is None
    lo, hi = wilson(10, 100) or (0, 0)
    assert (round(lo, 4), round(hi, 4)) == (0.0552, 0.1744)
    assert wilson(0, 0) is None
    assert confusion(["a", "b", "b"], ["a", "a", "b"], ["a", "b"]) == [[1, 0], [1, 1]]


def test_kappa_is_the_same_in_every_process() -> None:
    """Cohen's kappa does not depend on the order a set of categories iterates in (str hashing is salted per
    process): two judge-eval runs over the same labels print the same figure, to the last digit. These labels'
    chance agreement sums to 0.2248520710059172 in some category orders and 0.22485207100591717 in others."""
    a = "U S C S A A A A P S A S A".split()
    b = "A U S A C P U S C S S S U".split()
    code = f"from citetrace.eval import cohen_kappa; print(repr(cohen_kappa({a!r}, {b!r})))"
    seen = set()
    for seed in range(12):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        seen.add(out.stdout.strip())
    assert len(seen) == 1, seen


UNSEARCHED = GOOD.replace("[2].", "[2]. Wages rose 3.1 percent [4].") + "[4] https://jobs.example/2024/march\n"


def test_uncited_url_fails_unless_allowed() -> None:
    """A cited page no search returned fails the gate (naming it) unless uncited_url is allowed; the run's own
    summary decides when one was stored."""
    from citetrace.eval import parse_rules

    ev = _eval(GOOD)  # the jobs page was fetched but no search returned it
    result = gate(ev)
    assert [r for r, _ in result.failures] == [names.GATE_UNCITED_URL]
    assert result.failures[0][1].endswith("https://jobs.example/2024/march")
    assert gate(ev, rules=parse_rules(None, allow_uncited=True)).passed
    ev.run_summary = {"failure_reasons": [], "uncited_urls": []}
    assert gate(ev).passed  # the run's summary says no uncited_url failure
    ev.run_summary = {"failure_reasons": [names.REASON_UNCITED_URL], "uncited_urls": ["https://x.example/a"]}
    assert [m.rsplit(" ", 1)[-1] for _, m in gate(ev).failures] == ["https://x.example/a"]
    with pytest.raises(ValueError, match="unknown gate rule 'nope'"):
        parse_rules("nope")


def test_report_without_any_citation_fails() -> None:
    """Claims that need citations in a report that carries none fail the no_citations rule."""
    result = gate(_eval("Unemployment rose to 4.2% in March 2024. Wages rose 3.1 percent over the year.\n"))
    assert [r for r, _ in result.failures] == [names.GATE_NO_CITATIONS]
    assert "2 claims that need citations and carries none" in result.failures[0][1]


def test_baseline_records_how_it_was_made_and_mismatch_is_an_error(tmp_path: object) -> None:
    """The baseline keeps offline/judge/version/model; a run judged another way is refused, naming both."""
    evs = [_eval(GOOD, f"r{i}") for i in range(2)]
    base = build_baseline(evs)
    assert base["made_with"] == {"offline": True, "judge": "deterministic", "judge_version": evs[0].judge_version,
                                 "judge_model": None}
    online = _eval(GOOD)
    online.offline = False
    with pytest.raises(ValueError, match="baseline mismatch: it was made with offline=True; this run was "
                                         "evaluated with offline=False"):
        gate(online, base)
    old = f"{tmp_path}/v1.json"
    with open(old, "w") as fh:
        json.dump({**base, "version": 1}, fh)
    with pytest.raises(ValueError, match="does not record how it was made"):
        load_baseline(old)


def test_a_baseline_made_with_the_previous_checker_is_refused() -> None:
    """A baseline made with det-6 gates no run the current checker (det-7) evaluated: the error names both."""
    from citetrace.eval import DeterministicJudge

    ev = _eval(GOOD)
    assert ev.judge_version == DeterministicJudge.version == "det-7"
    base = build_baseline([_eval(GOOD, "r1"), _eval(GOOD, "r2")])
    base["made_with"]["judge_version"] = "det-6"
    with pytest.raises(ValueError, match="baseline mismatch: .*det-6.*det-7"):
        gate(ev, base)


def test_opt_in_rule_names_each_uncited_sentence() -> None:
    """uncited_claim is off by default; asked for, it names every sentence that needs a citation and has none."""
    ev = _eval(GOOD + "\nYouth unemployment reached 11 % in March.\n")
    assert names.GATE_UNCITED_CLAIM not in {r for r, _ in gate(ev).failures}
    failures = gate(ev, rules=(names.GATE_UNCITED_CLAIM,)).failures
    assert failures == [(names.GATE_UNCITED_CLAIM, "sentence 2 of run run-1 needs a citation and has none: "
                                                   "Youth unemployment reached 11 % in March.")]


def test_gate_help_lists_the_hard_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """`citetrace gate --help` lists every hard rule with what it checks, and the default set."""
    from citetrace.cli import main

    with pytest.raises(SystemExit):
        main(["gate", "--help"])
    out = capsys.readouterr().out
    for rule in names.GATE_HARD_RULES:
        assert rule in out
    assert "default: unfetched_citation,uncited_url,no_citations" in out


def test_band_uses_the_sample_standard_deviation() -> None:
    """A baseline over runs whose coverage differs records the sample (n - 1) standard deviation."""
    import statistics

    evs = [_eval(GOOD, "r0"), _eval(GOOD, "r1"), _eval(GOOD + "\nAn uncited claim about 7 ministries.\n", "r2")]
    cov = build_baseline(evs, k=1.0, tolerance=0.0)["metrics"]["citation_coverage"]
    values = cov["values"]
    assert len(set(values)) == 2 and cov["sd"] == pytest.approx(statistics.stdev(values))
    assert cov["sd"] != pytest.approx(statistics.pstdev(values))
    assert cov["low"] == pytest.approx(min(cov["mean"] - cov["sd"], min(values)))
