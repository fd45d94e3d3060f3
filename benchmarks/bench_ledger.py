"""Claim-ledger operations and the audit of a 1,000-claim run, on SQLite (WAL, temporary file) and in memory.

A run of 200 fetched pages (about 5 KB each) gets 1,000 atomic claims, 2,000 evidence records (two spans per
claim, from two source classes), a link and a verdict per claim. Each operation is timed per call; the
baseline is the bare store write that persists one ledger record (``store.ledger_write`` of one journal entry
and one row, the same backend), so the ratio is what the ledger's checks and bookkeeping add. The audit
re-derives the whole run; its baseline is re-opening the ledger (reading everything back).

    python benchmarks/bench_ledger.py            # 1,000 claims, 3 rounds
    python benchmarks/bench_ledger.py --quick    # 50 claims, 1 round (the smoke test)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness as h  # noqa: E402

PAGES = 200
_WORDS = ("vendor tier seat price uptime guarantee contract review customers region growth quarter revenue "
          "market share support enterprise business starter plan annual monthly").split()
RUN = "bench-ledger-run"


def _page(k: int) -> str:
    rng = random.Random(k)
    sentences = [" ".join(rng.choice(_WORDS) for _ in range(12)).capitalize() + f" {k}-{i}." for i in range(40)]
    return " ".join(sentences)


def _store(kind: str, tmp: Path) -> Any:
    from citetrace.store import MemoryStore, RunRecord, SQLiteStore

    store = SQLiteStore(tmp / "ledger.db") if kind == "sqlite" else MemoryStore()
    store.put_run(RunRecord(RUN, "0" * 32, "bench", "bench question", time.time()))
    return store


def _timed(fn: Callable[[int], Any], n: int) -> float:
    """µs per call over n calls."""
    start = time.perf_counter()
    for i in range(n):
        fn(i)
    return (time.perf_counter() - start) / n * 1e6


def one_round(kind: str, claims: int) -> dict[str, float]:
    """µs per operation for one fresh store."""
    from citetrace.ledger import Ledger, audit

    with tempfile.TemporaryDirectory() as tmp:
        store = _store(kind, Path(tmp))
        texts = [_page(k) for k in range(PAGES)]
        for k, text in enumerate(texts):
            store.put_document(RUN, f"https://site{k % 7}.example/p/{k}", text, status="ok")
        bare = _timed(lambda i: store.ledger_write("bare-run", entries=[("evidence", {"i": i, "span": "x" * 80})],
                                                   rows=[("claims", f"c{i}", {"i": i})]), claims)
        ledger = Ledger(RUN, store=store)
        q = ledger.add_question("bench question")

        def span(i: int, side: int) -> tuple[str, str]:
            k = (2 * i + side) % PAGES
            sentences = texts[k].split(". ")
            return f"https://site{k % 7}.example/p/{k}", sentences[(i * 3 + side) % 38] + "."

        eids: list[tuple[str, str]] = []

        def add_evidence(i: int) -> None:
            url_a, a = span(i, 0)
            url_b, b = span(i, 1)
            eids.append((ledger.add_evidence(url_a, a, query="q", source_class="vendor_docs", question=q),
                         ledger.add_evidence(url_b, b, query="q", source_class="news", question=q)))

        ev = _timed(add_evidence, claims) / 2
        cids: list[str] = []
        claim = _timed(lambda i: cids.append(ledger.add_claim(f"Claim {i} about the vendor.", question=q)), claims)
        link = _timed(lambda i: ledger.link(cids[i], supports=[eids[i][0], eids[i][1]]), claims)
        verify = _timed(lambda i: ledger.verify(cids[i], "verified"), claims)
        t0 = time.perf_counter()
        reopened = Ledger.open(RUN, store=store)
        reopen = (time.perf_counter() - t0) * 1e6
        t0 = time.perf_counter()
        result = audit(store, RUN)
        audit_us = (time.perf_counter() - t0) * 1e6
        assert result.ok and result.claims == claims and len(reopened.claims()) == claims, result.breaks[:3]
        t0 = time.perf_counter()
        reopened.render()
        render = (time.perf_counter() - t0) * 1e6
        store.close()
    return {"bare": bare, "evidence": ev, "claim": claim, "link": link, "verify": verify, "reopen": reopen,
            "audit": audit_us, "render": render}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 claims, 1 round")
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    claims, rounds = (50, 1) if args.quick else (args.claims, args.rounds)
    print(f"claim ledger, {claims:,} claims, {2 * claims:,} evidence records, {PAGES} pages; median of {rounds}"
          f" round(s)\n{h.machine()}\n")
    for kind in ("sqlite", "memory"):
        runs = [one_round(kind, claims) for _ in range(rounds)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        rows = [
            ("bare store write (1 entry + 1 row)", med["bare"], 1.0),
            ("add_evidence (entry check against the stored page)", med["evidence"], med["evidence"] / med["bare"]),
            ("add_claim", med["claim"], med["claim"] / med["bare"]),
            ("link (2 records)", med["link"], med["link"] / med["bare"]),
            ("verify", med["verify"], med["verify"] / med["bare"]),
        ]
        print(h.format_table((f"{kind}: operation", "µs/call", "x bare write"), rows))
        whole = [
            ("Ledger.open (read the run back)", med["reopen"] / 1e3, 1.0),
            (f"audit ({claims:,} claims re-derived)", med["audit"] / 1e3, med["audit"] / med["reopen"]),
            ("render", med["render"] / 1e3, med["render"] / med["reopen"]),
        ]
        print()
        print(h.format_table((f"{kind}: whole run", "ms", "x Ledger.open"), whole))
        print(f"audit per claim: {med['audit'] / claims:.1f} µs\n")


if __name__ == "__main__":
    main()
