"""Prometheus metrics of the revision controller, for the three failure signatures of a revising agent.

A flat unresolved-claim count across iterations (``flat_iterations``), rising tool calls with falling new
evidence (``tool_calls`` against ``new_evidence``), and claim status flapping (``status_flips``). They live
in an explicit registry (the one ``configure()`` made, or one passed in), never the global one.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge

from citetrace import names

__all__ = ["LedgerMetrics", "resolve_registry"]

_lock = threading.Lock()
_by_registry: "weakref.WeakKeyDictionary[CollectorRegistry, LedgerMetrics]" = weakref.WeakKeyDictionary()
_MAX_AGENTS = 50


def resolve_registry(registry: CollectorRegistry | None) -> CollectorRegistry | None:
    """The given registry, else the one ``configure()`` set up, else None (no metrics)."""
    if registry is not None:
        return registry
    from citetrace import _telemetry

    found = _telemetry.current().registry
    return found if isinstance(found, CollectorRegistry) else None


class LedgerMetrics:
    """Every ledger metric of one registry; ``for_registry`` shares one per registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        a, b = names.LABEL_AGENT, names.LABEL_TRIGGER
        base = names.counter_base
        self.iterations = Counter(base(names.METRIC_LEDGER_ITERATIONS_TOTAL), "Revision iterations run.", (a, b),
                                  registry=registry)
        self.flat = Counter(base(names.METRIC_LEDGER_FLAT_ITERATIONS_TOTAL),
                            "Iterations after which the unresolved-claim count had not moved.", (a,), registry=registry)
        self.tool_calls = Counter(base(names.METRIC_LEDGER_TOOL_CALLS_TOTAL),
                                  "Tool calls spent inside revision iterations.", (a,), registry=registry)
        self.new_evidence = Counter(base(names.METRIC_LEDGER_NEW_EVIDENCE_TOTAL),
                                    "Evidence records added inside revision iterations.", (a,), registry=registry)
        self.flips = Counter(base(names.METRIC_LEDGER_STATUS_FLIPS_TOTAL),
                             "Claim verdicts that flipped between verified and contradicted.", (a,), registry=registry)
        self.unresolved = Gauge(names.METRIC_LEDGER_UNRESOLVED, "Unresolved claims after the latest iteration.",
                                (a,), registry=registry)
        self.stops = Counter(base(names.METRIC_LEDGER_STOPS_TOTAL), "Revision controller stops by reason.",
                             (a, names.LABEL_STOP_REASON), registry=registry)
        self._agents: set[str] = set()

    @classmethod
    def for_registry(cls, registry: CollectorRegistry) -> "LedgerMetrics":
        with _lock:
            found = _by_registry.get(registry)
            if found is None:
                found = _by_registry[registry] = cls(registry)
            return found

    def agent(self, name: str) -> str:
        """The agent label, capped at 50 distinct values (then ``other``)."""
        if name not in self._agents and len(self._agents) >= _MAX_AGENTS:
            return names.TOOL_OVERFLOW
        self._agents.add(name)
        return name

    def observe_iteration(self, agent: str, signs: dict[str, Any], flips: int) -> None:
        """Record one iteration's vital signs."""
        label = self.agent(agent)
        self.iterations.labels(label, signs["trigger"]).inc()
        if signs["unresolved_delta"] == 0 and signs["unresolved"] > 0:
            self.flat.labels(label).inc()
        self.flat.labels(label).inc(0)
        self.tool_calls.labels(label).inc(signs["tool_calls"])
        self.new_evidence.labels(label).inc(signs["new_evidence"])
        self.flips.labels(label).inc(flips)
        self.unresolved.labels(label).set(signs["unresolved"])

    def observe_stop(self, agent: str, reason: str) -> None:
        if reason in names.STOP_REASONS:
            self.stops.labels(self.agent(agent), reason).inc()

    def observe_span(self, attributes: Mapping[str, Any]) -> None:
        """Record from a span (``citetrace serve``): an iteration span's vital signs, a root span's stop reason.

        The same attributes the controller writes, so fleet mode (spans to a summarizer) and embedded mode
        (the controller records itself) expose the same series.
        """
        agent = str(attributes.get(names.GEN_AI_AGENT_NAME) or names.AGENT_UNKNOWN)
        trigger = attributes.get(names.LEDGER_TRIGGER)
        if trigger in names.TRIGGERS and attributes.get(names.LEDGER_UNRESOLVED) is not None:
            signs = {"trigger": trigger, "unresolved": int(attributes[names.LEDGER_UNRESOLVED]),
                     "unresolved_delta": int(attributes.get(names.LEDGER_UNRESOLVED_DELTA, 0)),
                     "tool_calls": max(0, int(attributes.get(names.LEDGER_TOOL_CALLS, 0))),
                     "new_evidence": max(0, int(attributes.get(names.LEDGER_NEW_EVIDENCE, 0)))}
            self.observe_iteration(agent, signs, max(0, int(attributes.get(names.LEDGER_FLIPS, 0))))
        reason = attributes.get(names.LEDGER_STOP_REASON)
        if isinstance(reason, str) and attributes.get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT:
            self.observe_stop(agent, reason)
