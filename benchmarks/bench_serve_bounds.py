"""What ``citetrace serve``'s bounds cost and hold, measured on a real subprocess (RSS from /proc).

Four attacks from issue 12, each against a fresh ``citetrace serve`` with its default bounds unless noted:

  url cap      traces at the per-trace URL cap (200 searches x 100 URLs of ~70 bytes = 20,000 URLs, no root, so
               they stay in flight): RSS per trace at the cap, next to the held-bytes estimate the bound uses;
               then more of them with --max-held-bytes 64 MiB, so the total bound evicts (counted)
  root flood   200 requests x 1,000 invoke_agent roots in one trace (before the cap: +1 GB RSS, 200,000 runs)
  json, pb     24 concurrent bodies of ~16 MiB (OTLP/JSON, then protobuf) at once (before the decode budget:
               ~215 MB per JSON body, 5.25 GB for 24): peak RSS and the answers (200 or 503 + Retry-After)

Run:  .venv/bin/python benchmarks/bench_serve_bounds.py [--quick]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import get, metric_sum, rss_mib, start_serve  # noqa: E402

from citetrace import names  # noqa: E402
from citetrace.serve import encode_request, request_json  # noqa: E402
from citetrace.summary import SpanRecord  # noqa: E402

T0 = 1_700_000_000_000_000_000
PB = {"Content-Type": "application/x-protobuf"}


def search(tid: int, sid: int, urls: tuple[str, ...]) -> SpanRecord:
    attrs = {names.GEN_AI_OPERATION_NAME: names.OP_EXECUTE_TOOL, names.GEN_AI_TOOL_NAME: "web_search",
             names.TOOL_KIND: names.TOOL_KIND_SEARCH, names.TOOL_STATUS: names.STATUS_OK, names.RUN_ID: f"r{tid}",
             names.QUERY_HASH: f"{tid:x}-{sid}", names.URLS_RETURNED: urls}
    return SpanRecord(tid, sid, 1, "execute_tool web_search", T0, T0 + 10**6, attrs)


def post(port: int, body: bytes, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/v1/traces", body=body, headers=headers)
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except OSError:
        return 0
    finally:
        conn.close()


def metrics(mport: int) -> str:
    return get(f"http://127.0.0.1:{mport}/metrics")


def bench_url_cap(tmp: Path, traces: int) -> dict[str, Any]:
    def trace_body(tid: int) -> bytes:
        spans = [search(tid, 2 + i, tuple(f"https://site{j % 50}.example/{tid:x}/{i}/{j}/page-with-a-typical-slug"
                                          for j in range(100))) for i in range(200)]
        return encode_request(spans, service_name="bench").SerializeToString()

    out: dict[str, Any] = {}
    proc, port, mport = start_serve(tmp, "serve-urls", "--grace-seconds", "60")
    try:
        idle, _ = rss_mib(proc.pid)
        for tid in range(1, traces + 1):
            assert post(port, trace_body(tid), PB) == 200
        held, _ = rss_mib(proc.pid)
        text = metrics(mport)
        out.update(idle_mib=idle, held_mib=held, traces=traces,
                   mib_per_trace=(held - idle) / traces,
                   estimate_mib_per_trace=metric_sum(text, names.METRIC_SERVE_HELD_BYTES) / traces / 2**20)
    finally:
        proc.terminate()
        proc.wait(30)
    proc, port, mport = start_serve(tmp, "serve-held", "--grace-seconds", "60", "--max-held-bytes", str(64 << 20))
    try:
        idle, _ = rss_mib(proc.pid)
        for tid in range(1, 3 * traces + 1):
            assert post(port, trace_body(tid), PB) == 200
        after, peak = rss_mib(proc.pid)
        text = metrics(mport)
        out.update(bound_idle_mib=idle, bound_after_mib=after, bound_peak_mib=peak, bound_sent=3 * traces,
                   bound_in_flight=metric_sum(text, names.METRIC_TRACES_IN_FLIGHT),
                   bound_evicted_memory=metric_sum(text, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_MEMORY),
                   bound_held_mib=metric_sum(text, names.METRIC_SERVE_HELD_BYTES) / 2**20)
    finally:
        proc.terminate()
        proc.wait(30)
    return out


def bench_root_flood(tmp: Path, requests: int) -> dict[str, Any]:
    proc, port, mport = start_serve(tmp, "serve-roots", "--grace-seconds", "600")
    try:
        idle, _ = rss_mib(proc.pid)
        for r in range(requests):
            spans = [SpanRecord(0xF1, 1 + r * 1000 + i, None, "invoke_agent a", T0, T0 + 10**9,
                                {names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.RUN_ID: f"run-{r}-{i}"})
                     for i in range(1000)]
            assert post(port, encode_request(spans).SerializeToString(), PB) == 200
        after, _ = rss_mib(proc.pid)
        dropped = metric_sum(metrics(mport), names.METRIC_SPANS_DROPPED_TOTAL, reason=names.DROP_ROOTS_PER_TRACE)
    finally:
        proc.terminate()
        proc.wait(30)
    return {"requests": requests, "roots_sent": requests * 1000, "idle_mib": idle, "after_mib": after,
            "roots_refused": dropped}


def big_body(as_json: bool, limit: int) -> bytes:
    """A body of search spans just under ``limit`` bytes (sized from a sample, then trimmed)."""
    def spans(n: int) -> list[SpanRecord]:
        return [search(0xB0 + i // 1000, 2 + i % 1000, tuple(f"https://x.example/{i}/{j}" for j in range(20)))
                for i in range(n)]

    def encode(n: int) -> bytes:
        req = encode_request(spans(n))
        return request_json(req) if as_json else req.SerializeToString()

    n = int(limit / len(encode(1000)) * 1000 * 0.99)
    body = encode(n)
    while len(body) > limit:
        n = int(n * 0.99)
        body = encode(n)
    return body


def bench_amplification(tmp: Path, as_json: bool, concurrent: int, limit: int) -> dict[str, Any]:
    body = big_body(as_json, limit)
    headers = {"Content-Type": "application/json" if as_json else "application/x-protobuf"}
    proc, port, mport = start_serve(tmp, "serve-amp", "--grace-seconds", "600", "--max-traces", "100000")
    statuses: list[int] = []
    try:
        idle, _ = rss_mib(proc.pid)
        go = threading.Barrier(concurrent)

        def send() -> None:
            go.wait(60)
            statuses.append(post(port, body, headers))

        threads = [threading.Thread(target=send) for _ in range(concurrent)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        _, peak = rss_mib(proc.pid)
        text = metrics(mport)
    finally:
        proc.terminate()
        proc.wait(30)
    return {"body_mib": len(body) / 2**20, "concurrent": concurrent, "idle_mib": idle, "peak_mib": peak,
            "ok": statuses.count(200), "busy_503": statuses.count(503), "other": len(statuses) - statuses.count(200)
            - statuses.count(503),
            "decode_budget_503": metric_sum(text, names.METRIC_SERVE_REJECTED_TOTAL, reason=names.REJECT_DECODE_BUDGET),
            "inflight_budget_503": metric_sum(text, names.METRIC_SERVE_REJECTED_TOTAL,
                                              reason=names.REJECT_INFLIGHT_BUDGET)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts: checks the script, measures little")
    args = parser.parse_args()
    traces, roots, concurrent = (2, 5, 3) if args.quick else (20, 200, 24)
    limit = (1 if args.quick else 16) * 1024 * 1024 - 1024
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        results = {"url_cap": bench_url_cap(tmp, traces), "root_flood": bench_root_flood(tmp, roots),
                   "json": bench_amplification(tmp, True, concurrent, limit),
                   "protobuf": bench_amplification(tmp, False, concurrent, limit)}
    print(json.dumps(results, indent=1))
    u, r = results["url_cap"], results["root_flood"]
    print("\n| attack | figure |\n|---|---|")
    print(f"| {u['traces']} traces at the URL cap (20,000 URLs) | {u['mib_per_trace']:.1f} MiB RSS per trace "
          f"(estimate {u['estimate_mib_per_trace']:.1f}) |")
    print(f"| {u['bound_sent']} such traces, --max-held-bytes 64 MiB | {u['bound_after_mib']:.0f} MiB RSS "
          f"(idle {u['bound_idle_mib']:.0f}), {u['bound_in_flight']:.0f} in flight, "
          f"{u['bound_evicted_memory']:.0f} evicted (memory) |")
    print(f"| {r['requests']} x 1,000 roots in one trace | RSS {r['idle_mib']:.0f} -> {r['after_mib']:.0f} MiB, "
          f"{r['roots_refused']:.0f} roots refused |")
    for key in ("json", "protobuf"):
        a = results[key]
        print(f"| {a['concurrent']} x {a['body_mib']:.1f} MiB {key} bodies at once | peak RSS {a['peak_mib']:.0f} MiB "
              f"(idle {a['idle_mib']:.0f}); {a['ok']} x 200, {a['busy_503']} x 503 "
              f"({a['inflight_budget_503']:.0f} in-flight, {a['decode_budget_503']:.0f} decode), {a['other']} other |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
