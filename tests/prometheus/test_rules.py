"""Prometheus rules, config and Alertmanager config, checked by the real promtool and amtool."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from citetrace import names
from citetrace._dashboards import ALERTS

ROOT = Path(__file__).resolve().parents[2]
PROM = ROOT / "prometheus"
RULE_FILES = sorted((PROM / "rules").glob("*.yml"))
TEST_FILES = sorted((PROM / "tests").glob("*.yml"))


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    assert shutil.which(cmd[0]), f"{cmd[0]} is not installed (scripts/setup apt-installs it)"
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)


def _rules() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in RULE_FILES:
        for group in yaml.safe_load(path.read_text())["groups"]:
            out.extend(group["rules"])
    return out


def test_promtool_check_rules() -> None:
    """Every rule file passes `promtool check rules`."""
    assert RULE_FILES
    proc = _run("promtool", "check", "rules", *map(str, RULE_FILES))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_promtool_unit_tests_pass() -> None:
    """`promtool test rules` passes for every unit-test file in prometheus/tests."""
    assert TEST_FILES
    proc = _run("promtool", "test", "rules", *map(str, TEST_FILES))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_alert_has_firing_and_quiet_unit_tests() -> None:
    """Each alert appears in a unit test where it fires and in one where it must stay quiet."""
    fires: set[str] = set()
    quiet: set[str] = set()
    for path in TEST_FILES:
        for case in yaml.safe_load(path.read_text())["tests"]:
            for check in case.get("alert_rule_test", []):
                (fires if check.get("exp_alerts") else quiet).add(check["alertname"])
    expected = {alert.name for alert in ALERTS}
    assert expected - fires == set(), "alerts without a firing test"
    assert expected - quiet == set(), "alerts without a quiet test"


def test_rule_file_holds_exactly_the_defined_alerts() -> None:
    """The committed rule file has one rule per definition, with severity and runbook."""
    rules = _rules()
    assert [r["alert"] for r in rules] == [a.name for a in ALERTS]
    for rule in rules:
        assert rule["labels"]["severity"] in ("page", "ticket")
        assert rule["annotations"]["runbook_url"].startswith(
            "https://github.com/citetrace/citetrace/blob/main/docs/operations.md#alert-")  # absolute: a pager opens it
    paging = {r["alert"] for r in rules if r["labels"]["severity"] == "page"}
    assert {"CitetraceUncitedCitation", "CitetraceUnfetchedCitation"} <= paging


def _anchor(heading: str) -> str:
    """GitHub's heading anchor: lowercase, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_runbook_links_point_to_sections_of_operations_doc() -> None:
    """Every runbook_url names an existing heading of docs/operations.md."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    anchors = {_anchor(line.lstrip("#")) for line in doc.splitlines() if line.startswith("#")}
    for rule in _rules():
        anchor = rule["annotations"]["runbook_url"].split("#", 1)[1]
        assert anchor in anchors, f"{rule['alert']}: no section #{anchor} in docs/operations.md"


def test_rule_metrics_are_names_constants() -> None:
    """Every metric a rule reads is a METRIC_* constant of citetrace.names (or Prometheus' own `up`)."""
    known = {v for k, v in vars(names).items() if k.startswith("METRIC_")} | {"up"}
    for rule in _rules():
        used = set(re.findall(r"\b(citetrace_[a-z_]+?)(?:_bucket|_sum|_count)?\b(?=[\[{ )])", rule["expr"]))
        used |= {"up"} if "up{" in rule["expr"] else set()
        assert used, rule["alert"]
        assert used <= known, f"{rule['alert']}: unknown {used - known}"


def test_promtool_check_config() -> None:
    """prometheus/prometheus.yml passes `promtool check config` (which also loads its rule files)."""
    proc = _run("promtool", "check", "config", str(PROM / "prometheus.yml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 rule files found" in proc.stdout


def test_amtool_check_config() -> None:
    """prometheus/alertmanager.yml passes `amtool check-config` and routes to a webhook receiver."""
    path = PROM / "alertmanager.yml"
    proc = _run("amtool", "check-config", str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = yaml.safe_load(path.read_text())
    receivers = {r["name"]: r for r in config["receivers"]}
    assert receivers[config["route"]["receiver"]]["webhook_configs"][0]["url"].startswith("http")


def test_prometheus_scrapes_summarizer_and_collector_and_alerts_to_alertmanager() -> None:
    """prometheus.yml scrapes citetrace serve (the job the down alert watches) and the collector."""
    config = yaml.safe_load((PROM / "prometheus.yml").read_text())
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    down = next(a for a in ALERTS if a.name == "CitetraceSummarizerDown")
    watched = {job for group in re.findall(r'job=~?"([^"]+)"', down.expr) for job in group.split("|")}
    assert "citetrace-serve" in watched and "citetrace-serve" in jobs
    assert "otel-collector" in jobs
    assert config["alerting"]["alertmanagers"][0]["static_configs"][0]["targets"]


def test_the_runbook_page_is_a_setting() -> None:
    """CITETRACE_RUNBOOK_URL moves every runbook link (Prometheus and Grafana rules) to the operator's own copy
    of the page, each alert's anchor appended; the other files do not change."""
    from citetrace._dashboards import render_all

    default, moved = render_all({}), render_all({names.ENV_RUNBOOK_URL: " https://wiki.example/ops/runbook "})
    changed = {path for path in default if default[path] != moved[path]}
    assert changed == {"prometheus/rules/citetrace.rules.yml", "grafana/provisioning/alerting/citetrace.yaml"}
    for path in changed:
        links = re.findall(r"runbook_url: (\S+)", moved[path])
        assert len(links) == len(ALERTS)
        assert all(link.startswith("https://wiki.example/ops/runbook#alert-citetrace") for link in links)


@pytest.mark.parametrize("value", ["docs/operations.md", "ftp://wiki.example/ops", "https://wiki.example/ops#top",
                                   "https://", ""])
def test_a_bad_runbook_page_is_one_line_and_writes_nothing(tmp_path: Path, value: str) -> None:
    """A relative path, another scheme, a fragment or nothing: exit 2, one line naming the variable, no file."""
    proc = subprocess.run([sys.executable, "-m", "citetrace._dashboards", "--root", str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, names.ENV_RUNBOOK_URL: value})
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and names.ENV_RUNBOOK_URL in proc.stderr and "Traceback" not in proc.stderr
    assert list(tmp_path.iterdir()) == []
