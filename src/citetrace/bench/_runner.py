"""Run a question set against an agent: every repeat of every question inside its own run, then checked.

The agent is any callable ``agent(question: str) -> str | None`` returning its final report (None: the
report the run recorded, as an auto-instrumented framework records it). Each repeat runs inside
``research_run``; an agent boundary inside joins that run. Per repeat it keeps the known-answer verdict,
the offline citation rates of the report (``citetrace.eval``, no network), and the run summary; per question
the spread of each over the repeats. With ``replay`` each repeat answers its tools from a recorded run.
"""

from __future__ import annotations

import importlib
import time
from typing import Any, Callable, Mapping, Sequence

from citetrace import names
from citetrace._redact import redact_text
from citetrace.bench._questions import BenchQuestion, check_answer
from citetrace.bench._stats import spread
from citetrace.capture import ReplayMiss
from citetrace.capture import replay as _replay
from citetrace.capture import Run, research_run
from citetrace.store import Store

__all__ = ["BenchError", "load_agent", "run_bench", "METRICS", "replay_plan"]

RATES = ("citation_coverage", "support_rate", "dead_or_unfetched_rate")
"""The three citation numbers a bench reports per repeat (of ``citetrace eval``'s rates)."""
SUMMARY = ("searches", "reads", "empty_searches", "failed_reads", "rate_limited", "citations",
           "uncited_from_retrieval", "cited_not_fetched", "total_ms")
METRICS = ("passed", *RATES, *SUMMARY)
"""Every per-repeat figure, in report order (each gets a spread and a band)."""


class BenchError(ValueError):
    """A bench that cannot run as asked; the message names the problem."""


def load_agent(spec: str) -> Callable[[str], Any]:
    """``pkg.module:callable`` -> the callable; ``BenchError`` naming what is wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise BenchError(f"--agent must be pkg.module:callable, got {spec!r}")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise BenchError(f"cannot import {module_name!r} for --agent: {exc}") from None
    for part in attr.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise BenchError(f"{module_name!r} has no {attr!r} for --agent")
    if not callable(target):
        raise BenchError(f"--agent {spec!r} is not callable")
    return target  # type: ignore[no-any-return]


def replay_plan(source: Mapping[str, Any] | str | None, questions: Sequence[BenchQuestion], repeat: int,
                ) -> Callable[[str, int], str | None]:
    """Which recorded run each (question, repeat) replays: one run id for all, or a bench's own runs."""
    if source is None:
        return lambda qid, i: None
    if isinstance(source, str):
        return lambda qid, i: source
    recorded = {q["id"]: [r["run_id"] for r in q["repeats"]] for q in source.get("questions", ())}
    for q in questions:
        if not recorded.get(q.id):
            raise BenchError(f"the bench to replay has no run for question {q.id!r}")
        if len(recorded[q.id]) < repeat:  # replaying a run twice would be a duplicated sample, not a repeat
            raise BenchError(f"the bench to replay: question {q.id!r} has {len(recorded[q.id])} recorded repeat(s); "
                             f"--repeat {repeat} asks for more")
    return lambda qid, i: recorded[qid][i]


def _rates(store: Store, run_id: str) -> dict[str, float | None]:
    from citetrace.eval import EvalError, evaluate_run

    try:
        ev = evaluate_run(store, run_id, offline=True)
    except EvalError:
        return {name: None for name in RATES}
    return {name: ev.rates[name].value for name in RATES}


def _one(agent: Callable[[str], Any], q: BenchQuestion, agent_name: str, store: Store) -> dict[str, Any]:
    """One repeat. An exception from the agent fails this repeat (its run records the agent error) and the
    bench goes on: one crash must not lose the other questions' results. A replay miss still stops it."""
    error: str | None = None
    run: Run | None = None
    try:
        with research_run(question=q.question, agent=agent_name) as run:
            out = agent(q.question)
            if isinstance(out, str) and run.answer is None:
                run.record_answer(out)
    except ReplayMiss:
        raise
    except Exception as exc:  # noqa: BLE001 - the agent's own failure, reported per repeat
        if run is None:
            raise
        error = f"{type(exc).__name__}: {(redact_text(str(exc)).splitlines() or [''])[0]}"[:300]
    assert run is not None  # research_run entered: the agent's exception was caught after its run ended
    attrs = getattr(run.span, "attributes", None) or {}
    summary = {k: attrs.get(names.SUMMARY_PREFIX + k) for k in SUMMARY}
    report = run.answer or ""
    passed = None if q.answer is None else (error is None and check_answer(q.answer, report))
    reasons = list(attrs.get(names.SUMMARY_PREFIX + "failure_reasons") or ())
    return {"run_id": run.id, "passed": passed, "rates": _rates(store, run.id), "summary": summary,
            "failure_reasons": reasons, "answer_chars": len(report), "error": error}


def _figure(rep: Mapping[str, Any], metric: str) -> float | None:
    if metric == "passed":
        return None if rep["passed"] is None else float(rep["passed"])
    value = rep["rates"].get(metric) if metric in RATES else rep["summary"].get(metric)
    return None if value is None else float(value)


def _check_recorded(questions: Sequence[BenchQuestion], repeat: int, replay: Callable[[str, int], str | None],
                    store: Store) -> None:
    """Every run the bench replays has recorded responses: else a BenchError now, before any agent call."""
    for run_id in sorted({r for q in questions for i in range(repeat) if (r := replay(q.id, i))}):
        if store.get_run(run_id) is not None and not store.responses(run_id):
            raise BenchError(f"run {run_id} has no recorded tool responses to replay in {store.uri}: record it "
                             f"with {names.ENV_RECORD_RESPONSES}=true")


def _replayed(agent: Callable[[str], Any], q: BenchQuestion, i: int, recorded: str, agent_name: str,
              store: Store) -> dict[str, Any]:
    """One repeat with its tools answered from ``recorded``; a call the recording lacks is a BenchError."""
    try:
        with _replay(recorded, store=store):
            return dict(_one(agent, q, agent_name, store), replay_of=recorded)
    except ReplayMiss as exc:
        raise BenchError(f"question {q.id!r}, repeat {i + 1}: {exc} (the agent called differently from the "
                         "recorded run)") from None


def run_bench(questions: Sequence[BenchQuestion], agent: Callable[[str], Any], *, store: Store, repeat: int = 1,
              agent_name: str = "bench", replay: Callable[[str, int], str | None] | None = None,
              progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Run every question ``repeat`` times; return the bench result (JSON-able)."""
    if repeat < 1:
        raise BenchError(f"--repeat must be at least 1, got {repeat}")
    if replay:
        _check_recorded(questions, repeat, replay, store)
    total, done, started = len(questions) * repeat, 0, time.time()
    out: list[dict[str, Any]] = []
    for q in questions:
        repeats = []
        for i in range(repeat):
            recorded = replay(q.id, i) if replay else None
            if recorded:
                repeats.append(_replayed(agent, q, i, recorded, agent_name, store))
            else:
                repeats.append(_one(agent, q, agent_name, store))
            done += 1
            if progress:
                progress(done, total)
        known = [r["passed"] for r in repeats if r["passed"] is not None]
        errored = any(r["error"] for r in repeats)  # a question whose agent raised did not pass, known answer or not
        out.append({"id": q.id, "question": q.question,
                    "answer": q.answer.describe() if q.answer else None,
                    "passed": False if errored else (all(known) if known else None), "repeats": repeats,
                    "spread": {m: spread(_figure(r, m) for r in repeats) for m in METRICS}})
    checked = [q for q in out if q["passed"] is not None]
    return {"agent": agent_name, "repeat": repeat, "started_at": started, "questions": out,
            "passed": all(q["passed"] for q in checked) if checked else None,
            "failed_questions": [q["id"] for q in checked if not q["passed"]],
            "errors": [{"question": q["id"], "repeat": i + 1, "run_id": r["run_id"], "error": r["error"]}
                       for q in out for i, r in enumerate(q["repeats"]) if r["error"]]}
