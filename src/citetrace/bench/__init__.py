"""Evaluate an agent, not one run: question sets with known answers, repeats, spreads, bands, comparison.

``citetrace bench QUESTIONS.yaml --agent pkg.module:callable --repeat N`` runs each question N times (each
inside a run), checks the known answers, and reports each figure's spread; ``citetrace baseline
--from-bench`` learns bands from it, ``citetrace gate --bench`` fails what is clearly outside them, and
``citetrace compare A.json B.json`` shows what moved. See docs/bench.md.
"""

from __future__ import annotations

from citetrace.bench._bands import BandError, baseline_from_bench, compare_benches, gate_bench
from citetrace.bench._questions import BenchQuestion, KnownAnswer, QuestionSetError, check_answer, load_questions
from citetrace.bench._runner import METRICS, BenchError, load_agent, replay_plan, run_bench

__all__ = [
    "BandError", "BenchError", "BenchQuestion", "KnownAnswer", "METRICS", "QuestionSetError", "baseline_from_bench",
    "check_answer", "compare_benches", "gate_bench", "load_agent", "load_questions", "replay_plan", "run_bench",
]
