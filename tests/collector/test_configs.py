"""The shipped collector configs: valid for the built collector, keyed on names.py, and nothing unused is built."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from citetrace import names
from citetrace.config import Settings

from ._harness import COLLECTOR_DIR, collector_binary, collector_env

CONFIGS = sorted(COLLECTOR_DIR.glob("otelcol*.yaml"))
ENV_REF = re.compile(r"\$\{env:([A-Z0-9_]+)(?::-([^}]*))?\}")


def _validate(config: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(collector_binary()), "validate", f"--config={config}"], capture_output=True,
                          text=True, env=env, timeout=120)


def test_the_configs_are_shipped() -> None:
    """collector/ ships the single-instance (with serve), the built-in-summary and the gateway config."""
    assert {c.name for c in CONFIGS} == {"otelcol.yaml", "otelcol-summary.yaml", "otelcol-gateway.yaml"}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_config_validates_with_defaults_and_with_test_ports(config: Path, tmp_path: Path) -> None:
    """`otelcol validate` accepts each shipped config with its compose defaults and with loopback test ports."""
    base = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    defaults = _validate(config, base)
    assert defaults.returncode == 0, defaults.stderr
    env = dict(base, **collector_env(**{
        names.ENV_OTELCOL_KEPT_EXPORTER: "file/kept",
        names.ENV_OTELCOL_KEPT_FILE: str(tmp_path / "kept.jsonl"),
        names.ENV_OTELCOL_TIER2: "[127.0.0.1:14317, 127.0.0.1:24317]",
        names.ENV_OTELCOL_REMOTE_WRITE_ENDPOINT: "http://127.0.0.1:19090/api/v1/write",
    }))
    overridden = _validate(config, env)
    assert overridden.returncode == 0, overridden.stderr


def test_validate_rejects_a_broken_config(tmp_path: Path) -> None:
    """The validation step can fail: a pipeline naming an unknown exporter is refused."""
    broken = tmp_path / "broken.yaml"
    broken.write_text((COLLECTOR_DIR / "otelcol.yaml").read_text())
    result = _validate(broken, {"PATH": "/usr/bin:/bin", names.ENV_OTELCOL_KEPT_EXPORTER: "otlp_grpc/nowhere"})
    assert result.returncode != 0
    assert "otlp_grpc/nowhere" in result.stderr


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_every_env_var_is_named_in_names_py(config: Path) -> None:
    """Each ${env:VAR} a config reads is an ENV_* constant of citetrace.names (one source of names)."""
    known = {getattr(names, n) for n in dir(names) if n.startswith("ENV_")}
    used = {m.group(1) for m in ENV_REF.finditer(config.read_text())}
    assert used and used <= known, used - known


def _policies(config_name: str) -> dict[str, dict[str, Any]]:
    config = yaml.safe_load((COLLECTOR_DIR / config_name).read_text())
    return {p["type"] + ":" + p["name"]: p for p in config["processors"]["tail_sampling"]["policies"]}


def _default(value: Any) -> Any:
    """A ``${env:VAR:-default}`` reference's default, parsed as YAML (the value itself otherwise)."""
    match = ENV_REF.fullmatch(str(value))
    return yaml.safe_load(match.group(2)) if match else value


@pytest.mark.parametrize("config_name", ["otelcol.yaml", "otelcol-summary.yaml"])
def test_tail_sampling_keys_on_the_summary_and_the_in_process_sample(config_name: str) -> None:
    """Policies: root-span citetrace.summary.failed / .keep, plus probabilistic 2 % with citetrace's fixed salt."""
    policies = list(_policies(config_name).values())
    booleans = {p["boolean_attribute"]["key"]: p["boolean_attribute"]["value"]
                for p in policies if p["type"] == "boolean_attribute"}
    assert booleans == {names.SUMMARY_FAILED: True, names.SUMMARY_KEEP: True}
    [prob] = [p["probabilistic"] for p in policies if p["type"] == "probabilistic"]
    assert _default(prob["hash_salt"]) == Settings().sample_salt
    assert _default(prob["sampling_percentage"]) == Settings().sample_percent


def test_connector_settings_default_to_the_python_settings() -> None:
    """Each connector setting reads the env var the Python settings read, with the same default."""
    config = yaml.safe_load((COLLECTOR_DIR / "otelcol-summary.yaml").read_text())
    connector = config["connectors"]["citetracesummary"]
    settings = Settings()
    same = {"max_searches": (names.ENV_MAX_SEARCHES, settings.max_searches),
            "max_failed_reads": (names.ENV_MAX_FAILED_READS, settings.max_failed_reads),
            "sample_percent": (names.ENV_SAMPLE_PERCENT, settings.sample_percent),
            "sample_salt": (names.ENV_SAMPLE_SALT, settings.sample_salt),
            "trace_ttl_seconds": (names.ENV_TRACE_TTL_SECONDS, settings.trace_ttl_seconds),
            "max_traces": (names.ENV_MAX_TRACES, settings.max_traces),
            "max_spans_per_trace": (names.ENV_MAX_SPANS_PER_TRACE, settings.max_spans_per_trace),
            "max_tool_names": (names.ENV_MAX_TOOL_NAMES, settings.max_tool_names)}
    for key, (env, default) in same.items():
        match = ENV_REF.fullmatch(str(connector[key]))
        assert match and match.group(1) == env, key
        assert yaml.safe_load(match.group(2)) == default, key
    # the tail sampler's salt and percentage read the same variables as the connector's
    [prob] = [p["probabilistic"] for p in _policies("otelcol-summary.yaml").values() if p["type"] == "probabilistic"]
    assert ENV_REF.fullmatch(prob["hash_salt"]).group(1) == names.ENV_SAMPLE_SALT  # type: ignore[union-attr]


def test_the_connector_is_the_only_consumer_of_traces_in() -> None:
    """The metrics leave through the outlet at the end of traces/kept, so traces/in feeds one node (no fanout copy)."""
    config = yaml.safe_load((COLLECTOR_DIR / "otelcol-summary.yaml").read_text())
    pipelines = config["service"]["pipelines"]
    assert pipelines["traces/in"]["exporters"] == ["citetracesummary"]
    outlets = [name for name, c in config["connectors"].items() if c and "metrics_of" in c]
    assert outlets == ["citetracesummary/metrics"]
    assert config["connectors"]["citetracesummary/metrics"] == {"metrics_of": "citetracesummary"}
    assert pipelines["traces/kept"]["receivers"] == ["citetracesummary"]
    assert pipelines["traces/kept"]["exporters"][-1] == "citetracesummary/metrics"
    assert pipelines["metrics/summary"]["receivers"] == ["citetracesummary/metrics"]
    # nothing else consumes traces/in's connector output or feeds the metrics from traces/in
    uses = [name for name, p in pipelines.items() for c in p.get("receivers", []) + p.get("exporters", [])
            if c.startswith("citetracesummary")]
    assert sorted(uses) == ["metrics/summary", "traces/in", "traces/kept", "traces/kept"]


def _component_types(config: dict[str, Any]) -> set[tuple[str, str]]:
    kinds = ("receivers", "processors", "exporters", "extensions", "connectors")
    return {(kind, name.split("/")[0]) for kind in kinds for name in (config.get(kind) or {})}


def test_distribution_has_exactly_the_components_the_configs_use() -> None:
    """`otelcol components` lists exactly the component types used by the shipped configs: a lean build."""
    used: set[tuple[str, str]] = set()
    for config in CONFIGS:
        used |= _component_types(yaml.safe_load(config.read_text()))
    listing = yaml.safe_load(subprocess.run([str(collector_binary()), "components"], capture_output=True,
                                            text=True, check=True).stdout)
    built = {(kind, c["name"]) for kind in ("receivers", "processors", "exporters", "extensions", "connectors")
             for c in listing.get(kind) or []}
    assert built == used
