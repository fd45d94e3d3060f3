"""The notes every offline evaluation carries: what the checker's SUPPORTED and CONTRADICTED mean, and the
contradiction figures it quotes are the ones judge-eval computes for the version it names."""

from __future__ import annotations

import re
from pathlib import Path

from citetrace.eval import _evaluate
from citetrace.eval._data import LABEL_SETS
from citetrace.eval._deterministic import DeterministicJudge
from citetrace.eval._judge_eval import evaluate_judge, load_labels
from citetrace.eval._judges import judge_atomic


def test_the_contradiction_note_quotes_the_current_checker_on_its_measured_set() -> None:
    """The note names this checker's version and the set of ``NOTE_MEASUREMENT``, and its three "N of M" are
    what judge-eval measures there (atomic claims judged and aggregated, as `citetrace judge-eval` and `eval`
    do)."""
    note = _evaluate.OFFLINE_CONTRADICTED_NOTE
    measured = _evaluate.NOTE_MEASUREMENT
    judge = DeterministicJudge()
    assert measured["version"] == judge.version and f"({measured['name']}, {judge.version})" in note
    report = evaluate_judge(load_labels(Path(LABEL_SETS[measured["set"]]())),
                            lambda claim, passages: judge_atomic(judge, claim, passages)[0].label, judge.name)
    i = report.labels.index("CONTRADICTED")
    right, flagged = report.matrix[i][i], sum(row[i] for row in report.matrix)
    false_sp, sp = report.flagger["false_contradiction_sp"]
    caught, contradictions = report.flagger["contradicted_recall"]
    said = [tuple(map(int, m)) for m in re.findall(r"(\d+) of (?:its )?(\d+)", note)]
    assert said == [(right, flagged), (false_sp, sp), (caught, contradictions)]


def test_offline_notes_cover_support_and_contradiction_only_for_the_checker() -> None:
    """The deterministic checker's evaluations carry both notes; a model judge's carry none."""
    assert set(_evaluate.offline_notes("deterministic")) == {"support_rate", "contradicted_rate"}
    assert _evaluate.offline_notes("llm") == {} and _evaluate.offline_notes("nli") == {}


def test_every_output_of_an_offline_evaluation_says_both_notes() -> None:
    """`citetrace eval`'s text, its JSON and the run page all carry the support and the contradiction notes."""
    import html

    from citetrace.eval._format import format_evaluation
    from citetrace.store import MemoryStore
    from citetrace.view._runs import page_for_run

    from .conftest import make_run

    store = MemoryStore()
    report = "The unemployment rate rose to 5.2% in March 2024 [1].\n\n[1] https://stats.example/unemployment\n"
    make_run(store, report)
    ev = _evaluate.evaluate_report(store, "run-1", report)
    text = format_evaluation(ev)
    for note in (_evaluate.OFFLINE_SUPPORT_NOTE, _evaluate.OFFLINE_CONTRADICTED_NOTE):
        assert f"note: {note}" in text
    assert ev.as_dict()["notes"] == _evaluate.offline_notes("deterministic")
    page = page_for_run(store, "run-1", evaluate=True)
    for rate, note in _evaluate.offline_notes("deterministic").items():
        assert f'<p class="notice" data-note="{rate}">{html.escape(note, quote=False)}</p>' in page.replace("&#39;", "'")
