"""Evaluating a stored run: checks per pair, rates with explicit denominators, events and metrics."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler
from typing import Callable

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from citetrace import names
from citetrace.eval import CONTRADICTED, PARTIAL, SUPPORTED, UNFETCHED, EvalError, EvalMetrics, emit_events, evaluate_run
from citetrace.store import MemoryStore

from .conftest import make_run, reply

REPORT = """# Labour market, March 2024

Unemployment rose to 4.2% in March 2024 [1]. Wages currently rise 3.4 percent a year [1].
It was the highest rate since January 2021 [2]. Construction firms cut 4,500 jobs [2][3].
Youth unemployment reached 11 %.

What comes next?

## References
[1] https://stats.example/unemployment
[2] https://jobs.example/2024/march
[3] https://broken.example/page
"""


def test_pairs_checks_and_rates(store: MemoryStore) -> None:
    """Every pair gets its mechanical checks and label; every rate states numerator and denominator."""
    make_run(store, REPORT)
    ev = evaluate_run(store, "run-1")
    rows = [(p.pair.sentence.index, p.label, p.in_run_store, p.returned_by_search) for p in ev.pairs]
    assert rows == [
        (1, SUPPORTED, True, True),      # 4.2% in March 2024: the page's own words (extractive rule)
        (2, CONTRADICTED, True, True),   # the page says wages rose 3.1 percent
        (3, PARTIAL, True, False),       # January 2021 matches; the jobs page came from no search
        (4, PARTIAL, True, False),
        (4, UNFETCHED, False, True),     # the broken page was read with an error: no text
        (5, None, None, None),           # uncited claim
    ]
    r = {k: (v.numerator, v.denominator) for k, v in ev.rates.items()}
    assert r == {"citation_coverage": (4, 5), "support_rate": (1, 4), "partial_rate": (2, 4),
                 "contradicted_rate": (1, 4), "dead_or_unfetched_rate": (1, 5), "judge_error_rate": (0, 4)}
    assert ev.unfetched_urls == ["https://broken.example/page"]
    assert ev.pairs[4].fetch_failed is True
    d = ev.as_dict()
    assert d["rates"]["citation_coverage"]["denominator_counts"] == "claims needing one"
    assert d["pairs"][1]["flags"] == ["stale", "percent_mismatch", "rule:rival_stating"]
    assert [s["reason"] for s in d["sentences"] if not s["needs_citation"]] == ["heading", "question", "heading"]


def test_stale_needs_an_old_page_and_a_claim_about_the_present(store: MemoryStore) -> None:
    """'currently' against a page published two years before the run is stale; the same claim a week later is not."""
    make_run(store, REPORT, started=time.mktime((2026, 4, 10, 0, 0, 0, 0, 0, -1)))
    ev = evaluate_run(store, "run-1")
    assert [p.stale for p in ev.pairs[:2]] == [False, True]
    fresh = MemoryStore()
    make_run(fresh, REPORT, started=time.mktime((2024, 4, 10, 0, 0, 0, 0, 0, -1)))
    assert evaluate_run(fresh, "run-1").pairs[1].stale is False


def test_liveness_counts_dead_pages_only_when_online(store: MemoryStore, http_server: Callable[..., str]) -> None:
    """A cited page that is gone today counts as dead online and is not checked offline."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        reply(h, 404 if h.path == "/gone" else 200, b"x")

    base = http_server(handle)
    report = f"Unemployment rose to 4.2% in March 2024 [1]. Live page claim with 4.2% [2].\n\n[1] {base}/gone\n[2] {base}/ok\n"
    make_run(store, report)
    store.put_document("run-1", f"{base}/gone", "The unemployment rate rose to 4.2% in March 2024.", status="ok")
    store.put_document("run-1", f"{base}/ok", "Live page claim with 4.2% stated.", status="ok")
    offline = evaluate_run(store, "run-1", offline=True)
    online = evaluate_run(store, "run-1", offline=False)
    assert [p.resolves for p in offline.pairs] == [None, None]
    assert [p.resolves for p in online.pairs] == [False, True]
    assert (offline.rates["dead_or_unfetched_rate"].numerator, online.rates["dead_or_unfetched_rate"].numerator) == (0, 1)


def test_unknown_run_and_missing_answer_are_clear_errors(store: MemoryStore) -> None:
    """A run id the store lacks, or a run without an answer, raises EvalError saying so."""
    with pytest.raises(EvalError, match="no run 'nope'"):
        evaluate_run(store, "nope")
    make_run(store, None)
    with pytest.raises(EvalError, match="no recorded answer; pass the report with --report"):
        evaluate_run(store, "run-1")
    assert evaluate_run(store, "run-1", report="Claim with 4.2% [1].\n\n[1] https://stats.example/unemployment\n")


def test_events_and_metrics(store: MemoryStore) -> None:
    """One evaluation event per judged citation on an evaluate_citations span; metrics use closed labels."""
    make_run(store, REPORT)
    ev = evaluate_run(store, "run-1")
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    assert emit_events(ev, provider.get_tracer("t")) == 5
    (span,) = exporter.get_finished_spans()
    assert span.name == names.EVAL_SPAN_NAME and span.attributes[names.RUN_ID] == "run-1"
    assert span.attributes[names.EVAL_RATE_PREFIX + "citation_coverage"] == pytest.approx(0.8)
    ev0 = span.events[0]
    assert ev0.name == names.GEN_AI_EVALUATION_RESULT
    assert ev0.attributes[names.GEN_AI_EVALUATION_NAME] == "citation_support"
    assert ev0.attributes[names.GEN_AI_EVALUATION_SCORE_LABEL] == SUPPORTED
    assert ev0.attributes[names.GEN_AI_EVALUATION_SCORE_VALUE] == 1.0
    registry = CollectorRegistry()
    EvalMetrics(registry).record(ev)
    get = registry.get_sample_value
    assert get(names.METRIC_EVAL_RUNS_TOTAL, {"agent": "tester", "judge": "deterministic"}) == 1
    assert get(names.METRIC_EVAL_PAIRS_TOTAL, {"agent": "tester", "judge": "deterministic", "label": PARTIAL}) == 2
    assert get(names.METRIC_EVAL_RATE, {"agent": "tester", "rate": "dead_or_unfetched_rate"}) == pytest.approx(0.2)
