"""PostgreSQL run store against SQLite on the same machine: documents per second and per-write latency (p50,
p99), with 1 and 8 writer processes writing one store at once.

Each writer is its own process with its own store object (``open_store``, the 30 s lock wait of the tools, so
no write gives up) and writes 20 KB pages, 30 % of them a page it wrote before (deduplicated by content). The
PostgreSQL server is started here the way the tests start it (``tests/_pgserver.py``: ``initdb`` in a
temporary folder, 127.0.0.1, a free port, ``fsync=off``), so its figures are the store's code path and
PostgreSQL's CPU cost, not a disk's; the SQLite file sits in a temporary folder with the store's own
``synchronous=NORMAL``. Both run in the same invocation, interleaved, and the table gives ratios to SQLite.

    python benchmarks/bench_store_pg.py            # 2,000 documents per writer
    python benchmarks/bench_store_pg.py --quick    # a few dozen (the smoke test)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _pgserver import start_server, stop_server  # noqa: E402

PAGE_CHARS = 20 * 1024
_WORDS = "solar panel cell grid storage battery wind turbine capacity price market report 2026".split()


def _pages(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    base = " ".join(rng.choice(_WORDS) for _ in range(PAGE_CHARS // 6))
    return [f"{i} {base}"[:PAGE_CHARS] for i in range(n)]


def _writer(uri: str, n: int, count: int, start: Any, out: Any) -> None:
    """One writer process: ``count`` documents, the latency of each, sent back as JSON."""
    from citetrace.store import open_store

    store = open_store(uri)
    rng = random.Random(n)
    fresh = _pages(count, seed=n)
    written: list[int] = []
    lat: list[float] = []
    start.wait()
    t0 = time.perf_counter()
    for i in range(count):
        page = fresh[rng.choice(written)] if written and rng.random() < 0.3 else fresh[i]
        written.append(i)
        s = time.perf_counter()
        store.put_document(f"bench-{n}-{i // 100}", f"https://bench.example/{n}/{i}", page, status="ok",
                           http_status=200, content_type="text/html")
        lat.append(time.perf_counter() - s)
    wall = time.perf_counter() - t0
    store.close()
    out.put(json.dumps({"wall": wall, "lat": lat}))


def measure(uri: str, writers: int, count: int) -> dict[str, float]:
    """Documents per second over all writers (from the first start to the last finish) and latency."""
    ctx = mp.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(uri, n, count, start, out)) for n in range(writers)]
    for p in procs:
        p.start()
    start.set()
    results = [json.loads(out.get(timeout=600)) for _ in procs]
    for p in procs:
        p.join(60)
    lat = sorted(x for r in results for x in r["lat"])
    wall = max(r["wall"] for r in results)
    return {"docs_per_s": len(lat) / wall, "p50_ms": 1000 * statistics.median(lat),
            "p99_ms": 1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few dozen documents: checks the script works")
    parser.add_argument("--count", type=int, default=2000, help="documents per writer")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    count = 30 if args.quick else args.count
    rounds = 1 if args.quick else args.rounds
    server = start_server()
    tmp = Path(tempfile.mkdtemp(prefix="citetrace-bench-"))
    import psycopg

    rows: dict[tuple[str, int], list[dict[str, float]]] = {}
    try:
        for r in range(rounds):
            for writers in (1, 8):
                for backend in ("sqlite", "postgresql"):
                    if backend == "sqlite":
                        uri = f"sqlite:///{tmp}/r{r}w{writers}.db"
                    else:
                        db = f"bench_r{r}w{writers}"
                        with psycopg.connect(server.uri(), autocommit=True) as conn:
                            conn.execute(f"CREATE DATABASE {db}")
                        uri = server.uri(db)
                    rows.setdefault((backend, writers), []).append(measure(uri, writers, count))
    finally:
        stop_server(server)
        shutil.rmtree(tmp, ignore_errors=True)

    def med(backend: str, writers: int, key: str) -> float:
        return statistics.median(m[key] for m in rows[(backend, writers)])

    print(f"\n{count} documents of {PAGE_CHARS // 1024} KB per writer (30 % re-fetches), median of {rounds} "
          f"round(s); {os.cpu_count()} CPUs\n")
    print("| store | writers | documents/s | vs SQLite | p50 ms | p99 ms |")
    print("|---|---|---|---|---|---|")
    for writers in (1, 8):
        base = med("sqlite", writers, "docs_per_s")
        for backend in ("sqlite", "postgresql"):
            rate = med(backend, writers, "docs_per_s")
            print(f"| {backend} | {writers} | {rate:,.0f} | {rate / base:.2f}x | {med(backend, writers, 'p50_ms'):.2f} "
                  f"| {med(backend, writers, 'p99_ms'):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
