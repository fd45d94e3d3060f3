"""Status probes on ``requests``' ``Session.request`` and httpx's ``Client._send_single_request``, for tools
that hide the HTTP status they got.

smolagents' ``GoogleSearchTool`` raises ``ValueError(<error JSON>)``, LangChain's ``RequestsGetTool`` and
``WebBaseLoader`` return a 4xx/5xx page's text as if it were content, and ``BraveSearchWrapper`` raises
``Exception("HTTP error 429")``. ``requests.get``/``post`` and every ``Session.get`` end in
``Session.request``, which returns the final response (after redirects), so the probe sees the status
those rows classify by. It records only in the thread whose tool call is open: a request another thread
makes at the same time is never attributed to that call.

httpx: knowledge-storm's ``WebPageHelper.download_webpage`` returns None for any failure. ``Client.send`` is
already wrapped by the HTTP-endpoint rows (one wrapper per target), so the probe sits one level down, on the
single request each hop of ``send`` makes (private, but in every httpx since 0.18); the last status is the
final response's.
"""

from __future__ import annotations

from typing import Any

from citetrace.instrumentation import _probe
from citetrace.instrumentation._table_types import Probe

__all__ = ["ROWS"]


def _status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    return getattr(result, "status_code", None) if _probe.in_scope() else None


ROWS = (
    Probe("requests", "requests.sessions", "Session.request", _status),
    Probe("httpx", "httpx._client", "Client._send_single_request", _status),
)
