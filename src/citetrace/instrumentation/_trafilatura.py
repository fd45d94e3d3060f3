"""trafilatura: ``fetch_url`` (patched where users import it from, the package namespace).

``fetch_url`` returns the page as a string, or ``None`` for any failure: the status is gone by then. Two
probes keep it: ``downloads.fetch_response`` (the response a pycurl or non-retried download returns) and
urllib3's ``Retry.increment``, which sees the 429 that trafilatura's retry strategy then turns into an
error log and ``None``. The urllib3 probe records only while a citetrace tool call is open.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._table_types import Patch, Probe

__all__ = ["ROWS"]


def _fetch_status(result: Any) -> str | None:
    last = _probe.last_status()
    if result is None:
        # None after a 200 means the page was fetched but too small or unsuitable: an empty read.
        if last == 200:
            return names.STATUS_EMPTY
        return names.STATUS_RATE_LIMITED if _probe.saw(429) else names.STATUS_ERROR
    # a page came back: a 429 its retry strategy got past (429 is in its status_forcelist) is not the outcome
    return names.STATUS_RATE_LIMITED if last == 429 else None


def _response_status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    # its Response keeps the final URL after urllib3's redirects (``.url``): the page the call really read
    _probe.record_redirect(result, args[0] if args else kwargs.get("url"))
    return getattr(result, "status", None)


def _retry_status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    response = kwargs.get("response") if "response" in kwargs else (args[2] if len(args) > 2 else None)
    if response is None:
        return None
    return getattr(response, "status", None)


FETCH_URL = ToolSpec("trafilatura.fetch_url", names.TOOL_KIND_FETCH, classify=_fetch_status,
                     is_rate_limit=_shapes.rate_limited)

ROWS = (
    Patch("trafilatura", "trafilatura", "fetch_url", FETCH_URL),
    Patch("trafilatura", "trafilatura.downloads", "fetch_url", FETCH_URL),
    Probe("trafilatura", "trafilatura.downloads", "fetch_response", _response_status),
    Probe("urllib3", "urllib3.util.retry", "Retry.increment", _retry_status, before=True),
)
