"""What pairing a provider's citations costs ``citetrace eval``, against the same report cited in its text.

Two runs with the same claims and the same stored pages: one cites each sentence with a markdown link in the
text, the other carries no URL in its text and records one model citation (a ``url_citation`` span) per
sentence, as a provider's web search answer does. Each figure is the median ms of ``--rounds`` offline
evaluations of the whole run; the ratio is model citations / in-text links. Placing the spans alone is
timed too, as a share of its evaluation.

    .venv/bin/python benchmarks/bench_model_citations.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Callable

from citetrace.eval import evaluate_run
from citetrace.eval._modelcites import place_model_citations
from citetrace.store import MemoryStore, ModelCitation, RunRecord


def _median_ms(fn: Callable[[], object], rounds: int) -> float:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few sentences: checks the script runs")
    ap.add_argument("--sentences", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    n, rounds = (5, 2) if args.quick else (args.sentences, args.rounds)
    sentences = [f"Metric {i} rose by {i + 3} percent in 2024 according to survey number {i} of the northern region."
                 for i in range(n)]
    urls = [f"https://s{i}.example/p" for i in range(n)]
    store = MemoryStore()
    text = " ".join(sentences)
    linked = " ".join(f"{s[:-1]} ([source]({urls[i]}))." for i, s in enumerate(sentences))
    for run_id, answer in (("spans", text), ("links", linked)):
        for i, url in enumerate(urls):
            store.put_document(run_id, url, f"Intro. {sentences[i]} Other text.", status="ok")
        store.put_run(RunRecord(run_id, run_id.ljust(32, "0"), "bench", None, time.time()))
        store.finish_run(run_id, ended_at=time.time(), answer=answer, error_type=None)
    cites = [ModelCitation("spans", i, urls[i], s, text.index(s), text.index(s) + len(s), "url_citation")
             for i, s in enumerate(sentences)]
    store.put_model_citations(cites)
    for run_id in ("spans", "links"):  # both pair every sentence, or the comparison is void
        coverage = evaluate_run(store, run_id).rates["citation_coverage"]
        assert coverage.numerator == coverage.denominator == n, (run_id, coverage)
    links = _median_ms(lambda: evaluate_run(store, "links"), rounds)
    spans = _median_ms(lambda: evaluate_run(store, "spans"), rounds)
    place = _median_ms(lambda: place_model_citations(text, cites), rounds * 10)
    print(f"offline eval of a {n}-sentence report, every sentence cited, {rounds} rounds (median ms)\n")
    print("| report cites with | ms per evaluation | x in-text links |")
    print("|---|---:|---:|")
    print(f"| markdown links in the text | {links:.1f} | 1.00 |")
    print(f"| model citations (url_citation spans) | {spans:.1f} | {spans / links:.2f} |")
    print(f"| placing the spans alone | {place:.3f} | {place / links:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
