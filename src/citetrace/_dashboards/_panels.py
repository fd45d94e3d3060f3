"""Small panel builders on top of grafana-foundation-sdk, so both dashboards share one look and one datasource.

Every panel takes a description (what a bad value means, where to look next): the signature makes it
impossible to build a panel without one.
"""

from __future__ import annotations

from dataclasses import dataclass

from grafana_foundation_sdk.builders import common as common_builders
from grafana_foundation_sdk.builders import dashboard, prometheus, stat, timeseries
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models.dashboard import (
    DashboardLinkType,
    DataSourceRef,
    Threshold,
    ThresholdsMode,
    VariableRefresh,
    VariableSort,
)

from citetrace._dashboards._datasources import PROMETHEUS_UID, RUN_BROWSER_URL

__all__ = [
    "Q", "PROMETHEUS", "RATE", "RANGE", "TAG",
    "timeseries_panel", "stat_panel", "query_variable", "new_dashboard", "row",
]

TAG = "citetrace"
"""Tag of every citetrace dashboard (dashboard links list the dashboards with it)."""

PROMETHEUS = DataSourceRef(type_val="prometheus", uid=PROMETHEUS_UID)
RATE = "$__rate_interval"
"""Grafana's rate window: at least four scrape intervals, so rate() always has two samples."""
RANGE = "$__range"
"""The dashboard's whole time range."""


@dataclass(frozen=True)
class Q:
    """One panel query: PromQL, its legend, and whether to fetch exemplars."""

    expr: str
    legend: str
    exemplars: bool = False


def _targets(queries: tuple[Q, ...], instant: bool) -> list[prometheus.Dataquery]:
    out = []
    for i, q in enumerate(queries):
        target = (
            prometheus.Dataquery()
            .datasource(PROMETHEUS)
            .ref_id(chr(ord("A") + i))
            .expr(q.expr)
            .legend_format(q.legend)
        )
        target = target.instant() if instant else target.range()
        if q.exemplars:
            target = target.exemplar(True)
        out.append(target)
    return out


def _thresholds(red_at: float | None) -> dashboard.ThresholdsConfig:
    steps = [Threshold(value=None, color="green")]
    if red_at is not None:
        steps.append(Threshold(value=red_at, color="red"))
    return dashboard.ThresholdsConfig().mode(ThresholdsMode.ABSOLUTE).steps(steps)


def timeseries_panel(
    title: str,
    description: str,
    *queries: Q,
    unit: str = "short",
    stacked: bool = False,
    red_at: float | None = None,
    width: int = 12,
    height: int = 8,
    drill_to: str | None = None,
) -> timeseries.Panel:
    """A time series panel; ``red_at`` draws the alert threshold as a red line; ``drill_to`` (a dashboard
    uid) adds a data link that opens that dashboard for the clicked series' tool."""
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .targets(_targets(queries, instant=False))
        .unit(unit)
        .span(width)
        .height(height)
        .thresholds(_thresholds(red_at))
        .legend(
            common_builders.VizLegendOptions()
            .display_mode(common.LegendDisplayMode.TABLE)
            .placement(common.LegendPlacement.BOTTOM)
            .show_legend(True)
        )
    )
    if red_at is not None:
        panel = panel.thresholds_style(
            common_builders.GraphThresholdsStyleConfig().mode(common.GraphThresholdsStyleMode.LINE)
        )
    if drill_to is not None:
        panel = panel.data_links([
            dashboard.DashboardLink("Drill into ${__field.labels.tool}").url(
                f"/d/{drill_to}?var-tool=${{__field.labels.tool}}&${{agent:queryparam}}&${{__url_time_range}}"
            )
        ])
    if stacked:
        panel = panel.stacking(common_builders.StackingConfig().mode(common.StackingMode.NORMAL)).fill_opacity(60)
    return panel


def stat_panel(
    title: str, description: str, *queries: Q, unit: str = "short", red_at: float | None = None, width: int = 6
) -> stat.Panel:
    """A stat panel over instant queries; turns red at ``red_at``."""
    return (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(PROMETHEUS)
        .targets(_targets(queries, instant=True))
        .unit(unit)
        .span(width)
        .height(8)
        .thresholds(_thresholds(red_at))
        .color_mode(common.BigValueColorMode.BACKGROUND)
    )


def query_variable(name: str, label: str, query: str, *, multi: bool, description: str) -> dashboard.QueryVariable:
    """A label_values() template variable on the Prometheus datasource."""
    variable = (
        dashboard.QueryVariable(name)
        .label(label)
        .description(description)
        .datasource(PROMETHEUS)
        .query({"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery", "qryType": 1})
        .refresh(VariableRefresh.ON_TIME_RANGE_CHANGED)
        .sort(VariableSort.ALPHABETICAL_ASC)
        .multi(multi)
        .include_all(multi)
    )
    if multi:
        variable = variable.all_value(".*")
    return variable


def new_dashboard(title: str, uid: str, description: str, link_title: str) -> dashboard.Dashboard:
    """A citetrace dashboard: tagged, 30 s refresh, last hour, linked to the other citetrace dashboards."""
    return (
        dashboard.Dashboard(title)
        .uid(uid)
        .description(description)
        .tags([TAG])
        .refresh("30s")
        .time("now-1h", "now")
        .timezone("browser")
        .link(
            dashboard.DashboardLink(link_title)
            .type(DashboardLinkType.DASHBOARDS)
            .tags([TAG])
            .include_vars(True)
            .keep_time(True)
        )
        .link(
            dashboard.DashboardLink("Run browser (citetrace ui)")
            .type(DashboardLinkType.LINK)
            .url(RUN_BROWSER_URL + "/")
            .tooltip("The run list and each run's page: `citetrace ui` on the machine that holds the run store")
            .target_blank(True)
        )
    )


def row(title: str) -> dashboard.Row:
    """A row header."""
    return dashboard.Row(title)
