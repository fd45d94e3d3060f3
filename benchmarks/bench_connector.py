"""What the citetracesummary connector costs the collector: spans per CPU-second with it against plain
forwarding, on the same input, in the same run; and memory per trace in flight.

Workload (benchmarks/_serve_load.py, the same as bench_serve.py): research runs of 10 spans (4 searches of 5 URLs,
5 fetches, 1 root) with the attributes capture writes, as protobuf bodies of 1000 spans, uncompressed. Each
configuration is the built collector pinned to CPU 0, OTLP/HTTP in, ``otlp_http`` out to a sink collector on CPU 1;
the load generator runs here on CPU 1. Timed from the first request until the exporter has sent every span:

  forward    otlp -> memory_limiter, batch -> otlp_http                       (plain forwarding)
  connector  otlp -> memory_limiter -> citetracesummary -> batch -> otlp_http + citetracesummary/metrics  (every
             span summarised, the roots held 50 ms and sent on with their summary; the outlet at the end of
             traces/out sends the metrics -> batch -> otlp_http to the same sink: the shipped topology)
  pair       (--pair) the same with one connector id on both outputs, both consumers of traces/in: the
             collector's fanout then copies every batch (docs/collector.md)
  before     (--before BINARY) an older build in the pair topology, for before/after figures in one run

The two alternate, round after round; the ratio is taken per round (connector / forward spans per CPU-second) and
the median reported. Memory: a connector collector with max_traces above N gets N runs without their roots (all
stay in flight); RSS (from /proc) before and after gives KiB per trace in flight; then N more, past max_traces=N,
show the bound holding (evictions counted by the connector's own telemetry).

Run:  .venv/bin/python benchmarks/bench_connector.py [--runs 20000] [--rounds 3] [--in-flight 10000] [--quick]
                                                     [--pair] [--binary PATH] [--before PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import format_table  # noqa: E402
from _serve_load import SPANS_PER_RUN, requests  # noqa: E402
from bench_serve import cpu_seconds, free_port, get, metric_sum, rss_mib, send_all, spawn, wait_for  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def _config(sink_port: int, connector: bool, pair: bool = False,
            **connector_settings: Any) -> tuple[dict[str, Any], int, int, str]:
    http_port, health, telemetry = free_port(), free_port(), free_port()
    exporter = {"otlp_http/sink": {"endpoint": f"http://127.0.0.1:{sink_port}", "compression": "none",
                                   "sending_queue": {"enabled": True, "queue_size": 5000}}}
    pipelines: dict[str, Any]
    # the shipped topology: the metrics leave through the outlet at the end of traces/out (no fanout copy);
    # pair: one connector id feeds both outputs, two consumers of traces/in (the fanout copies every batch)
    outlet = "citetracesummary" if pair else "citetracesummary/metrics"
    if connector:
        pipelines = {
            "traces/in": {"receivers": ["otlp"], "processors": ["memory_limiter"], "exporters": ["citetracesummary"]},
            "traces/out": {"receivers": ["citetracesummary"], "processors": ["batch"],
                           "exporters": ["otlp_http/sink"] + ([] if pair else [outlet])},
            "metrics": {"receivers": [outlet], "processors": ["batch"], "exporters": ["otlp_http/sink"]},
        }
    else:
        pipelines = {"traces": {"receivers": ["otlp"], "processors": ["memory_limiter", "batch"],
                                "exporters": ["otlp_http/sink"]}}
    config: dict[str, Any] = {
        "extensions": {"health_check": {"endpoint": f"127.0.0.1:{health}"}},
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{http_port}"}}}},
        "processors": {"memory_limiter": {"check_interval": "1s", "limit_percentage": 80, "spike_limit_percentage": 20},
                       "batch": {"send_batch_size": 2048, "timeout": "200ms"}},
        "exporters": exporter,
        "service": {"extensions": ["health_check"], "pipelines": pipelines, "telemetry": {
            "logs": {"level": "warn"},
            "metrics": {"level": "basic", "readers": [{"pull": {"exporter": {"prometheus": {
                "host": "127.0.0.1", "port": telemetry}}}}]}}},
    }
    if connector:
        config["connectors"] = {"citetracesummary": {"grace_seconds": 0.05, "metrics_flush_interval": "2s",
                                                     **connector_settings}}
        if not pair:
            config["connectors"][outlet] = {"metrics_of": "citetracesummary"}
    return config, http_port, telemetry, f"127.0.0.1:{health}"


def _start(binary: str, tmp: Path, name: str, config: dict[str, Any], health: str) -> subprocess.Popen[bytes]:
    path = tmp / f"{name}.yaml"
    path.write_text(json.dumps(config))
    proc = spawn([binary, f"--config={path}"], 0, tmp / f"{name}.log")
    wait_for(lambda: get(f"http://{health}/"), 60, name)
    return proc


def start_sink(binary: str, tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A collector on CPU 1 that takes traces and metrics and writes them to /dev/null."""
    port, health = free_port(), free_port()
    config = {
        "extensions": {"health_check": {"endpoint": f"127.0.0.1:{health}"}},
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "exporters": {"file": {"path": "/dev/null"}},
        "service": {"extensions": ["health_check"], "telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {"traces": {"receivers": ["otlp"], "exporters": ["file"]},
                                  "metrics": {"receivers": ["otlp"], "exporters": ["file"]}}},
    }
    (tmp / "sink.yaml").write_text(json.dumps(config))
    proc = spawn([binary, f"--config={tmp / 'sink.yaml'}"], 1, tmp / "sink.log")
    wait_for(lambda: get(f"http://127.0.0.1:{health}/"), 60, "sink collector")
    return proc, port


def _sent(telemetry: int) -> float:
    text = get(f"http://127.0.0.1:{telemetry}/metrics")
    return sum(metric_sum(text, name, exporter="otlp_http/sink")
               for name in ("otelcol_exporter_sent_spans", "otelcol_exporter_sent_spans_total"))


def throughput(binary: str, tmp: Path, sink_port: int, bodies: list[bytes], runs: int, connector: bool,
               pair: bool = False) -> dict[str, float]:
    """One configuration once: spans per second and per CPU-second of the collector until all are sent on."""
    config, http_port, telemetry, health = _config(sink_port, connector, pair, max_traces=runs * 2)
    name = "connector" if connector else "forward"
    proc = _start(binary, tmp, name, config, health)
    spans = runs * SPANS_PER_RUN
    try:
        import time

        cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        send_all(http_port, bodies)
        wait_for(lambda: _sent(telemetry) >= spans, 120, f"{name}: every span sent on", interval=0.05)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
        _, peak = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    return {"spans": spans, "wall_s": wall, "cpu_s": cpu, "spans_per_s": spans / wall, "spans_per_cpu_s": spans / cpu,
            "peak_rss_mib": peak}


def memory(binary: str, tmp: Path, sink_port: int, traces: int) -> dict[str, float]:
    """RSS with ``traces`` rootless runs in flight in the connector, then after as many more past the bound."""
    import time

    first = requests(traces, seed=11, with_root=False)
    second = requests(traces, seed=12, with_root=False)
    config, http_port, telemetry, health = _config(sink_port, True, max_traces=traces)
    proc = _start(binary, tmp, "connector-mem", config, health)
    try:
        time.sleep(1)
        idle, _ = rss_mib(proc.pid)
        send_all(http_port, first)
        wait_for(lambda: metric_sum(get(f"http://127.0.0.1:{telemetry}/metrics"),
                                    "otelcol_citetracesummary_traces_in_flight") >= traces, 120, "all in flight")
        held, _ = rss_mib(proc.pid)
        send_all(http_port, second)
        wait_for(lambda: _sent(telemetry) >= 2 * traces * (SPANS_PER_RUN - 1), 120, "every span passed on")
        text = get(f"http://127.0.0.1:{telemetry}/metrics")
        after, peak = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    return {"traces": traces, "idle_mib": idle, "held_mib": held, "after_2x_mib": after, "peak_mib": peak,
            "kib_per_trace": (held - idle) * 1024 / traces,
            "in_flight_after_2x": metric_sum(text, "otelcol_citetracesummary_traces_in_flight"),
            "evicted": metric_sum(text, "otelcol_citetracesummary_traces_evicted", reason="capacity")}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    # 200,000 spans are about 1.2 CPU-seconds: /proc counts CPU in 10 ms ticks, under 1 % of that (at 50,000
    # spans it was 3 % of each figure)
    parser.add_argument("--runs", type=int, default=20_000, help="runs per throughput measurement (10 spans each)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating forward/connector rounds")
    parser.add_argument("--in-flight", type=int, default=10_000, help="traces held for the memory measurement")
    parser.add_argument("--quick", action="store_true", help="a few hundred runs, one round (the smoke test)")
    parser.add_argument("--pair", action="store_true",
                        help="also measure the one-id topology (both outputs of one connector on traces/in) each round")
    parser.add_argument("--binary", help="the collector to measure (default: scripts/build-collector's)")
    parser.add_argument("--before", metavar="BINARY",
                        help="also measure this older build each round, in the one-id topology every build supports")
    parser.add_argument("--json", help="also write the raw figures here")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.rounds, args.in_flight = 300, 1, 500
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs 2 CPUs (the measured collector on CPU 0, load and sink on CPU 1)")
    os.sched_setaffinity(0, {1})
    binary = args.binary or subprocess.run([str(REPO / "scripts" / "build-collector")], check=True,
                                           capture_output=True, text=True).stdout.strip().splitlines()[-1]
    bodies = requests(args.runs)
    rounds: list[dict[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        sink, sink_port = start_sink(binary, tmp)
        try:
            for _ in range(args.rounds):
                one = {"forward": throughput(binary, tmp, sink_port, bodies, args.runs, False),
                       "connector": throughput(binary, tmp, sink_port, bodies, args.runs, True)}
                if args.pair:
                    one["pair"] = throughput(binary, tmp, sink_port, bodies, args.runs, True, pair=True)
                if args.before:
                    one["before"] = throughput(args.before, tmp, sink_port, bodies, args.runs, True, pair=True)
                rounds.append(one)
            mem = memory(binary, tmp, sink_port, args.in_flight)
        finally:
            sink.terminate()
            sink.wait(30)
    if args.json:
        Path(args.json).write_text(json.dumps({"rounds": rounds, "memory": mem}, indent=1))
    print(f"collector spans per CPU-second, {args.runs * SPANS_PER_RUN:,} spans ({args.runs:,} runs of {SPANS_PER_RUN})")
    print(_throughput_table(rounds, [k for k in ("pair", "before") if k in rounds[0]]))
    print()
    print(format_table(
        ["traces in flight", "idle MiB", "held MiB", "KiB per trace", f"after {2 * mem['traces']:,.0f} MiB",
         "in flight after", "evicted (capacity)"],
        [[f"{mem['traces']:,.0f}", f"{mem['idle_mib']:.0f}", f"{mem['held_mib']:.0f}", f"{mem['kib_per_trace']:.2f}",
          f"{mem['after_2x_mib']:.0f}", f"{mem['in_flight_after_2x']:,.0f}", f"{mem['evicted']:,.0f}"]]))
    return 0


def _throughput_table(rounds: list[dict[str, dict[str, float]]], extra: list[str]) -> str:
    """One row per round (spans per CPU-second and the ratios to forward), then the median of each ratio."""
    kinds = ["connector", *extra]
    ratios = {k: [r[k]["spans_per_cpu_s"] / r["forward"]["spans_per_cpu_s"] for r in rounds] for k in kinds}
    head = ["round", "forward"] + [h for k in kinds for h in (k, f"{k} / forward")]
    rows = []
    for i, r in enumerate(rounds):
        row: list[Any] = [i + 1, f"{r['forward']['spans_per_cpu_s']:,.0f}"]
        for k in kinds:
            row += [f"{r[k]['spans_per_cpu_s']:,.0f}", f"{ratios[k][i]:.2f}"]
        rows.append(row)
    notes = {"connector": "(target >= 0.85)", "pair": "(one id, two consumers of traces/in)",
             "before": "(the --before build, one id)"}
    medians = [f"median {k} / forward: {statistics.median(ratios[k]):.2f} {notes[k]}" for k in kinds]
    return format_table(head, rows) + "\n\n" + "\n".join(medians)


if __name__ == "__main__":
    sys.exit(main())
