"""Span records of small synthetic runs, shared by the serve tests."""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.summary import SpanRecord

T0 = 1_700_000_000_000_000_000


def tool(trace_id: int, span_id: int, kind: str, status: str, *, run_id: str = "run-1", agent: str = "agent-a",
         urls: tuple[str, ...] = (), url: str | None = None, query: str = "q", ms: int = 10,
         tool_name: str | None = None) -> SpanRecord:
    """A citetrace tool span (search or fetch) under root span 1."""
    attrs: dict[str, Any] = {
        names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL,
        names.GEN_AI_TOOL_NAME: tool_name or ("web_search" if kind == names.TOOL_KIND_SEARCH else "fetch_page"),
        names.TOOL_KIND: kind,
        names.TOOL_STATUS: status,
        names.RUN_ID: run_id,
        names.GEN_AI_AGENT_NAME: agent,
    }
    if kind == names.TOOL_KIND_SEARCH:
        attrs[names.QUERY_HASH] = f"h:{query}"
        attrs[names.URLS_RETURNED] = urls
    elif url is not None:
        attrs[names.URL_FULL] = url
    start = T0 + span_id * 1_000_000
    return SpanRecord(trace_id, span_id, 1, f"execute_tool {attrs[names.GEN_AI_TOOL_NAME]}", start,
                      start + ms * 1_000_000, attrs, status == names.STATUS_ERROR)


def root(trace_id: int, *, run_id: str = "run-1", agent: str = "agent-a", cited: tuple[str, ...] = (),
         error: bool = False) -> SpanRecord:
    """The run's invoke_agent root span (span id 1)."""
    attrs: dict[str, Any] = {
        names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT,
        names.GEN_AI_AGENT_NAME: agent,
        names.RUN_ID: run_id,
        names.CITATIONS: cited,
    }
    if error:
        attrs[names.ERROR_TYPE] = "RuntimeError"
    return SpanRecord(trace_id, 1, None, f"invoke_agent {agent}", T0, T0 + 500_000_000, attrs, error)


def healthy_run(trace_id: int, run_id: str = "run-1") -> list[SpanRecord]:
    """A run that searches, reads the result and cites it: no failure reason applies."""
    url = f"https://example.org/{trace_id:x}"
    return [
        tool(trace_id, 2, names.TOOL_KIND_SEARCH, names.STATUS_OK, urls=(url,), run_id=run_id),
        tool(trace_id, 3, names.TOOL_KIND_FETCH, names.STATUS_OK, url=url, run_id=run_id),
        root(trace_id, cited=(url,), run_id=run_id),
    ]


def failing_run(trace_id: int, run_id: str = "run-1") -> list[SpanRecord]:
    """A run with an empty search, two failed reads and a citation no search returned."""
    return [
        tool(trace_id, 2, names.TOOL_KIND_SEARCH, names.STATUS_EMPTY, run_id=run_id),
        tool(trace_id, 3, names.TOOL_KIND_SEARCH, names.STATUS_OK, urls=("https://a.org/x",), query="Q ",
             run_id=run_id),
        tool(trace_id, 4, names.TOOL_KIND_FETCH, names.STATUS_ERROR, url="https://a.org/x", run_id=run_id),
        tool(trace_id, 5, names.TOOL_KIND_FETCH, names.STATUS_RATE_LIMITED, url="https://a.org/y", run_id=run_id),
        root(trace_id, cited=("https://a.org/x", "https://b.org/never"), run_id=run_id),
    ]
