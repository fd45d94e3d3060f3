"""The committed Prometheus config and alert rules, made fast for a test: one scrape job, 1 s intervals.

Shared by the tests that start a real Prometheus (tests/grafana's stack behind `citetrace serve`, and
tests/collector's behind the citetracesummary connector), so both run exactly the shipped rules.
"""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["fast_prometheus_config"]


def fast_prometheus_config(tmp: Path, job: str, target: str) -> Path:
    """Write prometheus/prometheus.yml with every interval 1 s, no Alertmanager, one scrape job (``job`` at
    ``target``) and the committed rule files (their groups at 1 s) into ``tmp``; return the config's path."""
    config = yaml.safe_load((ROOT / "prometheus" / "prometheus.yml").read_text())
    config["global"].update(scrape_interval="1s", evaluation_interval="1s")
    config.pop("alerting", None)
    config["scrape_configs"] = [{"job_name": job, "metrics_path": "/metrics", "static_configs": [{"targets": [target]}]}]
    rules_dir = tmp / "rules"
    rules_dir.mkdir()
    for pattern in config["rule_files"]:
        for src in (ROOT / "prometheus").glob(pattern):
            rules = yaml.safe_load(src.read_text())
            for group in rules["groups"]:
                group["interval"] = "1s"
            (rules_dir / src.name).write_text(yaml.safe_dump(rules, sort_keys=False))
    config["rule_files"] = [str(rules_dir / "*.yml")]
    path = tmp / "prometheus.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
