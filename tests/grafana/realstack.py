"""Real demo agents, their metrics (embedded, or from `citetrace serve`), and a real Prometheus scraping them.

Prometheus runs from the committed prometheus/prometheus.yml and rule files; the only rewrites are what a
test needs: the summarizer's target points at the demo's metrics port, intervals are 1 s, the collector job
(no collector runs here) and the Alertmanager target are dropped. Both processes run under `timeout`, so
they stop by themselves even if the test process dies.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import requests
from _promconfig import fast_prometheus_config

from citetrace._dashboards._promql import JOB_SERVE

CITETRACE = Path(sys.executable).with_name("citetrace")
MODES = ("embedded", "serve")
"""Where the metrics come from: the demo process itself, or `citetrace serve` fed by the demo over OTLP."""
LIFETIME_S = 600
"""Hard cap on each process's life (the `timeout` wrapper)."""


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait(predicate: Any, what: str, deadline_s: float, proc: subprocess.Popen[bytes], log: Path) -> Any:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"{what}: process exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what}: not ready after {deadline_s}s:\n{log.read_text()[-3000:]}")


def _http_ok(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@dataclass
class Stack:
    """The running pair: where the demo's metrics and the Prometheus API are."""

    metrics_url: str
    prometheus_url: str

    def api(self, path: str, **params: Any) -> Any:
        """GET a Prometheus API path; returns ``data`` or raises with Prometheus' error."""
        resp = requests.get(f"{self.prometheus_url}/api/v1/{path}", params=params, timeout=30)
        body = resp.json()
        if body.get("status") != "success":
            raise AssertionError(f"{path} {params}: {body.get('errorType')}: {body.get('error')}")
        return body["data"]


def _demo(tmp: Path, otlp_endpoint: str | None) -> tuple[subprocess.Popen[bytes], str | None, Path]:
    """The looping demo; with ``otlp_endpoint`` it sends spans there and serves no metrics itself."""
    log = tmp / "demo.log"
    cmd = ["timeout", str(LIFETIME_S), str(CITETRACE), "demo", "--loop", "--with-ledger", "--interval", "0.5",
           "--store", f"sqlite:///{tmp / 'demo.db'}"]
    cmd += ["--no-metrics", "--otlp-endpoint", otlp_endpoint] if otlp_endpoint else ["--metrics-port", "0"]
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=tmp)

    def metrics_url() -> str | None:
        match = re.search(r"metrics (http://127\.0\.0\.1:\d+/metrics)", log.read_text(errors="replace"))
        return match.group(1) if match else None

    if otlp_endpoint:
        return proc, None, log
    return proc, _wait(metrics_url, "citetrace demo metrics", 60, proc, log), log


def _serve(tmp: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """``citetrace serve`` on free ports: (process, OTLP endpoint, metrics URL)."""
    log = tmp / "serve.log"
    port, metrics_port = free_port(), free_port()
    cmd = ["timeout", str(LIFETIME_S), str(CITETRACE), "serve", "--port", str(port),
           "--metrics-port", str(metrics_port), "--store", f"sqlite:///{tmp / 'serve.db'}"]
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=tmp)
    endpoint = f"http://127.0.0.1:{port}"
    _wait(lambda: _http_ok(f"{endpoint}/healthz"), "citetrace serve", 60, proc, log)
    return proc, endpoint, f"http://127.0.0.1:{metrics_port}/metrics"


def _prometheus_config(tmp: Path, target: str) -> Path:
    return fast_prometheus_config(tmp, JOB_SERVE, target)


def _prometheus(tmp: Path, target: str) -> tuple[subprocess.Popen[bytes], str, Path]:
    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed (scripts/setup apt-installs it)"
    port = free_port()
    log = tmp / "prometheus.log"
    cmd = ["timeout", str(LIFETIME_S), binary, f"--config.file={_prometheus_config(tmp, target)}",
           f"--storage.tsdb.path={tmp / 'tsdb'}", f"--web.listen-address=127.0.0.1:{port}",
           "--enable-feature=exemplar-storage", "--log.level=warn"]
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=tmp)
    url = f"http://127.0.0.1:{port}"
    _wait(lambda: _http_ok(f"{url}/-/ready"), "prometheus", 60, proc, log)
    return proc, url, log


@dataclass
class Running:
    stack: Stack
    processes: list[subprocess.Popen[bytes]]


def start(tmp: Path, mode: str) -> Iterator[Running]:
    """Start the metrics source for ``mode``, the demo and Prometheus; yield them; stop them all."""
    processes: list[subprocess.Popen[bytes]] = []
    try:
        if mode == "serve":
            serve, endpoint, metrics_url = _serve(tmp)
            processes.append(serve)
            processes.append(_demo(tmp, endpoint)[0])
        else:
            demo, url, _ = _demo(tmp, None)
            processes.append(demo)
            assert url is not None
            metrics_url = url
        target = metrics_url.removeprefix("http://").removesuffix("/metrics")
        prom, prom_url, _ = _prometheus(tmp, target)
        processes.append(prom)
        yield Running(Stack(metrics_url, prom_url), processes)
    finally:
        for proc in reversed(processes):
            _stop(proc)
