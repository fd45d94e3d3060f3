"""Citation evaluation: does each claim cite something, did the run fetch it, is it still live, and does the
page as the agent read it say what the sentence claims?

Reads the run store, never re-fetches what the agent read (only the optional liveness check touches the
network), and reports every rate with its denominator.
"""

from __future__ import annotations

from citetrace.eval._checks import RunIndex, is_stale, page_date, phrased_as_current
from citetrace.eval._claims import classify, make_pairs
from citetrace.eval._deterministic import DeterministicJudge
from citetrace.eval._emit import EvalMetrics, emit_events
from citetrace.eval._evaluate import EvalError, PairResult, RunEvaluation, evaluate_report, evaluate_run
from citetrace.eval._gate import HARD_RULES, GateResult, build_baseline, gate, load_baseline, parse_rules
from citetrace.eval._judge_eval import JudgeReport, cohen_kappa, evaluate_judge, load_labels, wilson
from citetrace.eval._judges import Judge, judge_atomic, judge_with_checker, make_judge
from citetrace.eval._llm import PROMPT_VERSION, LLMJudge
from citetrace.eval._nli import NLIJudge, NLIModel, load_nli_model
from citetrace.eval._passages import top_passages
from citetrace.eval._rates import RATE_NAMES, Rate
from citetrace.eval._report import Report, parse_report
from citetrace.eval._resolve import Liveness, Resolver
from citetrace.eval._types import (
    ABSENT,
    CONTRADICTED,
    JUDGE_ERROR,
    PARTIAL,
    SUPPORTED,
    UNFETCHED,
    Citation,
    Pair,
    Passage,
    ReportParseError,
    Sentence,
    Verdict,
)

__all__ = [
    "ABSENT", "CONTRADICTED", "HARD_RULES", "parse_rules", "judge_atomic", "JUDGE_ERROR", "PARTIAL", "SUPPORTED", "UNFETCHED",
    "Citation", "DeterministicJudge", "EvalError", "EvalMetrics", "GateResult", "Judge", "JudgeReport", "LLMJudge",
    "Liveness", "NLIJudge", "NLIModel", "PROMPT_VERSION", "Pair", "PairResult", "Passage", "RATE_NAMES", "Rate",
    "Report", "ReportParseError", "Resolver", "RunEvaluation", "RunIndex", "Sentence", "Verdict",
    "build_baseline", "classify", "cohen_kappa", "emit_events", "evaluate_judge", "evaluate_report", "evaluate_run",
    "gate", "is_stale", "judge_with_checker", "load_baseline", "load_labels", "load_nli_model", "make_judge",
    "make_pairs", "page_date", "parse_report", "phrased_as_current", "top_passages", "wilson",
]
