"""The "Tool drill-down" dashboard: one tool (a template variable) in detail.

Reached from the overview when one tool's status mix or latency looks wrong: which statuses, which agents,
how slow, and an exemplar that opens a kept trace of a slow call.
"""

from __future__ import annotations

from grafana_foundation_sdk.builders import dashboard
from grafana_foundation_sdk.cog.builder import Builder
from grafana_foundation_sdk.models import dashboard as model

from citetrace import names
from citetrace._dashboards._panels import RATE, Q, new_dashboard, query_variable, row, timeseries_panel
from citetrace._dashboards._promql import quantile, rate_sum, ratio, sel

__all__ = ["UID", "TITLE", "drilldown"]

UID = "citetrace-tool"
TITLE = "Tool drill-down"

A = names.LABEL_AGENT
FILTER = {"agent": "~$agent", "tool": "$tool"}
"""Every selector is narrowed to the chosen agents and the one chosen tool."""


def _calls(**labels: str) -> str:
    return sel(names.METRIC_TOOL_CALLS_TOTAL, **FILTER, **labels)


def _panels() -> list[Builder[model.Panel]]:
    latency = names.METRIC_TOOL_CALL_DURATION_SECONDS
    return [
        timeseries_panel(
            "Calls of $tool by status",
            "Calls per minute of the chosen tool, stacked by status. Bad: empty, error or rate_limited bands "
            "that grow while ok shrinks. Next: 'Status share' for the proportion, and the kept traces of "
            "failed runs that used this tool.",
            Q(f"60 * {rate_sum(_calls(), RATE, names.LABEL_STATUS, func='rate')}", "{{status}}"),
            stacked=True,
        ),
        timeseries_panel(
            "Status share of $tool",
            "Share of the tool's calls per status. Bad: empty above 20% for a search tool (bad queries or a "
            "weak provider), error or empty above 30% for a fetch tool (blocked sites, cookie walls, "
            "timeouts), any rate_limited (quota). Next: the provider's status page and quota; the agent's "
            "concurrency settings.",
            Q(_status_share(), "{{status}}"),
            unit="percentunit",
        ),
        timeseries_panel(
            "Latency of $tool: p50 / p95 / p99",
            "Latency quantiles of the chosen tool across the chosen agents. Exemplar dots link to the kept "
            "trace of that call. Bad: p99 at the tool's timeout, or p95 rising while the call rate is flat "
            "(the provider slows down). Next: click an exemplar to open its trace.",
            *(
                Q(quantile(q, latency, RATE, names.LABEL_TOOL, **FILTER), f"p{int(q * 100)}", exemplars=True)
                for q in (0.5, 0.95, 0.99)
            ),
            unit="s",
            width=24,
        ),
        timeseries_panel(
            "Calls of $tool per agent",
            "Calls per minute of the chosen tool by agent. Bad: one agent calling far more than the others "
            "(a loop, see 'Repeated queries' on the overview) or an agent that stopped calling it. Next: the "
            "overview filtered to that agent.",
            Q(f"60 * {rate_sum(_calls(), RATE, A, func='rate')}", "{{agent}}"),
        ),
        timeseries_panel(
            "Mean latency of $tool per agent",
            "Mean call latency per agent. Bad: one agent much slower than the others with the same tool "
            "(it sends heavier requests, or runs from a slow network). Next: that agent's exemplars above.",
            Q(ratio(sel(latency, "_sum", **FILTER), sel(latency, "_count", **FILTER), RATE, A), "{{agent}}"),
            unit="s",
        ),
    ]


def _status_share() -> str:
    """Each status's share of the tool's calls (one denominator for all statuses)."""
    calls = _calls()
    total = f"sum(increase({calls}[{RATE}]))"
    return f"{rate_sum(calls, RATE, names.LABEL_STATUS)} / on () group_left () ({total} > 0)"


def drilldown() -> dashboard.Dashboard:
    """The tool drill-down dashboard builder."""
    board = (
        new_dashboard(
            TITLE, UID, "One tool in detail: statuses, latency with exemplars, and which agents call it.",
            "Research agent overview",
        )
        .with_variable(
            query_variable(
                "agent", "Agent", f"label_values({names.METRIC_TOOL_CALLS_TOTAL}, {A})", multi=True,
                description="Agents whose calls are shown.",
            )
        )
        .with_variable(
            query_variable(
                "tool", "Tool", f'label_values({names.METRIC_TOOL_CALLS_TOTAL}{{agent=~"$agent"}}, {names.LABEL_TOOL})',
                multi=False,
                description="The tool to drill into (gen_ai.tool.name; 'other' collects names past the cap).",
            )
        )
        .with_row(row("Tool"))
    )
    for panel in _panels():
        board = board.with_panel(panel)
    return board
