"""`citetrace serve`: parse flags (flag > environment variable > default), run the service until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import gc
import os
import signal
import sys
import threading
from typing import Any, Callable

from citetrace import names
from citetrace._extras import require
from citetrace.cli import CommandError

__all__ = ["register"]



def _port(raw: str) -> int:
    value = int(raw)
    if not 0 <= value <= 65535:
        raise ValueError("expected a TCP port 0..65535")
    return value


def _positive_float(raw: str) -> float:
    value = float(raw)
    if value < 0:
        raise ValueError("expected a number >= 0")
    return value


def _positive_int(raw: str) -> int:
    value = int(raw)
    if value <= 0:
        raise ValueError("expected an integer > 0")
    return value


# dest -> (env var(s), parser, default, help). The first variable that is set wins over the default.
_FLAGS: dict[str, tuple[tuple[str, ...], Callable[[str], Any], Any, str]] = {
    "host": ((names.ENV_SERVE_HOST,), str, "127.0.0.1", "address to bind (OTLP and metrics)"),
    "port": ((names.ENV_SERVE_PORT,), _port, 4319, "OTLP/HTTP port (POST /v1/traces, GET /healthz)"),
    "metrics_port": ((names.ENV_SERVE_METRICS_PORT,), _port, 9464, "Prometheus /metrics port"),
    "token": ((names.ENV_SERVE_TOKEN,), str, None,
              "bearer token required on POST /v1/traces (prefer the env var: flags show up in ps)"),
    "grace_seconds": ((names.ENV_SERVE_GRACE_SECONDS,), _positive_float, 2.0,
                      "seconds after a run's root span arrives before its trace is finalised"),
    "max_body_bytes": ((names.ENV_SERVE_MAX_BODY_BYTES,), _positive_int, 16 * 1024 * 1024,
                       "largest request body, before and after gzip decompression (413 above)"),
    "store": ((names.ENV_SERVE_STORE, names.ENV_STORE), str, names.STORE_DEFAULT_URI,
              "run store that receives each run's summary (sqlite:///path.db, postgresql://user@host/db or memory://)"),
    "drain_seconds": ((names.ENV_SERVE_DRAIN_SECONDS,), _positive_float, 0.0,
                      "after SIGTERM, keep /metrics up this long so a last scrape sees the final counts"),
    "max_traces": ((names.ENV_MAX_TRACES,), _positive_int, 10_000,
                   "traces held in flight; the least recently active is evicted above it"),
    "max_spans_per_trace": ((names.ENV_MAX_SPANS_PER_TRACE,), _positive_int, 1_000,
                            "spans counted per trace; more are refused (partial success)"),
    "trace_ttl_seconds": ((names.ENV_TRACE_TTL_SECONDS,), _positive_float, 600.0,
                          "a trace idle this long without a root is finalised from what arrived"),
    "max_roots_per_trace": ((names.ENV_SERVE_MAX_ROOTS_PER_TRACE,), _positive_int, 16,
                            "invoke_agent roots (runs) per trace; more are refused (partial success)"),
    "max_urls_per_trace": ((names.ENV_SERVE_MAX_URLS_PER_TRACE,), _positive_int, 20_000,
                           "URLs per trace (results, url.full, citations); a span past it is refused"),
    "max_held_bytes": ((names.ENV_SERVE_MAX_HELD_BYTES,), _positive_int, 256 * 1024 * 1024,
                       "bytes all traces in flight hold together (estimate); the least recent is evicted above it"),
    "request_timeout": ((names.ENV_SERVE_REQUEST_TIMEOUT,), _positive_float, 30.0,
                        "seconds a client has for one whole request, headers and body (408 after)"),
    "max_connections": ((names.ENV_SERVE_MAX_CONNECTIONS,), _positive_int, 1024,
                        "open connections; past it the longest-waiting incomplete or idle one is closed"),
    "max_inflight_bytes": ((names.ENV_SERVE_MAX_INFLIGHT_BYTES,), _positive_int, 64 * 1024 * 1024,
                           "request-body bytes held at once over all connections (503 + Retry-After above)"),
    "max_decode_bytes": ((names.ENV_SERVE_MAX_DECODE_BYTES,), _positive_int, 32 * 1024 * 1024,
                         "decompressed bytes being decoded at once (503 + Retry-After above)"),
}


def register(subparsers: Any) -> None:
    """Add ``citetrace serve``."""
    parser = subparsers.add_parser(
        "serve",
        help="receive OTLP spans (behind an OpenTelemetry Collector), serve run metrics",
        description="Receive OTLP/HTTP traces (protobuf or JSON, optionally gzip) on POST /v1/traces, summarize "
        "each run with the same code as in-process mode, serve Prometheus metrics and write summaries to the "
        "run store. Every flag falls back to its environment variable, then to its default.",
        epilog=f"Failure thresholds and the sample come from {names.ENV_MAX_SEARCHES}, {names.ENV_MAX_FAILED_READS}, "
        f"{names.ENV_SAMPLE_PERCENT}, {names.ENV_SAMPLE_SALT}; the agent label cap from {names.ENV_MAX_TOOL_NAMES}.",
    )
    for dest, (variables, _parser, default, text) in _FLAGS.items():
        flag = "--" + dest.replace("_", "-")
        env = " or ".join(f"${v}" for v in variables)
        metavar = {"host": "ADDR", "store": "URI", "token": "TOKEN"}.get(dest) or (
            "SECONDS" if dest.endswith(("seconds", "timeout")) else "PORT" if dest.endswith("port") else "N")
        parser.add_argument(flag, dest=dest, default=None, metavar=metavar,
                            help=f"{text} (env {env}; default {default})")
    parser.set_defaults(func=_run)


def _resolve(args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for dest, (variables, parse, default, _text) in _FLAGS.items():
        raw: str | None = getattr(args, dest)
        source = "--" + dest.replace("_", "-")
        if raw is None:
            for var in variables:
                if os.environ.get(var) is not None:
                    raw, source = os.environ[var], f"${var}"
                    break
        if raw is None:
            values[dest] = default
            continue
        try:
            values[dest] = parse(raw.strip())
        except ValueError as exc:
            raise CommandError(f"{source}={raw!r}: {exc}") from None
    return values


def _run(args: argparse.Namespace) -> int:
    require("serve")
    from citetrace.config import load_settings
    from citetrace.serve._service import ServeOptions, Service
    from citetrace.store import open_store

    values = _resolve(args)
    options = ServeOptions(
        host=values["host"], port=values["port"], metrics_port=values["metrics_port"], token=values["token"] or None,
        grace_seconds=values["grace_seconds"], max_body_bytes=values["max_body_bytes"],
        drain_seconds=values["drain_seconds"], max_roots_per_trace=values["max_roots_per_trace"],
        max_urls_per_trace=values["max_urls_per_trace"], max_held_bytes=values["max_held_bytes"],
        request_timeout=values["request_timeout"], max_connections=values["max_connections"],
        max_inflight_bytes=values["max_inflight_bytes"], max_decode_bytes=values["max_decode_bytes"],
    )
    settings = load_settings(max_traces=values["max_traces"], max_spans_per_trace=values["max_spans_per_trace"],
                             trace_ttl_seconds=values["trace_ttl_seconds"])
    try:
        store = open_store(values["store"])
    except (ValueError, OSError) as exc:
        raise CommandError(f"cannot open store {values['store']!r}: {exc}") from None
    service = Service(options, settings=settings, store=store)
    # A dedicated service process: move startup objects out of the cyclic GC's way and collect young objects
    # less often (ingestion allocates many short-lived, acyclic objects; ~25 % of CPU went to gen-0 passes).
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        service.start()
    except OSError as exc:
        store.close()
        raise CommandError(str(exc)) from None
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"citetrace serve: OTLP/HTTP on http://{options.host}:{service.port}/v1/traces, "
          f"metrics on http://{options.host}:{service.metrics_port}/metrics", file=sys.stderr, flush=True)
    lost = service.run_until(stop)
    print(f"citetrace serve: stopped; {lost} trace(s) were in flight (summaries incomplete or lost)",
          file=sys.stderr, flush=True)
    return 0
