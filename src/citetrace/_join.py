"""Leave the global TracerProvider to the application, and join the one it sets later.

The start-up hook runs before the application's code, which often sets its own SDK provider afterwards
(Phoenix's ``register()``, Langfuse, a hand-written set-up). Taking the global provider first would turn
that into "Overriding of current TracerProvider is not allowed" and leave the application's exporter with
no spans. So the hook keeps citetrace's provider private and hands out ``JoiningTracerProvider``: until the
application sets a provider, citetrace's spans go through the private one; from the first span after it
does, they go through the application's provider (so its exporters get them, in the same traces as its own
spans), and citetrace's summary processor is added to it as an observer that exports nothing.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Iterator, Optional, Sequence

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
from opentelemetry.trace import Link, Span, SpanKind, Tracer, TracerProvider
from opentelemetry.util import types

__all__ = ["JoiningTracerProvider"]

_log = logging.getLogger("citetrace")


def _global_provider() -> TracerProvider | None:
    """The provider the application set, or None while only the API's proxy is there."""
    provider = getattr(trace, "_TRACER_PROVIDER", None)  # one attribute read; the public getter reads os.environ
    if provider is None and not hasattr(trace, "_TRACER_PROVIDER"):  # pragma: no cover - a future API
        candidate = trace.get_tracer_provider()
        provider = None if isinstance(candidate, trace.ProxyTracerProvider) else candidate
    return provider


class JoiningTracerProvider(TracerProvider):
    """citetrace's own provider until the application sets a global one, then the application's.

    ``on_join(provider)`` is called once, with the application's provider, when citetrace starts using it.
    """

    def __init__(self, own: SdkTracerProvider, on_join: Callable[[SdkTracerProvider], None]) -> None:
        self.own = own
        self._on_join = on_join
        self._lock = threading.Lock()
        self.joined: TracerProvider | None = None

    def active(self) -> TracerProvider:
        """The provider citetrace's next span should come from."""
        joined = self.joined
        if joined is not None:
            return joined
        found = _global_provider()
        if found is None or found is self or found is self.own:
            return self.own
        return self._join(found)

    def _join(self, found: TracerProvider) -> TracerProvider:
        with self._lock:
            if self.joined is None:
                self.joined = found
                if isinstance(found, SdkTracerProvider):
                    try:
                        self._on_join(found)
                    except Exception as exc:  # noqa: BLE001 - joining must never break the application
                        _log.warning("citetrace: could not join the application's TracerProvider (%s: %s)",
                                     type(exc).__name__, exc)
                    _log.info("citetrace: the application set its own TracerProvider; citetrace's spans go "
                              "through it from now on")
                else:
                    _log.warning("citetrace: the application set a %s, not an SDK TracerProvider; citetrace's "
                                 "spans go through it, but no summaries are made for them",
                                 type(found).__name__)
            return self.joined

    def get_tracer(self, instrumenting_module_name: str, instrumenting_library_version: Optional[str] = None,
                   schema_url: Optional[str] = None, attributes: Optional[types.Attributes] = None) -> Tracer:
        return _JoiningTracer(self, (instrumenting_module_name, instrumenting_library_version, schema_url,
                                     attributes))


class _JoiningTracer(Tracer):
    """A tracer that asks its ``JoiningTracerProvider`` which provider to use at every span start."""

    def __init__(self, owner: JoiningTracerProvider, args: tuple[Any, ...]) -> None:
        self._owner = owner
        self._args = args
        self._provider: TracerProvider | None = None
        self._tracer: Tracer | None = None

    def _current(self) -> Tracer:
        provider = self._owner.active()
        tracer = self._tracer
        if provider is not self._provider or tracer is None:
            name, version, schema_url, attributes = self._args
            tracer = provider.get_tracer(name, version, schema_url, attributes)
            self._provider, self._tracer = provider, tracer
        return tracer

    def start_span(self, name: str, context: Optional[Context] = None, kind: SpanKind = SpanKind.INTERNAL,
                   attributes: types.Attributes = None, links: Optional[Sequence[Link]] = None,
                   start_time: Optional[int] = None, record_exception: bool = True,
                   set_status_on_exception: bool = True) -> Span:
        return self._current().start_span(name, context, kind, attributes, links, start_time, record_exception,
                                          set_status_on_exception)

    def start_as_current_span(self, name: str, context: Optional[Context] = None,  # type: ignore[override]
                              kind: SpanKind = SpanKind.INTERNAL, attributes: types.Attributes = None,
                              links: Optional[Sequence[Link]] = None, start_time: Optional[int] = None,
                              record_exception: bool = True, set_status_on_exception: bool = True,
                              end_on_exit: bool = True) -> Iterator[Span]:
        return self._current().start_as_current_span(  # type: ignore[return-value]
            name, context, kind, attributes, links, start_time, record_exception, set_status_on_exception,
            end_on_exit)
