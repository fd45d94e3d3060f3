"""Per-call overhead of ``@traced_tool`` against a hand-written OpenTelemetry span and the peers' decorators.

Each configuration runs in its own child process, all back to back in one run, several rounds interleaved;
the table gives the median over rounds of each child's median per-call time, and ratios against the
hand-written span measured in the same run. The tool is a search that returns 10 results with URLs.

    python benchmarks/bench_capture.py            # everything, peers included (use benchmarks/run)
    python benchmarks/bench_capture.py --quick    # a few hundred calls, no peers (the smoke test)
    python benchmarks/bench_capture.py --profile traced   # cProfile one configuration
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, ContextManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness as h  # noqa: E402

QUERY = "Solid-state  battery energy density 2025"
# Ten results shaped like a search API's: title, URL, snippet; 3 of the 10 URLs carry a query string, as
# real result lists do (forum threads, videos, paginated listings).
_PATHS = [
    "https://www.nature.example.org/articles/s41560-025-01234-x",
    "https://arxiv.example.org/abs/2501.01234",
    "https://news.example.com/item?id=42017",
    "https://www.energy.example.gov/eere/vehicles/articles/solid-state-battery-milestone",
    "https://video.example.com/watch?v=Xb12kLm9QzA",
    "https://blog.example.net/2025/03/solid-state-batteries-explained/",
    "https://en.wiki.example.org/wiki/Solid-state_battery",
    "https://forum.example.net/t/energy-density-claims?page=2&lang=en",
    "https://www.reuters.example.com/business/autos/toyota-solid-state-2025-01-14/",
    "https://pubs.example.org/doi/10.1021/acsenergylett.5b00123",
]
RESULTS: list[dict[str, str]] = [
    {
        "title": f"Result {i}: solid-state batteries reach a new energy density record",
        "url": url,
        "snippet": "Researchers reported a cell with 500 Wh/kg at 80 % capacity after 1,000 cycles. " * 2,
    }
    for i, url in enumerate(_PATHS)
]
PAGE_COUNT = 50
PAGES = [(f"https://site.example.org/page/{i}", f"<h1>Page {i}</h1>\n" + ("lorem ipsum dolor sit amet " * 760)[:20_000])
         for i in range(PAGE_COUNT)]


def web_search(query: str) -> list[dict[str, str]]:
    return RESULTS


def _fetch_pages() -> Callable[[], tuple[str, str]]:
    cycle = itertools.cycle(PAGES)
    return cycle.__next__


@dataclass
class Setup:
    """One configuration in its child: the call to time, an optional context per repeat, a closer."""

    call: Callable[[], Any]
    close: Callable[[], dict[str, Any]]
    around: Callable[[], ContextManager[Any]] | None = None
    spans_per_repeat: int = 0  # spans besides one per call (a research_run root per repeat)


# -- configurations (run in the child) ----------------------------------------------------------------
def _flush_counts(provider: Any, counting: h.CountingExporter) -> Callable[[], dict[str, Any]]:
    def close() -> dict[str, Any]:
        provider.force_flush()
        provider.shutdown()
        return {"exported": counting.exported}

    return close


def setup_bare() -> Setup:
    return Setup(call=lambda: web_search(QUERY), close=dict)


def _query_hash(query: str) -> str:
    return hashlib.sha256(" ".join(query.split()).casefold().encode()).hexdigest()[:16]


def _handwritten_search(
    tracer: Any, tool: Callable[[str], list[dict[str, str]]] | None = None, extra: dict[str, str] | None = None
) -> Callable[[str], list[dict[str, str]]]:
    from opentelemetry.trace import SpanKind

    from citetrace import names as n

    def search(query: str) -> list[dict[str, str]]:
        with tracer.start_as_current_span(
            "execute_tool web_search",
            kind=SpanKind.INTERNAL,
            attributes={
                n.GEN_AI_OPERATION_NAME: n.OP_EXECUTE_TOOL,
                n.GEN_AI_TOOL_NAME: "web_search",
                n.GEN_AI_TOOL_TYPE: n.TOOL_TYPE_FUNCTION,
                n.TOOL_KIND: n.TOOL_KIND_SEARCH,
                n.QUERY_HASH: _query_hash(query),
                **(extra or {}),
            },
        ) as span:
            result = (tool or web_search)(query)
            span.set_attributes(
                {
                    n.RESULT_COUNT: len(result),
                    n.RESULT_SIZE: sum(len(v) for r in result for v in r.values()),
                    n.URLS_RETURNED: [r["url"] for r in result],
                    n.TOOL_STATUS: n.STATUS_OK if result else n.STATUS_EMPTY,
                }
            )
            return result

    return search


def setup_handwritten() -> Setup:
    provider, counting = h.sdk_provider()
    search = _handwritten_search(provider.get_tracer("bench"))
    return Setup(call=lambda: search(QUERY), close=_flush_counts(provider, counting))


def _citetrace_state(provider: Any, store: Any = None) -> None:
    from citetrace import _telemetry
    from citetrace.config import load_settings
    from citetrace.store import MemoryStore

    _telemetry.reset(load_settings(), tracer_provider=provider, store=store if store is not None else MemoryStore())


def setup_traced() -> Setup:
    from citetrace import traced_tool

    provider, counting = h.sdk_provider()
    _citetrace_state(provider)
    search = traced_tool(kind="search", name="web_search")(web_search)
    return Setup(call=lambda: search(QUERY), close=_flush_counts(provider, counting))


# Never-seen URLs: each call builds its 10 results afresh with a counter in every URL (as a search API's JSON
# response would arrive), so no URL repeats and the memo of known-clean URLs never hits. Both rows of a pair
# pay the same cost of building them. "new": the counter goes into the path, so 3 of the 10 URLs keep their
# query string, as real result lists do; "newq" (the worst case): every URL gets a query string.
def _new_url(url: str, with_query: bool) -> str:
    if with_query or "?" in url:
        return f"{url}{'&' if '?' in url else '?'}n="
    return url.rstrip("/") + "-"


def _new_urls_tool(all_queries: bool) -> Callable[[str], list[dict[str, str]]]:
    counter = itertools.count()
    bases = [(r, _new_url(r["url"], all_queries)) for r in RESULTS]

    def new_urls(query: str) -> list[dict[str, str]]:
        k = next(counter)
        return [{"title": r["title"], "url": f"{base}{k}", "snippet": r["snippet"]} for r, base in bases]

    return new_urls


def _handwritten_new(all_queries: bool) -> Callable[[], Setup]:
    def setup() -> Setup:
        provider, counting = h.sdk_provider()
        search = _handwritten_search(provider.get_tracer("bench"), _new_urls_tool(all_queries))
        return Setup(call=lambda: search(QUERY), close=_flush_counts(provider, counting))

    return setup


def _traced_new(all_queries: bool) -> Callable[[], Setup]:
    def setup() -> Setup:
        from citetrace import traced_tool

        provider, counting = h.sdk_provider()
        _citetrace_state(provider)
        search = traced_tool(kind="search", name="web_search")(_new_urls_tool(all_queries))
        return Setup(call=lambda: search(QUERY), close=_flush_counts(provider, counting))

    return setup


def setup_handwritten_run() -> Setup:
    """The floor for a call inside a run: a hand-written child of a root span, with the run's two attributes."""
    from citetrace import names as n

    provider, counting = h.sdk_provider()
    tracer = provider.get_tracer("bench")
    search = _handwritten_search(tracer, extra={n.RUN_ID: "0" * 32, n.GEN_AI_AGENT_NAME: "bench"})
    return Setup(
        call=lambda: search(QUERY),
        close=_flush_counts(provider, counting),
        around=lambda: tracer.start_as_current_span("invoke_agent bench"),
        spans_per_repeat=1,
    )


def setup_traced_run() -> Setup:
    from citetrace import research_run, traced_tool

    provider, counting = h.sdk_provider()
    _citetrace_state(provider)
    search = traced_tool(kind="search", name="web_search")(web_search)
    return Setup(
        call=lambda: search(QUERY),
        close=_flush_counts(provider, counting),
        around=lambda: research_run(question="bench", agent="bench"),
        spans_per_repeat=1,
    )


def setup_disabled() -> Setup:
    from citetrace import traced_tool

    assert os.environ.get("OTEL_SDK_DISABLED") == "true"
    _citetrace_state(None)
    search = traced_tool(kind="search", name="web_search")(web_search)
    return Setup(call=lambda: search(QUERY), close=dict)


def setup_openllmetry() -> Setup:
    from traceloop.sdk import Traceloop
    from traceloop.sdk.decorators import tool

    counting = h.CountingExporter()
    Traceloop.init(app_name="bench", exporter=h.as_exporter(counting), telemetry_enabled=False)
    search = tool(name="web_search")(web_search)

    def close() -> dict[str, Any]:
        from opentelemetry import trace

        provider: Any = trace.get_tracer_provider()
        provider.force_flush()
        return {"exported": counting.exported}

    return Setup(call=lambda: search(QUERY), close=close)


def setup_openinference() -> Setup:
    from openinference.instrumentation import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    counting = h.CountingExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(h.as_exporter(counting)))
    tracer = provider.get_tracer("bench")
    search = tracer.tool(name="web_search")(web_search)
    return Setup(call=lambda: search(QUERY), close=_flush_counts(provider, counting))


def setup_langfuse() -> Setup:
    from langfuse import Langfuse, observe

    counting = h.CountingExporter()
    client = Langfuse(public_key="pk-lf-bench", secret_key="sk-lf-bench", span_exporter=h.as_exporter(counting))
    search = observe(as_type="tool", name="web_search")(web_search)

    def close() -> dict[str, Any]:
        client.flush()
        client.shutdown()
        return {"exported": counting.exported}

    return Setup(call=lambda: search(QUERY), close=close)


def _fetch_setup(factory: Callable[[], tuple[Callable[[str], str], Callable[[], dict[str, Any]]]]) -> Callable[[], Setup]:
    def setup() -> Setup:
        nxt = _fetch_pages()
        fetch, close = factory()
        return Setup(call=lambda: fetch(nxt()[0]), close=close)

    return setup


_PAGE_BY_URL = dict(PAGES)
FetchFactory = tuple[Callable[[str], str], Callable[[], dict[str, Any]]]


def _bare_fetch() -> FetchFactory:
    return _PAGE_BY_URL.__getitem__, dict


def _handwritten_fetch() -> FetchFactory:
    from opentelemetry.trace import SpanKind

    from citetrace import names as n
    from citetrace.store import SQLiteStore

    provider, counting = h.sdk_provider()
    tmp = tempfile.mkdtemp(prefix="citetrace-bench-")
    store = SQLiteStore(os.path.join(tmp, "store.db"))
    tracer = provider.get_tracer("bench")

    def fetch(url: str) -> str:
        # literal attribute dicts here and in the search floor, on purpose: merging a shared base dict on every
        # call would make the floor slower than what a person writes by hand
        with tracer.start_as_current_span(
            "execute_tool fetch_page",
            kind=SpanKind.INTERNAL,
            attributes={
                n.GEN_AI_OPERATION_NAME: n.OP_EXECUTE_TOOL,
                n.GEN_AI_TOOL_NAME: "fetch_page",
                n.GEN_AI_TOOL_TYPE: n.TOOL_TYPE_FUNCTION,
                n.TOOL_KIND: n.TOOL_KIND_FETCH,
                n.URL_FULL: url,
                n.SERVER_ADDRESS: url.split("/")[2],
            },
        ) as span:
            text = _PAGE_BY_URL[url]
            run_id = format(span.get_span_context().trace_id, "032x")
            ref = store.put_document(run_id, url, text, status=n.STATUS_OK)
            span.set_attributes(
                {
                    n.RESULT_SIZE: len(text),
                    n.TOOL_STATUS: n.STATUS_OK,
                    n.CONTENT_HASH: ref.rsplit("/", 1)[-1],
                    n.STORE_REF: ref,
                }
            )
            return text

    return fetch, _closing(store, tmp, _flush_counts(provider, counting))


def _traced_fetch() -> FetchFactory:
    from citetrace import traced_tool
    from citetrace.store import SQLiteStore

    provider, counting = h.sdk_provider()
    tmp = tempfile.mkdtemp(prefix="citetrace-bench-")
    store = SQLiteStore(os.path.join(tmp, "store.db"))
    _citetrace_state(provider, store)

    def fetch_page(url: str) -> str:
        return _PAGE_BY_URL[url]

    return traced_tool(kind="fetch")(fetch_page), _closing(store, tmp, _flush_counts(provider, counting))


def _closing(store: Any, tmp: str, inner: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    def close() -> dict[str, Any]:
        out = inner()
        store.close()
        shutil.rmtree(tmp, ignore_errors=True)
        return out

    return close


@dataclass(frozen=True)
class Config:
    """One row of a table."""

    key: str
    label: str
    setup: Callable[[], Setup]
    env: tuple[tuple[str, str], ...] = ()
    peer: str | None = None  # the module a peer needs; None for our own configurations
    table: str = "search"


CONFIGS = [
    Config("bare", "bare call (no tracing)", setup_bare),
    Config("handwritten", "hand-written OTel span, same 9 attributes", setup_handwritten),
    Config("traced", "@traced_tool", setup_traced),
    Config("handwritten_new", "hand-written span, never-seen URLs every call", _handwritten_new(False)),
    Config("traced_new", "@traced_tool, never-seen URLs every call", _traced_new(False)),
    Config("handwritten_newq", "hand-written span, never-seen URLs, all with a query", _handwritten_new(True)),
    Config("traced_newq", "@traced_tool, never-seen URLs, all with a query", _traced_new(True)),
    Config("handwritten_run", "hand-written span inside a root span, same 11 attributes", setup_handwritten_run),
    Config("traced_run", "@traced_tool inside research_run", setup_traced_run),
    Config("disabled", "@traced_tool, OTEL_SDK_DISABLED=true", setup_disabled, (("OTEL_SDK_DISABLED", "true"),)),
    Config("openllmetry", "OpenLLMetry @tool (traceloop-sdk, default)", setup_openllmetry, peer="traceloop"),
    Config("openinference", "OpenInference @tracer.tool", setup_openinference, peer="openinference.instrumentation"),
    Config("langfuse", 'Langfuse @observe(as_type="tool")', setup_langfuse, peer="langfuse"),
    Config("fetch_bare", "bare fetch (no tracing, no store)", _fetch_setup(_bare_fetch), table="fetch"),
    Config("fetch_hand", "hand-written span + SQLiteStore.put_document", _fetch_setup(_handwritten_fetch),
           table="fetch"),
    Config("fetch_traced", '@traced_tool(kind="fetch") + SQLite store', _fetch_setup(_traced_fetch), table="fetch"),
]
BY_KEY = {c.key: c for c in CONFIGS}


def child(key: str, number: int, repeat: int, netcheck: bool) -> dict[str, Any]:
    """Run one configuration in this process and return its figures."""
    guard = h.NetGuard() if netcheck else None
    setup = BY_KEY[key].setup()
    timing = h.time_calls(setup.call, number, repeat, setup.around)
    out: dict[str, Any] = timing.summary()
    if key == "disabled":  # the bare call in the same process, for an absolute difference in µs
        bare = h.time_calls(lambda: web_search(QUERY), number, repeat)
        out["bare_same_process_us"] = bare.summary()["median_us"]
    out.update(setup.close())
    out["spans_expected"] = timing.calls + min(number, 1000) + setup.spans_per_repeat * repeat
    if guard is not None:
        out["outside"] = guard.outside
        out["loopback"] = guard.loopback
    return out


# -- the parent ---------------------------------------------------------------------------------------
def _peer_missing(cfg: Config) -> bool:
    return cfg.peer is not None and importlib.util.find_spec(cfg.peer.split(".")[0]) is None


def _netcheck(cfgs: list[Config]) -> list[str]:
    """Run each configuration briefly with the network guard (and strace when present); list what left."""
    problems = []
    for cfg in cfgs:
        args = ["--child", cfg.key, "--number", "300", "--repeat", "1", "--netcheck"]
        env = h.child_env(dict(cfg.env))
        strace = shutil.which("strace")
        if strace:
            with tempfile.NamedTemporaryFile("r", suffix=".strace") as log:
                proc = subprocess.run(
                    [strace, "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", log.name,
                     sys.executable, __file__, *args],
                    env=env, capture_output=True, text=True, timeout=600, check=False,
                )
                if proc.returncode != 0:
                    raise RuntimeError(f"netcheck {cfg.key} failed:\n{proc.stderr[-3000:]}")
                result = json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])
                result["outside"] += [ln.strip() for ln in log.read().splitlines() if _external_syscall(ln)]
        else:
            result = h.run_child(__file__, args, env)
        if result["outside"]:
            problems.append(f"{cfg.key}: {result['outside']}")
    return problems


def _external_syscall(line: str) -> bool:
    if "AF_INET" not in line:
        return False
    return not any(local in line for local in ('inet_addr("127.', 'inet_pton(AF_INET6, "::1"', '"::ffff:127.'))


def parent(args: argparse.Namespace) -> int:
    no_peers = args.no_peers or args.quick
    cfgs = [c for c in CONFIGS if not (no_peers and c.peer) and (not args.only or c.key in args.only)]
    missing = [c.key for c in cfgs if _peer_missing(c)]
    if missing:
        print(f"error: peer packages for {missing} are not installed in {sys.executable}; "
              "run benchmarks/run (it builds .venv-bench) or pass --no-peers", file=sys.stderr)
        return 2
    number, repeat, rounds = args.number, args.repeat, args.rounds
    if args.quick:
        number, repeat, rounds = 300, 3, 1
    if not args.quick and not args.skip_netcheck:
        problems = _netcheck([c for c in cfgs if c.peer or c.key == "traced"])
        if problems:
            print("error: traffic left the machine:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        print("network check: no configuration connected or resolved anything outside 127.0.0.1")
    results: dict[str, list[dict[str, Any]]] = {c.key: [] for c in cfgs}
    for _ in range(rounds):
        for cfg in cfgs:
            env = h.child_env(dict(cfg.env))
            child_args = ["--child", cfg.key, "--number", str(number), "--repeat", str(repeat)]
            results[cfg.key].append(h.run_child(__file__, child_args, env))
    print(f"machine: {h.machine()}")
    print(f"calls: {number} per repeat x {repeat} repeats per child, {rounds} round(s); per-call median µs\n")
    for base, table in (("handwritten", _search_table), ("fetch_hand", _fetch_table)):
        if base in results:  # a table needs its hand-written row (--only may leave it out)
            print(table(cfgs, results), end="\n\n")
    pairs = (
        ("handwritten_new", "traced_new", "never-seen URLs"),
        ("handwritten_newq", "traced_newq", "never-seen URLs, all with a query"),
        ("handwritten_run", "traced_run", "a call inside research_run"),
    )
    for base, ours, what in pairs:
        if results.get(base) and results.get(ours):
            ratio = h.median_of(t["median_us"] / b["median_us"] for t, b in zip(results[ours], results[base]))
            print(f"@traced_tool, {what}: {ratio:.2f}x the hand-written span in the same setting "
                  "(median of per-round ratios; target <= 1.1x)")
    disabled = results.get("disabled")
    if disabled:
        delta = h.median_of(r["median_us"] - r["bare_same_process_us"] for r in disabled)
        print(f"\n@traced_tool disabled: {delta:+.3f} µs over the bare call in the same process (target <= 0.5 µs)")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"machine": h.machine(), "results": results}, fh, indent=1)
    return 0


def _rows(cfgs: list[Config], results: dict[str, list[dict[str, Any]]], table: str, base: str) -> list[list[Any]]:
    base_us = h.median_of(r["median_us"] for r in results[base])
    rows = []
    for cfg in cfgs:
        if cfg.table != table:
            continue
        runs = results[cfg.key]
        med = h.median_of(r["median_us"] for r in runs)
        spans = sum(r.get("exported", 0) for r in runs)
        expected = sum(r["spans_expected"] for r in runs)
        kept = f"{100.0 * spans / expected:.1f} %" if "exported" in runs[0] else "-"
        rows.append([cfg.label, med, min(r["min_us"] for r in runs), med / base_us, kept])
    return rows


def _search_table(cfgs: list[Config], results: dict[str, list[dict[str, Any]]]) -> str:
    headers = ["search tool, 10 results", "µs/call", "min µs", "x hand-written", "spans exported"]
    return h.format_table(headers, _rows(cfgs, results, "search", "handwritten"))


def _fetch_table(cfgs: list[Config], results: dict[str, list[dict[str, Any]]]) -> str:
    headers = ["fetch tool, 20 KB page", "µs/call", "min µs", "x hand-written", "spans exported"]
    return h.format_table(headers, _rows(cfgs, results, "fetch", "fetch_hand"))


def profile(key: str, number: int) -> int:
    """cProfile one configuration in this process and print where the time goes."""
    import cProfile
    import pstats

    setup = BY_KEY[key].setup()
    prof = cProfile.Profile()
    with setup.around() if setup.around else contextlib.nullcontext():
        prof.enable()
        for _ in range(number):
            setup.call()
        prof.disable()
    setup.close()
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred calls, one round (no timing claims)")
    parser.add_argument("--no-peers", action="store_true", help="leave out OpenLLMetry, OpenInference, Langfuse")
    parser.add_argument("--number", type=int, default=10_000, help="calls per timed repeat")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per child")
    parser.add_argument("--rounds", type=int, default=3, help="children per configuration, interleaved")
    parser.add_argument("--skip-netcheck", action="store_true", help="do not run the network check first")
    parser.add_argument("--json", help="also write the raw figures to this file")
    parser.add_argument("--only", nargs="+", choices=sorted(BY_KEY), metavar="KEY",
                        help=f"run only these configurations (of {', '.join(BY_KEY)})")
    parser.add_argument("--profile", choices=sorted(BY_KEY), help="cProfile one configuration instead")
    parser.add_argument("--child", choices=sorted(BY_KEY), help=argparse.SUPPRESS)
    parser.add_argument("--netcheck", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.profile:
        return profile(args.profile, args.number)
    if args.child:
        print(json.dumps(child(args.child, args.number, args.repeat, args.netcheck)))
        return 0
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
