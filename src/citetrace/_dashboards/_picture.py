"""Draw a committed dashboard as a PNG from real Prometheus query results (for the docs; no Grafana needed).

Each panel is placed by its gridPos, each query runs through the Prometheus HTTP API over the last
``minutes`` with Grafana's variables expanded (All agents, ``$__rate_interval``, the first tool). It is a
picture of the same queries, not a Grafana screenshot: colours and legends are matplotlib's.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import requests

__all__ = ["render"]

_UNITS = {"percentunit": "%", "s": "s"}


def _expand(expr: str, tool: str, rate: str) -> str:
    return expr.replace("$__rate_interval", rate).replace("$__range", "5m").replace("$agent", ".*").replace("$tool", tool)


def _query(prometheus: str, path: str, **params: Any) -> list[dict[str, Any]]:
    body = requests.get(f"{prometheus}/api/v1/{path}", params=params, timeout=30).json()
    if body.get("status") != "success":
        raise ValueError(f"Prometheus rejected {params.get('query')!r}: {body.get('error')}")
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def _legend(fmt: str, labels: dict[str, str]) -> str:
    out = fmt
    for key, value in labels.items():
        out = out.replace("{{" + key + "}}", value)
    return out


def render(dashboard_json: Path, prometheus: str, out: Path, *, minutes: int = 5, rate: str = "30s") -> int:
    """Render ``dashboard_json`` with data from ``prometheus`` into ``out``; returns the panels drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    board = json.loads(dashboard_json.read_text())
    tools = requests.get(f"{prometheus}/api/v1/label/tool/values", timeout=30).json().get("data") or ["-"]
    panels = [p for p in board["panels"] if p["type"] != "row"]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in panels)
    fig = plt.figure(figsize=(18, rows * 0.42))
    fig.suptitle(f"{board['title']} (queries run against a real Prometheus; last {minutes} min)", fontsize=13)
    grid = fig.add_gridspec(rows, 24, hspace=1.6, wspace=1.2, top=0.95, bottom=0.03, left=0.06, right=0.98)
    end = time.time()
    for panel in panels:
        pos = panel["gridPos"]
        ax = fig.add_subplot(grid[pos["y"]:pos["y"] + pos["h"] - 1, pos["x"]:pos["x"] + pos["w"]])
        ax.set_title(panel["title"].replace("$tool", tools[0]), fontsize=9, loc="left")
        unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
        scale = 100.0 if unit == "percentunit" else 1.0
        ax.tick_params(labelsize=7)
        for target in panel["targets"]:
            expr = _expand(target["expr"], tools[0], rate)
            if target.get("instant"):
                for series in _query(prometheus, "query", query=expr):
                    ax.barh(_legend(target.get("legendFormat", ""), series["metric"]), float(series["value"][1]))
                continue
            for series in _query(prometheus, "query_range", query=expr, start=end - minutes * 60, end=end, step=5):
                xs = [(float(t) - end) / 60 for t, v in series["values"] if math.isfinite(float(v))]
                ys = [float(v) * scale for _, v in series["values"] if math.isfinite(float(v))]
                ax.plot(xs, ys, linewidth=1, label=_legend(target.get("legendFormat", ""), series["metric"]))
        if not panel["targets"][0].get("instant"):
            ax.set_xlabel("minutes", fontsize=7)
            ax.set_ylabel(_UNITS.get(unit, ""), fontsize=7)
            handles, labels = ax.get_legend_handles_labels()
            if handles:
                ax.legend(fontsize=6, loc="upper left", ncol=2)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return len(panels)
