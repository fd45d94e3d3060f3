"""Small pieces the processor reads spans with and keeps per trace, apart so the processor stays one job.

``attributes_of`` reads the SDK's attribute dict without its mapping-proxy layers (the hot path's biggest
single saving); ``Trace`` is the per-trace state; ``service_name`` is the ``agent`` label outside a run.
"""

from __future__ import annotations

from typing import Any, Mapping

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.trace import Span as ApiSpan

from citetrace import names
from citetrace.summary import TraceSummary
from citetrace.summary._internal import RunAccumulator

__all__ = ["Trace", "attributes_of", "service_name"]


def service_name(span: ReadableSpan) -> str:
    """The ``agent`` label for spans outside a run: the resource's service name (SDK default: unknown)."""
    service = span.resource.attributes.get("service.name")
    known = isinstance(service, str) and service and not service.startswith("unknown_service")
    return str(service) if known else names.AGENT_UNKNOWN


def attributes_of(span: ReadableSpan | ApiSpan) -> Mapping[str, Any]:
    """The span's attributes as the plain dict the SDK keeps inside ``BoundedAttributes``, read-only.

    ``span.attributes`` wraps that dict in two Python-level mapping layers, which made each lookup cost about
    0.3 us; a tool span needs about a dozen. Falls back to the public property for any other span class.
    """
    inner = getattr(getattr(span, "_attributes", None), "_dict", None)
    if isinstance(inner, dict):
        return inner
    return getattr(span, "attributes", None) or {}


class Trace:
    """What the processor holds for one trace in flight."""

    __slots__ = ("runs", "spans", "roots", "pending", "touched", "keep", "export_all", "runs_done", "calls",
                 "late_root")

    def __init__(self, now: float, buffering: bool) -> None:
        self.runs: dict[str, RunAccumulator] = {}
        self.spans: list[ReadableSpan] | None = [] if buffering else None
        self.roots: set[int] = set()
        self.pending: dict[int, TraceSummary] = {}
        self.touched = now
        self.keep = False
        self.export_all = False
        self.runs_done = 0
        self.calls: list[tuple[Mapping[str, Any], int, int]] = []  # tool calls outside any run, for a foreign root
        self.late_root: tuple[ReadableSpan, bool] | None = None
        """A foreign local root that ended while a run of ours under it was open (and whether it was a tool)."""
