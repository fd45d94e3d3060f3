"""Span exporters from the standard variables, chosen the way the SDK's configurator chooses them.

``OTEL_TRACES_EXPORTER`` is a comma list of names from the SDK's ``opentelemetry_traces_exporter`` entry-point
group (``otlp``, ``console``, ``otlp_proto_http``, ``otlp_proto_grpc``, and any installed exporter such as
``zipkin_json``); ``none`` means no exporter. Unknown names are skipped with a warning; when no name could
be used at all, ``otlp`` is (a typo must not silently export nothing). ``otlp`` becomes ``otlp_proto_http`` or ``otlp_proto_grpc`` from
``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`` / ``OTEL_EXPORTER_OTLP_PROTOCOL``, read as the SDK reads them. A protocol
the SDK does not support (``http/json``, which no Python OTLP exporter speaks, or a typo) is refused with a
``ValueError`` naming the variable, as the SDK's configurator refuses it, rather than exporting protobuf to a
receiver that was promised JSON. ``grpc`` without the gRPC exporter installed is a ``MissingExtra`` naming
``citetrace[grpc]``. One difference from the SDK, written down in docs/instrumentation.md: the protocol
default is ``http/protobuf`` (the specification's default, and the base install's exporter; the SDK's
configurator picks gRPC).

A newcomer with no collector: when the OTLP endpoint is the default one (no endpoint variable set), the
exporter is wrapped in ``QuietLocalExporter``, which checks that something accepts connections on the
loopback port before handing a batch to the SDK's exporter. Nothing listening costs one warning line and an
immediate return, instead of three retry tracebacks and about six seconds at exit.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from importlib.metadata import entry_points
from typing import Callable, Mapping, Sequence

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from citetrace import names
from citetrace._extras import require

__all__ = ["exporters_from_env", "QuietLocalExporter"]

_log = logging.getLogger("citetrace")
_GROUP = "opentelemetry_traces_exporter"
_BY_PROTOCOL = {"http/protobuf": "otlp_proto_http", "grpc": "otlp_proto_grpc"}
_DEFAULT_PORT = {"otlp_proto_http": 4318, "otlp_proto_grpc": 4317}


def _protocol(env: Mapping[str, str]) -> str:
    """The OTLP protocol for traces, per-signal variable first; one the SDK cannot export is a ValueError."""
    variable = names.ENV_OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
    raw = env.get(variable)
    if not raw:
        variable, raw = names.ENV_OTEL_EXPORTER_OTLP_PROTOCOL, env.get(names.ENV_OTEL_EXPORTER_OTLP_PROTOCOL)
    value = (raw or "http/protobuf").strip()
    if value not in _BY_PROTOCOL:
        why = " (no OpenTelemetry Python exporter speaks OTLP/JSON)" if value.lower() == "http/json" else ""
        raise ValueError(f"{variable}={raw!r} is not supported{why}: use http/protobuf or grpc")
    return value


def _entry_point_names(env: Mapping[str, str]) -> list[str]:
    raw = env.get(names.ENV_OTEL_TRACES_EXPORTER, "otlp")
    chosen: list[str] = []
    for part in raw.split(","):
        name = part.strip().lower()
        if not name or name == "none":
            continue
        if name == "otlp":
            name = _BY_PROTOCOL[_protocol(env)]
        if name not in chosen:
            chosen.append(name)
    if not raw.strip():
        chosen = [_BY_PROTOCOL[_protocol(env)]]
    return chosen


def _load(name: str) -> SpanExporter | None:
    if name == "otlp_proto_grpc":
        require("grpc")  # the base install has only the OTLP/HTTP exporter
    found = list(entry_points(group=_GROUP, name=name))
    if not found:
        _log.warning("citetrace: ignoring %s entry %r: no installed span exporter has that name (installed: %s)",
                     names.ENV_OTEL_TRACES_EXPORTER, name,
                     ", ".join(sorted({ep.name for ep in entry_points(group=_GROUP)})) or "none")
        return None
    try:
        exporter = found[0].load()()
    except Exception as exc:  # noqa: BLE001 - a broken exporter package must not stop the agent
        _log.warning("citetrace: span exporter %r could not be created (%s: %s); skipping it",
                     name, type(exc).__name__, exc)
        return None
    if not isinstance(exporter, SpanExporter):
        _log.warning("citetrace: %r is not a span exporter; skipping it", name)
        return None
    return exporter


def exporters_from_env(environ: Mapping[str, str] | None = None) -> list[SpanExporter]:
    """Every exporter ``OTEL_TRACES_EXPORTER`` names (``otlp`` by default), in order; ``none`` gives ``[]``."""
    env = os.environ if environ is None else environ
    endpoint_set = bool(env.get(names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT)
                        or env.get(names.ENV_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT))
    out: list[SpanExporter] = []
    chosen = _entry_point_names(env)
    loaded = [(name, _load(name)) for name in chosen]
    if chosen and all(e is None for _, e in loaded):  # a typo must not leave the agent exporting nothing
        fallback = _BY_PROTOCOL[_protocol(env)]
        _log.warning("citetrace: no exporter in %s=%r could be used; falling back to otlp",
                     names.ENV_OTEL_TRACES_EXPORTER, env.get(names.ENV_OTEL_TRACES_EXPORTER))
        loaded = [(fallback, _load(fallback))]
    for name, exporter in loaded:
        if exporter is None:
            continue
        port = _DEFAULT_PORT.get(name)
        if port is not None and not endpoint_set:
            exporter = QuietLocalExporter(exporter, "localhost", port)
        out.append(exporter)
    return out


class QuietLocalExporter(SpanExporter):
    """The SDK's exporter, called only while something accepts connections at ``host:port``.

    The check is one loopback connect (refused at once when nothing listens), made at most every
    ``recheck_s`` seconds on the export thread, so a collector started later still gets the spans that come
    after it. Batches exported while nothing listens are dropped: counted in ``dropped`` and told once.
    """

    def __init__(self, inner: SpanExporter, host: str, port: int, *, recheck_s: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
        self._address = (host, port)
        self._recheck_s = recheck_s
        self._clock = clock
        self._lock = threading.Lock()
        self._next_check = float("-inf")
        self._listening = False
        self._told = False
        self.dropped = 0

    def listening(self) -> bool:
        """Whether a receiver accepted a connection at the last check (re-checked after ``recheck_s``)."""
        with self._lock:
            now = self._clock()
            if now < self._next_check:
                return self._listening
            try:
                with socket.create_connection(self._address, timeout=0.25):
                    self._listening = True
            except OSError:
                self._listening = False
            self._next_check = now + self._recheck_s
            return self._listening

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.listening():
            return self.inner.export(spans)
        self.dropped += len(spans)
        if not self._told:
            self._told = True
            host, port = self._address
            _log.warning(
                "citetrace: nothing listens on %s:%d (the default OTLP endpoint), so spans are not exported; "
                "summaries, metrics and the run store work without it. Start a collector, set %s, or set %s=none "
                "to silence this.", host, port, names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT, names.ENV_OTEL_TRACES_EXPORTER)
        return SpanExportResult.FAILURE

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return bool(self.inner.force_flush(timeout_millis))

    def shutdown(self) -> None:
        self.inner.shutdown()
