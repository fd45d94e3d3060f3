"""Real processes on free loopback ports for the collector tests: the built collector, citetrace serve,
Prometheus. Each process logs to a file under the test's tmp_path and is stopped by its context manager."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
from collections import Counter
import urllib.request
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

REPO = Path(__file__).resolve().parents[2]
COLLECTOR_DIR = REPO / "collector"
AGENTS = Path(__file__).with_name("_agents.py")
"""The agent-fleet script the end-to-end tests run in a subprocess."""


def summary_count_fields() -> tuple[str, ...]:
    """Summary fields serve must reproduce exactly (total_ms depends on when the root ended)."""
    from citetrace import names

    return tuple(f for f in names.SUMMARY_FIELDS if f != "total_ms")


def read_runs(path: Path) -> list[dict[str, Any]]:
    """The JSON lines _agents.py wrote, one per finished run."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    """GET ``url``: (status, body); (0, b"") when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
    except (urllib.error.URLError, OSError):
        return 0, b""


def http_post(url: str, body: bytes, headers: Mapping[str, str], timeout: float = 10.0) -> tuple[int, bytes]:
    """POST ``body`` to ``url``: (status, body)."""
    req = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


class Proc:
    """A child process in its own session whose output goes to ``log``; ``stop()`` ends it."""

    def __init__(self, argv: Sequence[str], log: Path, env: Mapping[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.log = log
        full_env = dict(os.environ)
        full_env.update(env or {})
        self._out = open(log, "wb")
        self.popen = subprocess.Popen(
            self.argv, stdout=self._out, stderr=subprocess.STDOUT, env=full_env, start_new_session=True,
            cwd=str(log.parent),
        )

    def tail(self, lines: int = 40) -> str:
        """The last lines of the process's output (for failure messages)."""
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int:
        """Signal the process, wait for it (kill after ``timeout``), return its exit code."""
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(10)
        self._out.close()
        return int(self.popen.returncode)

    def __enter__(self) -> "Proc":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def collector_binary() -> Path:
    """The built collector; builds it (scripts/build-collector) when this machine has none yet."""
    script = REPO / "scripts" / "build-collector"
    path = Path(subprocess.run([str(script), "--path"], check=True, capture_output=True, text=True).stdout.strip())
    if not path.exists():
        subprocess.run([str(script)], check=True, stdout=sys.stderr)
    assert path.exists(), f"scripts/build-collector did not produce {path}"
    return path


def collector_env(**overrides: str) -> dict[str, str]:
    """Env for a shipped collector config with every listener on a fresh free loopback port."""
    from citetrace import names

    env = {
        names.ENV_OTELCOL_GRPC_ENDPOINT: f"127.0.0.1:{free_port()}",
        names.ENV_OTELCOL_HTTP_ENDPOINT: f"127.0.0.1:{free_port()}",
        names.ENV_OTELCOL_HEALTH_ENDPOINT: f"127.0.0.1:{free_port()}",
        names.ENV_OTELCOL_TELEMETRY_HOST: "127.0.0.1",
        names.ENV_OTELCOL_TELEMETRY_PORT: str(free_port()),
        names.ENV_OTELCOL_LOG_LEVEL: "warn",
    }
    env.update(overrides)
    return env


def start_collector(
    binary: Path, configs: Sequence[Path], env: Mapping[str, str], log: Path, health: str | None = None
) -> Proc:
    """Start the collector and wait until its health check (``host:port``, default from env) says ready."""
    from citetrace import names

    argv = [str(binary)] + [f"--config={c}" for c in configs]
    proc = Proc(argv, log, env)
    health = f"http://{health or env[names.ENV_OTELCOL_HEALTH_ENDPOINT]}/"
    try:
        wait_until(lambda: (not proc.alive()) or http_get(health, 1.0)[0] == 200, 60, "collector health check")
    except AssertionError:
        proc.stop()
        raise AssertionError(f"collector did not become healthy:\n{proc.tail()}") from None
    if not proc.alive():
        raise AssertionError(f"collector exited with {proc.popen.returncode}:\n{proc.tail()}")
    return proc


def read_otlp_json_lines(path: Path) -> list[dict[str, Any]]:
    """The spans of a file exporter's OTLP/JSON lines, flattened (each with its hex traceId)."""
    spans: list[dict[str, Any]] = []
    if not path.exists():
        return spans
    for line in path.read_text().split("\n")[:-1]:  # the last piece is empty or still being written
        if not line.strip():
            continue
        for rs in json.loads(line).get("resourceSpans", []):
            for ss in rs.get("scopeSpans", []):
                spans.extend(ss.get("spans", []))
    return spans


def start_prometheus(tmp: Path, targets: Sequence[str], log: Path) -> tuple[Proc, str]:
    """A real Prometheus (Debian package) scraping ``targets`` every second; returns (process, base URL)."""
    import shutil

    binary = shutil.which("prometheus")
    assert binary, "prometheus is not installed: run scripts/setup (apt-get install prometheus)"
    config = tmp / "prometheus.yml"
    config.write_text(json.dumps({
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [{"job_name": "citetrace-serve", "static_configs": [{"targets": list(targets)}]}],
    }))
    port = free_port()
    proc = Proc([binary, f"--config.file={config}", f"--storage.tsdb.path={tmp / 'tsdb'}",
                 f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"], log)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: (not proc.alive()) or http_get(base + "/-/ready", 1.0)[0] == 200, 60, "prometheus ready")
    except AssertionError:
        proc.stop()
        raise AssertionError(f"prometheus did not become ready:\n{proc.tail()}") from None
    assert proc.alive(), proc.tail()
    return proc, base


def promql(base: str, query: str) -> list[dict[str, Any]]:
    """An instant PromQL query's result vector."""
    import urllib.parse

    status, body = http_get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": query}), 10.0)
    assert status == 200, body[:500]
    data = json.loads(body)
    assert data["status"] == "success", data
    return list(data["data"]["result"])


def promql_by(base: str, query: str, *labels: str) -> dict[tuple[str, ...], float]:
    """A PromQL vector as {label values: value}."""
    return {tuple(r["metric"].get(label, "") for label in labels): float(r["value"][1])
            for r in promql(base, query)}


def assert_promql_counts(prom: str, runs: list[dict[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    """Prometheus answers exactly the hand-computed runs by outcome, failures by reason and tool calls by kind and
    status of ``runs`` (_agents.py lines); returns (outcomes, reasons) for the caller's own bounds."""
    from citetrace import names

    outcomes = Counter(names.OUTCOME_FAILED if r["reasons"] else names.OUTCOME_OK for r in runs)
    reasons = Counter(reason for r in runs for reason in r["reasons"])
    calls = Counter((kind, status) for r in runs for kind, status in r["calls"])
    assert promql_by(prom, f"sum by (outcome) ({names.METRIC_RUNS_TOTAL})", "outcome") == {
        (k,): float(v) for k, v in outcomes.items()}
    assert promql_by(prom, f"sum by (reason) ({names.METRIC_RUN_FAILURES_TOTAL})", "reason") == {
        (k,): float(v) for k, v in reasons.items()}
    assert promql_by(prom, f"sum by (kind, status) ({names.METRIC_TOOL_CALLS_TOTAL})", "kind", "status") == {
        k: float(v) for k, v in calls.items()}
    return outcomes, reasons


def expected_kept(runs: list[dict[str, Any]]) -> set[str]:
    """Trace ids the tail sampler must keep: every failed run, plus the healthy runs of the stable hash sample."""
    from citetrace.config import Settings
    from citetrace.summary import keep_by_hash

    settings = Settings()
    return {r["trace_id"] for r in runs if r["reasons"] or keep_by_hash(
        int(r["trace_id"], 16), salt=settings.sample_salt, percent=settings.sample_percent)}
