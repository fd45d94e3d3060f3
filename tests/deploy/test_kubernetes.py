"""deploy/kubernetes without a cluster: the Kubernetes schemas, the wiring between objects, names.py, real configs."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from citetrace import names
from collector._harness import collector_binary

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "kubernetes"
K8S_VERSION = "1.30.0"
ENV_REF = re.compile(r"\$\{env:([A-Z0-9_]+)(?::-[^}]*)?\}")
CITETRACE_ENV = {v for k, v in vars(names).items() if k.startswith("ENV_") and isinstance(v, str)}


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("generate_kubernetes", ROOT / "deploy" / "generate_kubernetes.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _objects() -> list[dict[str, Any]]:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    out = []
    for name in kustomization["resources"]:
        out.extend(d for d in yaml.safe_load_all((K8S / name).read_text()) if d)
    return out


def _by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in _objects() if o["kind"] == kind}


def _workloads() -> dict[str, dict[str, Any]]:
    return {**_by_kind("Deployment"), **_by_kind("StatefulSet")}


def _env(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env", [])}


def test_committed_manifests_are_what_the_generator_writes() -> None:
    """deploy/kubernetes is the generator's output byte for byte (rerun it after changing a collector config)."""
    done = subprocess.run([sys.executable, str(ROOT / "deploy" / "generate_kubernetes.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_object_passes_the_kubernetes_schema() -> None:
    """Every manifest validates, strictly (no unknown field), against Kubernetes' own schema for its kind."""
    objects = _objects()
    assert {o["kind"] for o in objects} >= {"Namespace", "ConfigMap", "Deployment", "StatefulSet", "Service"}
    for obj in objects:
        kubernetes_validate.validate(obj, K8S_VERSION, strict=True)


def test_a_broken_manifest_is_refused_by_the_schema_check() -> None:
    """The schema check can fail: a Service port given as text is refused."""
    service = dict(_by_kind("Service")["citetrace-gateway"])
    service["spec"] = {**service["spec"], "ports": [{"name": "x", "port": "four"}]}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(service, K8S_VERSION, strict=True)


def test_collector_configs_are_the_repository_files() -> None:
    """The gateway and tier-2 ConfigMaps carry collector/otelcol-gateway.yaml and otelcol-summary.yaml verbatim."""
    maps = _by_kind("ConfigMap")
    assert maps["citetrace-gateway-config"]["data"]["config.yaml"] == (ROOT / "collector/otelcol-gateway.yaml").read_text()
    assert maps["citetrace-tier2-config"]["data"]["config.yaml"] == (ROOT / "collector/otelcol-summary.yaml").read_text()
    rules = maps["prometheus-rules"]["data"]
    assert rules == {p.name: p.read_text() for p in (ROOT / "prometheus/rules").glob("*.yml")}


def test_services_select_pods_and_name_their_ports() -> None:
    """Each Service selects exactly one workload's pods and targets ports its containers declare; none leaves the cluster."""
    workloads = _workloads()
    for name, service in _by_kind("Service").items():
        assert service["spec"]["type"] == "ClusterIP", name
        selected = [w for w in workloads.values()
                    if service["spec"]["selector"].items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        assert len(selected) == 1, name
        declared = {p["name"] for c in selected[0]["spec"]["template"]["spec"]["containers"] for p in c["ports"]}
        assert {p["targetPort"] for p in service["spec"]["ports"]} <= declared, name


def test_mounted_config_maps_exist() -> None:
    """Every ConfigMap volume a pod mounts names a ConfigMap the manifests create."""
    maps = _by_kind("ConfigMap")
    for name, workload in _workloads().items():
        for volume in workload["spec"]["template"]["spec"].get("volumes", []):
            if "configMap" in volume:
                assert volume["configMap"]["name"] in maps, (name, volume)


def test_gateway_routes_to_every_tier2_pod() -> None:
    """The gateway's static tier-2 list is exactly the StatefulSet's pods, by their headless-Service DNS names."""
    tier2 = _by_kind("StatefulSet")["citetrace-tier2"]
    headless = _by_kind("Service")[tier2["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    [gateway] = _by_kind("Deployment")["citetrace-gateway"]["spec"]["template"]["spec"]["containers"]
    listed = yaml.safe_load(_env(gateway)[names.ENV_OTELCOL_TIER2])
    port = next(p["containerPort"] for p in tier2["spec"]["template"]["spec"]["containers"][0]["ports"]
                if p["name"] == "otlp-grpc")
    assert listed == [f"citetrace-tier2-{i}.citetrace-tier2.citetrace.svc.cluster.local:{port}"
                      for i in range(tier2["spec"]["replicas"])]


def _service_url_ok(url: str) -> bool:
    match = re.match(r"https?://([a-z0-9-]+)\.citetrace\.svc\.cluster\.local:(\d+)", url)
    if not match:
        return False
    service = _by_kind("Service").get(match.group(1))
    return service is not None and int(match.group(2)) in {p["port"] for p in service["spec"]["ports"]}


def test_agents_export_to_the_gateway_and_tier2_writes_to_prometheus() -> None:
    """The agent's OTLP endpoint and tier 2's remote-write endpoint name a Service and a port it serves."""
    [agent] = _by_kind("Deployment")["research-agent"]["spec"]["template"]["spec"]["containers"]
    assert _service_url_ok(_env(agent)["OTEL_EXPORTER_OTLP_ENDPOINT"])
    assert {e["name"] for e in agent["env"]} >= {names.ENV_AUTO_INSTRUMENT, names.ENV_STORE}
    [tier2] = _by_kind("StatefulSet")["citetrace-tier2"]["spec"]["template"]["spec"]["containers"]
    assert _service_url_ok(_env(tier2)[names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT])
    prometheus = _by_kind("StatefulSet")["prometheus"]["spec"]["template"]["spec"]["containers"][0]
    assert "--web.enable-remote-write-receiver" in prometheus["args"]


def test_the_run_browser_reads_the_store_at_the_port_grafana_links() -> None:
    """The run browser runs the real `citetrace ui` (read-only) on the agents' store from the same Secret, and its
    Service serves the port the dashboards' "Run browser" and exemplar links open."""
    from urllib.parse import urlsplit

    from citetrace._dashboards._datasources import RUN_BROWSER_URL
    from citetrace.cli import build_parser

    [ui] = _by_kind("Deployment")["citetrace-run-browser"]["spec"]["template"]["spec"]["containers"]
    args = build_parser().parse_args(ui["args"])
    assert args.command == "ui" and args.host == "0.0.0.0" and args.review_queue is None and args.store is None
    [agent] = _by_kind("Deployment")["research-agent"]["spec"]["template"]["spec"]["containers"]
    store = next(e for e in ui["env"] if e["name"] == names.ENV_STORE)
    assert store in agent["env"] and ui["image"] == agent["image"]
    service = _by_kind("Service")["citetrace-run-browser"]
    assert [p["port"] for p in service["spec"]["ports"]] == [args.port] == [urlsplit(RUN_BROWSER_URL).port]


def test_the_store_uri_and_password_come_from_a_secret_never_the_manifests() -> None:
    """No password or store URI is written in the manifests: both are read from the operator's Secret."""
    text = "".join(p.read_text() for p in K8S.glob("*.yaml"))
    assert "postgresql://" not in text and "kind: Secret" not in text
    for workload in _workloads().values():
        for container in workload["spec"]["template"]["spec"]["containers"]:
            for env in container.get("env", []):
                if env["name"] in {"POSTGRES_PASSWORD", names.ENV_STORE}:
                    assert "secretKeyRef" in env["valueFrom"]


def test_every_citetrace_variable_is_a_name_the_config_reads() -> None:
    """Each CITETRACE_* variable set on a collector is in names.py and is read by the config it mounts."""
    maps = _by_kind("ConfigMap")
    for name, workload in _workloads().items():
        spec = workload["spec"]["template"]["spec"]
        mounted = "".join(maps[v["configMap"]["name"]]["data"].get("config.yaml", "")
                          for v in spec.get("volumes", []) if "configMap" in v)
        for container in spec["containers"]:
            for var in (e["name"] for e in container.get("env", []) if e["name"].startswith("CITETRACE_")):
                assert var in CITETRACE_ENV, (name, var)
                if mounted:
                    assert var in set(ENV_REF.findall(mounted)), (name, var)


def test_fleet_prometheus_scrapes_the_jobs_the_dashboards_watch() -> None:
    """The fleet's Prometheus scrapes tier 2 under the job CitetraceSummarizerDown watches, and the gateways."""
    from citetrace._dashboards import ALERTS
    from citetrace._dashboards._promql import JOB_COLLECTOR, JOB_SUMMARY

    config = yaml.safe_load(_by_kind("ConfigMap")["prometheus-config"]["data"]["prometheus.yml"])
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    down = next(a for a in ALERTS if a.name == "CitetraceSummarizerDown")
    assert JOB_SUMMARY in down.expr and {JOB_SUMMARY, JOB_COLLECTOR} <= jobs


def test_prometheus_config_passes_promtool(tmp_path: Path) -> None:
    """The fleet's Prometheus config, with the rules it mounts, passes `promtool check config`."""
    maps = _by_kind("ConfigMap")
    rules = tmp_path / "rules"
    rules.mkdir()
    for file, text in maps["prometheus-rules"]["data"].items():
        (rules / file).write_text(text)
    config = maps["prometheus-config"]["data"]["prometheus.yml"].replace("/etc/prometheus/rules", str(rules))
    (tmp_path / "prometheus.yml").write_text(config)
    done = subprocess.run(["promtool", "check", "config", str(tmp_path / "prometheus.yml")], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("workload", ["citetrace-gateway", "citetrace-tier2"])
def test_collectors_validate_with_their_pod_environment(workload: str, tmp_path: Path) -> None:
    """The real collector accepts each config with exactly the environment its pod gets."""
    spec = _workloads()[workload]["spec"]["template"]["spec"]
    config_map = _by_kind("ConfigMap")[spec["volumes"][0]["configMap"]["name"]]
    config = tmp_path / "config.yaml"
    config.write_text(config_map["data"]["config.yaml"])
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **_env(spec["containers"][0])}
    done = subprocess.run([str(collector_binary()), "validate", f"--config={config}"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
