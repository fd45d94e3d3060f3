"""The overview's "Claim ledger (revision)" row: the three failure signatures of a revising agent.

A flat unresolved-claim count across iterations, tool calls rising while new evidence falls, and claim
statuses flapping between verified and contradicted; plus the unresolved count and why controllers stop.
"""

from __future__ import annotations

from typing import TypeAlias

from grafana_foundation_sdk.cog.builder import Builder
from grafana_foundation_sdk.models import dashboard as model

from citetrace import names
from citetrace._dashboards._alerts import ALERTS, Alert
from citetrace._dashboards._panels import RATE, Q, timeseries_panel
from citetrace._dashboards._promql import rate_sum, ratio, sel

__all__ = ["ledger_row"]

Panel: TypeAlias = Builder[model.Panel]
A = names.LABEL_AGENT
AGENT = "~$agent"


def _alert(name: str) -> Alert:
    return next(a for a in ALERTS if a.name == name)


def ledger_row() -> list[Panel]:
    """Four panels, one per signature plus the outcome."""
    iterations = sel(names.METRIC_LEDGER_ITERATIONS_TOTAL, agent=AGENT)
    flat = sel(names.METRIC_LEDGER_FLAT_ITERATIONS_TOTAL, agent=AGENT)
    calls = sel(names.METRIC_LEDGER_TOOL_CALLS_TOTAL, agent=AGENT)
    evidence = sel(names.METRIC_LEDGER_NEW_EVIDENCE_TOTAL, agent=AGENT)
    flips = sel(names.METRIC_LEDGER_STATUS_FLIPS_TOTAL, agent=AGENT)
    return [
        timeseries_panel(
            "Flat revision iterations and unresolved claims",
            "Share of revision iterations after which the unresolved-claim count had not moved, and the "
            "unresolved claims after the latest iteration. Bad: the share above the red line "
            "(CitetraceLedgerNoProgress): repairs that resolve nothing. Next: `citetrace ledger show RUN` "
            "for the per-iteration series and the triggers.",
            Q(ratio(flat, iterations, RATE, A), "{{agent}} flat share"),
            Q(f"max by ({A}) ({sel(names.METRIC_LEDGER_UNRESOLVED, agent=AGENT)})", "{{agent}} unresolved"),
            unit="short",
            red_at=_alert("CitetraceLedgerNoProgress").threshold,
            width=8,
        ),
        timeseries_panel(
            "Revision tool calls and new evidence",
            "Tool calls spent inside revision iterations per minute, and new evidence records per tool call. "
            "Bad: calls rising while evidence per call falls below the red line "
            "(CitetraceLedgerToolCallsWithoutEvidence): searching harder, finding less. Next: the repairs "
            "the agent runs (`citetrace ledger show RUN`) and its empty searches (Tool drill-down).",
            Q(f"60 * {rate_sum(calls, RATE, A, func='rate')}", "{{agent}} tool calls / min"),
            Q(ratio(evidence, calls, RATE, A), "{{agent}} evidence per call"),
            unit="short",
            red_at=_alert("CitetraceLedgerToolCallsWithoutEvidence").threshold,
            width=8,
        ),
        timeseries_panel(
            "Claim status flips",
            "Claim verdicts that flipped between verified and contradicted across passes. One flip is a "
            "correction; a claim that flips twice becomes contested. Bad: above the red line "
            "(CitetraceLedgerClaimFlapping). Next: the claims' history in `citetrace ledger show RUN`.",
            Q(rate_sum(flips, RATE, A), "{{agent}} flips"),
            unit="short",
            red_at=_alert("CitetraceLedgerClaimFlapping").threshold,
            width=8,
        ),
        timeseries_panel(
            "Revision stops by reason",
            "Revision controllers stopping per minute, by stop reason. Good: goal_satisfied. Bad: a growing "
            "budget_exhausted:* (the budget is too small or the repairs wasteful), no_progress or hard_error. "
            "Next: the partial reports (`citetrace ledger report RUN`) of that period.",
            Q(f"60 * {rate_sum(sel(names.METRIC_LEDGER_STOPS_TOTAL, agent=AGENT), RATE, A, names.LABEL_STOP_REASON, func='rate')}",
              "{{agent}} {{reason}}"),
            unit="short",
            stacked=True,
            width=24,
        ),
    ]
