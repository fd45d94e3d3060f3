"""``citetrace demo``: run the offline demo end to end and print what citetrace recorded for each run.

A thin layer: it parses flags, calls ``configure()`` (store, metrics, and OTLP export when asked for), then
``run_demo``. Spans leave the process only when OTLP export is requested (``--otlp-endpoint`` or the
standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_TRACES_EXPORTER`` variables).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import asdict
from typing import Any, Iterable, Sequence

from citetrace import names
from citetrace._extras import require
from citetrace._stopsignals import StopSignals
from citetrace.cli import CommandError, positive_int, positive_number, store_uri, tcp_port
from citetrace.demo._plan import Question

__all__ = ["register", "demo_command"]

_OTLP_TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"


def shown_faults(questions: Sequence[Question], faults: Iterable[str]) -> str:
    """The faults these questions will show (a fault no selected question triggers is not listed as shown)."""
    shown = sorted(set(faults) & {f for q in questions for f in q.faults})
    return f"faults: {', '.join(shown) or 'none'}"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``citetrace demo``."""
    p = sub.add_parser(
        "demo",
        help="run the offline demo: local search and site servers, a scripted agent, every failure",
        description="Run a deterministic research agent against local servers (no LLM, no internet) and "
        "print each run's tool calls, stored documents and summary. By default: six questions, every fault.",
    )
    p.add_argument("--list", action="store_true", help="list the questions and faults, then exit")
    p.add_argument("--questions", default="default", metavar="IDS",
                   help="question ids separated by commas, 'default' (six) or 'all' (see --list)")
    faults = p.add_mutually_exclusive_group()
    faults.add_argument("--faults", default="all", metavar="NAMES",
                        help="faults to show: names separated by commas, 'all' (default) or 'none'")
    faults.add_argument("--no-faults", action="store_true", help="clean runs only (same as --faults none)")
    p.add_argument("--store", default=None, metavar="URI",
                   help="run store (default: $CITETRACE_STORE or sqlite:///.citetrace/store.db)")
    p.add_argument("--metrics-port", type=tcp_port, default=None, metavar="PORT",
                   help="serve Prometheus metrics on 127.0.0.1:PORT while the demo runs "
                   "(default: $CITETRACE_METRICS_PORT, else 0 = a free port)")
    p.add_argument("--no-metrics", action="store_true", help="do not serve metrics")
    p.add_argument("--otlp-endpoint", default=None, metavar="URL",
                   help="also export spans over OTLP/HTTP to this collector (e.g. http://127.0.0.1:4318); "
                   "the standard OTEL_* variables work too")
    p.add_argument("--agent", default="demo-researcher", metavar="NAME",
                   help="the agent name on the runs (the `agent` metric label; default demo-researcher)")
    p.add_argument("--loop", action="store_true", help="keep producing runs until stopped (for docker-compose)")
    p.add_argument("--interval", type=positive_number, default=5.0, metavar="SECONDS",
                   help="pause between rounds with --loop (default 5)")
    p.add_argument("--rounds", type=positive_int, default=None, metavar="N", help="with --loop, stop after N rounds")
    p.add_argument("--timeout", type=positive_number, default=0.75, metavar="SECONDS",
                   help="the page reader's timeout (default 0.75; the slow page answers after twice that)")
    p.add_argument("--check", action="store_true",
                   help="exit 1 if any run's summary differs from its hand-computed expectation")
    p.add_argument("--json", action="store_true", help="print one JSON object per run instead of the tables")
    p.add_argument("--ledger", default=None, metavar="SCENARIOS",
                   help="ledger mode: run claim-ledger scenarios (sso, contested, blocked, budget, or all) instead")
    p.add_argument("--with-ledger", action="store_true",
                   help="after the questions of each round, run the four claim-ledger scenarios too (their metrics"
                   " fill the dashboards' ledger row)")
    p.set_defaults(func=demo_command)


def _export_env(args: argparse.Namespace) -> None:
    """Decide whether spans are exported: only when asked, never to a default endpoint nobody listens on."""
    if args.otlp_endpoint:
        os.environ[names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT] = args.otlp_endpoint
        os.environ[names.ENV_OTEL_TRACES_EXPORTER] = "otlp"
    elif not any(v in os.environ for v in (names.ENV_OTEL_TRACES_EXPORTER, names.ENV_OTEL_EXPORTER_OTLP_ENDPOINT,
                                           _OTLP_TRACES_ENDPOINT)):
        os.environ[names.ENV_OTEL_TRACES_EXPORTER] = "none"
    os.environ.setdefault(names.ENV_OTEL_SERVICE_NAME, "citetrace-demo")


def _result_json(result: Any) -> dict[str, Any]:
    expected = result.expected
    return {
        "question": result.question.id,
        "run_id": result.run_id,
        "trace_id": result.trace_id,
        "faults": sorted(set(result.question.faults) & result.faults),
        "duration_s": round(result.duration_s, 4),
        "calls": [
            {"kind": c.kind, "target": c.target, **({k: v for k, v in asdict(c.record).items()
                                                    if k not in ("run_id", "urls_returned")} if c.record else {})}
            for c in result.calls
        ],
        "cited_urls": list(result.cited_urls),
        "report": result.report,
        "summary": result.summary or result.span_summary,
        "expected": None if expected is None else {**expected.signals(),
                                                   "failure_reasons": list(expected.failure_reasons)},
    }


def _lost_writes(store: Any) -> int:
    """Writes the store's queue gave up on (a store locked past the exit wait)."""
    stats = getattr(store, "stats", None)
    return sum(stats().lost.values()) if callable(stats) else 0


def demo_command(args: argparse.Namespace) -> int:
    """Run ``citetrace demo``; returns the exit status."""
    from citetrace import configure
    from citetrace._telemetry import current
    from citetrace.demo._catalogue import select_questions
    from citetrace.demo._faults import parse_faults
    from citetrace.demo._render import compare_expected, format_catalogue, format_result
    from citetrace.demo._runner import run_demo
    from citetrace.demo._servers import DemoServers

    if args.list:
        print(format_catalogue())
        return 0
    if args.ledger is not None:
        from citetrace.demo._ledger_demo import ledger_demo_command

        _export_env(args)
        return ledger_demo_command(args)
    require("demo")  # before the header, the metrics server and the store: the missing extra is the one line
    try:
        questions = select_questions(args.questions)
        faults = parse_faults("none" if args.no_faults else args.faults)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if not args.agent.strip():
        raise CommandError("--agent must not be empty")
    _export_env(args)
    port = args.metrics_port
    if port is None and names.ENV_METRICS_PORT not in os.environ:
        port = 0
    uri = store_uri(args.store)  # CITETRACE_STORE=ftp://x stops the demo here, naming the variable
    write_errors = current().hooks.error_counts().get("store_write", 0)
    try:
        telemetry = configure(store=uri, metrics="off" if args.no_metrics else None,
                              metrics_port=None if args.no_metrics else port)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    store = telemetry.store
    mismatches = 0
    printed = 0

    def on_run(result: Any) -> None:
        nonlocal mismatches, printed
        printed += 1
        if compare_expected(result, result.summary or result.span_summary):
            mismatches += 1
        if args.json:
            print(json.dumps(_result_json(result)), flush=True)
        else:
            print(format_result(result, store, index=printed if not args.loop else 0,
                                total=len(questions) if not args.loop else 0) + "\n", flush=True)

    if not args.json:
        server = telemetry.metrics_server
        where = f"http://127.0.0.1:{server.server_port}/metrics" if server is not None else "off"
        print(f"citetrace demo: {len(questions)} question(s), {shown_faults(questions, faults)}\n"
              f"  store {store.uri if store else '-'}   metrics {where}\n", flush=True)
    # --loop runs until a stop signal (SIGINT, SIGTERM, SIGHUP), seen between two runs; a one-shot demo keeps
    # Python's Ctrl-C (KeyboardInterrupt)
    stop = StopSignals("citetrace demo") if args.loop else None
    rounds = 0
    try:
        with stop or contextlib.nullcontext(), DemoServers(faults=faults, slow_seconds=2 * args.timeout) as servers:
            while True:
                run_demo(questions, faults, store=store, servers=servers, timeout=args.timeout,
                         slow_seconds=2 * args.timeout, on_run=on_run, agent_name=args.agent,
                         flush=lambda: telemetry.force_flush(2_000), should_stop=stop.asked if stop else None)
                if args.with_ledger and not (stop and stop.asked()):  # the claim-ledger scenarios too, so the
                    from citetrace.demo._ledger_demo import run_ledger_demo  # ledger's dashboard row has data

                    run_ledger_demo()
                    telemetry.force_flush(2_000)
                rounds += 1
                if (stop is None or (args.rounds is not None and rounds >= args.rounds)
                        or stop.wait(args.interval)):
                    break
            if stop is not None and stop.name:
                print(f"citetrace demo: stopped ({stop.name}) after {printed} run(s)", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        telemetry.shutdown()
    failed = current().hooks.error_counts().get("store_write", 0) - write_errors + _lost_writes(store)
    if failed:
        print(f"citetrace demo: error: {failed} write(s) to the store {uri} failed (see the warning above); "
              "the runs were not all recorded", file=sys.stderr, flush=True)
        return 1
    if not args.json:
        if store is None:  # OTEL_SDK_DISABLED: the agent ran untraced, so there is nothing to see again
            print(f"{printed} run(s) done; citetrace is disabled ({names.ENV_OTEL_SDK_DISABLED}), so nothing was "
                  "recorded.")
        elif uri.startswith("memory:"):
            print(f"{printed} run(s) done; the store was not kept (use --store sqlite:///PATH to keep runs).")
        else:
            print(f"{printed} run(s) recorded in {uri}. See them again with `citetrace runs` and "
                  "`citetrace show RUN_ID`" + (f" (--store {args.store})" if args.store else "") + ".")
    if args.check and mismatches:
        print(f"citetrace demo: {mismatches} run(s) differ from their expected signals", flush=True)
        return 1
    return 0
