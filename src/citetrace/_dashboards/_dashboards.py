"""The dashboards this repository ships, by committed file name, encoded as Grafana JSON."""

from __future__ import annotations

import json
from typing import Any, Callable

from grafana_foundation_sdk.builders import dashboard
from grafana_foundation_sdk.cog.encoder import JSONEncoder

from citetrace._dashboards._drilldown import drilldown
from citetrace._dashboards._overview import overview

__all__ = ["DASHBOARDS", "encode"]


def encode(builder: dashboard.Dashboard) -> dict[str, Any]:
    """Build and encode a dashboard, numbering its panels in order (Grafana wants unique ids)."""
    data: dict[str, Any] = json.loads(JSONEncoder(sort_keys=True).encode(builder.build()))
    for number, panel in enumerate(data.get("panels", []), start=1):
        panel["id"] = number
    return data


DASHBOARDS: dict[str, Callable[[], dict[str, Any]]] = {
    "research-agent-overview.json": lambda: encode(overview()),
    "tool-drill-down.json": lambda: encode(drilldown()),
}
