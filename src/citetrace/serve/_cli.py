"""`citetrace serve`: parse flags (flag > environment variable > default), run the service until a stop signal
(SIGINT, SIGTERM or SIGHUP, ``citetrace._stopsignals``)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import Any

from citetrace import _settings, names
from citetrace._extras import require
from citetrace._stopsignals import StopSignals
from citetrace.cli import CommandError

__all__ = ["register"]

_FLAGS: tuple[_settings.Setting, ...] = tuple(sorted(
    (s for s in _settings.SETTINGS if s.flag is not None), key=lambda s: s.owner == _settings.AGENT))
"""The rows ``citetrace serve`` takes as flags (flag > variable > default), from the one table of settings:
its own first, then the summary's bounds it shares with agents."""
_METAVARS = {"host": "ADDR", "store": "URI", "token": "TOKEN"}


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
    for row in _FLAGS:
        dest = row.field
        env = " or ".join(f"${v}" for v in row.env)
        metavar = _METAVARS.get(dest) or (
            "SECONDS" if dest.endswith(("seconds", "timeout")) else "PORT" if dest.endswith("port") else "N")
        text = row.doc.replace("`", "").rstrip(".")
        parser.add_argument(row.flag, dest=dest, default=None, metavar=metavar,
                            help=f"{text} (env {env}; default {row.default})")
    parser.set_defaults(func=_run)


def _resolve(args: argparse.Namespace) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for row in _FLAGS:
        raw: str | None = getattr(args, row.field)
        source = str(row.flag)
        if raw is None:
            for var in row.env:
                if os.environ.get(var) is not None:
                    raw, source = os.environ[var], f"${var}"
                    break
        if raw is None:
            values[row.field] = row.default
            continue
        try:
            values[row.field] = row.kind.parse(raw)
        except ValueError as exc:
            raise CommandError(f"{source}={raw!r}: {exc}") from None
    return values


def _run(args: argparse.Namespace) -> int:
    require("serve")
    from citetrace.config import load_settings
    from citetrace.serve._service import ServeOptions, Service
    from citetrace.store import agent_store, open_store

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
        # opened once now with the full lock wait: a bad URI, server or password fails here, in one line, and
        # the tables are created; then written as agents write, with short lock waits and a bounded queue
        open_store(values["store"]).close()
        store = agent_store(values["store"], settings)
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
    with StopSignals("citetrace serve") as stop:
        print(f"citetrace serve: OTLP/HTTP on http://{options.host}:{service.port}/v1/traces, "
              f"metrics on http://{options.host}:{service.metrics_port}/metrics", file=sys.stderr, flush=True)
        stop.wait()
        lost = service.stop()
        fate = "summaries incomplete or lost" if lost else "nothing lost"
        print(f"citetrace serve: stopped ({stop.name}); {lost} trace(s) were in flight ({fate})", file=sys.stderr,
              flush=True)
    return 0
