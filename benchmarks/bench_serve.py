"""How many spans per second ``citetrace serve`` sustains on one core, next to the collector on the same input.

Workload (benchmarks/_serve_load.py): research runs of 10 spans (4 searches of 5 URLs, 5 fetches, 1 root) with
the attributes capture writes, as protobuf ``ExportTraceServiceRequest`` bodies of 1000 spans, uncompressed.
The same bodies go, in the same run, to:

  serve      ``citetrace serve`` (a real subprocess) pinned to CPU 0, grace 0.05 s, memory store; timed from
             the first request until ``citetrace_runs_total`` counts every run (decode, assembly, summary,
             metrics, all included)
  collector  the built collector running the shipped ``collector/otelcol.yaml`` (both pipelines: forward to
             serve, tail-sample into a file) pinned to CPU 0; its ``otlp_http`` exporter points at a sink
             collector (file exporter to /dev/null) on CPU 1; timed until the exporter has sent every span

The load generator runs here, pinned to CPU 1, with two keep-alive connections. Besides wall-clock spans/s
(one core), it reports spans per CPU-second of the measured process (utime+stime from /proc), which is what
"per core" means on a machine other jobs share.

Memory: a separate serve with ``--max-traces 10000`` gets 10,000 runs without their roots (all stay in flight),
then 10,000 more (the bound evicts as many); RSS is read from /proc. The collector's RSS with the same
10,000 traces held by its tail sampler is reported next to it.

Run:  .venv/bin/python benchmarks/bench_serve.py [--runs 5000]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _serve_load import SPANS_PER_RUN, requests  # noqa: E402

from citetrace import names  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")
PB = {"Content-Type": "application/x-protobuf"}


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MiB."""
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024


def spawn(argv: list[str], cpu: int, log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    full = dict(os.environ, **(env or {}))
    return subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=full,
                            preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))


def wait_for(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except OSError:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(interval)


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return str(resp.read().decode())


def metric_sum(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and (line[len(name)] in " {"):
            if all(f'{k}="{v}"' in line for k, v in labels.items()):
                total += float(line.rsplit(" ", 1)[1])
    return total


def send_all(port: int, bodies: list[bytes], connections: int = 2) -> None:
    """POST every body over ``connections`` keep-alive connections; every answer must be 200."""
    chunks = [bodies[i::connections] for i in range(connections)]

    def worker(chunk: list[bytes]) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for body in chunk:
            conn.request("POST", "/v1/traces", body=body, headers=PB)
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise SystemExit(f"port {port} answered {resp.status}")
        conn.close()

    threads = [threading.Thread(target=worker, args=(c,)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def start_serve(tmp: Path, name: str, *extra: str) -> tuple[subprocess.Popen[bytes], int, int]:
    port, mport = free_port(), free_port()
    proc = spawn([sys.executable, "-m", "citetrace.cli", "serve", "--port", str(port), "--metrics-port", str(mport),
                  "--store", "memory://", *extra], 0, tmp / f"{name}.log")
    wait_for(lambda: get(f"http://127.0.0.1:{port}/healthz"), 30, f"{name} up")
    return proc, port, mport


def bench_serve(tmp: Path, bodies: list[bytes], runs: int) -> dict[str, float]:
    proc, port, mport = start_serve(tmp, "serve", "--grace-seconds", "0.05", "--max-traces", str(runs * 2))
    try:
        cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        send_all(port, bodies)
        ingest = time.perf_counter() - t0
        wait_for(lambda: metric_sum(get(f"http://127.0.0.1:{mport}/metrics"), names.METRIC_RUNS_TOTAL) >= runs,
                 600, "serve to count every run", interval=0.25)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
        _, peak = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    spans = runs * SPANS_PER_RUN
    return {"spans": spans, "wall_s": wall, "ingest_s": ingest, "cpu_s": cpu, "spans_per_s": spans / wall,
            "spans_per_cpu_s": spans / cpu, "peak_rss_mib": peak}


def collector_env(tmp: Path, serve_endpoint: str) -> tuple[dict[str, str], int, int]:
    http_port, tel_port = free_port(), free_port()
    env = {
        names.ENV_OTELCOL_GRPC_ENDPOINT: f"127.0.0.1:{free_port()}",
        names.ENV_OTELCOL_HTTP_ENDPOINT: f"127.0.0.1:{http_port}",
        names.ENV_OTELCOL_HEALTH_ENDPOINT: f"127.0.0.1:{free_port()}",
        names.ENV_OTELCOL_TELEMETRY_HOST: "127.0.0.1",
        names.ENV_OTELCOL_TELEMETRY_PORT: str(tel_port),
        names.ENV_OTELCOL_LOG_LEVEL: "warn",
        names.ENV_OTELCOL_SERVE_ENDPOINT: serve_endpoint,
        names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept",
        names.ENV_OTELCOL_KEPT_FILE: "/dev/null",
    }
    return env, http_port, tel_port


def start_sink(binary: str, tmp: Path) -> tuple[subprocess.Popen[bytes], int]:
    port, health = free_port(), free_port()
    config = tmp / "sink.yaml"
    config.write_text(json.dumps({
        "extensions": {"health_check": {"endpoint": f"127.0.0.1:{health}"}},
        "receivers": {"otlp": {"protocols": {"http": {"endpoint": f"127.0.0.1:{port}"}}}},
        "exporters": {"file": {"path": "/dev/null"}},
        "service": {"extensions": ["health_check"], "telemetry": {"metrics": {"level": "none"}},
                    "pipelines": {"traces": {"receivers": ["otlp"], "exporters": ["file"]}}},
    }))
    proc = spawn([binary, f"--config={config}"], 1, tmp / "sink.log")
    wait_for(lambda: get(f"http://127.0.0.1:{health}/"), 60, "sink collector")
    return proc, port


def start_collector(binary: str, tmp: Path, sink_port: int, name: str) -> tuple[subprocess.Popen[bytes], int, int]:
    env, http_port, tel_port = collector_env(tmp, f"http://127.0.0.1:{sink_port}")
    proc = spawn([binary, f"--config={REPO / 'collector' / 'otelcol.yaml'}"], 0, tmp / f"{name}.log", env)
    wait_for(lambda: get(f"http://{env[names.ENV_OTELCOL_HEALTH_ENDPOINT]}/"), 60, name)
    return proc, http_port, tel_port


def bench_collector(binary: str, tmp: Path, sink_port: int, bodies: list[bytes], runs: int) -> dict[str, float]:
    proc, http_port, tel_port = start_collector(binary, tmp, sink_port, "collector")
    spans = runs * SPANS_PER_RUN
    try:
        cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        send_all(http_port, bodies)
        ingest = time.perf_counter() - t0

        def sent() -> bool:
            text = get(f"http://127.0.0.1:{tel_port}/metrics")
            return metric_sum(text, "otelcol_exporter_sent_spans", exporter="otlp_http/citetrace") + metric_sum(
                text, "otelcol_exporter_sent_spans_total", exporter="otlp_http/citetrace") >= spans

        wait_for(sent, 600, "collector to forward every span", interval=0.25)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
        _, peak = rss_mib(proc.pid)
    finally:
        proc.terminate()
        proc.wait(30)
    return {"spans": spans, "wall_s": wall, "ingest_s": ingest, "cpu_s": cpu, "spans_per_s": spans / wall,
            "spans_per_cpu_s": spans / cpu, "peak_rss_mib": peak}


def bench_memory(binary: str, tmp: Path, sink_port: int, traces: int) -> dict[str, float]:
    first = requests(traces, seed=11, with_root=False)
    second = requests(traces, seed=12, with_root=False)
    proc, port, mport = start_serve(tmp, "serve-mem", "--max-traces", str(traces), "--grace-seconds", "2")
    try:
        idle, _ = rss_mib(proc.pid)
        send_all(port, first)
        wait_for(lambda: metric_sum(get(f"http://127.0.0.1:{mport}/metrics"), names.METRIC_TRACES_IN_FLIGHT) >= traces,
                 120, "every trace in flight")
        held, _ = rss_mib(proc.pid)
        send_all(port, second)
        text = get(f"http://127.0.0.1:{mport}/metrics")
        after, peak = rss_mib(proc.pid)
        in_flight = metric_sum(text, names.METRIC_TRACES_IN_FLIGHT)
        evicted = metric_sum(text, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY)
    finally:
        proc.terminate()
        proc.wait(30)
    coll, http_port, _ = start_collector(binary, tmp, sink_port, "collector-mem")
    try:
        coll_idle, _ = rss_mib(coll.pid)
        send_all(http_port, first)
        time.sleep(3)
        coll_held, coll_peak = rss_mib(coll.pid)
    finally:
        coll.terminate()
        coll.wait(30)
    return {"traces": traces, "serve_idle_mib": idle, "serve_held_mib": held, "serve_after_2x_mib": after,
            "serve_peak_mib": peak, "serve_kib_per_trace": (held - idle) * 1024 / traces,
            "in_flight_after_2x": in_flight, "evicted_capacity": evicted, "collector_idle_mib": coll_idle,
            "collector_held_mib": coll_held, "collector_peak_mib": coll_peak}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5000, help="runs per throughput measurement (10 spans each)")
    parser.add_argument("--in-flight", type=int, default=10_000, help="traces held for the memory measurement")
    parser.add_argument("--rounds", type=int, default=2, help="alternating serve/collector rounds (best kept)")
    args = parser.parse_args()
    if len(os.sched_getaffinity(0)) < 2:
        raise SystemExit("needs 2 CPUs (serve/collector on CPU 0, load and sink on CPU 1)")
    os.sched_setaffinity(0, {1})
    binary = subprocess.run([str(REPO / "scripts" / "build-collector")], check=True, capture_output=True,
                            text=True).stdout.strip().splitlines()[-1]
    bodies = requests(args.runs)
    results: dict[str, Any] = {"runs": args.runs, "spans_per_run": SPANS_PER_RUN, "serve": [], "collector": []}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        sink, sink_port = start_sink(binary, tmp)
        try:
            for _ in range(args.rounds):
                results["serve"].append(bench_serve(tmp, bodies, args.runs))
                results["collector"].append(bench_collector(binary, tmp, sink_port, bodies, args.runs))
            results["memory"] = bench_memory(binary, tmp, sink_port, args.in_flight)
        finally:
            sink.terminate()
            sink.wait(30)
    best = {k: max(results[k], key=lambda r: r["spans_per_cpu_s"]) for k in ("serve", "collector")}
    print(json.dumps(results, indent=1))
    s, c, m = best["serve"], best["collector"], results["memory"]
    print(f"\nserve:     {s['spans_per_s']:,.0f} spans/s wall (one core), {s['spans_per_cpu_s']:,.0f} spans per CPU-s")
    print(f"collector: {c['spans_per_s']:,.0f} spans/s wall (one core), {c['spans_per_cpu_s']:,.0f} spans per CPU-s")
    print(f"serve / collector per CPU-s: {s['spans_per_cpu_s'] / c['spans_per_cpu_s']:.2f}  (target: serve >= 20,000)")
    print(f"memory, {m['traces']:,} traces in flight: serve {m['serve_held_mib']:.0f} MiB "
          f"(idle {m['serve_idle_mib']:.0f}, {m['serve_kib_per_trace']:.2f} KiB/trace), after 2x the bound "
          f"{m['serve_after_2x_mib']:.0f} MiB with {m['in_flight_after_2x']:.0f} in flight and "
          f"{m['evicted_capacity']:.0f} evicted; collector {m['collector_held_mib']:.0f} MiB "
          f"(idle {m['collector_idle_mib']:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
