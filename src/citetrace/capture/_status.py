"""The status seam: how capture learns the HTTP status a library saw but hid, and keeps it for replay.

A library may raise ``ValueError(<error JSON>)``, return an error page as text, or turn a 429 into a
sentence. The instrumentation's status probe (``instrumentation._probe``) registers its ``last_status``
here, and a tool span whose result and exception carry no status takes ``http.response.status_code`` from
it. Capture itself imports no instrumentation; without a source nothing changes.

Replay: a recorded call also keeps everything the probes saw (``observations``: statuses, redirects), and
its replay feeds them back into the probes' scope (``feed_observations``) before answering, so a fetch that
kept a 429 as text, or was redirected, classifies the same with no request made.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

__all__ = ["Observations", "StatusSource", "feed_observations", "observations", "observed_status",
           "set_observation_seam", "set_status_source"]

StatusSource = Callable[[], Optional[int]]
"""() -> the last HTTP status seen during the tool call running in this context, or None."""
_source: list[StatusSource] = []

Observations = dict[str, Any]
"""What the probes saw during one call, as JSON: ``statuses`` (HTTP statuses in order) and ``redirects``
(``[origin, final URL]`` pairs, redacted)."""
_seam: list[tuple[Callable[[], Observations], Callable[[Observations], None]]] = []


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


def set_observation_seam(read: Callable[[], Observations] | None,
                         feed: Callable[[Observations], None] | None = None) -> None:
    """Install (or with None remove) how a recorded call keeps what the probes saw (``read``) and how a
    replayed call shows it to them again (``feed``), as the HTTP clients would have."""
    _seam[:] = [(read, feed)] if read is not None and feed is not None else []


def observations() -> Observations | None:
    """What the probes saw during the current call (for the recording), or None: nothing seen, no probes."""
    if not _seam:
        return None
    try:
        seen = _seam[0][0]()
    except Exception:  # noqa: BLE001 - the recording must not cost the call
        return None
    return seen or None


def feed_observations(seen: Any) -> None:
    """Show a replayed call's recorded observations to the probes of the current call. Never raises."""
    if _seam and isinstance(seen, dict):
        try:
            _seam[0][1](seen)
        except Exception:  # noqa: BLE001 - a replay must not fail on what it only adds
            pass
