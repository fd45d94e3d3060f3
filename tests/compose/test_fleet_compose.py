"""docker-compose.fleet.yml without a Docker engine: the Compose schema and the fleet's wiring (docs/fleet.md)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from citetrace import names
from citetrace._dashboards._promql import JOB_COLLECTOR, JOB_SUMMARY
from collector._harness import collector_binary

ROOT = Path(__file__).resolve().parents[2]
FLEET = ROOT / "docker-compose.fleet.yml"
SCHEMA_FILE = Path(__file__).with_name("compose_spec.json")
PROMETHEUS_FLEET = ROOT / "prometheus" / "prometheus-fleet.yml"
ENV_REF = re.compile(r"\$\{env:([A-Z0-9_]+)(?::-[^}]*)?\}")


def _compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(FLEET.read_text())
    return data


def _services() -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = _compose()["services"]
    return services


def _ports(service: dict[str, Any]) -> set[int]:
    ports = {int(p) for p in service.get("expose", [])}
    ports |= {int(str(p).rsplit(":", 1)[-1]) for p in service.get("ports", [])}
    return ports


def _reaches(host_port: str) -> bool:
    host, _, port = host_port.rpartition(":")
    return host in _services() and int(port) in _ports(_services()[host])


def _mounted(service: dict[str, Any], container_path: str) -> Path:
    for spec in service.get("volumes", []):
        source, target = spec.split(":")[:2]
        if target == container_path:
            return ROOT / source
    raise AssertionError(f"{container_path} is not mounted")


def test_fleet_compose_validates_against_the_compose_spec_schema() -> None:
    """The fleet file is valid Compose (anchors and extends included), and a typo would not be."""
    validator = jsonschema.Draft201909Validator(json.loads(SCHEMA_FILE.read_text()))
    assert [f"{list(e.path)}: {e.message}" for e in validator.iter_errors(_compose())] == []
    broken = _compose()
    broken["services"]["postgres"]["port"] = ["5432:5432"]
    assert list(validator.iter_errors(broken))


def test_published_on_loopback_only_and_no_password_in_the_file() -> None:
    """Every published port is on 127.0.0.1; the store's password is required from the environment, never written."""
    for name, service in _services().items():
        for spec in service.get("ports", []):
            assert str(spec).startswith("127.0.0.1:"), (name, spec)
    text = FLEET.read_text()
    assert "${CITETRACE_PG_PASSWORD:?" in text
    assert _services()["postgres"]["environment"]["POSTGRES_PASSWORD"].startswith("${CITETRACE_PG_PASSWORD:?")


def test_agents_export_to_the_gateway_and_write_one_postgresql_store() -> None:
    """Each agent sends OTLP to the gateway and writes the same PostgreSQL store, after the database is healthy."""
    agents = {n: s for n, s in _services().items() if n.startswith("demo-agent")}
    assert len(agents) >= 2
    stores = set()
    for name, service in agents.items():
        endpoint = service["command"][service["command"].index("--otlp-endpoint") + 1]
        assert _reaches(endpoint.split("//", 1)[1]), name
        assert endpoint.split("//", 1)[1].startswith("otelcol-gateway:")
        stores.add(service["environment"][names.ENV_STORE].split("@", 1)[1])
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert len(stores) == 1 and _reaches(stores.pop().split("/", 1)[0])


def test_run_browser_reads_the_fleet_store_where_grafana_links() -> None:
    """`run-browser` runs the real `citetrace ui` (read-only) on the agents' one PostgreSQL store, published on
    127.0.0.1 at the port the dashboards' "Run browser" and exemplar links open."""
    from urllib.parse import urlsplit

    from citetrace._dashboards._datasources import RUN_BROWSER_URL
    from citetrace.cli import build_parser

    services = _services()
    browser = services["run-browser"]
    args = build_parser().parse_args(browser["command"])
    assert args.command == "ui" and args.host == "0.0.0.0" and args.review_queue is None and args.store is None
    assert browser["environment"][names.ENV_STORE] == services["demo-agent-a"]["environment"][names.ENV_STORE]
    assert browser["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert browser["image"] == services["demo-agent-a"]["image"]
    assert f"127.0.0.1:{urlsplit(RUN_BROWSER_URL).port}:{args.port}" in browser["ports"]


def test_gateway_routes_to_every_tier2_collector_running_the_connector() -> None:
    """The gateway's tier-2 list is exactly the services that mount the connector's config, on their OTLP port."""
    services = _services()
    listed = yaml.safe_load(services["otelcol-gateway"]["environment"][names.ENV_OTELCOL_TIER2])
    tier2 = sorted(n for n, s in services.items()
                   if any("otelcol-summary.yaml" in v for v in s.get("volumes", [])))
    assert sorted(a.split(":")[0] for a in listed) == tier2 and len(tier2) >= 2
    assert all(_reaches(a) for a in listed)
    config = (ROOT / "collector" / "otelcol-summary.yaml").read_text()
    assert "citetracesummary" in config and "prometheus_remote_write" in config
    for name in tier2:
        env = services[name]["environment"]
        assert _reaches(env[names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT].split("//", 1)[1].split("/", 1)[0])
        assert set(env) <= set(ENV_REF.findall(config))


def test_prometheus_receives_remote_write_and_scrapes_the_summarizer_jobs() -> None:
    """Prometheus runs with the remote-write receiver and scrapes tier 2 and the gateway under the watched jobs."""
    prometheus = _services()["prometheus"]
    assert "--web.enable-remote-write-receiver" in prometheus["command"]
    assert _mounted(prometheus, "/etc/prometheus/prometheus.yml") == PROMETHEUS_FLEET
    config = yaml.safe_load(PROMETHEUS_FLEET.read_text())
    jobs = {j["job_name"]: [t for c in j["static_configs"] for t in c["targets"]] for j in config["scrape_configs"]}
    assert {JOB_SUMMARY, JOB_COLLECTOR} <= set(jobs)
    for target in jobs[JOB_SUMMARY] + jobs[JOB_COLLECTOR]:
        assert _reaches(target), target
    done = subprocess.run(["promtool", "check", "config", str(PROMETHEUS_FLEET)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_collector_image_builds_from_the_committed_sources() -> None:
    """collector/Dockerfile copies the builder's output and the local connector module it replaces into."""
    dockerfile = (ROOT / "collector" / "Dockerfile").read_text()
    gomod = (ROOT / "collector" / "otelcol-citetrace" / "go.mod").read_text()
    assert "=> ../citetracesummary" in gomod
    for source in re.findall(r"^COPY (collector/\S+)", dockerfile, flags=re.M):
        assert (ROOT / source).exists(), source
    go_version = re.search(r"^go (\d+\.\d+)", gomod, flags=re.M)
    assert go_version and f"golang:{go_version.group(1)}" in dockerfile


def test_the_fleet_collectors_validate_with_their_compose_environment(tmp_path: Path) -> None:
    """The real collector accepts the gateway's and tier 2's configs with the environment compose gives them."""
    for name in ("otelcol-gateway", "otelcol-tier2-a"):
        service = _services()[name]
        config = Path(service["volumes"][0].split(":")[0].replace("./", str(ROOT) + "/", 1))
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **service["environment"]}
        done = subprocess.run([str(collector_binary()), "validate", f"--config={config}"], capture_output=True,
                              text=True, env=env, timeout=120)
        assert done.returncode == 0, (name, done.stderr)
