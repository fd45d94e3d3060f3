"""Builders for the shared summary vectors: traces written as OTLP/JSON, the way an SDK exporter sends them."""

from __future__ import annotations

import hashlib
from typing import Any

from citetrace import names

_T0 = 1_700_000_000_000_000_000


def _value(value: Any) -> dict[str, Any]:
    """A Python value as an OTLP/JSON AnyValue (a ``("raw", obj)`` pair is passed through as it is)."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "raw":
        raw: dict[str, Any] = value[1]
        return raw
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _value(v)} for k, v in value.items()]}}
    if value is None:
        return {}
    raise TypeError(f"no OTLP value for {value!r}")


def trace_id(n: int) -> str:
    """A deterministic 32-hex trace id."""
    return hashlib.sha256(f"trace-{n}".encode()).hexdigest()[:32]


def span_id(trace: str, n: int) -> str:
    """A deterministic 16-hex span id, unique per trace."""
    return hashlib.sha256(f"{trace}-{n}".encode()).hexdigest()[:16]


class Trace:
    """Spans of one trace, made in the order they end (children first, the root last)."""

    def __init__(self, n: int, service: str | None = "research-agent") -> None:
        self.id = trace_id(n)
        self.service = service
        self.spans: list[dict[str, Any]] = []
        self._n = 0
        self.root_id = span_id(self.id, 0)
        self._clock = _T0

    def _span(self, name: str, attrs: dict[str, Any], *, parent: str | None, ms: float, error: bool = False,
              span: str | None = None, start: int | None = None, end: int | None = None) -> dict[str, Any]:
        self._n += 1
        begin = self._clock if start is None else start
        finish = begin + int(ms * 1e6) if end is None else end
        self._clock = max(self._clock, finish) + 1_000_000
        out: dict[str, Any] = {
            "traceId": self.id, "spanId": span or span_id(self.id, self._n), "name": name,
            "kind": 1, "startTimeUnixNano": str(begin), "endTimeUnixNano": str(finish),
            "attributes": [{"key": k, "value": _value(v)} for k, v in attrs.items()],
        }
        if parent:
            out["parentSpanId"] = parent
        if error:
            out["status"] = {"code": 2}
        self.spans.append(out)
        return out

    def tool(self, kind: str, tool: str, *, run: str | None = "run-1", agent: str | None = "scout",
             status: str | None = names.STATUS_OK, ms: float = 12.0, error: bool = False, parent: str | None = None,
             **extra: Any) -> dict[str, Any]:
        """An ``execute_tool`` span; ``extra`` keys are attribute names with ``_`` for ``.`` (see ``attr``)."""
        attrs: dict[str, Any] = {names.GEN_AI_OPERATION_NAME: "execute_tool", names.GEN_AI_TOOL_NAME: tool,
                                 names.TOOL_KIND: kind}
        if status is not None:
            attrs[names.TOOL_STATUS] = status
        if run is not None:
            attrs[names.RUN_ID] = run
        if agent is not None:
            attrs[names.GEN_AI_AGENT_NAME] = agent
        attrs.update(extra.pop("attrs", {}))
        return self._span(f"execute_tool {tool}", attrs, parent=parent or self.root_id, ms=ms, error=error, **extra)

    def search(self, query: str, urls: list[str], **kw: Any) -> dict[str, Any]:
        """A search returning ``urls`` (empty when there are none)."""
        attrs = {names.QUERY_HASH: hashlib.sha256(" ".join(query.casefold().split()).encode()).hexdigest()[:16],
                 names.URLS_RETURNED: urls, names.RESULT_COUNT: len(urls), **kw.pop("attrs", {})}
        kw.setdefault("status", names.STATUS_OK if urls else names.STATUS_EMPTY)
        return self.tool(names.TOOL_KIND_SEARCH, kw.pop("tool", "web_search"), attrs=attrs, **kw)

    def fetch(self, url: str, **kw: Any) -> dict[str, Any]:
        """A fetch of ``url``."""
        attrs = {names.URL_FULL: url, **kw.pop("attrs", {})}
        return self.tool(names.TOOL_KIND_FETCH, kw.pop("tool", "read_page"), attrs=attrs, **kw)

    def root(self, citations: list[str] | None = None, *, run: str | None = "run-1", agent: str | None = "scout",
             error: bool = False, ms: float | None = None, span: str | None = None, parent: str | None = None,
             **attrs: Any) -> dict[str, Any]:
        """The run's ``invoke_agent`` root, ending last, spanning every span made so far."""
        a: dict[str, Any] = {names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT}
        if agent is not None:
            a[names.GEN_AI_AGENT_NAME] = agent
        if run is not None:
            a[names.RUN_ID] = run
        if citations is not None:
            a[names.CITATIONS] = citations
        a.update(attrs.pop("attrs", {}))
        end = self._clock
        duration = int(ms * 1e6) if ms is not None else end - _T0
        return self._span(f"invoke_agent {agent or ''}".strip(), a, parent=parent, ms=0, error=error,
                          span=span or self.root_id, start=end - duration, end=end)

    def other(self, name: str, attrs: dict[str, Any] | None = None, *, parent: str | None = None) -> dict[str, Any]:
        """A span another instrumentation made."""
        return self._span(name, attrs or {}, parent=parent if parent is not None else self.root_id, ms=3.0)


def request(*traces: Trace, spans: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An ExportTraceServiceRequest with each trace's spans under its own resource (service.name)."""
    out: list[dict[str, Any]] = []
    for tr in traces:
        resource = {"attributes": [{"key": "service.name", "value": {"stringValue": tr.service}}]} if tr.service else {}
        out.append({"resource": resource, "scopeSpans": [{"scope": {"name": names.INSTRUMENTATION_SCOPE},
                                                          "spans": spans if spans is not None else tr.spans}]})
    return {"resourceSpans": out}
