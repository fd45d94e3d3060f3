"""citetrace: make every research-agent run visible and checkable, on OpenTelemetry."""

from __future__ import annotations

__all__: list[str] = []
