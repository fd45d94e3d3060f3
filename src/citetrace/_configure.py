"""``configure()``: one call that wires a TracerProvider, an exporter from the standard ``OTEL_*`` variables,
the run store and citetrace's processors.

It adds to a TracerProvider the application already set instead of replacing it, because replacing a
provider silently drops the application's own exporters.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter

from citetrace import names
from citetrace._exitbound import BoundedBatchSpanProcessor
from citetrace._exporters import exporters_from_env
from citetrace._join import JoiningTracerProvider
from citetrace.capture._internal import ADOPTER
from citetrace._telemetry import Telemetry, current, install
from citetrace.config import Settings, load_settings
from citetrace.store import Store, agent_store

__all__ = ["configure", "Telemetry"]

_log = logging.getLogger("citetrace")
_lock = threading.Lock()  # one configure() at a time


def _summary_processor(settings: Settings, store: Store | None, exporters: list[SpanExporter],
                       spans_from: trace.TracerProvider) -> tuple[Any, Any]:
    """citetrace's processor: summary, metrics and (opted in) keep-on-failure sampling before the exporters."""
    from prometheus_client import CollectorRegistry

    from citetrace.processor import TraceSummaryProcessor

    registry = CollectorRegistry(auto_describe=True) if settings.metrics == "embedded" else None
    processor = TraceSummaryProcessor(settings=settings, store=store, registry=registry, exporter=exporters or None,
                                      tracer_provider=spans_from)
    return processor, registry



def _observe(app: TracerProvider, processor: Any) -> None:
    """Joining the application's provider: agent boundaries may adopt its roots, and summaries see its spans."""
    app.add_span_processor(ADOPTER)
    app.add_span_processor(processor.observer())

def configure(
    *,
    tracer_provider: TracerProvider | None = None,
    store: Store | str | None = None,
    exporter: SpanExporter | None = None,
    capture_content: bool | None = None,
    metrics: str | None = None,
    metrics_port: int | None = None,
    set_global: bool = True,
    **settings: Any,
) -> Telemetry:
    """Set citetrace up. Arguments beat ``CITETRACE_*``/``OTEL_*`` variables, which beat defaults.

    When no SDK provider is set, one is created; ``set_global=False`` keeps it private and joins the
    provider the application sets later (``citetrace._join``; what the start-up hook does).
    ``OTEL_SDK_DISABLED=true`` makes every wrapper a straight call and sets nothing up.
    """
    resolved = load_settings(capture_content=capture_content, metrics=metrics, metrics_port=metrics_port, **settings)
    if store is not None and not isinstance(store, (str, Store)):
        raise TypeError(f"configure(store=...) expects a URI or a Store, got {type(store).__name__}")
    with _lock:
        previous = current()
        if previous.configured:
            if previous.implicit:  # the start-up hook's: the application's own call takes over, as expected
                _log.debug("citetrace: configure() replaces the start-up hook's configuration")
            else:
                _log.warning("citetrace: configure() called again; shutting down the previous configuration")
            previous.shutdown()
        if resolved.sdk_disabled:
            return _installed(Telemetry(resolved, configured=True))
        return _installed(_set_up(resolved, tracer_provider, store, exporter, set_global))


def _installed(telemetry: Telemetry) -> Telemetry:
    install(telemetry)
    return telemetry


def _set_up(resolved: Settings, tracer_provider: TracerProvider | None, store: Store | str | None,
            exporter: SpanExporter | None, set_global: bool) -> Telemetry:
    """The provider (given, the application's, or a new one with the ``OTEL_*`` exporters), the store and
    citetrace's processors, wired together."""
    # opened on first write, bounded lock waits, a queue for a locked store; a bad URI argument raises here
    run_store = agent_store(store, resolved)

    owns = False
    provider = tracer_provider
    exporters = [exporter] if exporter is not None else []
    if provider is None:
        existing = trace.get_tracer_provider()
        if isinstance(existing, TracerProvider):
            provider = existing
        else:
            service = resolved.service_name or "research-agent"
            provider = TracerProvider(resource=Resource.create({"service.name": service}))
            owns = True
            if exporter is None:  # before the global provider is set: an unsupported protocol leaves nothing set
                exporters = exporters_from_env()
            if set_global:
                trace.set_tracer_provider(provider)
    if not isinstance(provider, TracerProvider):
        raise TypeError("configure(tracer_provider=...) expects an opentelemetry.sdk.trace.TracerProvider")

    # Collector sampling (the default): every span is exported and a collector's tail sampler may decide,
    # reading the decision off the run's root. Embedded sampling (opt-in): the summary processor holds
    # citetrace's spans per trace and exports only kept ones, through the SDK's BatchSpanProcessor.
    embedded = resolved.sampling_mode == names.SAMPLING_EMBEDDED
    spans_from: trace.TracerProvider | None = None
    if owns and not set_global:
        spans_from = JoiningTracerProvider(provider, on_join=lambda app: _observe(app, processor))
    processor, registry = _summary_processor(resolved, run_store, exporters if embedded else [], spans_from or provider)
    provider.add_span_processor(ADOPTER)
    provider.add_span_processor(processor)
    if not embedded:
        for each in exporters:
            provider.add_span_processor(BoundedBatchSpanProcessor(each, on_drop=processor.count_buffer_drops))

    server = None
    if registry is not None and resolved.metrics_port is not None:
        from citetrace.metrics import start_metrics_server

        server = start_metrics_server(resolved.metrics_port, registry=registry)
    return Telemetry(resolved, provider, run_store, processor, registry, server, owns, span_source=spans_from,
                     configured=True)
