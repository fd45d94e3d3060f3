"""Evaluate one run's report: pairs, mechanical checks, judged support, and the per-run rates.

Reads the run store only; the liveness check (``resolves``) is the single network access and ``offline``
skips it. Every pair keeps its detail for the JSON output.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from citetrace._redact import redact_report, redact_url
from citetrace.eval._checks import RunIndex, is_stale
from citetrace.eval._claims import make_pairs
from citetrace.eval._data import LABEL_SETS
from citetrace.eval._judges import Judge, judge_with_checker, make_judge
from citetrace.eval._modelcites import numbered_url_map, place_model_citations
from citetrace.eval._passages import top_passages
from citetrace.eval._rates import Rate, aggregate_claims, claim_label, compute_rates
from citetrace.eval._report import Report, parse_report
from citetrace.eval._resolve import Resolver
from citetrace.eval._types import UNFETCHED, Pair, Passage, Verdict
from citetrace.store import AmbiguousRunId, RunRecord, Store

__all__ = ["PairResult", "RunEvaluation", "evaluate_run", "evaluate_report", "EvalError", "OFFLINE_SUPPORT_NOTE",
           "OFFLINE_CONTRADICTED_NOTE", "NOTE_MEASUREMENT", "offline_notes"]

OFFLINE_SUPPORT_NOTE = (
    "offline SUPPORTED comes only from the extractive rule (the claim's own words, in order, and every value in "
    "one page sentence); a paraphrase stays PARTIAL, so the offline support_rate is a lower bound. Its "
    f"false-support rate is measured by 'citetrace judge-eval --set {'|'.join(LABEL_SETS)}' (docs/eval.md); "
    "configure an LLM judge for a support_rate that reads paraphrase."
)
"""Said by every output of an evaluation with the deterministic checker (text, JSON and the run page)."""

NOTE_MEASUREMENT: dict[str, Any] = {
    "set": "heldout5", "name": "held-out #5", "version": "det-7", "blind": True,
    "right": 18, "flagged": 25, "false": 4, "supported_or_partial": 84, "caught": 18, "contradictions": 68,
    "section": "det-7 on the fifth held-out set",
}
"""The one measurement the contradiction note quotes, in one place: the labelled set, the checker version and
its judge-eval figures there (CONTRADICTED verdicts right / given, false flags on SUPPORTED or PARTIAL gold,
contradictions caught). ``blind`` says whether the set was written after that version and measured once
(a held-out figure) or is one of its tuning sets (an optimistic one). After a blind measurement, change this
dict and nothing else; tests/eval/test_offline_notes.py recomputes the figures with the current checker."""


def _contradicted_note(m: Mapping[str, Any]) -> str:
    where = ("on a labelled set written after the checker and never tuned on" if m["blind"] else
             "on a labelled set the checker was tuned on, so an optimistic figure (on each set written after a "
             "revision and measured once, it has flagged several times more)")
    return (f"offline CONTRADICTED is a flag for a person to check, not a finding: {where} ({m['name']}, "
            f"{m['version']}), {m['right']} of its {m['flagged']} CONTRADICTED verdicts were right, it flagged "
            f"{m['false']} of {m['supported_or_partial']} claims the page supports in whole or part, and it caught "
            f"{m['caught']} of {m['contradictions']} contradictions (docs/eval.md, '{m['section']}').")


OFFLINE_CONTRADICTED_NOTE = _contradicted_note(NOTE_MEASUREMENT)
"""Said beside :data:`OFFLINE_SUPPORT_NOTE`: the checker's contradictions as :data:`NOTE_MEASUREMENT` measured
them. The figures belong to the version they name; tests/eval/test_offline_notes.py fails when the checker's
version moves on without a new measurement."""


def offline_notes(judge: str) -> dict[str, str]:
    """The notes an evaluation by ``judge`` carries, keyed by the rate they qualify (none for a model judge)."""
    if judge != "deterministic":
        return {}
    return {"support_rate": OFFLINE_SUPPORT_NOTE, "contradicted_rate": OFFLINE_CONTRADICTED_NOTE}

Progress = Callable[[int, int], None]


class EvalError(ValueError):
    """The run or its report cannot be evaluated; the message says why."""


@dataclass
class PairResult:
    """One (claim, citation) pair with its checks and verdict. ``label`` is None for an uncited claim."""

    pair: Pair
    has_citation: bool
    in_run_store: bool | None = None
    fetch_failed: bool | None = None
    returned_by_search: bool | None = None
    resolves: bool | None = None
    stale: bool | None = None
    label: str | None = None
    verdict: Verdict | None = None
    checker: Verdict | None = None
    passages: list[Passage] = field(default_factory=list)
    liveness_status: int | None = None
    read_outcome: str | None = None
    """For a read that gave no usable text: its status (``error, HTTP 404``, ``ok`` for a page with no text)."""

    @property
    def dead_or_unfetched(self) -> bool:
        return self.has_citation and (not self.in_run_store or self.resolves is False)

    def flags(self) -> list[str]:
        out = []
        if not self.has_citation:
            return ["uncited"]
        if self.pair.problem:
            out.append("unresolved_marker")
        if not self.in_run_store:  # tried and got no usable text, or never tried: two different stories
            out.append("fetch_failed" if self.fetch_failed else "unfetched")
        if self.returned_by_search is False:
            out.append("not_returned_by_search")
        if self.resolves is False:
            out.append("dead")
        if self.stale:
            out.append("stale")
        if self.verdict is not None:
            out.extend(self.verdict.flags)
        return out

    def as_dict(self) -> dict[str, Any]:
        s = self.pair.sentence
        return {
            "sentence": s.index, "claim_index": self.pair.claim_index, "claim": self.pair.claim,
            "sentence_text": s.text, "inherited_citation": self.pair.inherited, "start": s.start, "end": s.end,
            "url": redact_url(self.pair.url) if self.pair.url else None,
            "marker": redact_report(self.pair.marker) if self.pair.marker else self.pair.marker,
            "problem": self.pair.problem, "has_citation": self.has_citation, "in_run_store": self.in_run_store,
            "fetch_failed": self.fetch_failed, "read_outcome": self.read_outcome, "returned_by_search": self.returned_by_search,
            "resolves": self.resolves, "liveness_status": self.liveness_status, "stale": self.stale,
            "label": self.label, "flags": self.flags(),
            "judge": None if self.verdict is None else {
                "name": self.verdict.judge, "label": self.verdict.label, "quote": self.verdict.quote,
                "explanation": self.verdict.explanation},
            "checker": None if self.checker is None else {
                "label": self.checker.label, "flags": list(self.checker.flags), "explanation": self.checker.explanation},
            "passages": [{"start": p.start, "end": p.end, "score": round(p.score, 4)} for p in self.passages],
        }


@dataclass
class RunEvaluation:
    """Everything one evaluation found: sentences, pairs, per-claim labels and rates."""

    run_id: str
    agent: str
    judge: str
    judge_version: str
    offline: bool
    report: Report
    pairs: list[PairResult]
    rates: dict[str, Rate]
    claim_labels: dict[int, str]
    judge_model: str | None = None
    """The LLM judge's model (None for the checker and NLI), recorded in baselines."""
    run_summary: dict[str, Any] | None = None
    """The run's own summary as the store holds it (None when none was stored)."""
    model_citations: dict[str, int] = field(default_factory=lambda: {"recorded": 0, "placed": 0, "not_in_text": 0})
    """The citations the model attached outside its text (``Store.model_citations``): how many the run
    recorded, how many were placed in the report and paired, and how many had cited text the report lacks."""

    @property
    def unfetched_urls(self) -> list[str]:
        """Cited URLs (redacted) and unresolved markers the run never read successfully, in order."""
        out: list[str] = []
        for p in self.pairs:
            if p.has_citation and not p.in_run_store:
                shown = redact_url(p.pair.url) if p.pair.url else f"{p.pair.marker} ({p.pair.problem})"
                if shown not in out:
                    out.append(shown)
        return out

    def label_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for p in self.pairs:
            if p.label is not None:
                counts[p.label] = counts.get(p.label, 0) + 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "agent": self.agent, "judge": self.judge, "judge_version": self.judge_version,
            "offline": self.offline,
            "notes": offline_notes(self.judge),
            "rates": {name: r.as_dict() for name, r in self.rates.items()},
            "labels": self.label_counts(),
            "sentences": [{"index": s.index, "text": s.text, "start": s.start, "end": s.end, "block": s.block,
                           "needs_citation": s.needs_citation, "reason": s.reason,
                           "claim_label": self.claim_labels.get(s.index),
                           "claims": [{"index": c.index, "text": c.text, "start": s.start + c.start,
                                       "end": s.start + c.end, "inherited": c.inherited,
                                       "shared_subject": c.shared_subject} for c in s.claims]}
                          for s in self.report.sentences],
            "pairs": [p.as_dict() for p in self.pairs],
            "unfetched_urls": self.unfetched_urls,
            "model_citations": dict(self.model_citations),
        }


def evaluate_report(
    store: Store,
    run_id: str,
    text: str,
    *,
    agent: str = "unknown",
    judge: Judge | None = None,
    offline: bool = True,
    resolver: Resolver | None = None,
    now: float | None = None,
    stale_days: int = 365,
    progress: Progress | None = None,
    workers: int = 1,
    url_map: Mapping[str, str] | None = None,
) -> RunEvaluation:
    """Evaluate ``text`` as the report of ``run_id`` against what that run stored.

    ``url_map`` (marker number -> URL) resolves bare ``[n]`` markers the report lists no entry for.

    ``workers`` > 1 asks the judge about that many claims at once (for a remote LLM judge; still one claim
    per call).
    """
    judge = judge or make_judge("deterministic")
    try:
        index = RunIndex.load(store, run_id)
        recorded = store.model_citations(run_id)
    except Exception as exc:
        raise EvalError(f"cannot read the documents of run {run_id!r} from the store {store.uri}: {exc}") from exc
    placed, unplaced = place_model_citations(text, recorded)
    numbered, unnumbered = numbered_url_map(text, recorded)
    report = parse_report(text, {**numbered, **(url_map or {})} or None, placed)
    results = [PairResult(p, has_citation=p.marker is not None) for p in make_pairs(report.sentences)]
    cited = [r for r in results if r.has_citation]
    liveness = {}
    if not offline:
        liveness = (resolver or Resolver()).check(r.pair.url for r in cited if r.pair.url)
    todo: dict[tuple[str, str], str] = {}  # (claim, page sha256) -> page text: each is judged once
    contexts: dict[str, str] = {}  # atomic claim -> the sentence it came from
    for r in cited:
        url = r.pair.url
        doc = index.fetched(url) if url else None
        r.in_run_store = doc is not None
        r.fetch_failed = bool(url) and index.fetch_failed(url or "")
        r.read_outcome = index.read_outcome(url) if r.fetch_failed and url else None
        r.returned_by_search = index.returned_by_search(url) if url else None
        if url and url in liveness:
            r.resolves, r.liveness_status = liveness[url].live, liveness[url].status
        if doc is None:
            r.label = UNFETCHED
        else:
            todo.setdefault((r.pair.claim, doc.sha256), doc.text)
            contexts.setdefault(r.pair.claim, r.pair.sentence.text)
            r.stale = is_stale(r.pair.claim, doc.text, now=now if now is not None else time.time(),
                               max_age_days=stale_days, content_type=doc.content_type)
    verdicts = _judge_all(judge, todo, workers, progress, contexts)
    for r in cited:
        doc = index.fetched(r.pair.url) if r.pair.url else None
        if doc is not None:
            r.verdict, r.checker, r.passages = verdicts[(r.pair.claim, doc.sha256)]
            r.label = r.verdict.label
    # a claim is scored over its own citations (best wins); a sentence aggregates its claims (one
    # contradicted claim makes it CONTRADICTED, SUPPORTED needs every claim supported)
    by_claim: dict[tuple[int, int], list[str]] = {}
    by_citation: dict[tuple[int, str], list[PairResult]] = {}
    for r in cited:
        by_claim.setdefault((r.pair.sentence.index, r.pair.claim_index), []).append(r.label or UNFETCHED)
        by_citation.setdefault((r.pair.sentence.index, r.pair.url or f"{r.pair.marker}"), []).append(r)
    per_sentence: dict[int, list[str]] = {}
    for (sentence, _), labels in sorted(by_claim.items()):
        per_sentence.setdefault(sentence, []).append(claim_label(labels))
    claim_labels = {i: aggregate_claims(labels) for i, labels in per_sentence.items()}
    needing = sum(1 for s in report.sentences if s.needs_citation)
    citation_labels = [aggregate_claims([r.label or UNFETCHED for r in rs]) for rs in by_citation.values()]
    dead = sum(1 for rs in by_citation.values() if rs[0].dead_or_unfetched)
    rates = compute_rates(needing, list(claim_labels.values()), citation_labels, dead)
    return RunEvaluation(run_id, agent, judge.name, judge.version, offline, report, results, rates, claim_labels,
                         judge_model=getattr(judge, "model", None),
                         model_citations={"recorded": len(recorded), "placed": len(recorded) - unplaced - unnumbered,
                                          "not_in_text": unplaced + unnumbered})


_Judged = tuple[Verdict, "Verdict | None", list[Passage]]


def _judge_all(judge: Judge, todo: dict[tuple[str, str], str], workers: int,
               progress: Progress | None, contexts: dict[str, str]) -> dict[tuple[str, str], _Judged]:
    """Judge every (claim, page) once against the page's top passages, ``workers`` at a time; passages are
    retrieved with the claim's words first and its sentence's after them."""
    def one(key: tuple[str, str]) -> _Judged:
        context = contexts.get(key[0])
        query = key[0] if not context or context == key[0] else f"{key[0]} {key[0]} {context}"
        passages = top_passages(query, todo[key])
        verdict, checker = judge_with_checker(judge, key[0], passages, context=context)
        return verdict, checker, passages

    out: dict[tuple[str, str], _Judged] = {}
    keys = list(todo)
    if workers <= 1 or len(keys) <= 1:
        for done, key in enumerate(keys, 1):
            out[key] = one(key)
            if progress is not None:
                progress(done, len(keys))
        return out
    with ThreadPoolExecutor(max_workers=min(workers, len(keys))) as pool:
        futures = {pool.submit(one, key): key for key in keys}
        for done, future in enumerate(as_completed(futures), 1):
            out[futures[future]] = future.result()
            if progress is not None:
                progress(done, len(keys))
    return out


def _refuse_unfinished(store: Store, run: RunRecord) -> None:
    """A run's tool calls and answer reach the store when it ends; before that, every check would read a run
    with no searches (a searched, fetched page "returned by no search"), so a gate in CI would fail on what
    has not been written yet. Refuse it by name instead (a run whose process died before its end stays so).
    A record with an answer or calls but no end (written through the store API) is evaluated as it is."""
    if run.ended_at is not None or run.answer is not None:
        return
    try:
        calls = store.calls(run.run_id)
    except Exception as exc:
        raise EvalError(f"cannot read the tool calls of run {run.run_id} from the store {store.uri}: {exc}") from exc
    if not calls:
        raise EvalError(f"run {run.run_id} has not ended (still running, or its process stopped before the run's "
                        "end was written): its tool calls are stored when it ends, so there is nothing to check yet")


def evaluate_run(
    store: Store,
    run_id: str,
    *,
    report: str | None = None,
    judge: Judge | None = None,
    offline: bool = True,
    resolver: Resolver | None = None,
    stale_days: int = 365,
    progress: Progress | None = None,
    workers: int = 1,
    url_map: Mapping[str, str] | None = None,
) -> RunEvaluation:
    """Evaluate a stored run, using its recorded answer unless ``report`` text is given."""
    try:
        run = store.get_run(run_id)
    except AmbiguousRunId as exc:  # already one line saying how many runs match
        raise EvalError(str(exc)) from exc
    except Exception as exc:  # a broken or locked store must be named, not dumped as a traceback
        raise EvalError(f"cannot read run {run_id!r} from the store {store.uri}: {exc}") from exc
    if run is None:
        raise EvalError(f"no run {run_id!r} in the store {store.uri}")
    _refuse_unfinished(store, run)
    text = report if report is not None else run.answer
    if text is None:
        raise EvalError(f"run {run.run_id} has no recorded answer; pass the report with --report FILE")
    ev = evaluate_report(store, run.run_id, text, agent=run.agent, judge=judge, offline=offline,
                         resolver=resolver, now=run.started_at, stale_days=stale_days, progress=progress,
                         workers=workers, url_map=url_map)
    ev.run_summary = run.summary
    return ev
