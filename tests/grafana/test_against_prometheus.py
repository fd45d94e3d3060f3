"""Every dashboard query and alert expression, run against a real Prometheus that scraped real demo runs."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
import yaml

from citetrace import names
from citetrace._dashboards import ALERTS
from citetrace._dashboards._promql import JOB_SERVE

from .dashboards import ROOT, dashboards, metric_names, panel_queries, variable_queries
from .realstack import MODES, Running, Stack, start

pytestmark = pytest.mark.slow

RATE_WINDOW = "30s"
"""What Grafana's $__rate_interval stands for here (at least 4 scrapes at the 1 s test interval)."""
DATA_DEADLINE_S = 120.0


def _rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load((ROOT / "prometheus" / "rules" / "citetrace.rules.yml").read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def _grafana_rules() -> list[dict[str, Any]]:
    doc = yaml.safe_load((ROOT / "grafana" / "provisioning" / "alerting" / "citetrace.yaml").read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def _substitute(expr: str, tool: str) -> str:
    """Grafana's template variables as Grafana would expand them (All agents is `.*`)."""
    return (expr.replace("$__rate_interval", RATE_WINDOW).replace("$__range", "2m")
            .replace("$agent", ".*").replace("$tool", tool))


def _has_finite_value(stack: Stack, target: dict[str, Any], expr: str) -> bool:
    if target.get("instant"):
        result = stack.api("query", query=expr)["result"]
        return any(math.isfinite(float(s["value"][1])) for s in result)
    now = time.time()
    result = stack.api("query_range", query=expr, start=now - 120, end=now, step=2)["result"]
    return any(math.isfinite(float(v)) for s in result for _, v in s["values"])


def _tools(stack: Stack) -> list[str]:
    tools: list[str] = stack.api("label/tool/values")
    return tools


def _panel_cases(stack: Stack) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(where, expanded expr, raw expr, target) for every query, once per tool value when it uses $tool."""
    cases = []
    for name, title, target in panel_queries():
        for tool in (_tools(stack) if "$tool" in target["expr"] else ["-"]):
            where = f"{name} / {title} / {target['refId']}" + (f" / tool={tool}" if tool != "-" else "")
            cases.append((where, _substitute(target["expr"], tool), target["expr"], target))
    return cases


@pytest.fixture(scope="module", params=MODES)
def running(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """Demo agents looping, their metrics (embedded or via citetrace serve) scraped every second by Prometheus."""
    yield from start(tmp_path_factory.mktemp(f"realstack-{request.param}"), request.param)


@pytest.fixture(scope="module")
def stack(running: Running) -> Stack:
    """The stack once every panel query has data (or the deadline passed; the tests then say which lack it)."""
    st = running.stack
    end = time.monotonic() + DATA_DEADLINE_S
    while time.monotonic() < end:
        try:
            if _tools(st) and all(_has_finite_value(st, t, e) for _, e, _, t in _panel_cases(st)):
                break
        except AssertionError:  # a query Prometheus rejects: test_every_panel_query_parses names it
            break
        time.sleep(2)
    return st


def test_every_panel_query_parses(stack: Stack) -> None:
    """Each panel query, with Grafana's variables expanded, is valid PromQL to the real Prometheus."""
    assert len(_panel_cases(stack)) >= 20
    for where, expr, _, _ in _panel_cases(stack):
        try:
            stack.api("query", query=expr)
        except AssertionError as exc:
            raise AssertionError(f"{where}: {exc}") from None


def test_every_panel_query_returns_data(stack: Stack) -> None:
    """Each panel query returns at least one finite value from the scraped demo runs (no "No data")."""
    empty = [where for where, expr, _, target in _panel_cases(stack) if not _has_finite_value(stack, target, expr)]
    assert empty == []


def test_template_variables_list_real_values(stack: Stack) -> None:
    """Each label_values() variable has values in the scraped data (the demo's agent and tools)."""
    for name, board in dashboards().items():
        for var, query in variable_queries(board).items():
            match = re.fullmatch(r"label_values\((.+), (\w+)\)", query)
            assert match, (name, var, query)
            selector, label = _substitute(match.group(1), "-"), match.group(2)
            values = stack.api(f"label/{label}/values", **{"match[]": selector})
            assert values, (name, var, query)


def _exposed_names(metrics_url: str) -> set[str]:
    text = requests.get(metrics_url, headers={"Accept": "application/openmetrics-text"}, timeout=10).text
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line and not line.startswith("#")}


def test_every_metric_name_exists_in_the_exposition(stack: Stack) -> None:
    """Every metric a dashboard or a rule reads is in the demo's real exposition (`up` in Prometheus)."""
    used: set[str] = set()
    for _, _, target in panel_queries():
        used |= metric_names(target["expr"])
    for rule in _rules():
        used |= metric_names(rule["expr"])
    exposed = _exposed_names(stack.metrics_url)
    textfile = {m for base in names.TEXTFILE_METRICS for m in (base, base.removesuffix("_total"))}
    # metrics of CLI commands (judge-eval --metrics-file) reach Prometheus through a textfile collector
    assert used - {"up"} - textfile <= exposed, sorted(used - {"up"} - textfile - exposed)
    assert "up" in used
    assert stack.api("query", query=f'up{{job="{JOB_SERVE}"}}')["result"]


def test_every_alert_expression_parses_and_evaluates_healthy(stack: Stack) -> None:
    """Every Prometheus rule expression and Grafana query A runs; Prometheus reports every rule healthy."""
    for rule in _rules():
        stack.api("query", query=rule["expr"])
    for rule in _grafana_rules():
        stack.api("query", query=rule["data"][0]["model"]["expr"])
    loaded = [r for g in stack.api("rules")["groups"] for r in g["rules"]]
    assert sorted(r["name"] for r in loaded) == sorted(a.name for a in ALERTS)
    assert [(r["name"], r.get("lastError")) for r in loaded if r["health"] != "ok"] == []


def test_grafana_rules_select_what_prometheus_rules_select(stack: Stack) -> None:
    """At one instant, Grafana's query A past its threshold selects the same series as the Prometheus rule."""
    at = time.time()
    prom = {r["alert"]: r["expr"] for r in _rules()}
    for rule in _grafana_rules():
        data = {d["refId"]: d for d in rule["data"]}
        evaluator = data[rule["condition"]]["model"]["conditions"][0]["evaluator"]
        op = {"gt": ">", "lt": "<"}[evaluator["type"]]
        grafana = f"({data['A']['model']['expr']}) {op} {evaluator['params'][0]}"
        ours = {tuple(sorted(s["metric"].items())) for s in stack.api("query", query=grafana, time=at)["result"]}
        theirs = {tuple(sorted(s["metric"].items()))
                  for s in stack.api("query", query=prom[rule["title"]], time=at)["result"]}
        assert ours == theirs, rule["title"]


def test_citation_alerts_fire_on_the_demo_and_summarizer_is_up(stack: Stack) -> None:
    """The demo's uncited and unfetched citations fire the paging alerts; the summarizer-down alert stays quiet."""
    want = {"CitetraceUncitedCitation", "CitetraceUnfetchedCitation"}
    end = time.monotonic() + 60
    firing: set[str] = set()
    while time.monotonic() < end and not want <= firing:
        alerts = stack.api("alerts")["alerts"]
        firing = {a["labels"]["alertname"] for a in alerts if a["state"] == "firing"}
        time.sleep(1)
    assert want <= firing
    alerts = stack.api("alerts")["alerts"]
    assert all(a["labels"].get("agent") for a in alerts if a["labels"]["alertname"] in want)
    assert "CitetraceSummarizerDown" not in {a["labels"]["alertname"] for a in alerts}


def test_latency_exemplars_carry_trace_ids(stack: Stack) -> None:
    """Prometheus stored trace-id exemplars for the latency histogram the dashboards link to traces from."""
    latency = next(t for _, title, t in panel_queries() if t.get("exemplar"))
    now = time.time()
    data = stack.api("query_exemplars", query=_substitute(latency["expr"], "-"), start=now - 300, end=now)
    ids = [e["labels"].get("trace_id", "") for series in data for e in series["exemplars"]]
    assert ids and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
