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
from citetrace._extras import require
from citetrace.eval._deterministic import DeterministicJudge
from citetrace.eval._llm import LLMJudge
from citetrace.eval._types import ABSENT, CONTRADICTED, PARTIAL, SUPPORTED, Passage, Verdict

__all__ = ["Judge", "make_judge", "judge_with_checker", "judge_atomic", "JUDGE_KINDS"]

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
    timeout: float | None = None,
    retries: int | None = None,
) -> Judge:
    """Build a judge; ValueError names what is missing (endpoint, model, NLI path), ``MissingExtra`` the
    ``[eval]`` extra (every judge stems words and ranks BM25 passages)."""
    require("eval")
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
    from citetrace.eval._llm import DEFAULT_RETRIES, DEFAULT_TIMEOUT

    return LLMJudge(base_url, model, api_key=api_key, timeout=DEFAULT_TIMEOUT if timeout is None else timeout,
                    retries=DEFAULT_RETRIES if retries is None else retries)


_CHECKER = DeterministicJudge()


def judge_with_checker(judge: Judge, claim: str, passages: Sequence[Passage],
                       context: str | None = None) -> tuple[Verdict, Verdict | None]:
    """(final verdict, checker verdict or None when the judge is the checker itself).

    ``context`` is the sentence an atomic claim was split from; the checker re-aligns a part it found
    ABSENT on its own words with the sentence's words (see ``DeterministicJudge.judge``).
    """
    if isinstance(judge, DeterministicJudge):
        return _check(judge, claim, passages, context), None
    if context is not None and isinstance(judge, LLMJudge):
        verdict = judge.judge(claim, passages, context=context)  # the sentence gives "it" its referent
    else:
        verdict = judge.judge(claim, passages)
    check = _check(_CHECKER, claim, passages, context)
    if verdict.label == SUPPORTED and check.label == CONTRADICTED:
        capped = Verdict(PARTIAL, verdict.judge, verdict.quote,
                         f"{verdict.explanation} [capped: {check.explanation}]",
                         tuple(verdict.flags) + ("checker_mismatch",) + tuple(check.flags))
        return capped, check
    return verdict, check


def _check(checker: DeterministicJudge, claim: str, passages: Sequence[Passage], context: str | None) -> Verdict:
    verdict = checker.judge(claim, passages)
    if verdict.label == ABSENT and context and context.strip() != claim.strip():
        in_context = checker.judge(claim, passages, context=context)
        if in_context.label != ABSENT:
            return Verdict(in_context.label, in_context.judge, in_context.quote, in_context.explanation,
                           in_context.flags + ("aligned_by_sentence",))
    return verdict


def judge_atomic(judge: Judge, claim: str, passages: Sequence[Passage]) -> tuple[Verdict, Verdict | None]:
    """Judge a possibly compound claim the way ``eval`` does: split it into atomic claims, judge each, and
    aggregate (one contradicted part contradicts the whole; SUPPORTED needs every part)."""
    from citetrace.claims import split_claims
    from citetrace.eval._rates import aggregate_claims

    parts = [c.text for c in split_claims(claim) if c.text] or [claim]
    if len(parts) == 1:
        return judge_with_checker(judge, parts[0], passages)
    results = [judge_with_checker(judge, part, passages, context=claim) for part in parts]
    label = aggregate_claims([v.label for v, _ in results])
    chosen = next(v for v, _ in results if v.label == label) if any(v.label == label for v, _ in results) \
        else results[0][0]
    explanation = "; ".join(f"claim {i + 1}: {v.label} ({v.explanation})" for i, (v, _) in enumerate(results))
    flags = tuple(dict.fromkeys(f for v, _ in results for f in v.flags)) + (f"atomic_claims:{len(parts)}",)
    return Verdict(label, chosen.judge, chosen.quote, explanation[:1000], flags), results[0][1]
