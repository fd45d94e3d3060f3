"""The status seam: how capture learns the HTTP status a library saw but hid.

A library may raise ``ValueError(<error JSON>)``, return an error page as text, or turn a 429 into a
sentence. The instrumentation's status probe (``instrumentation._probe``) registers its ``last_status``
here, and a tool span whose result and exception carry no status takes ``http.response.status_code`` from
it. Capture itself imports no instrumentation; without a source nothing changes.
"""

from __future__ import annotations

from typing import Callable, Optional

__all__ = ["StatusSource", "observed_status", "set_status_source"]

StatusSource = Callable[[], Optional[int]]
"""() -> the last HTTP status seen during the tool call running in this context, or None."""
_source: list[StatusSource] = []


def set_status_source(source: StatusSource | None) -> None:
    """Install (or with None remove) the one status source."""
    _source[:] = [source] if source is not None else []


def observed_status() -> int | None:
    """The status the source saw during the current call; None without a source or a status. Never raises."""
    if not _source:
        return None
    try:
        status = _source[0]()
    except Exception:  # noqa: BLE001 - a broken source must not cost the span
        return None
    return status if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599 else None
