"""The built-in summary with real parts: agents -> the built collector (otelcol-summary.yaml, the
citetracesummary connector) -> Prometheus (remote write) and a kept-traces file. No `citetrace serve` runs.

First a finite fleet of agents (tests/collector/_agents.py) whose runs are known: PromQL must give exactly their
runs, failures and tool calls, the tail sampler must keep exactly their failed runs plus the hash sample, and a
raw trace sent without any in-process summary must come out of the sampler with the connector's summary. Then
the looping demo (with the claim ledger) runs, and every dashboard query and alert rule must return data from
what the connector wrote, with the metric names exactly those of names.py.
"""

from __future__ import annotations

import json
import math
import re
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests
import yaml

from citetrace import names
from citetrace._dashboards import ALERTS
from citetrace._dashboards._promql import JOB_SUMMARY

from _promconfig import fast_prometheus_config
from grafana.dashboards import metric_names, panel_queries, variable_queries, dashboards
from vectors._runner import VECTORS, load

from ._harness import (
    AGENTS, COLLECTOR_DIR, REPO, Proc, assert_promql_counts, collector_binary, collector_env, expected_kept, free_port,
    http_get, http_post, promql, read_otlp_json_lines, read_runs, start_collector, summary_count_fields, wait_until,
)

pytestmark = pytest.mark.slow

RATE_WINDOW = "30s"
CITETRACE = Path(sys.executable).with_name("citetrace")


@dataclass
class Stack:
    tmp: Path
    prometheus: str
    otlp_http: str
    telemetry: str
    kept_file: Path
    runs: list[dict[str, Any]] = field(default_factory=list)
    procs: list[Proc] = field(default_factory=list)

    def api(self, path: str, **params: Any) -> Any:
        resp = requests.get(f"{self.prometheus}/api/v1/{path}", params=params, timeout=30)
        body = resp.json()
        if body.get("status") != "success":
            raise AssertionError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]


def _prometheus(tmp: Path, collector_telemetry: str) -> tuple[Proc, str]:
    """Prometheus 2.42 from the committed config and rules, receiving remote write, scraping the collector."""
    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed: run scripts/setup (apt-get install prometheus)"
    # the tier-2 collector's own metrics, as the fleet deployment scrapes them (the summarizer's `up`)
    config = fast_prometheus_config(tmp, JOB_SUMMARY, collector_telemetry)
    port = free_port()
    proc = Proc(["timeout", "900", binary, f"--config.file={config}",
                 f"--storage.tsdb.path={tmp / 'tsdb'}", f"--web.listen-address=127.0.0.1:{port}",
                 "--web.enable-remote-write-receiver", "--enable-feature=exemplar-storage", "--log.level=warn"],
                tmp / "prometheus.log")
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: (not proc.alive()) or http_get(base + "/-/ready", 1.0)[0] == 200, 60, "prometheus ready")
    assert proc.alive(), proc.tail()
    return proc, base


def _total_runs(prom: str) -> float:
    result = promql(prom, f"sum({names.METRIC_RUNS_TOTAL})")
    return float(result[0]["value"][1]) if result else 0.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("connector")
    kept = tmp / "kept.jsonl"
    procs: list[Proc] = []
    try:
        env = collector_env(**{names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept", names.ENV_OTELCOL_KEPT_FILE: str(kept),
                               names.ENV_OTELCOL_METRICS_FLUSH_INTERVAL: "1s"})
        telemetry = f"127.0.0.1:{env[names.ENV_OTELCOL_TELEMETRY_PORT]}"
        prom_proc, prom = _prometheus(tmp, telemetry)
        procs.append(prom_proc)
        env[names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT] = f"{prom}/api/v1/write"
        procs.append(start_collector(collector_binary(), [COLLECTOR_DIR / "otelcol-summary.yaml"], env,
                                     tmp / "otelcol.log"))
        s = Stack(tmp, prom, f"http://{env[names.ENV_OTELCOL_HTTP_ENDPOINT]}", telemetry, kept, procs=procs)
        out = tmp / "runs.jsonl"
        agents = Proc([sys.executable, str(AGENTS), "--endpoint", s.otlp_http + "/v1/traces", "--out", str(out),
                       "--demo-rounds", "1", "--healthy", "120", "--errors", "3"], tmp / "agents.log")
        procs.append(agents)
        assert agents.popen.wait(240) == 0, agents.tail()
        s.runs = read_runs(out)
        wait_until(lambda: _total_runs(prom) >= len(s.runs), 90, f"{len(s.runs)} runs in Prometheus")
        yield s
    finally:
        for proc in reversed(procs):
            proc.stop()


def test_promql_counts_exactly_the_runs_failures_and_tool_calls(stack: Stack) -> None:
    """What the connector wrote answers the hand-computed runs by outcome, failures by reason, calls by status."""
    time.sleep(2.5)  # one more flush after the last run was counted
    outcomes, reasons = assert_promql_counts(stack.prometheus, stack.runs)
    assert len(reasons) >= 5 and outcomes[names.OUTCOME_OK] > 100


def _kept_spans(stack: Stack) -> list[dict[str, Any]]:
    return read_otlp_json_lines(stack.kept_file)


def _attrs(span: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.get("attributes", []):
        value = kv["value"]
        if "arrayValue" in value:
            out[kv["key"]] = [next(iter(v.values())) for v in value["arrayValue"].get("values", [])]
        else:
            out[kv["key"]] = next(iter(value.values()), None)
    return out


def test_tail_sampler_keeps_failed_runs_plus_the_hash_sample_on_the_connectors_decision(stack: Stack) -> None:
    """The kept file holds every failed run's full trace and the healthy runs of the hash sample, no other; each
    kept root carries the connector's summary, equal to what the agent computed in-process."""
    keep = expected_kept(stack.runs)
    expected = {r["trace_id"]: sorted(r["span_ids"]) for r in stack.runs if r["trace_id"] in keep}
    assert any(not r["reasons"] and r["trace_id"] in expected for r in stack.runs), "no healthy run sampled"

    def kept() -> dict[str, list[str]]:
        by_trace: dict[str, list[str]] = {}
        for span in _kept_spans(stack):
            by_trace.setdefault(span["traceId"], []).append(span["spanId"])
        return {t: sorted(ids) for t, ids in by_trace.items() if t in {r["trace_id"] for r in stack.runs}}

    wait_until(lambda: set(kept()) >= set(expected), 60, "every expected trace in the kept file")
    time.sleep(3)
    assert kept() == expected
    by_run = {r["run_id"]: r for r in stack.runs}
    roots = [s for s in _kept_spans(stack) if names.SUMMARY_KEEP in _attrs(s)]
    assert roots
    for span in roots:
        attrs = _attrs(span)
        run = by_run.get(attrs.get(names.RUN_ID))
        if run is None:
            continue
        for f in summary_count_fields():
            assert float(attrs[names.summary_attr(f)]) == float(run["in_process"][names.summary_attr(f)]), f
        assert attrs[names.SUMMARY_FAILURE_REASONS] == run["reasons"]


def test_a_trace_without_in_process_summary_is_summarised_by_the_connector(stack: Stack) -> None:
    """A vector's trace, sent as OTLP/JSON with no citetrace.summary.* on it, is kept (it failed) with the
    connector's summary on its root, equal to the vector's expected summary."""
    case = load(VECTORS / "failures.json")
    [want] = case["expected"]["summaries"]
    for batch in case["batches"]:
        status, body = http_post(stack.otlp_http + "/v1/traces", json.dumps(batch["request"]).encode(),
                                 {"Content-Type": "application/json"})
        assert status == 200, body[:300]

    def root() -> dict[str, Any] | None:
        return next((s for s in _kept_spans(stack) if s["traceId"] == want["trace_id"]
                     and names.SUMMARY_KEEP in _attrs(s)), None)

    span = wait_until(root, 30, "the vector's root in the kept file")
    attrs = _attrs(span)
    for f in names.SUMMARY_FIELDS:
        assert float(attrs[names.summary_attr(f)]) == float(want[f]), f
    assert attrs[names.SUMMARY_FAILURE_REASONS] == want["failure_reasons"]
    assert attrs[names.SUMMARY_FAILED] is True and attrs[names.SUMMARY_KEEP] is True


def test_a_failed_run_whose_export_is_retried_within_the_grace_period_is_still_kept(stack: Stack) -> None:
    """An exporter re-sends a request (its first attempt timed out after the collector took it; a batching gateway
    may even merge the copy into the same request) while the run's root is held: the copy of the root must not
    reach the tail sampler before the held, summarised one. Found by hout8 in a replayed fleet: the copy passed
    straight through without a summary, the sampler decided on that root (decision_wait_after_root_received) before
    the held one came, and the failed run's whole trace was dropped (one run in two replays). The sampler decides
    on a 1 s tick, so the twelve runs are sent 0.1 s apart: some land where the copy's decision came first."""
    from vectors._build import Trace, request

    kept_before = {s["traceId"] for s in _kept_spans(stack)}
    want = set()
    for n in range(12):
        t = Trace(880_000 + n)
        t.search("retried export", [], status=names.STATUS_EMPTY)  # an empty search: the run failed
        t.fetch("https://a.example/page")
        t.root(["https://a.example/page"], run=f"retried-{n}")
        t.spans.append(dict(t.spans[-1]))  # the root twice in one request
        assert t.id not in kept_before
        want.add(t.id)
        body = json.dumps(request(t)).encode()
        for _attempt in range(2):  # and the whole request again at once
            status, answer = http_post(stack.otlp_http + "/v1/traces", body, {"Content-Type": "application/json"})
            assert status == 200, answer[:300]
        time.sleep(0.1)

    def summarised_roots() -> set[str]:
        return {s["traceId"] for s in _kept_spans(stack) if names.SUMMARY_KEEP in _attrs(s)}

    wait_until(lambda: want <= summarised_roots(), 30, f"the {len(want)} failed runs' summarised roots in the kept file")
    copies = [s for s in _kept_spans(stack) if s["traceId"] in want and s["name"].startswith("invoke_agent")]
    assert len(copies) == len(want), "each run's root goes out once, with its summary"


def test_connector_counts_its_work_in_the_collectors_own_telemetry(stack: Stack) -> None:
    """The collector's /metrics has the connector's counters (runs summarised, spans refused, traces in flight)."""
    status, body = http_get(f"http://{stack.telemetry}/metrics")
    assert status == 200
    text = body.decode()
    runs = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if re.match(r"otelcol_citetracesummary_runs(_total)?(\{[^}]*\})? ", line)]
    assert runs and sum(runs) >= len(stack.runs), text[:2000]
    assert re.search(r"^otelcol_citetracesummary_traces_in_flight(\{[^}]*\})? 0$", text, re.M)


# -- the dashboards and rules on what the connector wrote -------------------------------------------------

@pytest.fixture(scope="module")
def demo(stack: Stack) -> Iterator[Stack]:
    """The looping demo (every failure mode and the claim ledger) sending to the same collector."""
    proc = Proc(["timeout", "600", str(CITETRACE), "demo", "--loop", "--with-ledger", "--interval", "0.5",
                 "--store", f"sqlite:///{stack.tmp / 'demo.db'}", "--no-metrics", "--otlp-endpoint", stack.otlp_http],
                stack.tmp / "demo.log")
    stack.procs.append(proc)
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        if all(_has_data(stack, t, e) for _, e, t in _cases(stack)):
            break
        time.sleep(2)
    yield stack


def _substitute(expr: str, tool: str) -> str:
    return (expr.replace("$__rate_interval", RATE_WINDOW).replace("$__range", "2m")
            .replace("$agent", ".*").replace("$tool", tool))


def _cases(stack: Stack) -> list[tuple[str, str, dict[str, Any]]]:
    # the tools of the runs still streaming (the finite fleet's tools are written on, but no longer move)
    moving = stack.api("query", query=f"sum by (tool) (increase({names.METRIC_TOOL_CALLS_TOTAL}[{RATE_WINDOW}])) > 0")
    tools = [s["metric"]["tool"] for s in moving["result"]]
    out = []
    for name, title, target in panel_queries():
        for tool in (tools if "$tool" in target["expr"] else ["-"]):
            out.append((f"{name} / {title} / {target['refId']} / {tool}", _substitute(target["expr"], tool), target))
    return out


def _has_data(stack: Stack, target: dict[str, Any], expr: str) -> bool:
    if target.get("instant"):
        return any(math.isfinite(float(s["value"][1])) for s in stack.api("query", query=expr)["result"])
    now = time.time()
    result = stack.api("query_range", query=expr, start=now - 120, end=now, step=2)["result"]
    return any(math.isfinite(float(v)) for s in result for _, v in s["values"])


def test_every_dashboard_query_returns_data_from_the_connector(demo: Stack) -> None:
    """Every panel query returns a finite value from remote-written data (and the collector's `up`)."""
    cases = _cases(demo)
    assert len(cases) >= 20
    empty = [where for where, expr, target in cases if not _has_data(demo, target, expr)]
    assert empty == []


def test_template_variables_list_real_values(demo: Stack) -> None:
    """Each dashboard variable's label_values() lists values in what the connector wrote."""
    for name, board in dashboards().items():
        for var, query in variable_queries(board).items():
            match = re.fullmatch(r"label_values\((.+), (\w+)\)", query)
            assert match, (name, var, query)
            assert demo.api(f"label/{match.group(2)}/values", **{"match[]": _substitute(match.group(1), "-")}), var


def _names_py_series() -> set[str]:
    """Every series name the summary and ledger metrics may have, from names.py (histograms with their suffixes)."""
    histograms = {names.METRIC_TOOL_CALL_DURATION_SECONDS, names.METRIC_RUN_SEARCHES, names.METRIC_RUN_READS,
                  names.METRIC_RUN_REPEAT_QUERIES, names.METRIC_RUN_DISTINCT_URLS, names.METRIC_RUN_CITATIONS,
                  names.METRIC_RUN_SLOWEST_CALL_SECONDS, names.METRIC_RUN_DURATION_SECONDS}
    plain = {getattr(names, n) for n in dir(names) if n.startswith("METRIC_")} - histograms
    return plain | {h + s for h in histograms for s in ("_bucket", "_sum", "_count")}


def test_metric_names_are_exactly_names_py(demo: Stack) -> None:
    """Remote write added no suffix: every citetrace_* series in Prometheus is a names.py name, and every metric a
    dashboard or rule reads is among them."""
    written = {n for n in demo.api("label/__name__/values") if n.startswith("citetrace_")}
    # (the collector's own otelcol_citetracesummary_* come from its scraped /metrics, not from remote write)
    assert written <= _names_py_series(), sorted(written - _names_py_series())
    used: set[str] = set()
    for _, _, target in panel_queries():
        used |= metric_names(target["expr"])
    rules = yaml.safe_load((REPO / "prometheus" / "rules" / "citetrace.rules.yml").read_text())
    for group in rules["groups"]:
        for rule in group["rules"]:
            used |= metric_names(rule["expr"])
    textfile = {m for base in names.TEXTFILE_METRICS for m in (base, base.removesuffix("_total"))}
    assert used - {"up"} - textfile <= written, sorted(used - {"up"} - textfile - written)


def test_alert_rules_evaluate_and_the_citation_alerts_fire(demo: Stack) -> None:
    """Every rule is loaded and healthy on remote-written data; the demo's uncited and unfetched citations fire, and
    the summarizer-down alert stays quiet (the collector with the connector is the summarizer)."""
    loaded = [r for g in demo.api("rules")["groups"] for r in g["rules"]]
    assert sorted(r["name"] for r in loaded) == sorted(a.name for a in ALERTS)
    assert [(r["name"], r.get("lastError")) for r in loaded if r["health"] != "ok"] == []
    want = {"CitetraceUncitedCitation", "CitetraceUnfetchedCitation"}
    firing: set[str] = set()
    end = time.monotonic() + 60
    while time.monotonic() < end and not want <= firing:
        firing = {a["labels"]["alertname"] for a in demo.api("alerts")["alerts"] if a["state"] == "firing"}
        time.sleep(1)
    assert want <= firing
    assert "CitetraceSummarizerDown" not in firing


def test_latency_exemplars_carry_trace_ids(demo: Stack) -> None:
    """The tool-latency histogram's exemplars reach Prometheus through remote write, each with a trace id."""
    latency = next(t for _, _, t in panel_queries() if t.get("exemplar"))
    now = time.time()
    data = demo.api("query_exemplars", query=_substitute(latency["expr"], "-"), start=now - 300, end=now)
    ids = [e["labels"].get("trace_id", "") for series in data for e in series["exemplars"]]
    assert ids and all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids)
