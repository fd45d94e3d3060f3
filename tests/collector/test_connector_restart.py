"""A restart of a collector running the citetracesummary connector must be a counter reset to Prometheus, not a
new set of series. Found by an operator's check (hout3): the connector's series carry `instance` from the
collector's `service.instance.id`, a random id per start, so after a restart every series was new and its first
remote-written sample (up to a flush interval of runs) never counted in `increase()`/`rate()` (a 3-minute
window around one restart: 307 runs in PromQL for 319 the agents made; 318 of 318 in a window without one).

Real parts: the built collector with the shipped otelcol-summary.yaml, remote-writing to a real Prometheus 2.42,
real agent processes (tests/collector/_agents.py) before and after a SIGTERM and restart with the same
environment.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from citetrace import names

from ._harness import (
    AGENTS, COLLECTOR_DIR, Proc, collector_binary, collector_env, promql, read_runs, start_collector, wait_until,
)
from .test_summary_connector import _prometheus, _total_runs

pytestmark = pytest.mark.slow

INSTANCE = "tier2-a"


def _agents(tmp: Path, endpoint: str, name: str, start: int, runs: int) -> int:
    """One finite round of healthy agent runs; returns how many runs it made."""
    out = tmp / f"{name}.jsonl"
    agents = Proc([sys.executable, str(AGENTS), "--endpoint", endpoint, "--out", str(out), "--healthy", str(runs),
                   "--start", str(start)], tmp / f"{name}.log")
    assert agents.popen.wait(240) == 0, agents.tail()
    return len(read_runs(out))


def test_a_restarted_connector_continues_its_series_under_the_configured_instance(tmp_path: Path) -> None:
    env = collector_env(**{names.ENV_OTELCOL_METRICS_FLUSH_INTERVAL: "1s", names.ENV_OTELCOL_INSTANCE_ID: INSTANCE,
                           names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept",
                           names.ENV_OTELCOL_KEPT_FILE: str(tmp_path / "kept.jsonl")})
    prom_proc, prom = _prometheus(tmp_path, f"127.0.0.1:{env[names.ENV_OTELCOL_TELEMETRY_PORT]}")
    env[names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT] = f"{prom}/api/v1/write"
    endpoint = f"http://{env[names.ENV_OTELCOL_HTTP_ENDPOINT]}/v1/traces"
    config = [COLLECTOR_DIR / "otelcol-summary.yaml"]
    try:
        with start_collector(collector_binary(), config, env, tmp_path / "otelcol-1.log"):
            first = _agents(tmp_path, endpoint, "before", 0, 60)
            wait_until(lambda: _total_runs(prom) >= first, 60, f"{first} runs in Prometheus")
        with start_collector(collector_binary(), config, env, tmp_path / "otelcol-2.log"):
            # fewer runs than before, so the restart shows as a decrease (a reset) of the same series
            second = _agents(tmp_path, endpoint, "after", 1000, 20)
            wait_until(lambda: _total_runs(prom) == second, 60, f"the {second} runs after the restart alone")
            series = promql(prom, f"count_over_time({names.METRIC_RUNS_TOTAL}[10m])")
            # the same series before and after (a new instance value would be a new series)
            assert {s["metric"].get("instance") for s in series} == {INSTANCE}, series
            # so the restart is a counter reset, which increase() and rate() count across
            resets = promql(prom, f"sum(resets({names.METRIC_RUNS_TOTAL}[10m]))")
            assert float(resets[0]["value"][1]) >= 1.0, resets
    finally:
        prom_proc.stop()
