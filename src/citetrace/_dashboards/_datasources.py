"""Grafana datasource and dashboard-provider provisioning, and the fixed uids dashboards and rules refer to.

Hostnames are the docker-compose service names; ``tests/compose`` checks that they match docker-compose.yml.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PROMETHEUS_UID",
    "TRACES_UID",
    "ALERTMANAGER_UID",
    "PROMETHEUS_URL",
    "TRACES_URL",
    "ALERTMANAGER_URL",
    "ALERT_WEBHOOK_GRAFANA",
    "EXEMPLAR_TRACE_ID_LABEL",
    "DASHBOARDS_PATH",
    "datasources",
    "dashboard_provider",
]

PROMETHEUS_UID = "citetrace-prometheus"
TRACES_UID = "citetrace-jaeger"
ALERTMANAGER_UID = "citetrace-alertmanager"
PROMETHEUS_URL = "http://prometheus:9090"
TRACES_URL = "http://jaeger:16686"
ALERTMANAGER_URL = "http://alertmanager:9093"
ALERT_WEBHOOK_GRAFANA = "http://alert-sink:5001/grafana"
"""Receiver of Grafana-managed alerts: docker-compose's alert-sink, which prints them. Point it at your pager."""
EXEMPLAR_TRACE_ID_LABEL = "trace_id"
"""Exemplar label holding the trace id (set by citetrace.summary on the latency histogram)."""
RUN_BROWSER_URL = "http://localhost:8377"
"""Where ``citetrace ui`` answers for the person looking at Grafana (its default port on their machine)."""
DASHBOARDS_PATH = "/var/lib/grafana/dashboards/citetrace"
"""Where docker-compose mounts ``grafana/dashboards`` inside the Grafana container."""


def datasources() -> dict[str, Any]:
    """The content of ``grafana/provisioning/datasources/citetrace.yaml``."""
    return {
        "apiVersion": 1,
        "datasources": [
            {
                "name": "Prometheus",
                "uid": PROMETHEUS_UID,
                "type": "prometheus",
                "access": "proxy",
                "url": PROMETHEUS_URL,
                "isDefault": True,
                "editable": False,
                "jsonData": {
                    "httpMethod": "POST",
                    "manageAlerts": True,
                    "alertmanagerUid": ALERTMANAGER_UID,
                    "exemplarTraceIdDestinations": [
                        {"name": EXEMPLAR_TRACE_ID_LABEL, "datasourceUid": TRACES_UID},
                        # the same exemplar opens the run page: `citetrace ui` finds a run by trace id
                        {"name": EXEMPLAR_TRACE_ID_LABEL, "url": RUN_BROWSER_URL + "/runs/${__value.raw}",
                         "urlDisplayLabel": "Open the run page"},
                    ],
                },
            },
            {
                "name": "Jaeger",
                "uid": TRACES_UID,
                "type": "jaeger",
                "access": "proxy",
                "url": TRACES_URL,
                "editable": False,
            },
            {
                "name": "Alertmanager",
                "uid": ALERTMANAGER_UID,
                "type": "alertmanager",
                "access": "proxy",
                "url": ALERTMANAGER_URL,
                "editable": False,
                "jsonData": {"implementation": "prometheus", "handleGrafanaManagedAlerts": False},
            },
        ],
    }


def dashboard_provider() -> dict[str, Any]:
    """The content of ``grafana/provisioning/dashboards/citetrace.yaml`` (a file provider)."""
    return {
        "apiVersion": 1,
        "providers": [
            {
                "name": "citetrace",
                "orgId": 1,
                "folder": "citetrace",
                "type": "file",
                "disableDeletion": True,
                "allowUiUpdates": False,
                "updateIntervalSeconds": 30,
                "options": {"path": DASHBOARDS_PATH, "foldersFromFilesStructure": False},
            }
        ],
    }
