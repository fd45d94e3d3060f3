"""``citetrace serve`` put together: OTLP/HTTP in, the summary's metrics and store out.

The receiver, the trace assembler, a finaliser thread and the metrics endpoint are wired here and nowhere
else. Summaries are computed by the same ``RunAccumulator``/``summarize`` code and recorded through the same
``SummaryMetrics`` as in-process mode, so ``/metrics`` carries the same names. Stopping (SIGTERM) first answers
ingestion with 503 so the collector retries elsewhere or later, counts every trace still held as in flight (``citetrace_traces_evicted_total{reason="shutdown"}``: runs whose
root arrived are summarised from what arrived, the others dropped), and keeps ``/metrics`` up
for ``drain_seconds`` so a last scrape sees those counts.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry

from citetrace import _settings, names
from citetrace._logonce import OnceLogger
from citetrace.config import Settings, load_settings
from citetrace.serve._assembler import DECODED_KEYS, Assembler, Finished
from citetrace.serve._decode import Decoded
from citetrace.serve._http import Accepted, Ingest, IngestServer, Limits
from citetrace.serve._selfmetrics import ServeMetrics
from citetrace.store import BufferedStore, Store
from citetrace.metrics import SummaryMetrics, start_metrics_server
from citetrace.summary import Thresholds

__all__ = ["ServeOptions", "Service"]

_log = logging.getLogger("citetrace.serve")
_d = _settings.default


@dataclass(frozen=True)
class ServeOptions:
    """How ``citetrace serve`` listens; the summary's own knobs come from ``Settings``. Defaults: the
    ``serve_*`` rows of the one table of settings (``citetrace._settings``)."""

    host: str = _d("serve_host")
    port: int = _d("serve_port")
    metrics_port: int | None = _d("serve_metrics_port")
    token: str | None = _d("serve_token")
    grace_seconds: float = _d("serve_grace_seconds")
    max_body_bytes: int = _d("serve_max_body_bytes")
    drain_seconds: float = _d("serve_drain_seconds")
    max_connections: int = _d("serve_max_connections")
    request_timeout: float = _d("serve_request_timeout")
    max_inflight_bytes: int = _d("serve_max_inflight_bytes")
    max_decode_bytes: int = _d("serve_max_decode_bytes")
    max_roots_per_trace: int = _d("serve_max_roots_per_trace")
    max_urls_per_trace: int = _d("serve_max_urls_per_trace")
    max_held_bytes: int = _d("serve_max_held_bytes")


class Service:
    """One running ``citetrace serve``. ``start()``, then ``stop()``."""

    def __init__(
        self,
        options: ServeOptions | None = None,
        *,
        settings: Settings | None = None,
        store: Store | None = None,
        registry: CollectorRegistry | None = None,
    ) -> None:
        self.options = options or ServeOptions()
        settings = settings if settings is not None else load_settings()
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        self.metrics = SummaryMetrics.for_registry(self.registry, max_tool_names=settings.max_tool_names)
        self.serve_metrics = ServeMetrics(self.registry)
        self.store = store
        if isinstance(store, BufferedStore):  # its queued and lost writes on /metrics, as in an agent
            self.metrics.watch_store(store)
        self.assembler = Assembler(
            metrics=self.metrics,
            thresholds=Thresholds.from_settings(settings),
            max_traces=settings.max_traces,
            max_spans_per_trace=settings.max_spans_per_trace,
            max_roots_per_trace=self.options.max_roots_per_trace,
            max_urls_per_trace=self.options.max_urls_per_trace,
            max_held_bytes=self.options.max_held_bytes,
            grace_seconds=self.options.grace_seconds,
            ttl_seconds=settings.trace_ttl_seconds,
        )
        self.serve_metrics.held.set_function(lambda: float(self.assembler.held_bytes))
        self._draining = threading.Event()
        self._stopped = threading.Event()
        self._once = OnceLogger("citetrace serve")
        self._tick = max(0.02, min(0.25, self.options.grace_seconds / 4))
        self._server: IngestServer | None = None
        self._metrics_server: Any = None
        self._threads: list[threading.Thread] = []
        self.lost_at_shutdown = 0

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> Service:
        """Bind both ports (raising ``OSError`` naming the address) and start serving in daemon threads."""
        opts = self.options
        ingest = Ingest(
            accept=self._accept, answered=self._answered, health=self._health, draining=self._draining.is_set,
            on_error=self._error, max_body_bytes=opts.max_body_bytes, token=opts.token or None,
            keys=DECODED_KEYS,
        )
        try:
            self._server = IngestServer(opts.host, opts.port, ingest, Limits(
                max_connections=opts.max_connections, request_timeout=opts.request_timeout,
                max_inflight_bytes=opts.max_inflight_bytes, max_decode_bytes=opts.max_decode_bytes))
        except OSError as exc:
            raise OSError(exc.errno, f"cannot serve OTLP on {opts.host}:{opts.port}: {exc.strerror or exc}") from exc
        if opts.metrics_port is not None:
            try:
                self._metrics_server = start_metrics_server(opts.metrics_port, opts.host, registry=self.registry)
            except OSError:
                self._server.server_close()
                raise
        server = self._server
        for target, name in ((lambda: server.serve_forever(poll_interval=0.1), "citetrace-serve-http"),
                             (self._finaliser, "citetrace-serve-finaliser")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        _log.info("citetrace serve: OTLP/HTTP on http://%s:%d/v1/traces, metrics on port %s",
                  opts.host, self.port, self.metrics_port)
        return self

    @property
    def http(self) -> IngestServer:
        """The OTLP/HTTP server (its ``inflight`` and ``decode`` budgets are what tests and benchmarks read)."""
        if self._server is None:
            raise RuntimeError("the service is not started")
        return self._server

    @property
    def port(self) -> int:
        """The OTLP port actually bound."""
        return int(self._server.server_address[1]) if self._server is not None else self.options.port

    @property
    def metrics_port(self) -> int | None:
        """The metrics port actually bound (None when metrics are not served)."""
        if self._metrics_server is None:
            return None
        return int(self._metrics_server.server_port)

    def stop(self, drain_seconds: float | None = None) -> int:
        """Stop ingesting, finalise what can be, keep /metrics up ``drain_seconds``; return traces in flight."""
        if self._draining.is_set():
            return self.lost_at_shutdown
        self._draining.set()
        summaries, lost = self.assembler.drain()
        self._report(summaries)
        self.lost_at_shutdown = lost
        if lost:
            _log.warning("citetrace serve: %d trace(s) were in flight at shutdown (%d run(s) summarised from "
                         "what had arrived, the rest dropped)", lost, len(summaries))
        self._stopped.set()
        wait = self.options.drain_seconds if drain_seconds is None else drain_seconds
        if wait > 0:
            time.sleep(wait)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
            self._metrics_server.server_close()
        for thread in self._threads:
            thread.join(5)
        if self.store is not None:
            try:
                self.store.close()
            except Exception as exc:  # noqa: BLE001
                self._store_error(exc)
        return lost

    # -- ingestion (HTTP threads) --------------------------------------------------------------------
    def _accept(self, decoded: Decoded) -> Accepted:
        added = self.assembler.add(decoded.spans)
        if added.closed:
            return Accepted(0, "", retry=True)
        if decoded.rejected > decoded.mistyped:
            self.serve_metrics.rejected.labels(names.REJECT_INVALID_SPAN).inc(decoded.rejected - decoded.mistyped)
        if decoded.mistyped:
            self.serve_metrics.rejected.labels(names.REJECT_ATTRIBUTE_TYPE).inc(decoded.mistyped)
        self.serve_metrics.spans.inc(len(decoded.spans))
        if added.late:
            self.serve_metrics.late.inc(added.late)
        if added.finished:
            self._report(added.finished)
        problem = f"{added.refused} span(s) refused; first: {added.problem}" if added.refused else ""
        return Accepted(added.refused, problem)

    def _answered(self, code: int, reason: str | None) -> None:
        self.serve_metrics.answered(code)
        if reason is not None:
            self.serve_metrics.rejected.labels(reason).inc()

    def _health(self) -> dict[str, object]:
        return {"traces_in_flight": self.assembler.in_flight}

    # -- finalising ----------------------------------------------------------------------------------
    def _finaliser(self) -> None:
        while not self._stopped.wait(self._tick):
            try:
                self._report(self.assembler.finalize_due())
            except Exception as exc:  # noqa: BLE001 - the loop must survive anything
                self._error(exc)

    def _report(self, finished: list[Finished]) -> None:
        """Each run's metrics, then its summary in the store, with the record its root describes (the store files
        it when it has none for the run: real start and end, question and answer when the agent captured them)."""
        for summary, run in finished:
            try:
                self.metrics.observe_summary(summary)
            except Exception as exc:  # noqa: BLE001
                self._error(exc)
            if self.store is not None:
                try:
                    self.store.put_summary(run.run_id, summary.to_dict(), trace_id=summary.trace_id,
                                           agent=summary.agent, run=run)
                except Exception as exc:  # noqa: BLE001
                    self._store_error(exc)

    # -- errors: counted, logged once ----------------------------------------------------------------
    def _error(self, exc: BaseException) -> None:
        self.metrics.span_errors.inc()
        self._once.warn("processing", exc)

    def _store_error(self, exc: BaseException) -> None:
        self.metrics.store_errors.inc()
        self._once.warn("store", exc)

