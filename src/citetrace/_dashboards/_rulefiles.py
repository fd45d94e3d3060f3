"""Render ``ALERTS`` as a Prometheus rule file and as a Grafana alerting provisioning file.

The Grafana file follows the documented file-provisioning format (``apiVersion: 1``, ``groups`` of rules whose
``data`` holds a Prometheus query A, a reduce step B and a threshold step C on ``__expr__``, plus
``contactPoints`` and ``policies``), not the HTTP-API shape the SDK's alerting builders produce.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace._settings import RUNBOOK_DEFAULT
from citetrace._dashboards._alerts import ALERTS, Alert
from citetrace._dashboards._datasources import ALERT_WEBHOOK_GRAFANA, PROMETHEUS_UID

__all__ = ["prometheus_rules", "grafana_alerting", "RULE_GROUP", "GRAFANA_FOLDER"]

RULE_GROUP = "citetrace"
GRAFANA_FOLDER = "citetrace"
GRAFANA_CONTACT_POINT = "citetrace-webhook"
_EVAL_INTERVAL = "1m"
_SOURCE_LABEL = "source"


def _annotations(alert: Alert, runbook: str) -> dict[str, str]:
    return {
        "summary": alert.summary,
        "description": alert.description,
        "runbook_url": alert.runbook_url(runbook),
    }


def prometheus_rules(runbook: str = RUNBOOK_DEFAULT) -> dict[str, Any]:
    """The content of ``prometheus/rules/citetrace.rules.yml``; ``runbook`` is the runbook page (the
    ``runbook_url`` setting)."""
    rules = [
        {
            "alert": alert.name,
            "expr": alert.expr,
            "for": alert.for_,
            "labels": {"severity": alert.severity},
            "annotations": _annotations(alert, runbook),
        }
        for alert in ALERTS
    ]
    return {"groups": [{"name": RULE_GROUP, "interval": _EVAL_INTERVAL, "rules": rules}]}


def _seconds(duration: str) -> int:
    units = {"s": 1, "m": 60, "h": 3600}
    return int(duration[:-1]) * units[duration[-1]]


def _grafana_rule(alert: Alert, runbook: str) -> dict[str, Any]:
    lookback = 6 * 3600  # covers the longest baseline window the queries use
    return {
        "uid": "citetrace-" + alert.name.lower().removeprefix("citetrace"),
        "title": alert.name,
        "condition": "C",
        "data": [
            {
                "refId": "A",
                "relativeTimeRange": {"from": lookback, "to": 0},
                "datasourceUid": PROMETHEUS_UID,
                "model": {"refId": "A", "expr": alert.grafana_query, "instant": True, "range": False},
            },
            {
                "refId": "B",
                "relativeTimeRange": {"from": 0, "to": 0},
                "datasourceUid": "__expr__",
                "model": {"refId": "B", "type": "reduce", "expression": "A", "reducer": "last",
                          "settings": {"mode": "dropNN"}},
            },
            {
                "refId": "C",
                "relativeTimeRange": {"from": 0, "to": 0},
                "datasourceUid": "__expr__",
                "model": {
                    "refId": "C",
                    "type": "threshold",
                    "expression": "B",
                    "conditions": [
                        {"evaluator": {"type": "gt" if alert.op == ">" else "lt", "params": [alert.threshold]}}
                    ],
                },
            },
        ],
        "noDataState": "OK",
        "execErrState": "Error",
        "for": f"{_seconds(alert.for_)}s",
        "annotations": _annotations(alert, runbook),
        "labels": {"severity": alert.severity, _SOURCE_LABEL: "grafana"},
        "isPaused": False,
    }


def grafana_alerting(runbook: str = RUNBOOK_DEFAULT) -> dict[str, Any]:
    """The content of ``grafana/provisioning/alerting/citetrace.yaml`` (``runbook`` as for ``prometheus_rules``)."""
    return {
        "apiVersion": 1,
        "groups": [
            {
                "orgId": 1,
                "name": RULE_GROUP,
                "folder": GRAFANA_FOLDER,
                "interval": _EVAL_INTERVAL,
                "rules": [_grafana_rule(alert, runbook) for alert in ALERTS],
            }
        ],
        "contactPoints": [
            {
                "orgId": 1,
                "name": GRAFANA_CONTACT_POINT,
                "receivers": [
                    {
                        "uid": GRAFANA_CONTACT_POINT,
                        "type": "webhook",
                        "settings": {"url": ALERT_WEBHOOK_GRAFANA, "httpMethod": "POST"},
                        "disableResolveMessage": False,
                    }
                ],
            }
        ],
        "policies": [
            {
                "orgId": 1,
                "receiver": GRAFANA_CONTACT_POINT,
                "group_by": ["alertname", names.LABEL_AGENT],
                "group_wait": "30s",
                "group_interval": "5m",
                "repeat_interval": "4h",
            }
        ],
    }
