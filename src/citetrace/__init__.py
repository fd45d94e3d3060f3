"""citetrace: make every research-agent run visible and checkable, on OpenTelemetry.

Public API only; everything else lives in submodules (private ones start with ``_``).
"""

from __future__ import annotations

from citetrace._configure import configure
from citetrace.capture import current_run, research_run, tool_call_id, traced_tool
from citetrace.store import open_store

__all__ = [
    "configure",
    "current_run",
    "open_store",
    "research_run",
    "tool_call_id",
    "traced_tool",
]
