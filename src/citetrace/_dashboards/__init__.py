"""Operations files as code: Grafana dashboards, alert rules and provisioning, rendered from one place.

Run ``python -m citetrace._dashboards`` from the repository root to regenerate the committed files under
``grafana/`` and ``prometheus/rules/``. Needs the ``grafana-foundation-sdk`` and PyYAML (the ``test`` extra).
"""

from __future__ import annotations

from citetrace._dashboards._alerts import ALERTS, Alert
from citetrace._dashboards._generate import check, render_all, write

__all__ = ["ALERTS", "Alert", "check", "render_all", "write"]
