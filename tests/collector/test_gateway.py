"""Scale-out: the gateway (otelcol-gateway.yaml) routes by trace id to two tail-sampling collectors, each with
its own citetrace serve; every run is summarised whole, exactly once, and kept traces are split the same way."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from citetrace import names
from citetrace.config import load_settings
from citetrace.serve import ServeOptions, Service
from citetrace.store import MemoryStore

from ._harness import (
    AGENTS, COLLECTOR_DIR, Proc, collector_binary, collector_env, expected_kept, read_otlp_json_lines, read_runs,
    start_collector, summary_count_fields, wait_until,
)

pytestmark = pytest.mark.slow


def test_gateway_routes_whole_traces_to_one_tier2_each(tmp_path: Path) -> None:
    """Each run lands whole on one tier-2 collector + serve (summary equals the agent's), both tiers get work."""
    binary = collector_binary()
    stores = [MemoryStore("memory://a"), MemoryStore("memory://b")]
    services = [Service(ServeOptions(port=0, metrics_port=None, grace_seconds=1.0), settings=load_settings(),
                        store=store).start() for store in stores]
    procs: list[Proc] = []
    try:
        tier2 = [collector_env(**{names.ENV_OTELCOL_SERVE_ENDPOINT: f"http://127.0.0.1:{service.port}"})
                 for service in services]
        gateway, kept_files = _start_fleet(binary, tmp_path, procs, "otelcol.yaml", tier2)
        runs = _send_agent_runs(gateway, tmp_path, procs)
        wait_until(lambda: sum(len(s.runs(limit=10_000)) for s in stores) >= len(runs), 90, "every run summarised")

        per_store = [{r.run_id: r for r in s.runs(limit=10_000)} for s in stores]
        assert all(len(p) > 10 for p in per_store), [len(p) for p in per_store]  # both tiers did real work
        assert not set(per_store[0]) & set(per_store[1])  # no run summarised twice
        for run in runs:
            [record] = [p[run["run_id"]] for p in per_store if run["run_id"] in p]
            assert record.summary is not None
            for field_name in summary_count_fields():
                assert record.summary[field_name] == run["in_process"][names.summary_attr(field_name)]

        _assert_kept_once(kept_files, runs)
    finally:
        for proc in reversed(procs):
            proc.stop()
        for service in services:
            service.stop(drain_seconds=0)


def test_gateway_in_front_of_tier2_collectors_with_the_connector(tmp_path: Path) -> None:
    """Tier 2 = two collectors with the citetracesummary connector (otelcol-summary.yaml) remote-writing to one
    Prometheus: each run is summarised exactly once, on one instance (both do work), the fleet totals equal the
    agents' runs, and each kept trace is kept by exactly one tier-2 instance with the summary on its root."""
    from ._harness import http_get, promql, promql_by
    from .test_summary_connector import _attrs, _prometheus

    binary = collector_binary()
    procs: list[Proc] = []
    try:
        telemetry = [collector_env() for _ in range(2)]
        prom_proc, prom = _prometheus(tmp_path, f"127.0.0.1:{telemetry[0][names.ENV_OTELCOL_TELEMETRY_PORT]}")
        procs.append(prom_proc)
        tier2 = [dict(env, **{names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT: f"{prom}/api/v1/write",
                              names.ENV_OTELCOL_METRICS_FLUSH_INTERVAL: "1s"}) for env in telemetry]
        gateway, kept_files = _start_fleet(binary, tmp_path, procs, "otelcol-summary.yaml", tier2)
        runs = _send_agent_runs(gateway, tmp_path, procs)

        def total() -> float:
            result = promql(prom, f"sum({names.METRIC_RUNS_TOTAL})")
            return float(result[0]["value"][1]) if result else 0.0

        wait_until(lambda: total() >= len(runs), 90, "every run in Prometheus")
        time.sleep(2.5)  # one more flush: nothing may be counted twice
        assert total() == len(runs)
        per_instance = promql_by(prom, f"sum by (instance) ({names.METRIC_RUNS_TOTAL})", "instance")
        assert len(per_instance) == 2 and all(v > 10 for v in per_instance.values()), per_instance
        outcomes = promql_by(prom, f"sum by (outcome) ({names.METRIC_RUNS_TOTAL})", "outcome")
        assert outcomes[(names.OUTCOME_FAILED,)] == sum(1 for r in runs if r["reasons"])

        expected = _assert_kept_once(kept_files, runs)
        by_run = {r["run_id"]: r for r in runs}
        roots = [s for f in kept_files for s in read_otlp_json_lines(f) if names.SUMMARY_KEEP in _attrs(s)]
        assert len({_attrs(s)[names.RUN_ID] for s in roots}) == len(roots) == len(expected)
        for span in roots:
            attrs = _attrs(span)
            run = by_run[attrs[names.RUN_ID]]
            for field_name in summary_count_fields():
                assert float(attrs[names.summary_attr(field_name)]) == float(
                    run["in_process"][names.summary_attr(field_name)]), field_name
        assert http_get(f"{prom}/-/ready")[0] == 200
    finally:
        for proc in reversed(procs):
            proc.stop()


def _start_fleet(binary: Path, tmp_path: Path, procs: list[Proc], tier2_config: str,
                 tier2_envs: list[dict[str, str]]) -> tuple[str, list[Path]]:
    """Start one tier-2 collector per env (each keeping its traces in its own file) and the gateway in front of
    them; return the gateway's OTLP/HTTP traces URL and the kept-trace files, one per tier-2 collector."""
    tier2_grpc, kept_files = [], []
    for i, base in enumerate(tier2_envs):
        kept_file = tmp_path / f"kept-{i}.jsonl"
        env = dict(base, **{names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept", names.ENV_OTELCOL_KEPT_FILE: str(kept_file)})
        procs.append(start_collector(binary, [COLLECTOR_DIR / tier2_config], env, tmp_path / f"tier2-{i}.log"))
        tier2_grpc.append(env[names.ENV_OTELCOL_GRPC_ENDPOINT])
        kept_files.append(kept_file)
    gateway = collector_env(**{names.ENV_OTELCOL_TIER2: "[" + ", ".join(tier2_grpc) + "]"})
    procs.append(start_collector(binary, [COLLECTOR_DIR / "otelcol-gateway.yaml"], gateway, tmp_path / "gateway.log"))
    return f"http://{gateway[names.ENV_OTELCOL_HTTP_ENDPOINT]}/v1/traces", kept_files


def _send_agent_runs(endpoint: str, tmp_path: Path, procs: list[Proc]) -> list[dict[str, Any]]:
    """Run the demo agents against the gateway; return the runs they report."""
    out = tmp_path / "runs.jsonl"
    agents = Proc([sys.executable, str(AGENTS), "--endpoint", endpoint, "--out", str(out), "--demo-rounds", "1", "--healthy", "150", "--errors", "3"],
                  tmp_path / "agents.log")
    procs.append(agents)
    assert agents.popen.wait(240) == 0, agents.tail()
    return read_runs(out)


def _assert_kept_once(kept_files: list[Path], runs: list[dict[str, Any]]) -> set[str]:
    """Every trace the tail samplers should keep is kept, by exactly one tier-2 collector; return those ids."""
    expected = expected_kept(runs)

    def kept() -> list[set[str]]:
        return [{s["traceId"] for s in read_otlp_json_lines(f)} for f in kept_files]

    wait_until(lambda: set().union(*kept()) >= expected, 60, "kept traces from both tiers")
    time.sleep(3)  # late duplicates would arrive within the tail sampler's 2 s decision wait
    first, second = kept()
    assert first | second == expected and not first & second
    return expected
