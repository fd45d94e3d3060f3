"""What auto-instrumentation costs, measured in one run: patched vs unpatched library calls, and the
interpreter start-up cost of the ``.pth`` hook when it is installed but switched off.

Calls (interleaved round by round, median per-call time of the rounds):
  tavily.unpatched        TavilyClient.search, network replaced by an in-process requests adapter (10 results)
  tavily.patched          the same call instrumented: SDK provider + BatchSpanProcessor + no-op exporter
  tavily.not_recording    instrumented, provider sampler ALWAYS_OFF
  tavily.sdk_disabled     instrumented, OTEL_SDK_DISABLED (flag check and a straight call)
  fn.bare                 a plain search function returning 10 results
  fn.handwritten_span     the same inside a hand-written SDK span with 8 attributes (performance.md's unit)
  fn.traced_tool          the same function decorated with ``@traced_tool`` (the capture core's own cost)
  fn.patched              the same function wrapped through CITETRACE_TOOLS (core + the patch wrapper)
Start-up (each ``python -S`` then ``site.addsitedir(dir)``, so only the directory differs; interleaved):
  startup.without_hook    a site dir with no .pth
  startup.hook_off        a site dir holding citetrace_autoinstrument.pth, CITETRACE_AUTO_INSTRUMENT unset
  startup.hook_on         the same with CITETRACE_AUTO_INSTRUMENT=true (exporter none, memory store)

Run:  .venv/bin/python benchmarks/bench_instrumentation.py [--calls 300] [--rounds 15] [--starts 40]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Callable

import requests
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

from _canned import CannedAdapter, NoOpExporter

from citetrace import traced_tool
from citetrace import _telemetry
from citetrace.config import load_settings
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.store import MemoryStore

RESULTS = {"query": "q", "results": [{"url": f"https://bench.example/{i}", "title": f"t{i}", "content": "c" * 80}
                                     for i in range(10)]}
BODY = json.dumps(RESULTS).encode()


def web_search(query: str) -> list[dict[str, Any]]:
    """The user's own search tool (wrapped through CITETRACE_TOOLS in the patched configuration)."""
    return RESULTS["results"]


def _provider(sampler: Any = None) -> TracerProvider:
    provider = TracerProvider(sampler=sampler) if sampler is not None else TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(NoOpExporter(), max_queue_size=100_000))
    return provider


def _use(provider: TracerProvider | None, disabled: bool = False) -> None:
    settings = load_settings(sdk_disabled=disabled)
    _telemetry.reset(settings, tracer_provider=provider, store=MemoryStore())


def _time(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def bench_calls(calls: int, rounds: int) -> dict[str, float]:
    import tavily

    client = tavily.TavilyClient(api_key="k")
    client.session.mount("https://", CannedAdapter(BODY))
    module = types.ModuleType("bench_tools")
    module.web_search = web_search  # type: ignore[attr-defined]
    sys.modules["bench_tools"] = module
    recording, silent = _provider(), _provider(ALWAYS_OFF)
    instrumentor = CiteTraceInstrumentor()
    tracer = recording.get_tracer("bench")

    def handwritten() -> Any:
        with tracer.start_as_current_span("execute_tool web_search") as span:
            result = web_search("q")
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "web_search",
                                 "gen_ai.tool.type": "function", "citetrace.tool.kind": "search",
                                 "citetrace.tool.status": "ok", "citetrace.result.count": 10,
                                 "citetrace.result.size": 900,
                                 "citetrace.urls_returned": [r["url"] for r in result]})
            return result

    decorated = traced_tool(kind="search", name="web_search")(web_search)
    search: Callable[[], Any] = lambda: client.search("what is otel")  # noqa: E731
    samples: dict[str, list[float]] = {}

    def measure(name: str, fn: Callable[[], Any], n: int) -> None:
        fn()
        samples.setdefault(name, []).append(_time(fn, n))

    for _ in range(rounds):
        instrumentor.uninstrument() if instrumentor.is_instrumented_by_opentelemetry else None
        _use(recording)
        measure("tavily.unpatched", search, calls)
        measure("fn.bare", lambda: module.web_search("q"), calls * 10)
        measure("fn.handwritten_span", handwritten, calls)
        measure("fn.traced_tool", lambda: decorated("q"), calls)
        instrumentor.instrument(tools="bench_tools:web_search=search")
        measure("tavily.patched", search, calls)
        measure("fn.patched", lambda: module.web_search("q"), calls)
        _use(silent)
        measure("tavily.not_recording", search, calls)
        _use(None, disabled=True)
        measure("tavily.sdk_disabled", search, calls)
        recording.force_flush()
    instrumentor.uninstrument()
    recording.shutdown()
    silent.shutdown()
    return {name: statistics.median(values) for name, values in samples.items()}


def bench_startup(starts: int) -> dict[str, float]:
    pth = Path(sysconfig.get_paths()["purelib"]) / "citetrace_autoinstrument.pth"
    src_pth = Path(__file__).resolve().parents[1] / "src/citetrace/instrumentation/citetrace_autoinstrument.pth"
    with tempfile.TemporaryDirectory() as tmp:
        empty, hooked = Path(tmp, "empty"), Path(tmp, "hooked")
        empty.mkdir()
        hooked.mkdir()
        shutil.copy(pth if pth.exists() else src_pth, hooked / "citetrace_autoinstrument.pth")
        # the real site-packages goes on sys.path without its .pth files, so citetrace is importable
        purelib = sysconfig.get_paths()["purelib"]
        src = str(Path(__file__).resolve().parents[1] / "src")
        code = "import sys, site; sys.path[:0] = [{!r}, {!r}]; site.addsitedir(sys.argv[1])".format(src, purelib)
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
        on_env = {**base_env, "CITETRACE_AUTO_INSTRUMENT": "true", "OTEL_TRACES_EXPORTER": "none",
                  "CITETRACE_STORE": "memory://", "CITETRACE_METRICS": "off"}
        configs = {"startup.without_hook": (empty, base_env), "startup.hook_off": (hooked, base_env),
                   "startup.hook_on": (hooked, on_env)}
        samples: dict[str, list[float]] = {name: [] for name in configs}
        order = list(configs)
        for _ in range(starts):
            random.shuffle(order)  # no configuration always runs first (cold caches, CPU frequency)
            for name in order:
                site_dir, env = configs[name]
                start = time.perf_counter()
                subprocess.run([sys.executable, "-S", "-c", code, str(site_dir)], env=env, check=True)
                samples[name].append(time.perf_counter() - start)
    result = {name: statistics.median(values) for name, values in samples.items()}
    line = compile((pth if pth.exists() else src_pth).read_text(), "pth", "exec")
    saved = os.environ.pop("CITETRACE_AUTO_INSTRUMENT", None)
    try:
        n = 20_000
        start = time.perf_counter()
        for _ in range(n):
            exec(line, {})
        result["pth_line_off_in_process"] = (time.perf_counter() - start) / n
    finally:
        if saved is not None:
            os.environ["CITETRACE_AUTO_INSTRUMENT"] = saved
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--starts", type=int, default=40)
    args = parser.parse_args(argv)
    calls = bench_calls(args.calls, args.rounds)
    unit = calls["fn.handwritten_span"]
    print(f"{'call':24} {'us/call':>9} {'x handwritten span':>19} {'x unpatched':>12}")
    for name in ("fn.bare", "fn.handwritten_span", "fn.traced_tool", "fn.patched", "tavily.unpatched", "tavily.patched",
                 "tavily.not_recording", "tavily.sdk_disabled"):
        base = calls["tavily.unpatched"] if name.startswith("tavily") else calls["fn.bare"]
        print(f"{name:24} {calls[name] * 1e6:9.2f} {calls[name] / unit:19.2f} {calls[name] / base:12.2f}")
    wrapper = calls["fn.patched"] - calls["fn.traced_tool"]
    print(f"patch wrapper on top of the capture core: {wrapper * 1e6:+.2f} us/call "
          f"({calls['fn.patched'] / calls['fn.traced_tool']:.3f} x @traced_tool)")
    overhead = calls["tavily.patched"] - calls["tavily.unpatched"]
    print(f"tavily patched overhead: {overhead * 1e6:.1f} us/call = {overhead / unit:.2f} handwritten spans")
    starts = bench_startup(args.starts)
    print(f"the .pth line itself with the variable unset: {starts.pop('pth_line_off_in_process') * 1e6:.2f} us")
    base = starts["startup.without_hook"]
    for name, value in starts.items():
        print(f"{name:24} {value * 1e3:8.2f} ms  ({(value - base) * 1e3:+.2f} ms vs without hook)")
    extra = (starts["startup.hook_off"] - base) * 1e3
    print(f"hook installed but off: {extra:+.2f} ms extra start-up (target < 5 ms): {'PASS' if extra < 5 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
