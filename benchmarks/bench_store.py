"""Run-store throughput and size: 10,000 fetches of 20 KB pages, 30 % of them re-fetches of a page already
seen, into SQLite (WAL) in a temporary directory, written directly and through ``@traced_tool(kind="fetch")``.

Each mode runs in its own child process with its own temporary store. The pages are made before the timed
part (in batches of one run), so the figures are the store's (and the tracing's) cost, not the page maker's.

    python benchmarks/bench_store.py            # 10,000 fetches per mode
    python benchmarks/bench_store.py --quick    # a few hundred (the smoke test)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from typing import Any, Callable, Iterator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness as h  # noqa: E402

PAGE_CHARS = 20 * 1024
RUN_SIZE = 100  # fetches per research run
_WORDS = ("battery cell anode cathode lithium solid electrolyte density cycle capacity voltage "
          "researchers reported 2025 percent laboratory prototype manufacturer vehicle range").split()


def plan(fetches: int, duplicate_share: float, seed: int = 7) -> list[int]:
    """Which page each fetch reads: a new page, or (with ``duplicate_share``) one fetched before."""
    rng = random.Random(seed)
    order: list[int] = []
    pages = 0
    for i in range(fetches):
        if i and rng.random() < duplicate_share:
            order.append(order[rng.randrange(len(order))])
        else:
            order.append(pages)
            pages += 1
    return order


_BASE = " ".join(random.Random(1).choice(_WORDS) for _ in range(PAGE_CHARS // 4))


def page(k: int) -> tuple[str, str]:
    """(URL, text) of page ``k``: about 20 KB of text, different for every ``k``, the same every time."""
    head = f"<h1>Report {k}</h1>\n<p>Published 2025-{1 + k % 12:02d}-{1 + k % 28:02d}, figure {k * 37 % 1000}</p>\n"
    cut = (k * 7919) % (len(_BASE) - 1)
    body = _BASE[cut:] + _BASE[:cut]
    return f"https://site.example.org/reports/{k}", (head + body)[:PAGE_CHARS]


def _batches(order: list[int]) -> Iterator[list[tuple[str, str]]]:
    for start in range(0, len(order), RUN_SIZE):
        yield [page(k) for k in order[start:start + RUN_SIZE]]


# -- modes (run in the child) -------------------------------------------------------------------------
def direct(order: list[int], store: Any) -> float:
    """``store.put_document`` in a loop, one run id per 100 fetches; returns the seconds spent writing."""
    spent = 0.0
    for n, batch in enumerate(_batches(order)):
        run_id = f"run-{n:05d}"
        t0 = time.perf_counter()
        for url, text in batch:
            store.put_document(run_id, url, text, status="ok", http_status=200, content_type="text/html")
        spent += time.perf_counter() - t0
    return spent


def traced(order: list[int], store: Any) -> float:
    """The same fetches through ``@traced_tool(kind="fetch")``, 100 per ``research_run``, SDK tracing on."""
    from citetrace import research_run, traced_tool
    from citetrace import _telemetry
    from citetrace.config import load_settings

    provider, _counting = h.sdk_provider()
    _telemetry.reset(load_settings(), tracer_provider=provider, store=store)
    current: dict[str, str] = {}

    @traced_tool(kind="fetch")
    def fetch_page(url: str) -> str:
        return current[url]

    spent = 0.0
    for n, batch in enumerate(_batches(order)):
        current.clear()
        current.update(batch)
        t0 = time.perf_counter()
        with research_run(question=f"question {n}", agent="bench"):
            for url, _text in batch:
                fetch_page(url)
        spent += time.perf_counter() - t0
    provider.force_flush()
    provider.shutdown()
    return spent


def agent(order: list[int], store: Any) -> float:
    """The same loop through the store ``configure()`` gives an agent: ``BufferedStore`` over SQLite with the
    100 ms lock wait, the store free (what the lock-wait bound and the retry queue cost when nothing waits)."""
    from citetrace.store import SQLiteStore, agent_store

    buffered = agent_store(SQLiteStore(store.path, lock_wait_s=0.1))
    try:
        return direct(order, buffered)
    finally:
        buffered.close()


MODES: dict[str, tuple[str, Callable[[list[int], Any], float]]] = {
    "direct": ("SQLiteStore.put_document", direct),
    "agent": ("the agent's store (BufferedStore), free", agent),
    "traced": ('@traced_tool(kind="fetch") in research_run', traced),
}


def _disk_bytes(directory: str) -> int:
    return sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))


def child(mode: str, fetches: int, duplicate_share: float) -> dict[str, Any]:
    """Run one mode against a fresh store in a temporary directory; return its figures."""
    from citetrace.store import SQLiteStore

    order = plan(fetches, duplicate_share)
    tmp = tempfile.mkdtemp(prefix="citetrace-store-bench-")
    try:
        path = os.path.join(tmp, "store.db")
        store = SQLiteStore(path)
        seconds = MODES[mode][1](order, store)
        store.close()  # the last connection closing checkpoints the WAL into the main file
        conn = sqlite3.connect(path)
        documents = conn.execute("SELECT COUNT(*) FROM documents").fetchone()[0]
        texts = conn.execute("SELECT COUNT(*) FROM content").fetchone()[0]
        conn.close()
        return {
            "seconds": seconds,
            "fetches": fetches,
            "unique_pages": len(set(order)),
            "documents": documents,
            "texts": texts,
            "disk_bytes": _disk_bytes(tmp),
            "text_bytes": fetches * PAGE_CHARS,
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# -- the parent ---------------------------------------------------------------------------------------
def parent(fetches: int, duplicate_share: float, rounds: int) -> int:
    results: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for _ in range(rounds):
        for mode in MODES:
            args = ["--child", mode, "--fetches", str(fetches), "--duplicates", str(duplicate_share)]
            results[mode].append(h.run_child(__file__, args, h.child_env()))
    print(f"machine: {h.machine()}")
    first = results["direct"][0]
    print(f"fetches: {fetches} of {PAGE_CHARS // 1024} KB pages, {first['fetches'] - first['unique_pages']} of them "
          f"re-fetches ({100.0 * duplicate_share:.0f} % planned), {RUN_SIZE} per run, SQLite WAL in a temp dir, "
          f"{rounds} round(s), median\n")
    base = h.median_of(r["seconds"] for r in results["direct"])
    rows = []
    for mode, (label, _fn) in MODES.items():
        runs = results[mode]
        seconds = h.median_of(r["seconds"] for r in runs)
        last = runs[-1]
        if last["documents"] != fetches or last["texts"] != last["unique_pages"]:
            raise RuntimeError(f"{mode}: stored {last['documents']} documents / {last['texts']} texts, expected "
                               f"{fetches} / {last['unique_pages']}")
        rows.append([
            label,
            fetches / seconds,
            seconds / fetches * 1e6,
            seconds / base,
            last["disk_bytes"] / 2**20,
            last["text_bytes"] / 2**20,
            last["disk_bytes"] / last["text_bytes"],
            f"{last['texts']:,} / {last['documents']:,}",
        ])
    headers = ["store write", "docs/s", "µs/doc", "x direct", "MiB on disk", "MiB fetched", "disk / fetched",
               "texts / documents"]
    print(h.format_table(headers, rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few hundred fetches, one round")
    parser.add_argument("--fetches", type=int, default=10_000)
    parser.add_argument("--duplicates", type=float, default=0.3, help="share of re-fetches of a page seen before")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", choices=sorted(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not 0.0 <= args.duplicates < 1.0:
        parser.error("--duplicates must be in [0, 1)")
    if args.child:
        print(json.dumps(child(args.child, args.fetches, args.duplicates)))
        return 0
    if args.quick:
        return parent(300, args.duplicates, 1)
    return parent(args.fetches, args.duplicates, args.rounds)


if __name__ == "__main__":
    sys.exit(main())
