"""Choosing a judge, and combining a model judge with the deterministic checker.

``auto`` picks the LLM judge when an endpoint is configured (``OPENAI_BASE_URL`` plus a model) and the
deterministic checker otherwise. When a model judge says SUPPORTED but the checker finds a number, date or
quote that disagrees with the aligned passage, the verdict is capped at PARTIAL and flagged: this is the
"fine details" failure AttributionBench reports for model judges.
"""

from __future__ import annotations

import os
from typing import Mapping, Protocol, Sequence

from citetrace import names
from citetrace.eval._deterministic import DeterministicJudge
from citetrace.eval._types import CONTRADICTED, PARTIAL, SUPPORTED, Passage, Verdict

__all__ = ["Judge", "make_judge", "judge_with_checker", "JUDGE_KINDS"]

JUDGE_KINDS = ("auto", "deterministic", "llm", "nli")
"""Values of ``--judge`` (``nli`` needs ``--nli-model``)."""


class Judge(Protocol):
    """Answers SUPPORTED | PARTIAL | CONTRADICTED | ABSENT (or JUDGE_ERROR) for one claim and its passages."""

    name: str
    version: str

    def judge(self, claim: str, passages: Sequence[Passage]) -> Verdict:
        ...


def make_judge(
    kind: str = "auto",
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    nli_model: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Judge:
    """Build a judge; ValueError names what is missing (endpoint, model, NLI path)."""
    env = os.environ if environ is None else environ
    explicit_model = model
    base_url = base_url or env.get(names.ENV_OPENAI_BASE_URL) or None
    api_key = api_key or env.get(names.ENV_OPENAI_API_KEY) or None
    model = model or env.get(names.ENV_JUDGE_MODEL) or None
    if kind not in JUDGE_KINDS:
        raise ValueError(f"unknown judge {kind!r}; expected one of {', '.join(JUDGE_KINDS)}")
    if kind == "auto":
        if explicit_model and not base_url:
            raise ValueError(f"--judge-model {explicit_model} given but {names.ENV_OPENAI_BASE_URL} is not set")
        kind = "llm" if base_url and model else "deterministic"
    if kind == "deterministic":
        return DeterministicJudge()
    if kind == "nli":
        if not nli_model:
            raise ValueError("--judge nli needs --nli-model PATH (a checkpoint directory or package.module:factory)")
        from citetrace.eval._nli import NLIJudge, load_nli_model

        return NLIJudge(load_nli_model(nli_model))
    if not base_url:
        raise ValueError(f"--judge llm needs an endpoint: set {names.ENV_OPENAI_BASE_URL} (e.g. http://127.0.0.1:8000/v1)")
    if not model:
        raise ValueError(f"--judge llm needs a model: pass --judge-model or set {names.ENV_JUDGE_MODEL}")
    from citetrace.eval._llm import LLMJudge

    return LLMJudge(base_url, model, api_key=api_key)


_CHECKER = DeterministicJudge()


def judge_with_checker(judge: Judge, claim: str, passages: Sequence[Passage]) -> tuple[Verdict, Verdict | None]:
    """(final verdict, checker verdict or None when the judge is the checker itself)."""
    verdict = judge.judge(claim, passages)
    if isinstance(judge, DeterministicJudge):
        return verdict, None
    check = _CHECKER.judge(claim, passages)
    if verdict.label == SUPPORTED and check.label == CONTRADICTED:
        capped = Verdict(PARTIAL, verdict.judge, verdict.quote,
                         f"{verdict.explanation} [capped: {check.explanation}]",
                         tuple(verdict.flags) + ("checker_mismatch",) + tuple(check.flags))
        return capped, check
    return verdict, check
