"""Publishing an evaluation: ``gen_ai.evaluation.result`` span events and Prometheus metrics.

Events carry the per-pair detail (label, score, explanation, the redacted URL); metrics carry only closed
label sets (agent, judge, label, rate) so an evaluation can never blow up cardinality. Publishing failures
are logged once and never fail the evaluation.
"""

from __future__ import annotations

import logging

from opentelemetry import trace
from prometheus_client import CollectorRegistry, Counter, Gauge

from citetrace import names
from citetrace._urls import redact_url
from citetrace.eval._evaluate import RunEvaluation
from citetrace.eval._rates import RATE_NAMES
from citetrace.eval._types import PARTIAL, SUPPORTED

__all__ = ["emit_events", "EvalMetrics", "SCORES"]

_log = logging.getLogger("citetrace.eval")

SCORES = {SUPPORTED: 1.0, PARTIAL: 0.5}
"""``gen_ai.evaluation.score.value`` per label; every other label scores 0."""


def emit_events(ev: RunEvaluation, tracer: trace.Tracer | None = None) -> int:
    """One ``evaluate_citations`` span with an evaluation event per judged citation; returns the event count."""
    tracer = tracer or trace.get_tracer("citetrace.eval")
    attrs: dict[str, str | float | int | bool] = {
        names.RUN_ID: ev.run_id,
        names.GEN_AI_AGENT_NAME: ev.agent,
        names.EVAL_JUDGE: ev.judge,
        names.EVAL_JUDGE_VERSION: ev.judge_version,
    }
    for name, rate in ev.rates.items():
        if rate.value is not None:
            attrs[names.EVAL_RATE_PREFIX + name] = rate.value
    count = 0
    try:
        with tracer.start_as_current_span(names.EVAL_SPAN_NAME, attributes=attrs) as span:
            for p in ev.pairs:
                if p.label is None:
                    continue
                explanation = p.verdict.explanation if p.verdict is not None else (p.pair.problem or "not fetched")
                span.add_event(names.GEN_AI_EVALUATION_RESULT, {
                    names.GEN_AI_EVALUATION_NAME: names.EVALUATION_NAME_CITATION_SUPPORT,
                    names.GEN_AI_EVALUATION_SCORE_LABEL: p.label,
                    names.GEN_AI_EVALUATION_SCORE_VALUE: SCORES.get(p.label, 0.0),
                    names.GEN_AI_EVALUATION_EXPLANATION: explanation[:500],
                    names.EVAL_PAIR_URL: redact_url(p.pair.url) if p.pair.url else "",
                    names.EVAL_PAIR_SENTENCE: p.pair.sentence.index,
                    names.EVAL_FLAGS: p.flags(),
                })
                count += 1
    except Exception:  # telemetry must never fail an evaluation
        _log.warning("citetrace eval: could not emit evaluation events", exc_info=True)
    return count


class EvalMetrics:
    """The eval metrics on an explicit registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry
        self.runs = Counter(names.counter_base(names.METRIC_EVAL_RUNS_TOTAL), "Runs evaluated.",
                            [names.LABEL_AGENT, names.LABEL_JUDGE], registry=registry)
        self.pairs = Counter(names.counter_base(names.METRIC_EVAL_PAIRS_TOTAL), "Judged citations by final label.",
                             [names.LABEL_AGENT, names.LABEL_JUDGE, names.LABEL_LABEL], registry=registry)
        self.rate = Gauge(names.METRIC_EVAL_RATE, "Latest evaluated run's rates (0..1).",
                          [names.LABEL_AGENT, names.LABEL_RATE], registry=registry)
        self.gate_failures = Counter(names.counter_base(names.METRIC_EVAL_GATE_FAILURES_TOTAL), "Gate failures.",
                                     [names.LABEL_AGENT, names.LABEL_REASON], registry=registry)

    def record(self, ev: RunEvaluation) -> None:
        """Count one evaluated run."""
        judge = ev.judge if ev.judge in names.EVAL_JUDGES else "deterministic"
        self.runs.labels(ev.agent, judge).inc()
        for label, n in ev.label_counts().items():
            self.pairs.labels(ev.agent, judge, label).inc(n)
        for name in RATE_NAMES:
            value = ev.rates[name].value
            if value is not None:
                self.rate.labels(ev.agent, name).set(value)

    def record_gate_failure(self, agent: str, reason: str) -> None:
        if reason not in names.GATE_REASONS:
            raise ValueError(f"unknown gate failure reason {reason!r}")
        self.gate_failures.labels(agent, reason).inc()
