"""How long the run page takes for a big run: written to a file, then loaded in Debian's headless Chromium.

The run has 500 tool calls (250 searches of 10 results, 250 reads, every status) and an answer with 200
citations, each read page stored (4 KB). Each figure is the median of ``--repeats`` rounds; the baseline in the
same run is ``citetrace show``'s text timeline of the same run (the ratio says what the picture costs over
the text). Chromium is started once, outside the timings.

    .venv/bin/python benchmarks/bench_view.py [--quick] [--repeats N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from citetrace.store import RunRecord, Store, ToolCallRecord, open_store
from citetrace.store._cli import format_run
from citetrace.view import page_for_run

STATUSES = ("ok", "ok", "ok", "empty", "error", "rate_limited")


def build_run(store: Store, calls: int, citations: int) -> str:
    """Record one big run; return its id."""
    run_id, t0 = "bench-view-run", time.time() - 600
    urls = [f"https://site{i % 37}.example/articles/{i}?id={i}" for i in range(max(citations, calls // 2) * 2)]
    records, seq = [], 0
    for i in range(calls // 2):
        records.append(ToolCallRecord(run_id, seq, "web_search", "search", STATUSES[i % 6], t0 + i, 150.0,
                                      result_count=10, query_hash=f"{i:016x}", urls_returned=tuple(urls[i * 2:i * 2 + 10])))
        records.append(ToolCallRecord(run_id, seq + 1, "read_page", "fetch", STATUSES[(i + 1) % 6], t0 + i + 0.5,
                                      400.0, http_status=200, url=urls[i * 2], result_size=4000))
        if i < citations:
            store.put_document(run_id, urls[i * 2], f"Page {i}. " + "Body text of the page. " * 180,
                               status="ok", http_status=200, fetched_at=t0 + i + 0.9)
        seq += 2
    body = " ".join(f"Claim number {i} holds [{i + 1}]." for i in range(citations))
    refs = "\n".join(f"[{i + 1}] {urls[i * 2]}" for i in range(citations))
    store.put_run(RunRecord(run_id, "ef" * 16, "bench-agent", "a big question", t0, t0 + calls, f"{body}\n\n{refs}"))
    store.put_calls(records)
    store.put_summary(run_id, {"searches": calls // 2, "reads": calls // 2, "citations": citations,
                               "failure_reasons": ["failed_reads", "rate_limited"]}, trace_id="ef" * 16, agent="bench-agent")
    return run_id


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="50 calls, 20 citations, 2 rounds: checks the script runs")
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()
    calls, cites, repeats = (50, 20, 2) if args.quick else (500, 200, args.repeats)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        store = open_store(f"sqlite:///{Path(tmp) / 'store.db'}")
        run_id = build_run(store, calls, cites)
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        text_s, write_s, load_s, size = [], [], [], 0
        for r in range(repeats):
            t = time.perf_counter()
            record = store.get_run(run_id)
            assert record is not None
            format_run(record, store.calls(run_id), store)
            text_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            path = Path(tmp) / f"page{r}.html"
            path.write_text(page_for_run(store, run_id), encoding="utf-8")
            write_s.append(time.perf_counter() - t)
            size = os.path.getsize(path)
            t = time.perf_counter()
            page.goto(path.as_uri(), wait_until="load")
            load_s.append(time.perf_counter() - t)
        rows = page.locator(".call").count()
        browser.close()
        store.close()
    med = statistics.median
    total = [w + lo for w, lo in zip(write_s, load_s)]
    print(f"run page: {calls} tool calls, {cites} citations, {size // 1024} KiB; {rows} call rows in the DOM; "
          f"median of {repeats} rounds\n")
    print("| step | median s | x text timeline |")
    print("|---|---:|---:|")
    print(f"| `citetrace show` text timeline (baseline) | {med(text_s):.3f} | 1.00 |")
    print(f"| page written (store read + render + file) | {med(write_s):.3f} | {med(write_s) / med(text_s):.1f} |")
    print(f"| page loaded in Chromium (load event) | {med(load_s):.3f} | {med(load_s) / med(text_s):.1f} |")
    print(f"| **written + loaded** (target < 1 s) | **{med(total):.3f}** | {med(total) / med(text_s):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
