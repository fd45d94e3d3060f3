"""The committed Grafana dashboards and provisioning files: reproducible, complete and of the documented shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from citetrace import names
from citetrace._dashboards import ALERTS, check
from citetrace._dashboards._datasources import PROMETHEUS_UID, TRACES_UID
from .dashboards import ROOT, dashboards, metric_names, panel_queries, panels, variable_queries

OVERVIEW = "research-agent-overview.json"
DRILLDOWN = "tool-drill-down.json"


def _yaml(rel: str) -> Any:
    return yaml.safe_load((ROOT / rel).read_text())


def test_committed_files_equal_generator_output() -> None:
    """Regenerating produces exactly the committed files (no hand edits, nothing stale)."""
    assert check(ROOT) == []


def test_check_reports_a_hand_edited_file(tmp_path: Path) -> None:
    """A copy with one edited file is reported as stale, by path."""
    from citetrace._dashboards import write

    write(tmp_path)
    target = tmp_path / "grafana" / "dashboards" / OVERVIEW
    target.write_text(target.read_text().replace("Failures by reason", "Failures"))
    assert check(tmp_path) == [f"grafana/dashboards/{OVERVIEW}"]


def test_overview_has_every_required_panel() -> None:
    """The overview shows each view the issue asks for."""
    titles = [p["title"] for p in panels(dashboards()[OVERVIEW])]
    required = [
        "Runs per minute by agent and outcome", "Failed-run ratio by agent", "Failures by reason",
        "Tool calls by status per tool", "Empty-search, rate-limited and failed-read rates",
        "Tool latency p50 / p95 per tool", "Slowest call per run",
        "Repeated queries, distinct URLs and citations per run",
        "Uncited and unfetched citations (since the summarizer started)",
    ]
    assert [t for t in required if t not in titles] == []


def test_tool_calls_panel_is_stacked_by_tool_and_status() -> None:
    """'Tool calls by status per tool' stacks series grouped by tool and status."""
    panel = next(p for p in panels(dashboards()[OVERVIEW]) if p["title"] == "Tool calls by status per tool")
    assert panel["fieldConfig"]["defaults"]["custom"]["stacking"]["mode"] == "normal"
    expr = panel["targets"][0]["expr"]
    assert f"sum by ({names.LABEL_TOOL}, {names.LABEL_STATUS})" in expr


def test_every_panel_says_what_bad_means_and_where_to_look() -> None:
    """Each panel's description names a bad value and a next step."""
    for name, board in dashboards().items():
        for panel in panels(board):
            text = panel.get("description", "")
            assert "Bad" in text and "Next" in text, f"{name}: {panel['title']}"


def test_latency_panels_request_exemplars_and_datasource_links_them_to_traces() -> None:
    """Latency quantile queries ask for exemplars; the datasource maps trace_id to the traces and the run page."""
    latency = [t for _, title, t in panel_queries() if names.METRIC_TOOL_CALL_DURATION_SECONDS + "_bucket" in t["expr"]]
    assert len(latency) >= 5
    assert all(t.get("exemplar") is True for t in latency)
    prom = next(d for d in _yaml("grafana/provisioning/datasources/citetrace.yaml")["datasources"]
                if d["uid"] == PROMETHEUS_UID)
    links = prom["jsonData"]["exemplarTraceIdDestinations"]
    assert links[0] == {"name": "trace_id", "datasourceUid": TRACES_UID}
    assert links[1]["name"] == "trace_id" and links[1]["url"].endswith("/runs/${__value.raw}")


def test_every_dashboard_links_the_run_browser() -> None:
    """Each dashboard carries a link to `citetrace ui`, whose /runs/ID page also opens a run by trace id."""
    for board in dashboards().values():
        urls = [link.get("url", "") for link in board.get("links", [])]
        assert any(u.endswith(":8377/") for u in urls), board["title"]


def test_drilldown_has_a_tool_variable_used_by_every_query() -> None:
    """Tool drill-down has a `tool` variable over real tool label values, and every panel filters on it."""
    board = dashboards()[DRILLDOWN]
    variables = variable_queries(board)
    assert variables["tool"].startswith(f"label_values({names.METRIC_TOOL_CALLS_TOTAL}")
    assert variables["tool"].endswith(f", {names.LABEL_TOOL})")
    for panel in panels(board):
        for target in panel["targets"]:
            assert '"$tool"' in target["expr"], panel["title"]


def test_every_query_uses_the_fixed_prometheus_uid_and_known_metrics() -> None:
    """Panels and queries use the provisioned Prometheus uid, and read only metrics named in citetrace.names."""
    known = {v for k, v in vars(names).items() if k.startswith("METRIC_")} | {"up"}
    for name, title, target in panel_queries():
        assert target["datasource"] == {"type": "prometheus", "uid": PROMETHEUS_UID}, (name, title)
        used = {m.removesuffix("_bucket").removesuffix("_sum").removesuffix("_count")
                if m not in known else m for m in metric_names(target["expr"])}
        assert used and used <= known, (name, title, used - known)


def test_datasources_and_dashboard_provider_have_the_documented_shape() -> None:
    """Datasources: Prometheus (fixed uid) and the trace backend; dashboards: one file provider."""
    ds = _yaml("grafana/provisioning/datasources/citetrace.yaml")
    assert ds["apiVersion"] == 1
    by_type = {d["type"]: d for d in ds["datasources"]}
    assert by_type["prometheus"]["uid"] == PROMETHEUS_UID
    assert by_type["jaeger"]["uid"] == TRACES_UID
    provider = _yaml("grafana/provisioning/dashboards/citetrace.yaml")
    assert provider["apiVersion"] == 1
    (only,) = provider["providers"]
    assert only["type"] == "file" and only["options"]["path"].startswith("/")


def test_grafana_alert_rules_mirror_the_prometheus_rules() -> None:
    """Grafana-managed rules: same alerts, query A on Prometheus, threshold on __expr__, runbook annotations."""
    doc = _yaml("grafana/provisioning/alerting/citetrace.yaml")
    assert doc["apiVersion"] == 1
    (group,) = doc["groups"]
    prom_rules = {r["alert"]: r for g in _yaml("prometheus/rules/citetrace.rules.yml")["groups"] for r in g["rules"]}
    assert [r["title"] for r in group["rules"]] == [a.name for a in ALERTS] == list(prom_rules)
    for rule in group["rules"]:
        data = {d["refId"]: d for d in rule["data"]}
        assert rule["condition"] in data
        assert data["A"]["datasourceUid"] == PROMETHEUS_UID
        threshold = data[rule["condition"]]
        assert threshold["datasourceUid"] == "__expr__" and threshold["model"]["type"] == "threshold"
        reduced = data[threshold["model"]["expression"]]
        assert reduced["model"]["expression"] == "A"
        prom = prom_rules[rule["title"]]
        assert rule["annotations"]["runbook_url"] == prom["annotations"]["runbook_url"]
        assert rule["labels"]["severity"] == prom["labels"]["severity"]
        # the Prometheus expression is query A with the threshold inserted after the value
        op = ">" if threshold["model"]["conditions"][0]["evaluator"]["type"] == "gt" else "<"
        bound = threshold["model"]["conditions"][0]["evaluator"]["params"][0]
        value, *guards = data["A"]["model"]["expr"].split(" and (")
        rebuilt = " and (".join([f"{value} {op} {bound:g}", *guards])
        assert rebuilt == prom["expr"], rule["title"]
    receivers = doc["contactPoints"][0]["receivers"]
    assert receivers[0]["type"] == "webhook"
    assert doc["policies"][0]["receiver"] == doc["contactPoints"][0]["name"]


def test_data_links_open_existing_dashboards_with_the_tool_variable() -> None:
    """Data links on the overview's tool panels open a shipped dashboard that has a `tool` variable."""
    boards = {b["uid"]: b for b in dashboards().values()}
    links = [link for p in panels(dashboards()[OVERVIEW]) for link in p["fieldConfig"]["defaults"].get("links", [])]
    assert len(links) >= 2
    for link in links:
        uid = link["url"].split("/d/", 1)[1].split("?", 1)[0]
        assert uid in boards and "tool" in variable_queries(boards[uid])
        assert "var-tool=${__field.labels.tool}" in link["url"]


def test_operations_doc_describes_every_panel() -> None:
    """docs/operations.md names every dashboard and every panel title, so the written description stays complete."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    for name, board in dashboards().items():
        assert board["title"] in doc and name in doc
        missing = [p["title"] for p in panels(board) if p["title"] not in doc]
        assert missing == [], name
