"""The fleet path with real parts: agents -> built collector (otelcol.yaml) -> citetrace serve -> Prometheus.

Agents run in their own process and export OTLP/HTTP to the collector; the collector forwards every span to
``citetrace serve`` and tail-samples full traces into a file; a real Prometheus scrapes serve. The tests run in
file order on one stack: first the steady state (PromQL values, kept traces), then a restart of serve while
agents keep streaming.
"""

from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace import names
from citetrace.config import Settings
from citetrace.store import open_store
from citetrace.summary import keep_by_hash

from ._harness import (
    AGENTS, COLLECTOR_DIR, Proc, assert_promql_counts, collector_binary, collector_env, free_port, http_get, promql,
    read_otlp_json_lines, read_runs, start_collector, start_prometheus, summary_count_fields, wait_until,
)

pytestmark = pytest.mark.slow

SUMMARY_COUNT_FIELDS = summary_count_fields()


@dataclass
class Stack:
    tmp: Path
    serve_port: int
    metrics_ports: list[int]
    store_uri: str
    collector: Proc
    otlp_url: str
    kept_file: Path
    prometheus: str
    procs: list[Proc] = field(default_factory=list)
    serve: Proc | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)

    def start_serve(self, metrics_port: int, name: str) -> Proc:
        argv = [sys.executable, "-m", "citetrace.cli", "serve", "--port", str(self.serve_port),
                "--metrics-port", str(metrics_port), "--store", self.store_uri, "--grace-seconds", "1",
                "--drain-seconds", "3.5", "--trace-ttl-seconds", "5"]
        proc = Proc(argv, self.tmp / f"{name}.log")
        self.procs.append(proc)
        wait_until(lambda: (not proc.alive()) or http_get(f"http://127.0.0.1:{self.serve_port}/healthz", 1)[0] == 200,
                   30, f"{name} healthy")
        assert proc.alive(), proc.tail()
        self.serve = proc
        return proc

    def agents(self, out: Path, *args: str) -> Proc:
        proc = Proc([sys.executable, str(AGENTS), "--endpoint", self.otlp_url, "--out", str(out), *args],
                    self.tmp / f"agents-{out.stem}.log")
        self.procs.append(proc)
        return proc


def _total_runs(prom: str) -> float:
    result = promql(prom, f"sum(last_over_time({names.METRIC_RUNS_TOTAL}[30m]))")
    return float(result[0]["value"][1]) if result else 0.0


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    tmp = tmp_path_factory.mktemp("e2e")
    serve_port = free_port()
    metrics_ports = [free_port(), free_port()]
    kept = tmp / "kept.jsonl"
    env = collector_env(**{
        names.ENV_OTELCOL_SERVE_ENDPOINT: f"http://127.0.0.1:{serve_port}",
        names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept",
        names.ENV_OTELCOL_KEPT_FILE: str(kept),
    })
    collector = start_collector(collector_binary(), [COLLECTOR_DIR / "otelcol.yaml"], env, tmp / "otelcol.log")
    prom_proc, prom = start_prometheus(tmp, [f"127.0.0.1:{p}" for p in metrics_ports], tmp / "prometheus.log")
    s = Stack(tmp, serve_port, metrics_ports, f"sqlite:///{tmp / 'serve.db'}", collector,
              f"http://{env[names.ENV_OTELCOL_HTTP_ENDPOINT]}/v1/traces", kept, prom, [collector, prom_proc])
    try:
        s.start_serve(metrics_ports[0], "serve-1")
        out = tmp / "runs-a.jsonl"
        agents = s.agents(out, "--demo-rounds", "2", "--healthy", "300", "--errors", "4")
        assert agents.popen.wait(240) == 0, agents.tail()
        s.runs = read_runs(out)
        wait_until(lambda: _total_runs(prom) >= len(s.runs), 90, f"{len(s.runs)} runs in Prometheus")
        yield s
    finally:
        for proc in reversed(s.procs):
            proc.stop()


def test_promql_counts_runs_failures_and_tool_calls(stack: Stack) -> None:
    """Prometheus, scraping serve, answers the hand-computed runs by outcome, failures by reason, calls by status."""
    time.sleep(2.5)  # one more scrape after the last run was counted
    outcomes, reasons = assert_promql_counts(stack.prometheus, stack.runs)
    assert len(reasons) >= 6 and outcomes[names.OUTCOME_OK] > 300


def test_serve_summaries_equal_the_in_process_summaries(stack: Stack) -> None:
    """Every run's summary in serve's store matches what the agent's own summary wrote on its root span."""
    store = open_store(stack.store_uri)
    try:
        for run in stack.runs:
            record = store.get_run(run["run_id"])
            assert record is not None and record.summary is not None, run["run_id"]
            got = record.summary
            want = run["in_process"]
            for field_name in SUMMARY_COUNT_FIELDS:
                assert got[field_name] == want[names.summary_attr(field_name)], (run["run_id"], field_name)
            assert got["failure_reasons"] == want[names.SUMMARY_FAILURE_REASONS] == run["reasons"]
            assert got["keep"] == want[names.SUMMARY_KEEP]
    finally:
        store.close()


def test_kept_traces_are_failed_runs_plus_the_hash_sample(stack: Stack) -> None:
    """The backend file holds every failed run's full trace and healthy runs exactly for the keep_by_hash set."""
    settings = Settings()
    expected = {r["trace_id"]: r["span_ids"] for r in stack.runs
                if r["reasons"] or keep_by_hash(int(r["trace_id"], 16), salt=settings.sample_salt,
                                                percent=settings.sample_percent)}
    sampled_healthy = [r for r in stack.runs if not r["reasons"] and r["trace_id"] in expected]
    assert sampled_healthy, "no healthy run fell in the 2 % sample; the check would be vacuous"

    def kept() -> dict[str, list[str]]:
        by_trace: dict[str, list[str]] = {}
        for span in read_otlp_json_lines(stack.kept_file):
            by_trace.setdefault(span["traceId"], []).append(span["spanId"])
        return {t: sorted(ids) for t, ids in by_trace.items()}

    wait_until(lambda: set(kept()) >= set(expected), 60, "every expected trace in the kept file")
    time.sleep(3)  # decisions for everything sent are due 2 s after each root: nothing else may appear
    assert kept() == expected
    for run in stack.runs:
        assert run["in_process"][names.SUMMARY_KEEP] == (run["trace_id"] in expected)


def test_restarting_serve_mid_stream_loses_at_most_the_traces_in_flight(stack: Stack) -> None:
    """SIGTERM to serve while agents stream: lost traces are counted on /metrics, every other run is intact."""
    before = _total_runs(stack.prometheus)
    out = stack.tmp / "runs-b.jsonl"
    agents = stack.agents(out, "--stream-seconds", "8", "--start", "100000")
    time.sleep(3.5)
    old = stack.serve
    assert old is not None
    assert old.stop(timeout=30) == 0, old.tail()
    match = re.search(r"(\d+) trace\(s\) were in flight", old.log.read_text())
    assert match, old.tail()
    lost = int(match.group(1))
    stack.start_serve(stack.metrics_ports[1], "serve-2")
    assert agents.popen.wait(120) == 0, agents.tail()
    streamed = read_runs(out)
    assert len(streamed) > 20

    prom = stack.prometheus
    old_instance = f"127.0.0.1:{stack.metrics_ports[0]}"
    new_instance = f"127.0.0.1:{stack.metrics_ports[1]}"
    shutdown_evictions = promql(prom, f'last_over_time({names.METRIC_TRACES_EVICTED_TOTAL}'
                                      f'{{reason="shutdown",instance="{old_instance}"}}[30m])')
    assert float(shutdown_evictions[0]["value"][1]) == lost  # scraped during the drain window

    def settled() -> bool:
        in_flight = promql(prom, f'{names.METRIC_TRACES_IN_FLIGHT}{{instance="{new_instance}"}}')
        return bool(in_flight) and float(in_flight[0]["value"][1]) == 0 and _total_runs(prom) >= (
            before + len(streamed) - lost)

    wait_until(settled, 90, "serve-2 finished every trace")
    time.sleep(2)
    store = open_store(stack.store_uri)
    try:
        damaged = 0
        for run in streamed:
            record = store.get_run(run["run_id"])
            summary = record.summary if record is not None else None
            if summary is None or any(summary[f] != run["in_process"][names.summary_attr(f)]
                                      for f in SUMMARY_COUNT_FIELDS):
                damaged += 1
    finally:
        store.close()
    assert damaged <= lost
    ttl = promql(prom, f'{names.METRIC_TRACES_EVICTED_TOTAL}{{reason="ttl",instance="{new_instance}"}}')
    orphans = float(ttl[0]["value"][1]) if ttl else 0.0
    total = _total_runs(prom)
    assert before + len(streamed) - lost <= total <= before + len(streamed) + orphans
