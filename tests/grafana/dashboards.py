"""Read the committed dashboards: their panels and every PromQL query in them (shared by the grafana tests)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD_DIR = ROOT / "grafana" / "dashboards"


def dashboards() -> dict[str, dict[str, Any]]:
    """Committed dashboard JSON by file name."""
    return {p.name: json.loads(p.read_text()) for p in sorted(DASHBOARD_DIR.glob("*.json"))}


def panels(board: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel that shows data (rows excluded, nested row panels included)."""
    for panel in board.get("panels", []):
        if panel.get("type") == "row":
            yield from panel.get("panels", [])
        else:
            yield panel


def panel_queries() -> list[tuple[str, str, dict[str, Any]]]:
    """(dashboard file, panel title, target) for every query of every panel."""
    return [
        (name, panel["title"], target)
        for name, board in dashboards().items()
        for panel in panels(board)
        for target in panel.get("targets", [])
    ]


def variable_queries(board: dict[str, Any]) -> dict[str, str]:
    """Template variable name -> its label_values(...) query."""
    return {v["name"]: v["query"]["query"] for v in board.get("templating", {}).get("list", [])}


METRIC_RE = re.compile(r"\b(citetrace_[a-z0-9_]+|up)\b(?=\s*[{\[)])")


def metric_names(expr: str) -> set[str]:
    """Metric names a PromQL expression reads (selectors followed by `{`, `[` or `)`)."""
    return set(METRIC_RE.findall(expr))
