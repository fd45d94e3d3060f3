"""Process-wide capture state: the resolved settings, the tracer, and the swallowed-error counters.

Kept in one place so the hot path reads plain module attributes (a flag check and a straight call when
disabled) and so ``configure()`` and ``citetrace.testing`` can swap them atomically.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Callable

from opentelemetry import trace
from opentelemetry.trace import Tracer, TracerProvider

from citetrace import names
from citetrace._redact import redact_text
from citetrace.capture._hooks import error_listeners
from citetrace.config import Settings, load_settings
from citetrace.store import Store, default_store

__all__ = ["State", "state", "reset", "get_tracer", "count_error", "error_counts", "store"]

_log = logging.getLogger("citetrace")
_VERSION = "0.1.0"


@dataclass
class State:
    """What the wrappers read on every call."""

    settings: Settings
    enabled: bool
    tracer_provider: TracerProvider | None = None
    tracer: Tracer | None = None
    store: Store | None = None


def _initial() -> State:
    settings = load_settings()
    return State(settings=settings, enabled=not settings.sdk_disabled)


state: State = _initial()
_errors: dict[str, int] = {}
_logged: set[str] = set()
_lock = threading.Lock()


def reset(
    settings: Settings | None = None,
    *,
    tracer_provider: TracerProvider | None = None,
    store_: Store | None = None,
) -> State:
    """Swap in new settings / provider / store (``configure()`` and tests)."""
    global state
    settings = settings or load_settings()
    state = State(
        settings=settings,
        enabled=not settings.sdk_disabled,
        tracer_provider=tracer_provider,
        tracer=None,
        store=store_,
    )
    return state


def get_tracer() -> Tracer:
    """The tracer for our spans: the configured provider's, else the global one (a proxy until one is set)."""
    tracer = state.tracer
    if tracer is None:
        provider = state.tracer_provider
        if provider is not None:
            tracer = provider.get_tracer(names.INSTRUMENTATION_SCOPE, _VERSION, schema_url=names.SCHEMA_URL)
        else:
            tracer = trace.get_tracer(names.INSTRUMENTATION_SCOPE, _VERSION, schema_url=names.SCHEMA_URL)
        state.tracer = tracer
    return tracer


def use_tracer_provider(provider: TracerProvider | None) -> TracerProvider | None:
    """Make citetrace's spans come from ``provider`` (None: the configured or global one); return the previous.

    ``CiteTraceInstrumentor().instrument(tracer_provider=tp)`` uses it, as contrib instrumentors do.
    """
    previous = state.tracer_provider
    state.tracer_provider = provider
    state.tracer = None
    return previous


def store() -> Store:
    """The run store: the configured one, else the lazily opened default."""
    s = state.store
    if s is None:
        s = default_store()
    return s


def count_error(kind: str, exc: BaseException | None = None, *, message: str = "") -> None:
    """Count a swallowed telemetry/store failure; log the first of each kind (with traceback at debug)."""
    with _lock:
        _errors[kind] = _errors.get(kind, 0) + 1
        first = kind not in _logged
        _logged.add(kind)
    if first:
        _log.warning("citetrace: %s failed (%s%s); counted, further ones are logged at debug", kind,
                     type(exc).__name__ if exc else "", f": {redact_text(str(exc))}" if exc else message)
    _log.debug("citetrace: %s failed", kind, exc_info=exc)
    for listener in error_listeners():
        try:
            listener(kind)
        except Exception:  # noqa: BLE001 - a metrics listener must not turn one failure into two
            pass


def error_counts() -> dict[str, int]:
    """A snapshot of swallowed errors by kind (``capture``, ``store_write``, ``run_end_hook``)."""
    with _lock:
        return dict(_errors)


def guarded(kind: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """Decorator: run a telemetry helper, swallowing and counting any failure."""

    def deco(fn: Callable[..., object]) -> Callable[..., object]:
        def inner(*args: object, **kwargs: object) -> object:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - telemetry must never reach the agent
                count_error(kind, exc)
                return None

        return inner

    return deco
