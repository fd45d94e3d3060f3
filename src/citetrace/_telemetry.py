"""The one telemetry object: everything citetrace's wrappers, processors and servers read as "current".

``configure()`` builds a ``Telemetry`` and installs it; the wrappers, the summary processor, the metrics
server and the ledger reach it through ``current()`` and nowhere else. Before any ``configure()`` the
current one is made from the environment: the global tracer provider, the store ``CITETRACE_STORE`` names
(opened on first write), no processor. ``citetrace.testing`` and test fixtures swap it with ``install()``.

The run-end hooks, error listeners and swallowed-error counts (``Hooks``) are handed from each telemetry
to the next, so a ``TraceSummaryProcessor`` a user added by hand keeps its hook across a ``configure()``.
The hot path reads ``current().enabled`` and ``current().settings``: one call and one attribute.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Mapping, Optional, TypeVar

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider as SDKTracerProvider
from opentelemetry.trace import Span, Tracer, TracerProvider

from citetrace import names
from citetrace._redact import redact_text
from citetrace._version import version
from citetrace.config import Settings, load_settings
from citetrace.store import BufferedStore, Store, agent_store

__all__ = [
    "ErrorListener",
    "Hooks",
    "RunEndHook",
    "Telemetry",
    "count_error",
    "current",
    "install",
    "reset",
]

_log = logging.getLogger("citetrace")

RunEndHook = Callable[[Span, int], Optional[Mapping[str, Any]]]
"""(root span, trace id) -> attributes to set on the root before it ends."""
ErrorListener = Callable[[str], None]
"""Told the kind of every failure capture swallows, so a metrics owner can count it."""

_C = TypeVar("_C", bound=Callable[..., Any])


class Callbacks(Generic[_C]):
    """A copy-on-write tuple of callbacks: registration is locked, reading on the hot path is not."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: tuple[_C, ...] = ()

    def add(self, callback: _C) -> None:
        """Add ``callback`` (idempotent)."""
        with self._lock:
            if callback not in self.items:
                self.items = (*self.items, callback)

    def remove(self, callback: _C) -> None:
        """Remove ``callback`` if present."""
        with self._lock:
            self.items = tuple(c for c in self.items if c != callback)


class Hooks:
    """How a summarizer and a metrics owner subscribe to capture without capture knowing about either, and
    the count of every failure capture swallowed (logged once per kind).

    Capture calls every run-end hook with the live root span and its trace id just before ``end()``; a hook
    returns attributes to set on the span (or None). Error listeners are told the kind of every swallowed
    failure (``capture``, ``store_write``, ``run_end_hook``).
    """

    def __init__(self) -> None:
        self.run_end: Callbacks[RunEndHook] = Callbacks()
        self.error_listeners: Callbacks[ErrorListener] = Callbacks()
        self._lock = threading.Lock()
        self._errors: dict[str, int] = {}
        self.logged: set[str] = set()

    def count_error(self, kind: str, exc: BaseException | None = None, *, message: str = "") -> None:
        """Count a swallowed failure; log the first of each kind (with traceback at debug); tell listeners."""
        with self._lock:
            self._errors[kind] = self._errors.get(kind, 0) + 1
            first = kind not in self.logged
            self.logged.add(kind)
        if first:
            _log.warning("citetrace: %s failed (%s%s); counted, further ones are logged at debug", kind,
                         type(exc).__name__ if exc else "", f": {redact_text(str(exc), 1000)}" if exc else message)
        _log.debug("citetrace: %s failed", kind, exc_info=exc)
        for listener in self.error_listeners.items:
            try:
                listener(kind)
            except Exception:  # noqa: BLE001 - a metrics listener must not turn one failure into two
                pass

    def error_counts(self) -> dict[str, int]:
        """A snapshot of swallowed errors by kind."""
        with self._lock:
            return dict(self._errors)


@dataclass(eq=False)
class Telemetry:
    """What citetrace is set up with; ``configure()`` returns it, ``shutdown()`` flushes and releases it.

    ``tracer_provider`` is the SDK provider ``configure()`` set up or joined (None: the global one);
    ``span_source`` is where citetrace's spans come from when that is not ``tracer_provider`` (a provider
    that joins the application's later, or ``instrument(tracer_provider=tp)``). ``store`` None means the
    store the settings name, opened on first write.
    """

    settings: Settings
    tracer_provider: TracerProvider | None = None
    store: Store | None = None
    processor: Any = None
    registry: Any = None
    metrics_server: Any = None
    owns_provider: bool = False
    span_source: TracerProvider | None = None
    configured: bool = False
    implicit: bool = False
    """Made by the start-up hook (or ``opentelemetry-instrument``), not by the application: the application's
    own ``configure()`` replaces it without a warning."""
    hooks: Hooks = field(default_factory=Hooks)
    enabled: bool = field(init=False)
    _tracer: Tracer | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.enabled = not self.settings.sdk_disabled

    # -- what the wrappers read --------------------------------------------------------------------------
    def tracer(self) -> Tracer:
        """The tracer for citetrace's spans: the span source's, else the global one (a proxy until one is set)."""
        tracer = self._tracer
        if tracer is None:
            provider = self.span_source if self.span_source is not None else self.tracer_provider
            get = provider.get_tracer if provider is not None else trace.get_tracer
            tracer = self._tracer = get(names.INSTRUMENTATION_SCOPE, version(), schema_url=names.SCHEMA_URL)
        return tracer

    def use_tracer_provider(self, provider: TracerProvider | None) -> TracerProvider | None:
        """Make citetrace's spans come from ``provider`` (None: back to ``tracer_provider``); return the
        previous span source. ``CiteTraceInstrumentor().instrument(tracer_provider=tp)`` uses it."""
        previous = self.span_source
        self.span_source = provider
        self._tracer = None
        return previous

    def run_store(self) -> Store:
        """The run store: the configured one, else the settings' one (opened lazily, made on first use)."""
        store = self.store
        if store is None:
            with _lock:
                if self.store is None:
                    self.store = agent_store(None, self.settings)
                store = self.store
        return store

    # -- lifecycle ---------------------------------------------------------------------------------------
    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Export what is decided and write what the store queued, within ``timeout_millis`` overall."""
        deadline = time.monotonic() + timeout_millis / 1000.0
        done = True
        if isinstance(self.tracer_provider, SDKTracerProvider):
            done = bool(self.tracer_provider.force_flush(timeout_millis))
        if isinstance(self.store, BufferedStore):
            done = self.store.flush(max(0.0, deadline - time.monotonic())) and done
        return done

    def shutdown(self) -> None:
        """Export what is left (bounded by the OTLP timeout plus a margin), then flush the store's queue
        (bounded by ``CITETRACE_STORE_EXIT_WAIT_SECONDS``); what is still queued then is counted lost.

        Wrappers keep the settings, provider and store afterwards (nothing else is set up in their place);
        the processor, registry and metrics server are released, and a later ``configure()`` starts afresh.
        """
        if isinstance(self.tracer_provider, SDKTracerProvider):
            if self.owns_provider:
                self.tracer_provider.shutdown()
            elif self.processor is not None:
                self.processor.shutdown()
        if isinstance(self.store, BufferedStore):
            self.store.close_at_exit()
        if self.metrics_server is not None:
            try:
                self.metrics_server.shutdown()
                self.metrics_server.server_close()
            except Exception:  # noqa: BLE001 - a server already stopped by the user
                pass
        with _lock:
            if _current is self:
                _install(Telemetry(self.settings, self.tracer_provider, self.store, span_source=self.span_source,
                                   hooks=self.hooks))


_lock = threading.RLock()
_current: Telemetry = Telemetry(load_settings())


def current() -> Telemetry:
    """The telemetry in force: what the last ``configure()`` set up, else the one made from the environment."""
    return _current


def _install(telemetry: Telemetry) -> Telemetry:
    global _current
    previous, _current = _current, telemetry
    return previous


def install(telemetry: Telemetry) -> Telemetry:
    """Make ``telemetry`` current (it takes over the hooks and error counts); return the previous one."""
    with _lock:
        telemetry.hooks = _current.hooks
        return _install(telemetry)


def reset(settings: Settings | None = None, *, tracer_provider: TracerProvider | None = None,
          store: Store | None = None) -> Telemetry:
    """Install a fresh, unconfigured telemetry (settings from the environment unless given); return the new one."""
    telemetry = Telemetry(settings or load_settings(), tracer_provider, store)
    install(telemetry)
    return telemetry


def count_error(kind: str, exc: BaseException | None = None, *, message: str = "") -> None:
    """Count a swallowed telemetry/store failure on the current telemetry (``Hooks.count_error``)."""
    _current.hooks.count_error(kind, exc, message=message)
