"""The summary's data model: a minimal view of a finished span, the thresholds, and the summary itself.

``SpanRecord`` exists so the pure summary does not depend on the SDK: the in-process processor builds it from
a ``ReadableSpan`` and ``citetrace serve`` builds it from OTLP protobufs, and both feed the same function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

from citetrace import _settings, names

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

    from citetrace.config import Settings

__all__ = ["SpanRecord", "Thresholds", "TraceSummary"]

_d = _settings.default  # the one table of settings holds every default


@dataclass(frozen=True, slots=True)
class SpanRecord:
    """One finished span, reduced to what the summary reads."""

    trace_id: int
    span_id: int
    parent_span_id: int | None
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any] = field(default_factory=dict)
    status_error: bool = False

    @classmethod
    def from_readable_span(cls, span: ReadableSpan) -> SpanRecord:
        """Build a record from an SDK span (finished, or live with ``end_ns`` 0 until it ends)."""
        from opentelemetry.trace import StatusCode

        ctx = span.context
        parent = span.parent
        return cls(
            trace_id=ctx.trace_id if ctx is not None else 0,
            span_id=ctx.span_id if ctx is not None else 0,
            parent_span_id=parent.span_id if parent is not None else None,
            name=span.name,
            start_ns=span.start_time or 0,
            end_ns=span.end_time or 0,
            attributes=span.attributes or {},
            status_error=span.status.status_code is StatusCode.ERROR,
        )

    @property
    def duration_ns(self) -> int:
        """End minus start, never negative."""
        return max(0, self.end_ns - self.start_ns)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When a run counts as failed, and which healthy runs the stable sample keeps."""

    max_searches: int = _d("max_searches")
    """More searches than this is ``too_many_searches``."""
    max_failed_reads: int = _d("max_failed_reads")
    """More failed reads than this is ``failed_reads``."""
    sample_percent: float = _d("sample_percent")
    """Percent of healthy traces kept, by the collector's FNV-1a hash of the trace id."""
    sample_salt: str = _d("sample_salt")
    """The hash salt; must equal the collector's ``hash_salt``."""

    @classmethod
    def from_settings(cls, settings: Settings) -> Thresholds:
        """The thresholds a ``Settings`` object configures."""
        return cls(
            max_searches=settings.max_searches,
            max_failed_reads=settings.max_failed_reads,
            sample_percent=settings.sample_percent,
            sample_salt=settings.sample_salt,
        )


@dataclass(frozen=True, slots=True)
class TraceSummary:
    """What one research run did, and whether its full trace is worth keeping.

    Field meanings are documented in docs/summary.md; the numeric fields are exactly ``names.SUMMARY_FIELDS``.
    """

    agent: str
    run_id: str
    trace_id: str
    searches: int = 0
    reads: int = 0
    repeat_queries: int = 0
    empty_searches: int = 0
    failed_reads: int = 0
    rate_limited: int = 0
    distinct_urls_seen: int = 0
    citations: int = 0
    uncited_from_retrieval: int = 0
    cited_not_fetched: int = 0
    pages_from_search: int = 0
    """Distinct pages whose text came with a search result (Tavily raw_content, Exa text...): read, not fetched."""
    unreported_searches: int = 0
    """Provider-side searches whose sources the provider did not report (OpenAI without
    ``include=["web_search_call.action.sources"]``, search-model chat completions): with any, the run's citations
    are not checked against its searches and reads (``uncited_urls``/``unfetched_urls`` stay empty), and the
    gate says why a cited URL has no text."""
    slowest_ms: float = 0.0
    total_ms: float = 0.0
    failure_reasons: tuple[str, ...] = ()
    failed: bool = False
    keep: bool = False
    uncited_urls: tuple[str, ...] = ()
    """The cited URLs (as cited) that no search returned."""
    unfetched_urls: tuple[str, ...] = ()
    """The cited URLs (as cited) that the run never fetched."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (what the run store saves and ``citetrace show`` prints)."""
        out: dict[str, Any] = {"agent": self.agent, "run_id": self.run_id, "trace_id": self.trace_id}
        for name in names.SUMMARY_FIELDS:
            out[name] = getattr(self, name)
        out["failure_reasons"] = list(self.failure_reasons)
        out["failed"] = self.failed
        out["keep"] = self.keep
        out["uncited_urls"] = list(self.uncited_urls)
        out["unfetched_urls"] = list(self.unfetched_urls)
        return out

    def to_attributes(self) -> dict[str, Any]:
        """The ``citetrace.summary.*`` attributes written on the root span before it ends."""
        attrs: dict[str, Any] = {names.summary_attr(f): getattr(self, f) for f in names.SUMMARY_FIELDS}
        attrs[names.SUMMARY_FAILURE_REASONS] = list(self.failure_reasons)
        attrs[names.SUMMARY_FAILED] = self.failed
        attrs[names.SUMMARY_KEEP] = self.keep
        return attrs
