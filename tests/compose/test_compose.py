"""docker-compose.yml without a Docker engine: the Compose schema, the mounted files, and the wiring between services."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import pytest
import yaml

from citetrace import names
from citetrace._dashboards._datasources import DASHBOARDS_PATH

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
SCHEMA_FILE = Path(__file__).with_name("compose_spec.json")
SCHEMA_SHA256 = "0dc04bd346dcfee1b1419628fff79937bbf076925f298f272a2b490e2b112bac"
PINS = {
    "otel-collector": "otel/opentelemetry-collector-contrib:0.161.0",
    "prometheus": "prom/prometheus:v2.42.0",
    "alertmanager": "prom/alertmanager:v0.25.0",
    "grafana": "grafana/grafana:12.0.2",
}


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE_FILE.read_text())
    return data


def _services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = _compose()["services"]
    return services


def _yaml(rel: str) -> Any:
    return yaml.safe_load((ROOT / rel).read_text())


def _container_ports(service: dict[str, Any]) -> set[int]:
    """Ports the service's container listens on, as the file declares them (expose and published ports)."""
    ports = {int(p) for p in service.get("expose", [])}
    for spec in service.get("ports", []):
        ports.add(int(str(spec).rsplit(":", 1)[-1].split("/")[0]))
    return ports


def _bind_mounts(service: dict[str, Any]) -> list[tuple[str, str]]:
    """(host path, container path) of every bind mount (named volumes excluded)."""
    out = []
    for spec in service.get("volumes", []):
        source, target = spec.split(":")[:2]
        if source.startswith((".", "/")):
            out.append((source, target))
    return out


def _assert_reaches(host_port: str, what: str) -> None:
    """``host:port`` names a compose service whose container listens on that port."""
    host, _, port = host_port.rpartition(":")
    services = _services()
    assert host in services, f"{what}: {host!r} is not a service"
    assert int(port) in _container_ports(services[host]), f"{what}: {host} does not listen on {port}"


def _env_default(text: str, env: dict[str, str]) -> str:
    """Expand the collector's ``${env:NAME:-default}`` with the service's environment."""
    return re.sub(r"\$\{env:(\w+):-([^}]*)\}", lambda m: str(env.get(m.group(1), m.group(2))), text)


def test_vendored_schema_is_the_recorded_copy() -> None:
    """The vendored Compose schema is byte-identical to the copy its SCHEMA_SOURCE.md describes."""
    assert hashlib.sha256(SCHEMA_FILE.read_bytes()).hexdigest() == SCHEMA_SHA256


def test_compose_file_validates_against_the_compose_spec_schema() -> None:
    """docker-compose.yml is valid under the Compose Specification JSON schema, and a typo would not be."""
    schema = json.loads(SCHEMA_FILE.read_text())
    validator = jsonschema.Draft201909Validator(schema)
    errors = [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(_compose())]
    assert errors == []
    broken = _compose()
    broken["services"]["grafana"]["port"] = ["3000:3000"]
    assert list(validator.iter_errors(broken))


def test_no_version_key_and_pinned_images() -> None:
    """No top-level version key; every image has an explicit tag, and the third-party ones are the agreed pins."""
    assert "version" not in _compose()
    services = _services()
    for name, service in services.items():
        image = service.get("image", "")
        assert ":" in image and not image.endswith(":latest"), name
    for name, image in PINS.items():
        assert services[name]["image"] == image
    assert re.fullmatch(r"jaegertracing/all-in-one:\d+\.\d+\.\d+", services["jaeger"]["image"])


def test_every_mounted_path_and_build_context_exists() -> None:
    """Every bind-mounted file or folder, the build context and the Dockerfile exist in the repository."""
    for name, service in _services().items():
        for source, _ in _bind_mounts(service):
            assert (ROOT / source).exists(), f"{name}: {source}"
        if "build" in service:
            context = ROOT / service["build"]["context"]
            assert (context / service["build"].get("dockerfile", "Dockerfile")).is_file(), name


def test_ports_are_published_on_loopback_only() -> None:
    """Every published port is bound to 127.0.0.1."""
    for name, service in _services().items():
        for spec in service.get("ports", []):
            assert str(spec).startswith("127.0.0.1:"), f"{name}: {spec}"


def test_grafana_is_anonymous_admin_and_says_local_only() -> None:
    """Grafana's anonymous Admin is set, and the file says it is for local use only."""
    env = _services()["grafana"]["environment"]
    assert env["GF_AUTH_ANONYMOUS_ENABLED"] == "true" and env["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Admin"
    assert "LOCAL USE ONLY" in COMPOSE_FILE.read_text()


def test_grafana_mounts_the_provisioning_and_dashboards_its_provider_reads() -> None:
    """Provisioning is mounted where Grafana reads it, dashboards where the file provider points."""
    mounts = dict((target, source) for source, target in _bind_mounts(_services()["grafana"]))
    assert mounts["/etc/grafana/provisioning"] == "./grafana/provisioning"
    provider = _yaml("grafana/provisioning/dashboards/citetrace.yaml")["providers"][0]
    assert provider["options"]["path"] == DASHBOARDS_PATH
    assert mounts[DASHBOARDS_PATH] == "./grafana/dashboards"
    home = _services()["grafana"]["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert (ROOT / "grafana" / "dashboards" / Path(home).name).is_file() and home.startswith(DASHBOARDS_PATH)


def test_grafana_datasources_point_at_compose_services() -> None:
    """Each provisioned datasource URL is a compose service on a port it listens on."""
    for ds in _yaml("grafana/provisioning/datasources/citetrace.yaml")["datasources"]:
        _assert_reaches(urlsplit(ds["url"]).netloc, f"datasource {ds['name']}")


def test_prometheus_runs_the_tested_config_rules_and_exemplar_storage() -> None:
    """Prometheus mounts prometheus.yml and the rules at the paths its config reads, with exemplar storage on."""
    service = _services()["prometheus"]
    mounts = dict((target, source) for source, target in _bind_mounts(service))
    config_path = next(a.split("=", 1)[1] for a in service["command"] if a.startswith("--config.file="))
    assert mounts[config_path] == "./prometheus/prometheus.yml"
    assert "--enable-feature=exemplar-storage" in service["command"]
    config = _yaml("prometheus/prometheus.yml")
    for pattern in config["rule_files"]:
        in_container = str(Path(config_path).parent / pattern)
        folder = str(Path(in_container).parent)
        assert folder in mounts, f"rule_files {pattern}: {folder} is not mounted"
        assert list((ROOT / mounts[folder]).glob(Path(pattern).name))


def test_prometheus_scrapes_and_alerts_services_that_exist() -> None:
    """Every scrape target and the Alertmanager target are compose services on ports they listen on."""
    config = _yaml("prometheus/prometheus.yml")
    targets = [t for job in config["scrape_configs"] if job["job_name"] != "prometheus"
               for sc in job["static_configs"] for t in sc["targets"]]
    assert targets
    for target in targets:
        _assert_reaches(target, "scrape target")
    for am in config["alerting"]["alertmanagers"]:
        for target in am["static_configs"][0]["targets"]:
            _assert_reaches(target, "alertmanager target")
    am_service = _services()["alertmanager"]
    mounts = dict((target, source) for source, target in _bind_mounts(am_service))
    config_path = next(a.split("=", 1)[1] for a in am_service["command"] if a.startswith("--config.file="))
    assert mounts[config_path] == "./prometheus/alertmanager.yml"


def test_citetrace_serve_listens_where_prometheus_and_the_collector_expect() -> None:
    """citetrace serve's configured ports are the ones exposed, scraped (metrics) and exported to (OTLP)."""
    serve = _services()["citetrace-serve"]
    env = serve["environment"]
    assert env["CITETRACE_SERVE_HOST"] == "0.0.0.0"
    assert {int(env["CITETRACE_SERVE_PORT"]), int(env["CITETRACE_SERVE_METRICS_PORT"])} <= _container_ports(serve)
    scrape = next(j for j in _yaml("prometheus/prometheus.yml")["scrape_configs"] if j["job_name"] == "citetrace-serve")
    assert scrape["static_configs"][0]["targets"] == [f"citetrace-serve:{env['CITETRACE_SERVE_METRICS_PORT']}"]


def test_collector_wiring_matches_its_config() -> None:
    """The collector mounts collector/otelcol.yaml; its exporters, receivers and self-metrics resolve to services."""
    service = _services()["otel-collector"]
    mounts = dict((target, source) for source, target in _bind_mounts(service))
    assert mounts["/etc/otelcol-contrib/config.yaml"] == "./collector/otelcol.yaml"
    env = {k: str(v) for k, v in service.get("environment", {}).items()}
    config = yaml.safe_load(_env_default((ROOT / "collector" / "otelcol.yaml").read_text(), env))
    exporters = config["exporters"]
    serve_url = next(e["endpoint"] for k, e in exporters.items() if k.startswith("otlp_http"))
    assert serve_url.startswith("http://")
    _assert_reaches(urlsplit(serve_url).netloc, "collector -> citetrace serve")
    backend = next(e["endpoint"] for k, e in exporters.items() if k.startswith("otlp_grpc"))
    _assert_reaches(backend, "collector -> trace backend")
    for proto in config["receivers"]["otlp"]["protocols"].values():
        port = int(proto["endpoint"].rsplit(":", 1)[1])
        assert proto["endpoint"].startswith("0.0.0.0:") and port in _container_ports(service)
    reader = config["service"]["telemetry"]["metrics"]["readers"][0]["pull"]["exporter"]["prometheus"]
    scrape = next(j for j in _yaml("prometheus/prometheus.yml")["scrape_configs"] if j["job_name"] == "otel-collector")
    assert scrape["static_configs"][0]["targets"] == [f"otel-collector:{reader['port']}"]


def test_demo_agent_loops_and_exports_to_the_collector() -> None:
    """The demo service runs `citetrace demo --loop`, leaves metrics to citetrace serve, and sends OTLP to the collector."""
    demo = _services()["demo-agent"]
    command = demo["command"]
    assert command[:2] == ["demo", "--loop"] and "--no-metrics" in command
    endpoint = command[command.index("--otlp-endpoint") + 1]
    _assert_reaches(urlsplit(endpoint).netloc, "demo -> collector")
    assert demo["image"] == _services()["citetrace-serve"]["image"]
    assert demo["environment"][names.ENV_SAMPLING] == "collector", "serve needs every span; the collector samples"


def test_demo_command_flags_exist_in_the_cli() -> None:
    """Every flag the demo service passes is accepted by the real `citetrace demo` parser."""
    from citetrace.cli import build_parser

    command = _services()["demo-agent"]["command"]
    args = build_parser().parse_args(command)
    assert args.loop and args.no_metrics and args.otlp_endpoint == "http://otel-collector:4318"


def test_run_browser_serves_the_demo_store_where_grafana_links() -> None:
    """`run-browser` runs the real `citetrace ui` on the demo agent's store, published on 127.0.0.1 at the port
    the dashboards' "Run browser" link and the exemplar link open, from an image that installs [view]."""
    from citetrace._dashboards._datasources import RUN_BROWSER_URL
    from citetrace.cli import build_parser

    services = _services()
    browser, demo = services["run-browser"], services["demo-agent"]
    args = build_parser().parse_args(browser["command"])
    assert args.command == "ui" and args.host == "0.0.0.0" and args.review_queue is None  # read-only
    demo_args = build_parser().parse_args(demo["command"])
    assert args.store == demo_args.store and browser["volumes"] == demo["volumes"]
    assert browser["image"] == demo["image"] and str(args.port) in browser["healthcheck"]["test"][-1]
    assert f"127.0.0.1:{urlsplit(RUN_BROWSER_URL).port}:{args.port}" in browser["ports"]
    installed = re.search(r'pip install "\.\[([a-z,]+)\]"', (ROOT / "Dockerfile").read_text())
    assert installed and "view" in installed.group(1).split(",")


@pytest.mark.parametrize("service", ["citetrace-serve", "demo-agent"])
def test_dockerfile_builds_the_citetrace_cli(service: str) -> None:
    """The Dockerfile installs the package and its entrypoint is the citetrace CLI (serve by default)."""
    text = (ROOT / _services()[service]["build"]["context"] / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.\d+-slim-\w+$", text, re.M)
    assert 'ENTRYPOINT ["citetrace"]' in text and 'CMD ["serve"]' in text
    for copied in re.findall(r"^COPY (.+) \./?\S*$", text, re.M):
        for path in copied.split():
            assert (ROOT / path).exists(), path


def test_alert_webhooks_reach_the_alert_sink() -> None:
    """Alertmanager's webhook and Grafana's contact point both name a service listening on that port."""
    am = _yaml("prometheus/alertmanager.yml")
    urls = [w["url"] for r in am["receivers"] for w in r.get("webhook_configs", [])]
    grafana = _yaml("grafana/provisioning/alerting/citetrace.yaml")
    urls += [r["settings"]["url"] for cp in grafana["contactPoints"] for r in cp["receivers"]]
    assert len(urls) >= 2
    for url in urls:
        _assert_reaches(urlsplit(url).netloc, f"webhook {url}")


def test_alert_sink_program_answers_and_prints_notifications(tmp_path: Path) -> None:
    """The alert-sink's inline program, run for real, answers a webhook POST with 200 and prints the alert."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    program = _services()["alert-sink"]["entrypoint"][2]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    program = program.replace('("0.0.0.0", 5001)', f'("127.0.0.1", {port})')
    assert f"{port}" in program, "the sink no longer listens on 0.0.0.0:5001"
    proc = subprocess.Popen(["timeout", "60", sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        body = json.dumps({"alerts": [{"status": "firing", "labels": {"alertname": "X", "agent": "a"}}]}).encode()
        for _ in range(100):
            try:
                with urllib.request.urlopen(urllib.request.Request(
                        f"http://127.0.0.1:{port}/alertmanager", data=body, method="POST"), timeout=2) as resp:
                    assert resp.status == 200
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError("alert-sink did not answer")
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
    assert "/alertmanager firing X a" in out


def _docker_context() -> list[str]:
    """Top-level paths .dockerignore lets into the build context (it ignores `*` and re-includes with `!`)."""
    lines = [ln.strip() for ln in (ROOT / ".dockerignore").read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    assert lines[0] == "*", ".dockerignore should start by ignoring everything"
    return sorted(ln[1:].rstrip("/") for ln in lines if ln.startswith("!"))


def test_image_inputs_build_an_installable_wheel(tmp_path: Path) -> None:
    """A wheel builds from exactly the files the Dockerfile copies, and it has the `citetrace` command."""
    import shutil
    import subprocess
    import sys
    import zipfile

    text = (ROOT / "Dockerfile").read_text()
    copied = sorted(p.rstrip("/") for line in re.findall(r"^COPY (.+) \S+$", text, re.M) for p in line.split())
    assert copied == _docker_context()
    context = tmp_path / "context"
    context.mkdir()
    for rel in copied:
        src = ROOT / rel
        if src.is_dir():
            shutil.copytree(src, context / rel, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, context / rel)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path / "dist"),
         str(context)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = (tmp_path / "dist").glob("citetrace-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        entry_points = next(n for n in zf.namelist() if n.endswith("entry_points.txt"))
        assert "citetrace = citetrace.cli:main" in zf.read(entry_points).decode()
        files = zf.namelist()
        assert "citetrace/serve/_cli.py" in files and "citetrace/demo/_cli.py" in files
        assert any(n.startswith("citetrace/demo/corpus/") for n in files), "the demo corpus is missing"


def _seconds(text: str) -> float:
    """A Compose duration (``30s``, ``1m``, ``1m30s``) in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|h|m|s)", text)
    assert parts and "".join(n + u for n, u in parts) == text, f"unreadable duration {text!r}"
    return sum(float(n) * units[u] for n, u in parts)


def test_serve_stays_up_for_a_last_scrape_of_what_a_stop_left_in_flight() -> None:
    """On SIGTERM serve counts the traces in flight (citetrace_traces_evicted_total{reason="shutdown"}) and keeps
    /metrics up for --drain-seconds. With the default 0 the count never reached Prometheus (an operator's check,
    hout3: a restart with 5 traces in flight, and max_over_time of the counter stayed 0), so the stack sets a
    drain longer than Prometheus' scrape interval, and a stop grace period that lets the drain finish before
    Docker's SIGKILL (10 s by default)."""
    serve = _services()["citetrace-serve"]
    drain = float(serve["environment"].get(names.ENV_SERVE_DRAIN_SECONDS, 0))
    scrape = _seconds(_yaml("prometheus/prometheus.yml")["global"]["scrape_interval"])
    assert drain > scrape, f"{names.ENV_SERVE_DRAIN_SECONDS}={drain} is not above the {scrape} s scrape interval"
    assert _seconds(serve.get("stop_grace_period", "10s")) > drain, "Docker would kill serve before its drain ends"
