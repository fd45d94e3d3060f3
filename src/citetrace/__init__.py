"""citetrace: make every research-agent run visible and checkable, on OpenTelemetry.

Public API only; everything else lives in submodules (private ones start with ``_``). The summary,
metrics and instrumentation entry points are imported lazily so that ``import citetrace`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from citetrace._configure import configure
from citetrace.capture import ReplayMiss, current_run, replay, research_run, tool_call_id, traced_tool
from citetrace.store import open_store

if TYPE_CHECKING:
    __version__: str
    from citetrace.instrumentation import CiteTraceInstrumentor
    from citetrace.metrics import start_metrics_server
    from citetrace.processor import TraceSummaryProcessor

__all__ = [
    "__version__",
    "CiteTraceInstrumentor",
    "ReplayMiss",
    "TraceSummaryProcessor",
    "configure",
    "current_run",
    "open_store",
    "replay",
    "research_run",
    "start_metrics_server",
    "tool_call_id",
    "traced_tool",
]

_LAZY = {
    "TraceSummaryProcessor": "citetrace.processor",
    "start_metrics_server": "citetrace.metrics",
    "CiteTraceInstrumentor": "citetrace.instrumentation",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":  # from the installed distribution's metadata (pyproject.toml), as structlog does
        from citetrace._version import version

        return version()
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citetrace' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
