"""The "Research agent overview" dashboard: is the fleet of research agents healthy, and if not, what broke.

Rows go from outcome (runs, failures) to cause (tool statuses, latency) to per-run behaviour (repeats,
URLs, citations) to the paging signal (uncited and unfetched citations) and the summarizer's own health.
"""

from __future__ import annotations

from typing import TypeAlias

from grafana_foundation_sdk.builders import dashboard
from grafana_foundation_sdk.cog.builder import Builder
from grafana_foundation_sdk.models import dashboard as model

from citetrace import names
from citetrace._dashboards._alerts import ALERTS, Alert
from citetrace._dashboards._drilldown import UID as DRILLDOWN_UID
from citetrace._dashboards._ledger_row import ledger_row
from citetrace._dashboards._panels import RATE, Q, new_dashboard, query_variable, row, stat_panel, timeseries_panel
from citetrace._dashboards._promql import SUMMARIZER_UP, per_run_mean, quantile, rate_sum, ratio, sel

__all__ = ["UID", "TITLE", "overview"]

UID = "citetrace-overview"
TITLE = "Research agent overview"

A = names.LABEL_AGENT
AGENT = "~$agent"
"""Every selector is narrowed to the dashboard's agent variable (regex; All is ``.*``)."""


Panel: TypeAlias = Builder[model.Panel]


def _alert(name: str) -> Alert:
    return next(a for a in ALERTS if a.name == name)


def _calls(**labels: str) -> str:
    return sel(names.METRIC_TOOL_CALLS_TOTAL, agent=AGENT, **labels)


def _per_minute(selector: str, *group: str) -> str:
    return f"60 * {rate_sum(selector, RATE, *group, func='rate')}"


def _runs_row() -> list[Panel]:
    runs = sel(names.METRIC_RUNS_TOTAL, agent=AGENT)
    failed = sel(names.METRIC_RUNS_TOTAL, agent=AGENT, outcome=names.OUTCOME_FAILED)
    return [
        timeseries_panel(
            "Runs per minute by agent and outcome",
            "Finished runs per minute, split into ok and failed. Bad: the failed series grows, or all series "
            "drop to zero (agents stopped, or spans no longer reach the summarizer: check 'Summarizer "
            "health' below). Next: 'Failures by reason'.",
            Q(_per_minute(runs, A, names.LABEL_OUTCOME), "{{agent}} {{outcome}}"),
            unit="short",
            stacked=True,
            width=8,
        ),
        timeseries_panel(
            "Failed-run ratio by agent",
            "Share of finished runs with at least one failure reason. Bad: above the red line (the "
            "CitetraceFailedRunRatioHigh alert threshold). Next: 'Failures by reason' says which check "
            "fails; `citetrace runs` lists the failed runs and their kept traces.",
            Q(ratio(failed, runs, RATE, A), "{{agent}}"),
            unit="percentunit",
            red_at=_alert("CitetraceFailedRunRatioHigh").threshold,
            width=8,
        ),
        timeseries_panel(
            "Failures by reason",
            "Failed runs per minute by failure reason (a run counts once under every reason that applies). "
            "Bad: uncited_url or cited_not_fetched at all (fabricated or unread sources); a growing "
            "empty_search, failed_reads or rate_limited (a tool problem); too_many_searches (a rephrase "
            "loop). Next: 'Tool calls by status per tool' for tool problems, 'Repeated queries' for loops, "
            "`citetrace runs` for the failed runs themselves.",
            Q(_per_minute(sel(names.METRIC_RUN_FAILURES_TOTAL, agent=AGENT), names.LABEL_REASON), "{{reason}}"),
            unit="short",
            stacked=True,
            width=8,
        ),
    ]


def _tools_row() -> list[Panel]:
    search = dict(kind=names.TOOL_KIND_SEARCH)
    fetch = dict(kind=names.TOOL_KIND_FETCH)
    return [
        timeseries_panel(
            "Tool calls by status per tool",
            "Tool calls per minute, stacked, by tool and status (ok, empty, error, rate_limited). Bad: "
            "non-ok bands that widen, or a tool whose calls stop. Next: open 'Tool drill-down' for that tool.",
            Q(_per_minute(_calls(), names.LABEL_TOOL, names.LABEL_STATUS), "{{tool}} {{status}}"),
            unit="short",
            stacked=True,
            drill_to=DRILLDOWN_UID,
        ),
        timeseries_panel(
            "Empty-search, rate-limited and failed-read rates",
            "Empty searches among searches, rate-limited calls among all calls, and not-ok fetches among "
            "fetches. Bad: empty searches above 20% (provider or query problem), any sustained rate limiting "
            "(quota or concurrency), failed reads above 30% (sites blocking the agent, timeouts). Next: "
            "'Tool drill-down' for the tool behind the rise.",
            Q(ratio(_calls(**search, status=names.STATUS_EMPTY), _calls(**search), RATE, A), "{{agent}} empty searches"),
            Q(ratio(_calls(status=names.STATUS_RATE_LIMITED), _calls(), RATE, A), "{{agent}} rate limited"),
            Q(ratio(_calls(**fetch, status="!" + names.STATUS_OK), _calls(**fetch), RATE, A), "{{agent}} failed reads"),
            unit="percentunit",
        ),
        timeseries_panel(
            "Tool latency p50 / p95 per tool",
            "Median and 95th percentile of tool-call latency per tool. Exemplar dots link to the kept trace of "
            "a slow call. Bad: p95 far above p50 (timeouts, retries) or a step up after a deploy. Next: click "
            "an exemplar to open the trace, or 'Tool drill-down'.",
            Q(quantile(0.5, names.METRIC_TOOL_CALL_DURATION_SECONDS, RATE, names.LABEL_TOOL, agent=AGENT),
              "{{tool}} p50", exemplars=True),
            Q(quantile(0.95, names.METRIC_TOOL_CALL_DURATION_SECONDS, RATE, names.LABEL_TOOL, agent=AGENT),
              "{{tool}} p95", exemplars=True),
            unit="s",
            width=24,
            drill_to=DRILLDOWN_UID,
        ),
    ]


def _per_run_row() -> list[Panel]:
    def mean(metric: str, legend: str) -> Q:
        return Q(per_run_mean(metric, RATE, A, agent=AGENT), legend)

    return [
        timeseries_panel(
            "Slowest call per run",
            "Median and 95th percentile over runs of each run's slowest tool call. Bad: it approaches the "
            "tools' timeout (one slow read dominates the run). Next: 'Tool latency' for the slow tool.",
            Q(quantile(0.5, names.METRIC_RUN_SLOWEST_CALL_SECONDS, RATE, A, agent=AGENT), "{{agent}} p50"),
            Q(quantile(0.95, names.METRIC_RUN_SLOWEST_CALL_SECONDS, RATE, A, agent=AGENT), "{{agent}} p95"),
            unit="s",
            width=8,
        ),
        timeseries_panel(
            "Repeated queries, distinct URLs and citations per run",
            "Per-run means. Bad: repeated queries above 1 (a rephrase loop, and a cost spike), distinct URLs "
            "falling (searches return the same few pages), citations falling to 0 (reports without sources). "
            "Next: `citetrace show RUN_ID` on a recent run of that agent.",
            mean(names.METRIC_RUN_REPEAT_QUERIES, "{{agent}} repeated queries"),
            mean(names.METRIC_RUN_DISTINCT_URLS, "{{agent}} distinct URLs"),
            mean(names.METRIC_RUN_CITATIONS, "{{agent}} citations"),
            unit="short",
            red_at=_alert("CitetraceRepeatedQueriesRising").threshold,
            width=16,
        ),
    ]


def _citations_row() -> list[Panel]:
    uncited = sel(names.METRIC_UNCITED_CITATIONS_TOTAL, agent=AGENT)
    unfetched = sel(names.METRIC_UNFETCHED_CITATIONS_TOTAL, agent=AGENT)
    return [
        stat_panel(
            "Uncited and unfetched citations (since the summarizer started)",
            "Cited URLs that no search returned (uncited) and cited URLs the run never fetched (unfetched), "
            "counted since citetrace serve last started. Bad: anything above 0; these page "
            "(CitetraceUncitedCitation, CitetraceUnfetchedCitation). Next: `citetrace runs` for failed runs "
            "with reason uncited_url or cited_not_fetched, then `citetrace eval RUN_ID`.",
            Q(f"sum by ({A}) ({uncited})", "{{agent}} uncited"),
            Q(f"sum by ({A}) ({unfetched})", "{{agent}} unfetched"),
            red_at=1,
            width=8,
        ),
        timeseries_panel(
            "Uncited and unfetched citations over time",
            "New uncited and unfetched citations per interval. Bad: any bar at all; the time tells you which "
            "runs to open. Next: the kept traces of that period (every failed run's trace is kept).",
            Q(rate_sum(uncited, RATE, A), "{{agent}} uncited"),
            Q(rate_sum(unfetched, RATE, A), "{{agent}} unfetched"),
            unit="short",
            red_at=1,
            width=16,
        ),
    ]


def _health_row() -> list[Panel]:
    return [
        stat_panel(
            "Summarizer up",
            "1 when Prometheus scrapes the summarizer (citetrace serve, or the collectors running the "
            "citetracesummary connector). Bad: 0 or empty; then every other panel goes stale and no citetrace "
            "alert can fire (CitetraceSummarizerDown). Next: the summarizer's logs and its health check.",
            Q(SUMMARIZER_UP, "{{job}} {{instance}}"),
            width=6,
        ),
        timeseries_panel(
            "Traces in flight in the summarizer",
            "Traces the summarizer holds while waiting for their root span. Bad: a steady climb towards "
            "the configured cap (CITETRACE_MAX_TRACES): roots are lost upstream or the grace period is too "
            "long; evictions follow. Next: the collector's pipeline and the summarizer's eviction counters.",
            Q(f"sum by (instance) ({names.METRIC_TRACES_IN_FLIGHT})", "{{instance}}"),
            unit="short",
            width=18,
        ),
    ]


def overview() -> dashboard.Dashboard:
    """The overview dashboard builder."""
    board = new_dashboard(
        TITLE, UID, "Research agents traced by citetrace: outcomes, tools, per-run behaviour, citations.",
        "Tool drill-down",
    ).with_variable(
        query_variable(
            "agent",
            "Agent",
            f"label_values({names.METRIC_RUNS_TOTAL}, {A})",
            multi=True,
            description="Agents (gen_ai.agent.name, or the service name) that finished a run.",
        )
    )
    sections = (
        ("Runs", _runs_row()),
        ("Tool calls", _tools_row()),
        ("Per run", _per_run_row()),
        ("Citations", _citations_row()),
        ("Claim ledger (revision)", ledger_row()),
        ("Summarizer health", _health_row()),
    )
    for title, panels in sections:
        board = board.with_row(row(title))
        for panel in panels:
            board = board.with_panel(panel)
    return board
