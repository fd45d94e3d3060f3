"""PromQL built from ``citetrace.names``: every dashboard panel and alert rule gets its queries here.

Metric names and label values are never typed as strings in a query: a renamed metric then breaks the
generator (and the test against a real Prometheus), not a dashboard in production.
"""

from __future__ import annotations

from citetrace import names

__all__ = [
    "JOB_SERVE",
    "JOB_SUMMARY",
    "SUMMARIZER_UP",
    "JOB_COLLECTOR",
    "sel",
    "by_agent",
    "rate_sum",
    "ratio",
    "per_run_mean",
    "quantile",
]

JOB_SERVE = "citetrace-serve"
"""Prometheus ``job`` of ``citetrace serve`` (the summarizer): the only source of the citetrace_* metrics."""
JOB_SUMMARY = "citetrace-summary"
"""Prometheus ``job`` of the tier-2 collectors that run the citetracesummary connector (their own telemetry, :8888):
in the fleet set-up (docs/fleet.md) they are the summarizer, and the citetrace_* metrics arrive by remote write."""
SUMMARIZER_UP = f'up{{job=~"{JOB_SERVE}|{JOB_SUMMARY}"}}'
"""Is a summarizer scraped and up: ``citetrace serve`` in the single-host stack, the connector's collectors in a fleet."""
JOB_COLLECTOR = "otel-collector"
"""Prometheus ``job`` of the OpenTelemetry Collector's self-metrics."""

_HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")


def sel(metric: str, suffix: str = "", **labels: str) -> str:
    """A selector such as ``citetrace_tool_calls_total{kind="search"}``.

    A label value starting with ``!`` becomes ``!=``; one starting with ``~`` becomes ``=~``.
    """
    if suffix and suffix not in _HISTOGRAM_SUFFIXES:
        raise ValueError(f"unknown histogram suffix {suffix!r}")
    parts = []
    for key, value in labels.items():
        if value.startswith("!"):
            parts.append(f'{key}!="{value[1:]}"')
        elif value.startswith("~"):
            parts.append(f'{key}=~"{value[1:]}"')
        else:
            parts.append(f'{key}="{value}"')
    inner = ", ".join(parts)
    return f"{metric}{suffix}{{{inner}}}" if inner else f"{metric}{suffix}"


def by_agent(*extra: str) -> str:
    """The grouping clause every citetrace aggregation uses: ``agent`` plus ``extra`` labels."""
    return ", ".join((names.LABEL_AGENT, *extra))


def rate_sum(selector: str, window: str, *group: str, func: str = "increase") -> str:
    """``sum by (group) (increase(selector[window]))`` (or ``rate``)."""
    return f"sum by ({', '.join(group)}) ({func}({selector}[{window}]))"


def ratio(numerator: str, denominator: str, window: str, *group: str) -> str:
    """Share of ``numerator`` in ``denominator`` over ``window``; no series where the denominator is 0."""
    num = rate_sum(numerator, window, *group)
    den = rate_sum(denominator, window, *group)
    return f"{num} / ({den} > 0)"


def per_run_mean(histogram: str, window: str, *group: str, **labels: str) -> str:
    """Mean of a per-run histogram over the runs that finished in ``window``."""
    return ratio(sel(histogram, "_sum", **labels), sel(histogram, "_count", **labels), window, *group)


def quantile(q: float, histogram: str, window: str, *group: str, **labels: str) -> str:
    """``histogram_quantile`` of a classic histogram, grouped by ``group`` (``le`` is added)."""
    buckets = rate_sum(sel(histogram, "_bucket", **labels), window, *group, "le", func="rate")
    return f"histogram_quantile({q}, {buckets})"
