"""Shared checks for the provider tests: the captured run's summary, and the provider-side tool spans."""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.summary import SpanRecord, TraceSummary, summarize
from citetrace.testing import Captured


def summary_of(cap: Captured) -> TraceSummary:
    """The pure summary of everything captured (one run)."""
    return summarize([SpanRecord.from_readable_span(s) for s in cap.spans])


def provider_spans(cap: Captured, kind: str | None = None) -> list[dict[str, Any]]:
    """Attributes of every provider-side tool span, in end order."""
    return [dict(s.attributes or {}) for s in cap.tool_spans(kind=kind)
            if (s.attributes or {}).get(names.TOOL_PROVIDER_SIDE) is True]
