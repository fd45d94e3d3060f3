"""What a replayed tool call costs against the recorded one, in the same run.

A traced search tool calls a local HTTP server on 127.0.0.1 (10 results of JSON); the run records every
response (``record_responses``). Then the same calls are replayed from the store. Each figure is the
median µs per call over ``--rounds`` rounds of ``--calls`` calls; the ratio is replayed / recorded.

    .venv/bin/python benchmarks/bench_replay.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import requests

from citetrace import replay, research_run, traced_tool
from citetrace.testing import capture_spans

BODY = json.dumps({"results": [{"url": f"https://site{i}.example/a/{i}", "title": f"T{i}", "snippet": "s" * 80}
                               for i in range(10)]}).encode()


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args: Any) -> None:
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few calls: checks the script runs")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    calls, rounds = (20, 2) if args.quick else (args.calls, args.rounds)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/search"
    session = requests.Session()

    @traced_tool(kind="search")
    def search(query: str) -> list[dict[str, Any]]:
        return list(session.get(base, params={"q": query}, timeout=5).json()["results"])

    recorded_us, replayed_us = [], []
    with capture_spans(record_responses=True) as cap:
        for r in range(rounds):
            with research_run("bench") as run:
                t = time.perf_counter()
                for i in range(calls):
                    search(f"q{r}-{i}")
                recorded_us.append((time.perf_counter() - t) / calls * 1e6)
            with replay(run.id, store=cap.store), research_run("bench replay"):
                t = time.perf_counter()
                for i in range(calls):
                    search(f"q{r}-{i}")
                replayed_us.append((time.perf_counter() - t) / calls * 1e6)
    plain_us = []
    with capture_spans():
        for r in range(rounds):
            with research_run("bench plain"):
                t = time.perf_counter()
                for i in range(calls):
                    search(f"q{r}-{i}")
                plain_us.append((time.perf_counter() - t) / calls * 1e6)
    server.shutdown()
    rec, rep, plain = statistics.median(recorded_us), statistics.median(replayed_us), statistics.median(plain_us)
    print(f"traced search over local HTTP, {calls} calls x {rounds} rounds (median µs per call)\n")
    print("| call | µs per call | x recorded |")
    print("|---|---:|---:|")
    print(f"| traced, not recorded (HTTP call) | {plain:.1f} | {plain / rec:.2f} |")
    print(f"| recorded (HTTP call + response recorded) | {rec:.1f} | 1.00 |")
    print(f"| replayed from the store | {rep:.1f} | {rep / rec:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
