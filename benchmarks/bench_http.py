"""What the HTTP-layer rows cost per request, in one run, as ratios to the same request unpatched.

Requests never leave the process: ``requests`` through a canned transport adapter, ``urllib`` through a handler
that parses a canned HTTP/1.1 answer with ``http.client`` (the real response class urllib hands back).
Configurations, interleaved round by round (median per-request CPU time of this thread over the rounds):

  <client>.other.unpatched     a request to a host no rule knows, not instrumented
  <client>.other.patched       the same request instrumented: one host lookup, then straight through
  <client>.other.fetch_rules   the same with CITETRACE_FETCH_RULES set (one more lookup per request)
  <client>.search.unpatched    POST google.serper.dev/search (10 results), not instrumented
  <client>.search.patched      the same instrumented: one search span (SDK provider, BatchSpanProcessor, no-op
                               exporter), the JSON read once more, urllib's body buffered
  fn.handwritten_span          a plain function inside a hand-written SDK span with 8 attributes (the unit)

Run:  .venv/bin/python benchmarks/bench_http.py [--calls 2000] [--rounds 7] [--quick]
"""

from __future__ import annotations

import io
import json
import statistics
import sys
import time
import urllib.request
from http.client import HTTPResponse
from pathlib import Path
from typing import Any, Callable

import requests
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _canned import CannedAdapter, NoOpExporter  # noqa: E402
from _harness import calls_and_rounds  # noqa: E402

from citetrace import _telemetry  # noqa: E402
from citetrace.config import load_settings  # noqa: E402
from citetrace.instrumentation import CiteTraceInstrumentor  # noqa: E402
from citetrace.store import MemoryStore  # noqa: E402

BODY = json.dumps({"organic": [{"title": f"t{i}", "link": f"https://bench.example/{i}", "snippet": "s" * 80}
                               for i in range(10)]}).encode()
SEARCH = "https://google.serper.dev/search"
OTHER = "https://api.other.example/v1/items"


class _Sock:
    def __init__(self, raw: bytes) -> None:
        self._raw = raw

    def makefile(self, mode: str) -> io.BufferedReader:
        return io.BufferedReader(io.BytesIO(self._raw))


_RAW = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + str(len(BODY)).encode()
        + b"\r\n\r\n" + BODY)


class CannedHandler(urllib.request.BaseHandler):
    """urllib's network edge: an ``http.client.HTTPResponse`` parsed from a canned answer."""

    handler_order = 100  # before urllib's own HTTPSHandler

    def https_open(self, request: urllib.request.Request) -> HTTPResponse:
        response = HTTPResponse(_Sock(_RAW), method=request.get_method())  # type: ignore[arg-type]
        response.begin()
        response.url = request.full_url  # type: ignore[attr-defined]
        response.msg = response.reason  # type: ignore[assignment]
        return response


def _clients() -> dict[str, Callable[[str, bool], Any]]:
    session = requests.Session()
    session.mount("https://", CannedAdapter(BODY))
    opener = urllib.request.build_opener(CannedHandler())

    def with_requests(url: str, post: bool) -> Any:
        return session.post(url, json={"q": "x"}).json() if post else session.get(url).json()

    def with_urllib(url: str, post: bool) -> Any:
        request = urllib.request.Request(url, data=b'{"q": "x"}' if post else None,
                                         headers={"Content-Type": "application/json"})
        with opener.open(request) as resp:
            return json.load(resp)

    return {"requests": with_requests, "urllib": with_urllib}


def _time(fn: Callable[[], Any], calls: int) -> float:
    """CPU seconds of this thread per call: other jobs on a shared machine do not count (the batch
    processor's export thread is not timed; its no-op exporter does nothing)."""
    fn()
    start = time.thread_time()
    for _ in range(calls):
        fn()
    return (time.thread_time() - start) / calls


def bench(calls: int, rounds: int) -> dict[str, float]:
    """Median seconds per request of every configuration."""
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(NoOpExporter(), max_queue_size=100_000))
    tracer = provider.get_tracer("bench")
    instrumentor = CiteTraceInstrumentor()
    clients = _clients()
    samples: dict[str, list[float]] = {}

    def handwritten() -> Any:
        with tracer.start_as_current_span("execute_tool serper_search") as span:
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "serper_search",
                                 "gen_ai.tool.type": "function", "citetrace.tool.kind": "search",
                                 "citetrace.tool.status": "ok", "citetrace.result.count": 10,
                                 "citetrace.result.size": 900, "citetrace.urls_returned": ["https://b.example/"]})

    def use(**settings: Any) -> None:
        _telemetry.reset(load_settings(**settings), tracer_provider=provider, store=MemoryStore())

    def run(name: str, fn: Callable[[], Any]) -> None:
        samples.setdefault(name, []).append(_time(fn, calls))

    for _ in range(rounds):
        use()
        run("fn.handwritten_span", handwritten)
        for client, send in clients.items():
            run(f"{client}.other.unpatched", lambda s=send: s(OTHER, False))  # type: ignore[misc]
            run(f"{client}.search.unpatched", lambda s=send: s(SEARCH, True))  # type: ignore[misc]
        instrumentor.instrument(tools="")
        for client, send in clients.items():
            run(f"{client}.other.patched", lambda s=send: s(OTHER, False))  # type: ignore[misc]
            run(f"{client}.search.patched", lambda s=send: s(SEARCH, True))  # type: ignore[misc]
        use(fetch_rules="jina_reader,mine=https://reader.internal/{url}")
        for client, send in clients.items():
            run(f"{client}.other.fetch_rules", lambda s=send: s(OTHER, False))  # type: ignore[misc]
        instrumentor.uninstrument()
        provider.force_flush()
    provider.shutdown()
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    calls, rounds = calls_and_rounds(__doc__, argv, calls=2000, rounds=7)
    result = bench(calls, rounds)
    unit = result["fn.handwritten_span"]
    print(f"{'request':28} {'us/req':>9} {'x unpatched':>12} {'x handwritten span':>19}")
    for name in sorted(result):
        base = result.get(name.rsplit(".", 1)[0] + ".unpatched", result[name])
        if name.startswith(("requests.other", "urllib.other")):
            base = result[name.split(".")[0] + ".other.unpatched"]
        print(f"{name:28} {result[name] * 1e6:9.2f} {result[name] / base:12.3f} {result[name] / unit:19.2f}")
    for client in ("requests", "urllib"):
        extra = result[f"{client}.other.patched"] - result[f"{client}.other.unpatched"]
        print(f"{client}: pass-through cost {extra * 1e6:+.2f} us/request on another host "
              f"({result[f'{client}.other.patched'] / result[f'{client}.other.unpatched']:.3f} x unpatched)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
