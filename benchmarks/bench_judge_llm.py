"""The LLM judge's plumbing under faults: `citetrace judge-eval --judge llm` against a scripted
OpenAI-compatible chat server on 127.0.0.1.

No real LLM is reachable here, so this measures what CAN be measured: that every fault the endpoint throws
is counted as a judge error and never dropped, how many requests each kind of fault costs, and how long a
labelled set takes when some calls hang, against the bound the options promise
(timeout x (retries + 1) plus the waits) and against the same set on a healthy server, in the same run.
The scripted server answers each claim with its gold label and a verbatim quote, so the agreement on the
healthy pairs is the pass-through of the client (parsing, quote verification, the checker's cap), NOT a
judge's quality. Figures go to docs/eval.md; tests/benchmarks checks the counts, never the times.

    python benchmarks/bench_judge_llm.py [--pairs 60] [--timeout 0.5] [--retries 1] [--quick] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from _harness import format_table

MODES = ("ok", "hang", "busy", "broken", "prose", "ok", "ok", "ok", "ok", "ok")
"""The fault schedule, by pair index modulo 10: a hanging call, a 429 with Retry-After: 1 then an answer,
a 500 on every attempt, and a 200 whose content is prose instead of the JSON verdict."""
RETRY_AFTER = 1.0
FATAL = ("hang", "broken", "prose")
"""The faults that must end in JUDGE_ERROR (a 429 that then answers is retried and judged)."""


class ScriptedJudge:
    """A chat-completions server that answers by the claim's gold label, or throws its scheduled fault."""

    def __init__(self, gold: dict[str, tuple[str, str]], modes: dict[str, str]) -> None:
        self.gold, self.modes = gold, modes
        self.requests: dict[str, int] = {}
        self.release = threading.Event()
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                outer.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def _claim(self, body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"]
        return next((c for c in self.gold if c in user), "")

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        claim = self._claim(body)
        with self.lock:
            n = self.requests[claim] = self.requests.get(claim, 0) + 1
        mode = self.modes.get(claim, "ok")
        if mode == "hang":
            self.release.wait(30)
            return
        if mode == "broken" or (mode == "busy" and n == 1):
            status, headers = (429, {"Retry-After": f"{RETRY_AFTER:.0f}"}) if mode == "busy" else (500, {})
            self._send(h, status, {"error": "scripted fault"}, headers)
            return
        label, passage = self.gold.get(claim, ("ABSENT", ""))
        verdict = {"label": label, "quote": "" if label == "ABSENT" else passage[:60], "explanation": "scripted"}
        content = "I think this is probably supported." if mode == "prose" else json.dumps(verdict)
        self._send(h, 200, {"choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}]}, {})

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: Any, headers: dict[str, str]) -> None:
        data = json.dumps(body).encode()
        h.send_response(status)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def pick_pairs(n: int) -> list[dict[str, Any]]:
    """The first ``n`` shipped pairs whose claim is one atomic claim (one call per pair)."""
    from citetrace.claims import split_claims
    from citetrace.eval._data import labels_path

    with open(labels_path(), encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return [r for r in rows if len(split_claims(r["claim"])) == 1][:n]


def judge_eval(url: str, labels: str, timeout: float, retries: int) -> tuple[dict[str, Any], float]:
    """Run `citetrace judge-eval --judge llm --json` in-process; (its JSON, wall seconds)."""
    from citetrace.cli import main

    env = {"OPENAI_BASE_URL": url, "CITETRACE_JUDGE_MODEL": "scripted"}
    saved = {k: os.environ.get(k) for k in (*env, "OPENAI_API_KEY")}
    os.environ.update(env)
    os.environ.pop("OPENAI_API_KEY", None)
    out = io.StringIO()
    started = time.perf_counter()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["judge-eval", labels, "--judge", "llm", "--judge-timeout", str(timeout),
                         "--judge-retries", str(retries), "--json"])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"judge-eval exited {code}")
    return json.loads(out.getvalue()), elapsed


def expected_requests(mode: str, retries: int) -> int:
    return {"ok": 1, "prose": 1, "busy": 2 if retries else 1}.get(mode, retries + 1)


def bound_seconds(modes: list[str], timeout: float, retries: int, backoff: float = 1.0) -> float:
    """What the options promise for the faults alone: each hang timeout x attempts plus the backoff waits,
    each 500 its backoff waits, each 429 its Retry-After."""
    waits = float(sum(backoff * 2.0 ** k for k in range(retries)))
    per: dict[str, float] = {"hang": timeout * (retries + 1) + waits, "broken": waits, "busy": RETRY_AFTER if retries else 0.0}
    return float(sum(per.get(m, 0.0) for m in modes))


def measure(n: int, timeout: float, retries: int) -> dict[str, Any]:
    rows = pick_pairs(n)
    gold = {r["claim"]: (r["label"], r["passage"]) for r in rows}
    modes = {r["claim"]: MODES[i % len(MODES)] for i, r in enumerate(rows)}
    with tempfile.TemporaryDirectory() as tmp:
        labels = os.path.join(tmp, "labels.jsonl")
        with open(labels, "w", encoding="utf-8") as fh:
            fh.writelines(json.dumps(r) + "\n" for r in rows)
        healthy = ScriptedJudge(gold, {})
        try:
            healthy_report, healthy_s = judge_eval(healthy.url, labels, timeout, retries)
        finally:
            healthy.close()
        faulty = ScriptedJudge(gold, modes)
        try:
            report, faulty_s = judge_eval(faulty.url, labels, timeout, retries)
        finally:
            faulty.close()
    by_mode: dict[str, dict[str, int]] = {}
    for claim, mode in modes.items():
        m = by_mode.setdefault(mode, {"pairs": 0, "requests": 0, "expected": 0})
        m["pairs"] += 1
        m["requests"] += faulty.requests.get(claim, 0)
        m["expected"] += expected_requests(mode, retries)
    faults = sum(v["pairs"] for k, v in by_mode.items() if k in FATAL)
    return {"pairs": len(rows), "timeout": timeout, "retries": retries, "by_mode": by_mode,
            "judge_errors": report["judge_errors"], "faults_injected": faults,
            "healthy_judge_errors": healthy_report["judge_errors"], "healthy_accuracy": healthy_report["accuracy"],
            "healthy_seconds": healthy_s, "faulty_seconds": faulty_s,
            "fault_bound_seconds": bound_seconds(list(modes.values()), timeout, retries)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pairs", type=int, default=60)
    p.add_argument("--timeout", type=float, default=0.5)
    p.add_argument("--retries", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="12 pairs: checks the script, measures little")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    r = measure(12 if args.quick else args.pairs, args.timeout, args.retries)
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(f"judge-eval --judge llm on {r['pairs']} pairs, --judge-timeout {r['timeout']} --judge-retries "
          f"{r['retries']}, scripted server on 127.0.0.1")
    print(format_table(("fault", "pairs", "requests", "expected requests"),
                       [(k, v["pairs"], v["requests"], v["expected"]) for k, v in sorted(r["by_mode"].items())]))
    print(f"judge errors counted: {r['judge_errors']} (hangs, 500s and prose replies injected: {r['faults_injected']}); healthy server: "
          f"{r['healthy_judge_errors']} errors, pass-through agreement {r['healthy_accuracy']:.3f}")
    extra = r["faulty_seconds"] - r["healthy_seconds"]
    print(f"wall time: healthy {r['healthy_seconds']:.2f} s, with faults {r['faulty_seconds']:.2f} s "
          f"(x{r['faulty_seconds'] / r['healthy_seconds']:.1f}); time the faults added {extra:.2f} s against "
          f"the bound {r['fault_bound_seconds']:.2f} s (ratio {extra / r['fault_bound_seconds']:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
