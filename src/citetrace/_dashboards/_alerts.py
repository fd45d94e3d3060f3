"""The one list of citetrace alert definitions.

Both the Prometheus rule file (``prometheus/rules/``) and the Grafana-managed provisioning file
(``grafana/provisioning/alerting/``) are rendered from ``ALERTS``; neither is written by hand. Each alert is
``value <op> threshold`` optionally narrowed by ``guards`` (minimum traffic, "rising" against a baseline), so
Prometheus gets one boolean expression and Grafana gets query A (value and guards) plus a threshold step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

from citetrace import names
from citetrace._dashboards._promql import JOB_SERVE, JOB_SUMMARY, SUMMARIZER_UP, by_agent, per_run_mean, rate_sum, ratio, sel

__all__ = ["Alert", "ALERTS", "RUNBOOK_DOC", "WINDOW", "BASELINE"]

RUNBOOK_DOC = "docs/operations.md"
"""Runbooks live in this file of the repository, one section per alert (``#alert-<name lowercased>``); the
rules link to its published copy (the ``runbook_url`` setting, ``CITETRACE_RUNBOOK_URL``)."""
WINDOW = "15m"
"""Window of the ratio alerts: long enough to hold a few runs, short enough to page within the hour."""
BASELINE = "6h"
JUDGE_HISTORY = "30d"
"""Window the judge-agreement alert compares the latest canary run against (its best agreement in it)."""
"""Window a "rising" alert compares against."""
Severity = Literal["page", "ticket"]
SEVERITY_PAGE: Severity = "page"
"""Wakes someone up: a fabricated or unread source, or no monitoring at all."""
SEVERITY_TICKET: Severity = "ticket"
"""Look at it today: a rate or ratio out of its normal band."""


@dataclass(frozen=True)
class Alert:
    """One alert: fires for each series where ``value <op> threshold`` and every guard hold for ``for_``."""

    name: str
    severity: Severity
    value: str
    op: Literal[">", "<"]
    threshold: float
    for_: str
    summary: str
    description: str
    guards: tuple[str, ...] = ()

    @property
    def expr(self) -> str:
        """The Prometheus alerting expression."""
        return " and ".join([f"({self.value}) {self.op} {_num(self.threshold)}", *(f"({g})" for g in self.guards)])

    @property
    def grafana_query(self) -> str:
        """Query A of the Grafana rule: the value, where the guards hold (the threshold is a separate step)."""
        return " and ".join([f"({self.value})", *(f"({g})" for g in self.guards)])

    @property
    def runbook_anchor(self) -> str:
        """The heading anchor of this alert's runbook section in ``RUNBOOK_DOC``."""
        return f"alert-{self.name.lower()}"

    def runbook_url(self, page: str) -> str:
        """The link to this alert's runbook section on ``page`` (the ``runbook_url`` setting: absolute, so a
        pager, an Alertmanager receiver or Grafana's alert view can open it; a repository path could not)."""
        return f"{page}#{self.runbook_anchor}"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _new_or_increased(counter: str) -> str:
    """Per agent: the counter went up within WINDOW, or its series appeared within WINDOW already above 0.

    ``increase()`` alone misses the first event of an agent: prometheus_client creates a labelled series at
    its first increment, so the first sample is already 1 and there is nothing to subtract it from.
    """
    grew = f"{rate_sum(sel(counter), WINDOW, names.LABEL_AGENT)} > 0"
    new = f"sum by ({names.LABEL_AGENT}) ({counter} unless {counter} offset {WINDOW}) > 0"
    return f"({grew}) or ({new})"


def _tool_calls(**labels: str) -> str:
    return sel(names.METRIC_TOOL_CALLS_TOTAL, **labels)


def _rising(measure: Callable[[str], str], window: str, baseline: str, factor: int) -> str:
    """Guard: ``measure`` over ``window`` is at least ``factor`` times its level over ``baseline``."""
    return f"{measure(window)} > {factor} * ({measure(baseline)})"


def _empty_search_ratio(window: str) -> str:
    return ratio(_EMPTY_SEARCHES, _SEARCHES, window, _AGENT)


def _rate_limited_ratio(window: str) -> str:
    return ratio(_RATE_LIMITED, _ALL_CALLS, window, _AGENT)


def _repeats_per_run(window: str) -> str:
    return per_run_mean(names.METRIC_RUN_REPEAT_QUERIES, window, _AGENT)


_AGENT = by_agent()
_RUNS = sel(names.METRIC_RUNS_TOTAL)
_SEARCHES = _tool_calls(kind=names.TOOL_KIND_SEARCH)
_EMPTY_SEARCHES = _tool_calls(kind=names.TOOL_KIND_SEARCH, status=names.STATUS_EMPTY)
_FETCHES = _tool_calls(kind=names.TOOL_KIND_FETCH)
_FAILED_FETCHES = _tool_calls(kind=names.TOOL_KIND_FETCH, status="!" + names.STATUS_OK)
_ALL_CALLS = sel(names.METRIC_TOOL_CALLS_TOTAL)
_RATE_LIMITED = _tool_calls(status=names.STATUS_RATE_LIMITED)
_LEDGER_ITERATIONS = sel(names.METRIC_LEDGER_ITERATIONS_TOTAL)
_LEDGER_FLAT = sel(names.METRIC_LEDGER_FLAT_ITERATIONS_TOTAL)
_LEDGER_CALLS = sel(names.METRIC_LEDGER_TOOL_CALLS_TOTAL)
_LEDGER_EVIDENCE = sel(names.METRIC_LEDGER_NEW_EVIDENCE_TOTAL)
_LEDGER_FLIPS = sel(names.METRIC_LEDGER_STATUS_FLIPS_TOTAL)


def _evidence_per_call(window: str) -> str:
    return ratio(_LEDGER_EVIDENCE, _LEDGER_CALLS, window, _AGENT)


def _ledger_call_rate(window: str) -> str:
    return rate_sum(_LEDGER_CALLS, window, _AGENT, func="rate")


_SPIKE_WINDOW = "5m"
_SPIKE_BASELINE = "1h"

ALERTS: tuple[Alert, ...] = (
    Alert(
        name="CitetraceUncitedCitation",
        severity=SEVERITY_PAGE,
        value=_new_or_increased(names.METRIC_UNCITED_CITATIONS_TOTAL),
        op=">",
        threshold=0,
        for_="0m",
        summary="Agent {{ $labels.agent }} cited a URL that no search returned",
        description=(
            "A report of agent {{ $labels.agent }} cites a source the agent never got from a search in the"
            " last " + WINDOW + ": a possibly fabricated source. Find the failed run (reason uncited_url) with"
            " `citetrace runs` and read its kept trace."
        ),
    ),
    Alert(
        name="CitetraceUnfetchedCitation",
        severity=SEVERITY_PAGE,
        value=_new_or_increased(names.METRIC_UNFETCHED_CITATIONS_TOTAL),
        op=">",
        threshold=0,
        for_="0m",
        summary="Agent {{ $labels.agent }} cited a URL it never read",
        description=(
            "A report of agent {{ $labels.agent }} cites a page the run never fetched in the last " + WINDOW
            + ": the claim cannot rest on that page. Find the run (reason cited_not_fetched) with"
            " `citetrace runs`, then `citetrace show RUN_ID`."
        ),
    ),
    Alert(
        name="CitetraceFailedRunRatioHigh",
        severity=SEVERITY_TICKET,
        value=ratio(sel(names.METRIC_RUNS_TOTAL, outcome=names.OUTCOME_FAILED), _RUNS, WINDOW, _AGENT),
        op=">",
        threshold=0.25,
        for_="10m",
        summary="More than 25% of the runs of agent {{ $labels.agent }} fail",
        description=(
            "{{ $value | humanizePercentage }} of the runs of agent {{ $labels.agent }} failed over the last "
            + WINDOW + ". The overview's 'Failures by reason' panel says which check fails."
        ),
        guards=(f"{rate_sum(_RUNS, WINDOW, _AGENT)} >= 4",),
    ),
    Alert(
        name="CitetraceEmptySearchRateRising",
        severity=SEVERITY_TICKET,
        value=_empty_search_ratio(WINDOW),
        op=">",
        threshold=0.2,
        for_="10m",
        summary="Empty searches of agent {{ $labels.agent }} are rising",
        description=(
            "{{ $value | humanizePercentage }} of the searches of agent {{ $labels.agent }} returned nothing"
            " over the last " + WINDOW + ", at least twice its " + BASELINE + " level. Check the search"
            " provider and the queries the agent writes (Tool drill-down)."
        ),
        guards=(
            _rising(_empty_search_ratio, WINDOW, BASELINE, 2),
            f"{rate_sum(_SEARCHES, WINDOW, _AGENT)} >= 10",
        ),
    ),
    Alert(
        name="CitetraceRateLimitSpike",
        severity=SEVERITY_TICKET,
        value=_rate_limited_ratio(_SPIKE_WINDOW),
        op=">",
        threshold=0.1,
        for_="5m",
        summary="Rate-limited tool calls of agent {{ $labels.agent }} spike",
        description=(
            "{{ $value | humanizePercentage }} of the tool calls of agent {{ $labels.agent }} were rate"
            " limited over the last " + _SPIKE_WINDOW + ", three times its " + _SPIKE_BASELINE + " level."
            " Check provider quotas and the agent's concurrency (Tool drill-down, status rate_limited)."
        ),
        guards=(
            _rising(_rate_limited_ratio, _SPIKE_WINDOW, _SPIKE_BASELINE, 3),
        ),
    ),
    Alert(
        name="CitetraceRepeatedQueriesRising",
        severity=SEVERITY_TICKET,
        value=_repeats_per_run(WINDOW),
        op=">",
        threshold=1,
        for_="15m",
        summary="Agent {{ $labels.agent }} repeats its queries more and more",
        description=(
            "Runs of agent {{ $labels.agent }} repeated {{ $value | humanize }} queries on average over the"
            " last " + WINDOW + ", twice its " + BASELINE + " level: an early sign of a rephrase loop and a"
            " cost spike. Open a kept trace from the overview's latency exemplars."
        ),
        guards=(
            _rising(_repeats_per_run, WINDOW, BASELINE, 2),
        ),
    ),
    Alert(
        name="CitetraceFailedReadRateHigh",
        severity=SEVERITY_TICKET,
        value=ratio(_FAILED_FETCHES, _FETCHES, WINDOW, _AGENT),
        op=">",
        threshold=0.3,
        for_="15m",
        summary="More than 30% of the reads of agent {{ $labels.agent }} fail",
        description=(
            "{{ $value | humanizePercentage }} of the fetches of agent {{ $labels.agent }} were not ok"
            " (error, empty or rate limited) over the last " + WINDOW + ". Tool drill-down shows which"
            " fetch tool and which status."
        ),
        guards=(f"{rate_sum(_FETCHES, WINDOW, _AGENT)} >= 10",),
    ),
    Alert(
        name="CitetraceLedgerNoProgress",
        severity=SEVERITY_TICKET,
        value=ratio(_LEDGER_FLAT, _LEDGER_ITERATIONS, WINDOW, _AGENT),
        op=">",
        threshold=0.5,
        for_="10m",
        summary="Revisions of agent {{ $labels.agent }} leave the unresolved-claim count flat",
        description=(
            "{{ $value | humanizePercentage }} of the revision iterations of agent {{ $labels.agent }} over the"
            " last " + WINDOW + " ended with as many unresolved claims as they started with: the repairs do not"
            " resolve anything. `citetrace ledger show RUN` shows the per-iteration series and the triggers."
        ),
        guards=(f"{rate_sum(_LEDGER_ITERATIONS, WINDOW, _AGENT)} >= 4",),
    ),
    Alert(
        name="CitetraceLedgerToolCallsWithoutEvidence",
        severity=SEVERITY_TICKET,
        value=_evidence_per_call(WINDOW),
        op="<",
        threshold=0.2,
        for_="10m",
        summary="Agent {{ $labels.agent }} spends more tool calls for less new evidence",
        description=(
            "Revision iterations of agent {{ $labels.agent }} found {{ $value | printf \"%.2f\" }} new evidence"
            " records per tool call over the last " + WINDOW + ", half its " + BASELINE + " level or less,"
            " while its tool-call rate rose: searching harder and finding less. Look at the repairs it runs"
            " (`citetrace ledger show RUN`) and at empty searches (Tool drill-down)."
        ),
        guards=(
            f"{_evidence_per_call(WINDOW)} <= 0.5 * ({_evidence_per_call(BASELINE)})",
            _rising(_ledger_call_rate, WINDOW, BASELINE, 1),
            f"{rate_sum(_LEDGER_CALLS, WINDOW, _AGENT)} >= 10",
        ),
    ),
    Alert(
        name="CitetraceLedgerClaimFlapping",
        severity=SEVERITY_TICKET,
        value=rate_sum(_LEDGER_FLIPS, WINDOW, _AGENT),
        op=">",
        threshold=1.5,
        for_="0m",
        summary="Claim statuses of agent {{ $labels.agent }} flap between verified and contradicted",
        description=(
            "Claims of agent {{ $labels.agent }} flipped between verified and contradicted about"
            " {{ $value | printf \"%.0f\" }} times over the last " + WINDOW + " (one flip is a correction; more"
            " is flapping, and a claim that"
            " flips twice becomes contested). Read the claims' history with `citetrace ledger show RUN`."
        ),
    ),
    Alert(
        name="CitetraceJudgeAgreementDrop",
        severity=SEVERITY_TICKET,
        value=(f"max by ({names.LABEL_JUDGE}, {names.LABEL_LABEL_SET}) "
               f"(max_over_time({names.METRIC_JUDGE_AGREEMENT}[{JUDGE_HISTORY}]))"
               f" - max by ({names.LABEL_JUDGE}, {names.LABEL_LABEL_SET}) ({names.METRIC_JUDGE_AGREEMENT})"),
        op=">",
        threshold=0.05,
        for_="0m",
        summary="Judge {{ $labels.judge }} agrees less with the canary set {{ $labels.set }}",
        description=(
            "The agreement of judge {{ $labels.judge }} with the labelled set {{ $labels.set }} (written by"
            " `citetrace judge-eval --metrics-file` on a schedule) is {{ $value | humanizePercentage }} below its"
            " best over the last " + JUDGE_HISTORY + ": the model behind the endpoint or the prompt may have"
            " changed. Compare the judge-eval history (`--history`) entries before and after."
        ),
    ),
    Alert(
        name="CitetraceSummarizerDown",
        severity=SEVERITY_PAGE,
        # up, or no target at all, or up while none of its metrics arrive (its own in-flight gauge, which serve
        # exposes and the connector remote-writes at every flush, is missing: the connector's remote write fails)
        value=(f"{SUMMARIZER_UP} or on(job) (absent({SUMMARIZER_UP}) * 0) or on(job) "
               f"((max({SUMMARIZER_UP}) * 0) unless on() count({names.METRIC_TRACES_IN_FLIGHT}))"),
        op="<",
        threshold=1,
        for_="2m",
        summary="citetrace's summarizer is down, not scraped, or its metrics do not arrive",
        description=(
            "Prometheus cannot scrape the summarizer (job " + JOB_SERVE + ", or " + JOB_SUMMARY + " for the"
            " collectors running the citetracesummary connector), or the summarizer is up but none of its"
            " metrics arrive (the connector's remote write fails). Without them there are no citetrace metrics"
            " and none of the other citetrace alerts, including the paging citation alerts, can fire."
        ),
    ),
)
