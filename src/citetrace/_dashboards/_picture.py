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


def _percent(value: float, _pos: object) -> str:
    return f"{value:g} %"


def _draw_stat(ax: Any, prometheus: str, panel: dict[str, Any], tool: str, rate: str) -> None:
    """A stat panel as Grafana shows it: one big number per series with its legend under it, in a grid of at
    most three columns so that labels never run into each other."""
    ax.axis("off")
    values = [(_legend(t.get("legendFormat", ""), s["metric"]), float(s["value"][1]))
              for t in panel["targets"] for s in _query(prometheus, "query", query=_expand(t["expr"], tool, rate))]
    values = values or [("no data", math.nan)]
    columns = min(3, len(values))
    lines = math.ceil(len(values) / columns)
    for i, (label, value) in enumerate(values):
        x = (i % columns + 0.5) / columns
        y = 1 - (i // columns + 0.45) / lines
        ax.text(x, y, "-" if math.isnan(value) else f"{value:g}", ha="center", va="center",
                fontsize=22 if lines == 1 else 16, color="#1f77b4", transform=ax.transAxes)
        ax.text(x, y - 0.42 / lines, label, ha="center", va="center", fontsize=7, transform=ax.transAxes)


def _draw_series(ax: Any, prometheus: str, panel: dict[str, Any], tool: str, rate: str, end: float,
                 minutes: int) -> None:
    """A time-series panel: one line per series, minutes before now on x, the legend under the plot."""
    from matplotlib.ticker import FuncFormatter

    unit = panel.get("fieldConfig", {}).get("defaults", {}).get("unit", "")
    scale = 100.0 if unit == "percentunit" else 1.0
    for target in panel["targets"]:
        expr = _expand(target["expr"], tool, rate)
        for series in _query(prometheus, "query_range", query=expr, start=end - minutes * 60, end=end, step=10):
            points = [(float(t), float(v)) for t, v in series["values"] if math.isfinite(float(v))]
            ax.plot([(t - end) / 60 for t, _ in points], [v * scale for _, v in points], linewidth=1.2,
                    label=_legend(target.get("legendFormat", ""), series["metric"]))
    ax.set_xlim(-minutes, 0)
    ax.set_xlabel("minutes ago", fontsize=7, labelpad=1)
    if unit == "percentunit":
        ax.yaxis.set_major_formatter(FuncFormatter(_percent))
    elif unit == "s":
        ax.set_ylabel("seconds", fontsize=7)
    ax.grid(alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=3 if len(labels) > 4 else 2,
                  frameon=False, handlelength=1.5, columnspacing=1.2)
    else:
        ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="grey")


def render(dashboard_json: Path, prometheus: str, out: Path, *, minutes: int = 5, rate: str = "1m") -> int:
    """Render ``dashboard_json`` with data from ``prometheus`` into ``out``; returns the panels drawn.

    Panels are placed by their gridPos (rows become section titles); legends sit under their plot and stat
    panels are big numbers, so no label is clipped by its neighbour."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    board = json.loads(dashboard_json.read_text())
    tools = requests.get(f"{prometheus}/api/v1/label/tool/values", timeout=30).json().get("data") or ["-"]
    panels = [p for p in board["panels"] if p["type"] != "row"]
    rows = max(p["gridPos"]["y"] + p["gridPos"]["h"] for p in board["panels"])
    fig = plt.figure(figsize=(18, rows * 0.4))
    fig.suptitle(f"{board['title']}: the dashboard's queries against a real Prometheus (last {minutes} min)",
                 fontsize=14, y=0.995)
    grid = fig.add_gridspec(rows, 24, hspace=0.9, wspace=1.6, top=0.975, bottom=0.01, left=0.04, right=0.99)
    end = time.time()
    for row in (p for p in board["panels"] if p["type"] == "row"):
        ax = fig.add_subplot(grid[row["gridPos"]["y"], :])
        ax.axis("off")
        ax.text(0, 0.2, row["title"], fontsize=11, fontweight="bold", transform=ax.transAxes)
    for panel in panels:
        pos = panel["gridPos"]
        ax = fig.add_subplot(grid[pos["y"]:pos["y"] + pos["h"] - 2, pos["x"]:pos["x"] + pos["w"]])
        ax.set_title(panel["title"].replace("$tool", tools[0]), fontsize=9, loc="left")
        ax.tick_params(labelsize=7)
        if panel["type"] == "stat":
            _draw_stat(ax, prometheus, panel, tools[0], rate)
        else:
            _draw_series(ax, prometheus, panel, tools[0], rate, end, minutes)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80)
    plt.close(fig)
    return len(panels)
