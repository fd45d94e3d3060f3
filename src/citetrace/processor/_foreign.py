"""Traces whose root citetrace did not create: how they become runs, and how their ends are seen.

A trace's root may be another instrumentation's span (OpenInference AGENT/CHAIN, an OpenLLMetry workflow,
Langfuse, another framework's ``invoke_agent``) or the application's own span. When citetrace's tool spans
are inside such a trace, the trace is one run:

- its id is the trace id (32 hex), the key the tool calls' fetched text is already filed under;
- its agent is the root's ``gen_ai.agent.name``, else the root's span name without ``invoke_agent `` and
  without a trailing ``.run``/``.workflow``/``.agent``/``.kickoff``/``.task``;
- its summary, run record and tool calls go to the run store and metrics; on the trace it is carried by
  one extra span of ours (``citetrace.run.summary``, a child of the root), never written onto the root.

The root may also come from another SDK TracerProvider than the one citetrace's processor is on (Phoenix's
``register(set_global_tracer_provider=False)``, an instrumentor given its own ``tracer_provider=``). Then
this processor never sees the root end, so it adds an ``Observer`` to that provider's span-processor chain
(the one the parent span reports to) which tells it when a trace's local root ends.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor
from opentelemetry.trace import get_current_span

from citetrace import names
from citetrace.store import ToolCallRecord

if TYPE_CHECKING:
    from citetrace.processor._processor import TraceSummaryProcessor

__all__ = ["foreign_agent", "call_records", "Observer", "watch_parent"]

_INVOKE_PREFIX = names.OP_INVOKE_AGENT + " "


def foreign_agent(name: str, attrs: Mapping[str, Any]) -> str | None:
    """The agent a foreign root names: ``gen_ai.agent.name``, else its span name tidied (None if empty)."""
    agent = attrs.get(names.GEN_AI_AGENT_NAME)
    if isinstance(agent, str) and agent.strip():
        return agent.strip()
    label = name[len(_INVOKE_PREFIX):] if name.startswith(_INVOKE_PREFIX) else name
    for suffix in names.FOREIGN_AGENT_SUFFIXES:
        if label.endswith(suffix) and len(label) > len(suffix):
            label = label[: -len(suffix)]
            break
    return label.strip() or None


def _opt_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def call_records(run_id: str, calls: Sequence[tuple[Mapping[str, Any], int, int]]) -> list[ToolCallRecord]:
    """``ToolCallRecord``s rebuilt from tool spans' attributes, in the order they started."""
    out: list[ToolCallRecord] = []
    for seq, (attrs, start, end) in enumerate(sorted(calls, key=lambda c: c[1])):
        urls = attrs.get(names.URLS_RETURNED)
        out.append(ToolCallRecord(
            run_id=run_id,
            seq=seq,
            tool=str(attrs.get(names.GEN_AI_TOOL_NAME) or "?"),
            kind=str(attrs.get(names.TOOL_KIND)),
            status=str(attrs.get(names.TOOL_STATUS) or names.STATUS_OK),
            started_at=start / 1e9,
            duration_ms=max(0, end - start) / 1e6,
            http_status=_opt_int(attrs.get(names.HTTP_RESPONSE_STATUS_CODE)),
            url=_opt_str(attrs.get(names.URL_FULL)),
            result_count=_opt_int(attrs.get(names.RESULT_COUNT)),
            result_size=_opt_int(attrs.get(names.RESULT_SIZE)),
            query_hash=_opt_str(attrs.get(names.QUERY_HASH)),
            error_type=_opt_str(attrs.get(names.ERROR_TYPE)),
            urls_returned=tuple(u for u in urls if isinstance(u, str)) if isinstance(urls, (tuple, list)) else (),
            query_text=_opt_str(attrs.get(names.QUERY_TEXT)),
            url_final=_opt_str(attrs.get(names.URL_FINAL)),
        ))
    return out


class Observer(SpanProcessor):
    """Feeds a ``TraceSummaryProcessor`` from another provider without exporting anything.

    ``roots_only``: pass on only local roots of traces the processor holds (a watcher on a foreign provider);
    otherwise every span (citetrace joined the application's provider, whose own exporters export them).
    """

    def __init__(self, processor: "TraceSummaryProcessor", *, roots_only: bool) -> None:
        self._ref = weakref.ref(processor)
        self.roots_only = roots_only

    def owner(self) -> "TraceSummaryProcessor | None":
        """The processor this observer feeds (None once it is gone)."""
        return self._ref()

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        proc = self._ref()
        if proc is not None and not self.roots_only:
            proc.on_start(span, parent_context)

    def on_end(self, span: ReadableSpan) -> None:
        proc = self._ref()
        if proc is None:
            return
        if self.roots_only:
            parent = span.parent
            ctx = span.context
            if (parent is not None and not parent.is_remote) or ctx is None or not proc.holds(ctx.trace_id):
                return
        proc.observe_end(span)

    def shutdown(self) -> None:
        """The processor is shut down by its own provider."""

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def _feeds(chain: Any, proc: "TraceSummaryProcessor") -> bool:
    for item in getattr(chain, "_span_processors", ()):
        if item is proc or (isinstance(item, Observer) and item.owner() is proc):
            return True
    return False


def watch_parent(proc: "TraceSummaryProcessor", span: Span, parent_context: Context | None,
                 seen: "weakref.WeakSet[Any]") -> None:
    """If ``span``'s parent was made by an SDK provider this processor is not on, observe that provider.

    The SDK's ``Span`` reports to its provider's span-processor chain (``_span_processor``, whose
    ``add_span_processor`` is public on both SDK multi-processors); each chain is looked at once.
    """
    parent = get_current_span(parent_context)
    if not isinstance(parent, Span):
        return
    chain = getattr(parent, "_span_processor", None)
    if chain is None or chain is getattr(span, "_span_processor", None) or chain in seen:
        return
    seen.add(chain)
    if not _feeds(chain, proc) and hasattr(chain, "add_span_processor"):
        chain.add_span_processor(Observer(proc, roots_only=True))
