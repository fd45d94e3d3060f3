"""Shared plumbing for the benchmark scripts: child processes, a counting no-op exporter, a network guard,
timing loops and the Markdown table.

Every configuration runs in its own child process (fresh imports, fresh globals, no cross-talk between
tracers) and the parent compares configurations measured back to back in the same run: absolute times
drift on a shared machine, ratios against a baseline from the same run do not drift much.
"""

from __future__ import annotations

import gc
import ipaddress
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager, Iterable, Sequence

__all__ = [
    "CountingExporter",
    "NetGuard",
    "Timing",
    "child_env",
    "format_table",
    "machine",
    "run_child",
    "sdk_provider",
    "time_calls",
    "unused_loopback_port",
]

# Variables that switch the peers' own usage telemetry off (belt and braces: NetGuard checks it anyway).
OPT_OUTS = {
    "TRACELOOP_TELEMETRY": "false",
    "TRACELOOP_METRICS_ENABLED": "false",
    "TRACELOOP_LOGGING_ENABLED": "false",
    "LANGFUSE_TELEMETRY_ENABLED": "false",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "false",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
}


def unused_loopback_port() -> int:
    """A 127.0.0.1 port nothing listens on (bound, read, closed: a connection there is refused)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a child: ours, the telemetry opt-outs, every endpoint on an unused loopback port."""
    port = unused_loopback_port()
    env = dict(os.environ)
    env.update(OPT_OUTS)
    env.update(
        {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "TRACELOOP_BASE_URL": f"http://127.0.0.1:{port}",
            "LANGFUSE_BASE_URL": f"http://127.0.0.1:{port}",
            "LANGFUSE_HOST": f"http://127.0.0.1:{port}",
            "PYTHONHASHSEED": "0",
        }
    )
    env.pop("OTEL_SDK_DISABLED", None)
    env.update(extra or {})
    return env


def run_child(script: str, args: Sequence[str], env: dict[str, str], timeout: float = 600.0) -> dict[str, Any]:
    """Run ``script`` with ``args`` in a fresh interpreter; its last stdout line is a JSON object."""
    proc = subprocess.run(
        [sys.executable, script, *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(
            f"benchmark child {' '.join(args)} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# -- in the child -------------------------------------------------------------------------------------
class CountingExporter:
    """A span exporter that drops everything and counts what it was handed (to see dropped spans)."""

    def __init__(self) -> None:
        self.exported = 0

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        self.exported += len(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def as_exporter(counting: CountingExporter) -> Any:
    """Wrap the counter in a real ``SpanExporter`` subclass (some peers type-check their exporter)."""
    from opentelemetry.sdk.trace.export import SpanExporter

    class _Exporter(SpanExporter):
        def export(self, spans: Sequence[Any]) -> Any:
            return counting.export(spans)

        def shutdown(self) -> None:
            return None

        def force_flush(self, timeout_millis: int = 30_000) -> bool:
            return True

    return _Exporter()


def sdk_provider() -> tuple[Any, CountingExporter]:
    """An SDK TracerProvider with a BatchSpanProcessor in front of a counting no-op exporter."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    counting = CountingExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(as_exporter(counting)))
    return provider, counting


@dataclass
class Timing:
    """Per-call microseconds of each timed repeat."""

    per_call_us: list[float] = field(default_factory=list)
    calls: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "median_us": statistics.median(self.per_call_us),
            "min_us": min(self.per_call_us),
            "repeats": len(self.per_call_us),
            "calls": self.calls,
        }


def _clock() -> Callable[[], float]:
    """``perf_counter``, or with ``BENCH_CLOCK=thread`` the timing thread's own CPU time: on a machine shared
    with other jobs, time spent descheduled then counts on neither side of a ratio (the exporter's thread is
    left out on both sides alike)."""
    return time.thread_time if os.environ.get("BENCH_CLOCK") == "thread" else time.perf_counter


def time_calls(
    call: Callable[[], Any], number: int, repeat: int, around: Callable[[], ContextManager[Any]] | None = None
) -> Timing:
    """Call ``call`` ``number`` times per repeat (after a warm-up), ``around()`` open during each repeat."""
    timing = Timing()
    for _ in range(min(number, 1000)):
        call()
    clock = _clock()
    for _ in range(repeat):
        gc.collect()
        if around is None:
            t0 = clock()
            for _ in range(number):
                call()
            t1 = clock()
        else:
            with around():
                t0 = clock()
                for _ in range(number):
                    call()
                t1 = clock()
        timing.per_call_us.append((t1 - t0) / number * 1e6)
        timing.calls += number
    return timing


class NetGuard:
    """Record every socket connect/lookup/send this process makes (a ``sys.addaudithook``; cannot be removed,
    so it is installed only in the separate network-check child, never while timing)."""

    EVENTS = ("socket.connect", "socket.getaddrinfo", "socket.sendto", "socket.sendmsg", "http.client.connect")

    def __init__(self) -> None:
        self.outside: list[str] = []
        self.loopback: list[str] = []
        sys.addaudithook(self._hook)

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event not in self.EVENTS:
            return
        host = self._host(event, args)
        target = f"{event} {host}"
        if host is None or _is_local(host):
            if target not in self.loopback:
                self.loopback.append(target)
        elif target not in self.outside:
            self.outside.append(target)

    @staticmethod
    def _host(event: str, args: tuple[Any, ...]) -> str | None:
        if event == "socket.getaddrinfo":
            return str(args[0]) if args and args[0] is not None else None
        if event == "http.client.connect":
            return str(args[1]) if len(args) > 1 else None
        address = args[1] if len(args) > 1 else None
        if isinstance(address, tuple) and address:
            return str(address[0])
        if isinstance(address, (str, bytes)):  # AF_UNIX
            return None
        return None if address is None else str(address)


def _is_local(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- in the parent ------------------------------------------------------------------------------------
def machine() -> str:
    """One line naming the machine and the versions that matter."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        sdk = version("opentelemetry-sdk")
    except PackageNotFoundError:
        sdk = "?"
    return (
        f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, opentelemetry-sdk {sdk}"
    )


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table (numbers right-aligned), ready to paste into the docs."""
    body = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)]
    numeric = [bool(body) and all(_is_number(r[i]) for r in body) for i in range(len(headers))]
    out = ["| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |"]
    out.append("|" + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric)) + "|")
    for row in body:
        cells = [c.rjust(w) if n else c.ljust(w) for c, w, n in zip(row, widths, numeric)]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if 0 < abs(value) < 0.1:
            return f"{value:.2g}"  # small ratios (a bare call) keep two significant digits
        return f"{value:.2f}" if abs(value) < 100 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _is_number(cell: str) -> bool:
    try:
        float(cell.replace(",", "").lstrip("+"))
    except ValueError:
        return False
    return True


def median_of(values: Iterable[float]) -> float:
    """Median (the rounds of one configuration)."""
    return float(statistics.median(list(values)))


def calls_and_rounds(doc: str | None, argv: Sequence[str] | None, *, calls: int = 2000, rounds: int = 7) -> tuple[int, int]:
    """The ``--calls N --rounds N --quick`` command line the per-invocation benchmarks share; ``--quick`` is 50
    calls, one round (checks the script works, measures nothing)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=calls)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--quick", action="store_true", help="a few calls: checks the script works, measures nothing")
    args = parser.parse_args(argv)
    return (50, 1) if args.quick else (args.calls, args.rounds)
