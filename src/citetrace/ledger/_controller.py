"""The bounded revision controller: typed triggers, four budgets, stop rules in priority order, vital signs.

``for it in RevisionController(ledger, budgets=Budgets(...)):`` yields one ``Iteration`` per repair; the
agent repairs the claim the trigger names (never regenerates the report) and may ``it.spend(tokens=n)``.
Tool calls made inside the run are counted from its traced tools. Each iteration is a span inside the run,
its vital signs go to the ledger's journal and to the metrics. Stop rules, first match wins:
``goal_satisfied``, ``budget_exhausted:<dimension>``, ``no_progress``, ``hard_error``.
"""

from __future__ import annotations

import math
import time
from contextvars import Token
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from opentelemetry import context as otel_context
from opentelemetry import trace
from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.ledger._ledger import Ledger, is_unresolved
from citetrace.ledger._metrics import LedgerMetrics, resolve_registry
from citetrace.ledger._model import ADJUDICATE, J_ITERATION, J_STOP, Claim, LedgerError

__all__ = ["Budgets", "Trigger", "Iteration", "RevisionController", "claim_trigger", "next_trigger"]


@dataclass(frozen=True)
class Budgets:
    """Caps on the four dimensions; each must be positive."""

    tool_calls: int = 50
    wall_clock_s: float = 600.0
    tokens: int = 200_000
    iterations: int = 10

    def __post_init__(self) -> None:
        for dim in names.BUDGET_DIMENSIONS:
            value = getattr(self, dim)
            # NaN compares false with everything and inf is no cap: neither would ever stop the loop
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < math.inf:
                raise LedgerError(f"budget {dim} must be a positive finite number, got {value!r}")


@dataclass(frozen=True)
class Trigger:
    """Why an iteration runs and the repair it asks for."""

    kind: str
    repair: str
    claim: str | None = None
    question: str | None = None
    avoid_classes: tuple[str, ...] = ()
    """For ``search_other_source_class``: the classes that already back the claim."""
    detail: str = ""


def claim_trigger(ledger: Ledger, claim: Claim) -> Trigger | None:
    """The repair one claim needs, or None when it is settled (verified and current, contested, ...)."""
    def make(kind: str, **kw: Any) -> Trigger:
        return Trigger(kind, names.REPAIRS[kind], claim=claim.id, question=claim.question, **kw)

    if claim.status == names.CLAIM_CONTRADICTED and claim.pass_reason != ADJUDICATE:
        return make(names.TRIGGER_CONTRADICTED, detail=f"contradicted by {', '.join(claim.contradicts)}")
    if claim.status == names.CLAIM_VERIFIED:
        rested_on = claim.history[-1].evidence if claim.history and claim.history[-1].evidence else claim.supports
        stale = [e for e in rested_on if ledger.evidence(e).stale]
        if stale and (claim.history[-1].evidence or len(stale) == len(rested_on)):
            return make(names.TRIGGER_STALE, detail=f"rests on stale {', '.join(stale)}")
    if claim.status == names.CLAIM_INSUFFICIENT:
        classes = sorted({ledger.evidence(e).source_class for e in claim.supports if not ledger.evidence(e).stale})
        return make(names.TRIGGER_INSUFFICIENT, avoid_classes=tuple(classes))
    return None


def next_trigger(ledger: Ledger) -> Trigger | None:
    """The most urgent repair (by trigger kind, then claim order), or None when nothing is left to do."""
    found = [t for t in (claim_trigger(ledger, c) for c in ledger.claims()) if t is not None]
    if found:
        return min(found, key=lambda t: names.TRIGGERS.index(t.kind))
    for q in ledger.open_questions():
        return Trigger(names.TRIGGER_OPEN_QUESTION, names.REPAIRS[names.TRIGGER_OPEN_QUESTION], question=q.id,
                       detail=q.text)
    return None


class Iteration:
    """One revision step. Use ``with it:`` to have an exception recorded as ``hard_error`` at once."""

    def __init__(self, controller: "RevisionController", number: int, trigger: Trigger) -> None:
        self.controller = controller
        self.number = number
        self.trigger = trigger
        self.tokens = 0
        self.extra_tool_calls = 0
        self.span: Any = trace.INVALID_SPAN
        self.error: str | None = None

    def spend(self, tokens: int = 0, *, tool_calls: int = 0) -> None:
        """Count tokens (and tool calls made outside traced tools) against the budgets."""
        for value in (tokens, tool_calls):  # NaN would make the spent total NaN: the budget never runs out
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise LedgerError(f"spend() takes finite non-negative numbers, got tokens={tokens!r} "
                                  f"tool_calls={tool_calls!r}")
        self.tokens += tokens
        self.extra_tool_calls += tool_calls

    def fail(self, error: BaseException | str) -> None:
        """Record a hard error: the controller stops after this iteration."""
        self.error = error if isinstance(error, str) else f"{type(error).__qualname__}: {error}"
        self.controller._failed = self.error  # noqa: SLF001

    def __enter__(self) -> "Iteration":
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is not None:
            self.fail(exc)
            self.controller._finish_now()  # noqa: SLF001

    def __repr__(self) -> str:
        return f"Iteration({self.number}, trigger={self.trigger.kind!r}, claim={self.trigger.claim!r})"


class RevisionController:
    """Iterate to repair a ledger's claims within ``budgets``; ``stop_reason`` says why it stopped."""

    def __init__(self, ledger: Ledger, budgets: Budgets | None = None, *, clock: Callable[[], float] = time.monotonic,
                 registry: CollectorRegistry | None = None, agent: str | None = None) -> None:
        if not isinstance(ledger, Ledger):
            raise LedgerError(f"RevisionController needs a Ledger, got {type(ledger).__name__}")
        self.ledger = ledger
        self.budgets = budgets or Budgets()
        self.clock = clock
        self.stop_reason: str | None = None
        self.stop_detail = ""
        self.vital_signs: list[dict[str, Any]] = []
        self.spent = {dim: 0.0 for dim in names.BUDGET_DIMENSIONS}
        self._failed: str | None = None
        self._started = False
        self._current: tuple[Iteration, dict[str, Any], Any] | None = None
        reg = resolve_registry(registry)
        self._metrics = LedgerMetrics.for_registry(reg) if reg is not None else None
        self._agent = agent or self._agent_of_run()
        self._start = 0.0
        self._base_calls = 0
        self._extra_calls = 0
        self._outside_calls = [0]  # traced calls ended outside any run while an iteration was current
        self._outside_token: Token[list[int] | None] | None = None
        self._series: list[int] = []

    # -- the loop -----------------------------------------------------------------------------------
    def __iter__(self) -> Iterator[Iteration]:
        if self._started:
            raise LedgerError("a RevisionController runs once; make a new one to revise again")
        self._started = True
        return self._loop()

    def _loop(self) -> Iterator[Iteration]:
        self._start = self.clock()
        self._base_calls = self._tool_calls_now()
        self._series = [self._unresolved()]
        try:
            while self.stop_reason is None:
                try:
                    reason, trigger = self._check()
                except Exception as exc:  # noqa: BLE001 - a broken store or ledger is a hard error
                    self._stop(names.STOP_HARD_ERROR, f"{type(exc).__qualname__}: {exc}")
                    return
                if reason is not None or trigger is None:
                    reason = reason or names.STOP_GOAL_SATISFIED
                    self._stop(reason, (self._failed or "") if reason == names.STOP_HARD_ERROR else "")
                    return
                it = Iteration(self, len(self.vital_signs) + 1, trigger)
                self._begin(it)
                yield it
                self._end()
        finally:  # left early: break, an exception in the loop body, or the generator collected
            if self._current is not None:
                self._end()
            if self.stop_reason is None:
                reason, _ = self._check(failed=True)
                self._stop(reason or names.STOP_HARD_ERROR, self._failed or "the loop was left before a stop rule")

    def _check(self, *, failed: bool = False) -> tuple[str | None, Trigger | None]:
        """(stop reason or None, next trigger), with the stop rules in priority order."""
        trigger = next_trigger(self.ledger)
        if trigger is None:
            return names.STOP_GOAL_SATISFIED, None
        self.spent["wall_clock_s"] = self.clock() - self._start
        self.spent["tool_calls"] = self._tool_calls_now() - self._base_calls + self._extra_calls
        for dim in names.BUDGET_DIMENSIONS:
            if self.spent[dim] >= getattr(self.budgets, dim):
                return names.STOP_BUDGET_PREFIX + dim, trigger
        if len(self._series) >= 3 and len(set(self._series[-3:])) == 1:
            return names.STOP_NO_PROGRESS, trigger
        if failed or self._failed is not None:
            return names.STOP_HARD_ERROR, trigger
        return None, trigger

    # -- one iteration ------------------------------------------------------------------------------
    def _begin(self, it: Iteration) -> None:
        from citetrace.capture._internal import OUTSIDE_RUN_CALLS

        # traced calls that end outside any run (a ledger re-opened after a restart, no research_run around it)
        # are counted here; set in the caller's context, as the iteration span is attached below
        self._outside_token = OUTSIDE_RUN_CALLS.set(self._outside_calls)
        before = {"unresolved": self._series[-1], "evidence": len(self.ledger.evidence_records()),
                  "calls": self._tool_calls_now(), "flips": self._flips()}
        token = None
        try:
            from citetrace import _telemetry
            from citetrace.capture import current_run
            from citetrace.capture._internal import child_context

            attrs: dict[str, Any] = {names.LEDGER_ITERATION: it.number, names.LEDGER_TRIGGER: it.trigger.kind,
                     names.LEDGER_REPAIR: it.trigger.repair, names.RUN_ID: self.ledger.run_id,
                     names.GEN_AI_AGENT_NAME: self._agent}
            if it.trigger.claim:
                attrs[names.LEDGER_CLAIM_ID] = it.trigger.claim
            tracer = _telemetry.current().tracer()
            it.span = tracer.start_span(f"{names.LEDGER_ITERATION_SPAN} {it.number}",
                                        context=child_context(current_run()), attributes=attrs)
            token = otel_context.attach(trace.set_span_in_context(it.span))
        except Exception as exc:  # noqa: BLE001 - telemetry never stops the revision
            _count(exc)
        self._current = (it, before, token)

    def _end(self) -> None:
        if self._current is None:
            return
        it, before, token = self._current
        self._current = None
        self._reset_outside_counter()
        if token is not None:
            try:
                otel_context.detach(token)
            except Exception as exc:  # noqa: BLE001 - detached in another context
                _count(exc)
        self.spent["tokens"] += it.tokens
        self.spent["iterations"] += 1
        self._extra_calls += it.extra_tool_calls
        unresolved = self._unresolved()
        self._series.append(unresolved)
        signs = {
            "iteration": it.number, "trigger": it.trigger.kind, "repair": it.trigger.repair, "claim": it.trigger.claim,
            "question": it.trigger.question, "open_questions": len(self.ledger.open_questions()),
            "unresolved": unresolved, "unresolved_delta": unresolved - before["unresolved"],
            "tool_calls": self._tool_calls_now() - before["calls"] + it.extra_tool_calls,
            "new_evidence": len(self.ledger.evidence_records()) - before["evidence"], "tokens": it.tokens,
            "error": it.error, "at": time.time(),
        }
        self.vital_signs.append(signs)
        try:
            self.ledger._commit([(J_ITERATION, signs)], [])  # noqa: SLF001
        except Exception as exc:  # noqa: BLE001 - the stop check will see the broken store
            self._failed = self._failed or f"{type(exc).__qualname__}: {exc}"
        try:
            span = it.span
            if span.is_recording():
                span.set_attributes({
                    names.LEDGER_OPEN_QUESTIONS: signs["open_questions"], names.LEDGER_UNRESOLVED: unresolved,
                    names.LEDGER_UNRESOLVED_DELTA: signs["unresolved_delta"],
                    names.LEDGER_TOOL_CALLS: signs["tool_calls"], names.LEDGER_NEW_EVIDENCE: signs["new_evidence"],
                    names.LEDGER_FLIPS: self._flips() - before["flips"],
                })
                if it.error:
                    span.set_attribute(names.ERROR_TYPE, it.error.split(":", 1)[0])
                    span.set_status(trace.Status(trace.StatusCode.ERROR, it.error[:200]))
            span.end()
            if self._metrics is not None:
                self._metrics.observe_iteration(self._agent, signs, self._flips() - before["flips"])
        except Exception as exc:  # noqa: BLE001
            _count(exc)

    def _finish_now(self) -> None:
        """After ``with it:`` saw an exception: end the iteration and stop at once (the loop is unwinding)."""
        self._end()
        if self.stop_reason is None:
            reason, _ = self._check(failed=True)
            self._stop(reason or names.STOP_HARD_ERROR, self._failed or "")

    def _stop(self, reason: str, detail: str = "") -> None:
        self.stop_reason, self.stop_detail = reason, detail
        try:
            self.ledger._commit([(J_STOP, {"reason": reason, "detail": detail, "spent": dict(self.spent),  # noqa: SLF001
                                           "iterations": len(self.vital_signs), "at": time.time()})], [])
        except Exception as exc:  # noqa: BLE001 - the reason is still on the controller
            _count(exc)
        try:
            from citetrace.capture import current_run

            run = current_run()
            if run is not None and run.id == self.ledger.run_id and run.span.is_recording():
                run.span.set_attribute(names.LEDGER_STOP_REASON, reason)
            if self._metrics is not None:
                self._metrics.observe_stop(self._agent, reason)
        except Exception as exc:  # noqa: BLE001
            _count(exc)

    # -- measurements -------------------------------------------------------------------------------
    def _unresolved(self) -> int:
        return sum(1 for c in self.ledger.claims() if is_unresolved(c))

    def _flips(self) -> int:
        return sum(c.flips for c in self.ledger.claims())

    def _tool_calls_now(self) -> int:
        """Traced calls so far: the current run's (the ledger's own run, or the run of the process that re-opened
        it) plus those that ended outside any run during an iteration. Before, only a live run with the ledger's
        own id was counted, so a re-opened ledger's tool_calls budget never ran out."""
        from citetrace.capture import current_run

        run = current_run()
        return (run.call_count if run is not None else 0) + self._outside_calls[0]

    def _reset_outside_counter(self) -> None:
        from citetrace.capture._internal import OUTSIDE_RUN_CALLS

        token, self._outside_token = self._outside_token, None
        if token is not None:
            try:
                OUTSIDE_RUN_CALLS.reset(token)
            except ValueError:  # reset in another context (the loop resumed elsewhere): leave it
                OUTSIDE_RUN_CALLS.set(None)

    def _agent_of_run(self) -> str:
        try:
            record = self.ledger.store.get_run(self.ledger.run_id)
        except Exception:  # noqa: BLE001
            record = None
        return record.agent if record is not None else names.AGENT_UNKNOWN


def _count(exc: BaseException) -> None:
    from citetrace import _telemetry

    _telemetry.count_error("capture", exc)
