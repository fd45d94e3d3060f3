"""HTTP-status probes: see the status a library saw even when it hides it.

Some libraries swallow a 429 (ddgs turns it into "No results found.", trafilatura into ``None``). A probe is
a tiny wrapper on the library's lowest Python HTTP boundary that records status codes while a citetrace
tool call is in progress, so the call's classification can still say ``rate_limited``.

Recording goes to the scope opened in the caller's context. Libraries that fan out to worker threads
(ddgs uses a thread pool, which does not copy context) record into every open scope instead: with
concurrent calls in several threads a status may be attributed to a neighbouring call, which is the
price of not reaching into the library's private state.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar, Token
from typing import Any, Callable, Iterator

from citetrace._urls import redact_url
from citetrace.capture._internal import redirect_of, set_observation_seam, set_redirect_source, set_status_source

__all__ = ["scope", "open_scope", "close_scope", "record", "saw", "saw_failure", "in_scope", "last_status", "status_recorder",
           "record_redirect", "redirects"]


class _Seen:
    """Status codes, and the redirects (origin, final URL), observed during one tool call."""

    __slots__ = ("statuses", "redirects")

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.redirects: list[tuple[str, str]] = []


_MAX_REDIRECTS = 64  # a crawl inside one call keeps its first 64 redirects: the call's own URL is among the first
_SCOPE: ContextVar[_Seen | None] = ContextVar("citetrace_http_probe", default=None)
_open: set[_Seen] = set()


def open_scope(fresh: bool = False) -> tuple[Token[_Seen | None], _Seen] | None:
    """Start collecting statuses for one tool call; None when a scope is already open (nested calls share
    it), unless ``fresh`` (a call that is a span of its own inside another: its statuses are its own). Cheap
    on purpose (it runs on every wrapped call): a context-variable set and a set insert."""
    if not fresh and _SCOPE.get() is not None:
        return None
    seen = _Seen()
    _open.add(seen)  # set.add/discard are atomic under the GIL; readers copy with tuple()
    return _SCOPE.set(seen), seen


def close_scope(opened: tuple[Token[_Seen | None], _Seen] | None) -> None:
    """End a scope returned by ``open_scope``."""
    if opened is not None:
        token, seen = opened
        _open.discard(seen)
        _SCOPE.reset(token)


@contextmanager
def scope(fresh: bool = False) -> Iterator[None]:
    """``open_scope``/``close_scope`` as a context manager (for tests and async code)."""
    opened = open_scope(fresh)
    try:
        yield
    finally:
        close_scope(opened)


def record(status: Any) -> None:
    """Record one HTTP status into the current scope (or every open scope from a worker thread)."""
    if not isinstance(status, int) or isinstance(status, bool):
        return
    seen = _SCOPE.get()
    if seen is not None:
        seen.statuses.append(status)
        return
    for target in tuple(_open):
        target.statuses.append(status)


def record_redirect(response: Any, requested: str | None = None) -> None:
    """Record where a redirected response ended (``capture._redirects.redirect_of``) into the current scope
    only: a redirect is the call's own request, never a neighbouring thread's. Never raises."""
    seen = _SCOPE.get()
    if seen is None:
        return
    pair = redirect_of(response, requested)
    if pair is not None and len(seen.redirects) < _MAX_REDIRECTS:
        seen.redirects.append(pair)


def redirects() -> tuple[tuple[str, str], ...]:
    """The redirects recorded in the current scope (capture reads them through ``set_redirect_source``)."""
    seen = _SCOPE.get()
    return tuple(seen.redirects) if seen is not None else ()


def in_scope() -> bool:
    """True when this thread's context has a scope open (a probe that must not record other threads)."""
    return _SCOPE.get() is not None


def saw(status: int) -> bool:
    """True when the current scope recorded ``status``."""
    seen = _SCOPE.get()
    return seen is not None and status in seen.statuses


def saw_failure() -> bool:
    """True when the current scope recorded any 4xx/5xx status."""
    seen = _SCOPE.get()
    return seen is not None and any(status >= 400 for status in seen.statuses)


def last_status() -> int | None:
    """The last status recorded in the current scope."""
    seen = _SCOPE.get()
    return seen.statuses[-1] if seen is not None and seen.statuses else None


def _safe_record(status_of: Callable[[tuple[Any, ...], dict[str, Any], Any], Any], args: tuple[Any, ...],
                 kwargs: dict[str, Any], result: Any) -> None:
    if _SCOPE.get() is None and not _open:
        return
    try:
        record(status_of(args, kwargs, result))
    except Exception:  # noqa: BLE001 - a probe must never change what the library returns
        pass


def status_recorder(status_of: Callable[[tuple[Any, ...], dict[str, Any], Any], Any],
                    before: bool = False) -> Callable[..., Any]:
    """A wrapt wrapper that calls through and records ``status_of(args, kwargs, result)`` when a scope is
    open; with ``before`` it records from the arguments (result None) before calling."""

    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if before:
            _safe_record(status_of, args, kwargs, None)
            return wrapped(*args, **kwargs)
        result = wrapped(*args, **kwargs)
        _safe_record(status_of, args, kwargs, result)
        return result

    return wrapper


def observed() -> dict[str, Any]:
    """What the current scope saw, as JSON for a recorded response (redirect URLs redacted, as stored)."""
    seen = _SCOPE.get()
    if seen is None:
        return {}
    out: dict[str, Any] = {}
    if seen.statuses:
        out["statuses"] = list(seen.statuses)
    if seen.redirects:
        out["redirects"] = [[redact_url(origin), redact_url(final)] for origin, final in seen.redirects]
    return out


def replay_into(recorded: dict[str, Any]) -> None:
    """Record a replayed call's observations into the current scope, as its HTTP requests would have."""
    seen = _SCOPE.get()
    if seen is None:
        return
    seen.statuses.extend(s for s in recorded.get("statuses") or () if isinstance(s, int) and not isinstance(s, bool))
    for pair in recorded.get("redirects") or ():
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(u, str) for u in pair):
            if len(seen.redirects) < _MAX_REDIRECTS:
                seen.redirects.append((pair[0], pair[1]))


set_status_source(last_status)  # capture reads the probe's last status through this one seam
set_observation_seam(observed, replay_into)  # and keeps what the scope saw for replay
set_redirect_source(redirects, (open_scope, close_scope))  # and the redirects through this one
