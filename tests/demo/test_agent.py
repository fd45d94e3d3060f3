"""The demo agent's real spans (SDK TracerProvider + InMemorySpanExporter) and store documents match each
question's hand-computed plan, with every fault on and with none."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan

from citetrace import names
from citetrace.capture._extract import query_hash
from citetrace.demo import QUESTIONS, DemoServers, Expected, RunResult, page, question, run_demo
from citetrace.store import MemoryStore
from citetrace.summary import SpanRecord, TraceSummaryProcessor, summarize
from citetrace.testing import Captured, capture_spans

MODES = {"faults": "all", "clean": "none"}


@pytest.fixture(scope="module", params=list(MODES))
def demo(request: pytest.FixtureRequest, servers: DemoServers) -> Iterator[tuple[str, Captured, list[RunResult]]]:
    """Every question run once in the given fault mode, with spans captured in memory."""
    with capture_spans() as cap:
        results = run_demo("all", MODES[request.param], servers=servers, timeout=0.5)
        yield request.param, cap, results


def _expected(mode: str, result: RunResult) -> Expected:
    return result.question.expected if mode == "faults" else result.question.expected_clean


def _trace(cap: Captured, result: RunResult) -> tuple[ReadableSpan, list[ReadableSpan]]:
    spans = [s for s in cap.spans if s.context is not None and format(s.context.trace_id, "032x") == result.trace_id]
    (root,) = [s for s in spans if (s.attributes or {}).get(names.GEN_AI_OPERATION_NAME) == names.OP_INVOKE_AGENT]
    tools = sorted((s for s in spans if s is not root), key=lambda s: s.start_time or 0)
    return root, tools


def _attr(span: ReadableSpan, key: str) -> Any:
    return (span.attributes or {}).get(key)


def test_one_run_per_question(demo: tuple[str, Captured, list[RunResult]]) -> None:
    """Each question is one run, with its own trace and a RunResult carrying the right expectation."""
    mode, cap, results = demo
    assert [r.question.id for r in results] == [q.id for q in QUESTIONS]
    assert len({r.trace_id for r in results}) == len(results)
    assert all(r.expected == _expected(mode, r) for r in results)
    assert len(cap.run_spans()) == len(results)


def test_tool_spans_match_the_expected_calls(demo: tuple[str, Captured, list[RunResult]],
                                             servers: DemoServers) -> None:
    """Each run's execute_tool spans have exactly the expected kinds, statuses, HTTP codes and targets."""
    mode, cap, results = demo
    for result in results:
        expected = _expected(mode, result)
        root, tools = _trace(cap, result)
        got = []
        for span in tools:
            kind = _attr(span, names.TOOL_KIND)
            target = _attr(span, names.QUERY_HASH) if kind == "search" else servers.slug_of(_attr(span, names.URL_FULL))
            got.append((kind, _attr(span, names.TOOL_STATUS), _attr(span, names.HTTP_RESPONSE_STATUS_CODE), target))
            assert span.parent is not None and span.parent.span_id == root.context.span_id
            assert _attr(span, names.RUN_ID) == result.run_id
        want = [(c.kind, c.status, c.http_status, query_hash(c.target) if c.kind == "search" else c.target)
                for c in expected.calls]
        assert got == want, result.question.id


def test_root_span_cites_the_expected_pages(demo: tuple[str, Captured, list[RunResult]],
                                            servers: DemoServers) -> None:
    """The invoke_agent root names the agent and carries the cited URLs in reference order."""
    mode, cap, results = demo
    for result in results:
        root, _ = _trace(cap, result)
        assert root.name == "invoke_agent demo-researcher"
        cited = [servers.page_url(s) for s in _expected(mode, result).cited]
        assert list(_attr(root, names.CITATIONS)) == cited == list(result.cited_urls)


def test_summary_of_the_spans_equals_the_hand_computed_signals(demo: tuple[str, Captured, list[RunResult]]) -> None:
    """citetrace's summary over each run's real spans reproduces every hand-computed signal and reason."""
    mode, cap, results = demo
    for result in results:
        root, tools = _trace(cap, result)
        summary = summarize([SpanRecord.from_readable_span(s) for s in (root, *tools)])
        expected = _expected(mode, result)
        got = {k: getattr(summary, k) for k in expected.signals()}
        assert got == expected.signals(), result.question.id
        assert summary.failure_reasons == expected.failure_reasons, result.question.id


def test_store_holds_each_read_as_the_agent_saw_it(demo: tuple[str, Captured, list[RunResult]],
                                                    servers: DemoServers) -> None:
    """One stored document per read, with its status and HTTP code; readable pages are stored in full."""
    mode, cap, results = demo
    for result in results:
        docs = cap.store.documents(result.run_id)
        reads = [c for c in _expected(mode, result).calls if c.kind == "fetch"]
        assert [(servers.slug_of(d.url), d.status, d.http_status) for d in docs] == [
            (c.target, c.status, c.http_status) for c in reads
        ]
        for d in docs:
            slug = servers.slug_of(d.url)
            assert slug is not None
            if d.status == "ok":
                assert d.text == page(slug).text
            else:
                assert len(d.text) < 200


def test_report_has_markers_and_a_reference_list(demo: tuple[str, Captured, list[RunResult]]) -> None:
    """Every report cites with [n] markers and ends with a numbered list of the cited URLs."""
    _, _, results = demo
    for result in results:
        refs = [line for line in result.report.splitlines() if line.startswith("[")]
        assert refs == [f"[{i}] {u}" for i, u in enumerate(result.cited_urls, 1)]
        for i in range(1, len(refs) + 1):
            assert f"[{i}]." in result.report or f"[{i}][" in result.report


def test_claims_with_failed_sources_are_left_out(servers: DemoServers) -> None:
    """The walled, gone and slow pages are never cited; the unfetched citation is the only unread one."""
    with capture_spans():
        results = run_demo(["bikeshare", "lake", "prices"], servers=servers, timeout=0.5)
    cited = {servers.slug_of(u) for r in results for u in r.cited_urls}
    assert not cited & {"halverncycle-safety-2024", "lake-orrin-monitoring-buoys", "lake-orrin-fisheries-2024"}
    assert "battery-prices-council-survey" in cited


def test_summary_processor_writes_the_expected_summary_to_the_store(servers: DemoServers) -> None:
    """With the real summary processor, each run's stored summary matches its hand-computed signals."""
    store = MemoryStore()
    processor = TraceSummaryProcessor(store=store)
    try:
        with capture_spans(store=store, processors=(processor,)):
            results = run_demo(servers=servers, timeout=0.5, store=store)
    finally:
        processor.shutdown()
    for result in results:
        assert result.summary is not None and result.span_summary is not None, result.question.id
        expected = question(result.question.id).expected
        assert {k: result.summary[k] for k in expected.signals()} == expected.signals()
        assert tuple(result.summary["failure_reasons"]) == expected.failure_reasons
        assert tuple(result.span_summary["failure_reasons"]) == expected.failure_reasons


def test_bad_arguments_are_named() -> None:
    """Unknown questions or faults and an impossible timeout raise ValueError naming the problem."""
    with pytest.raises(ValueError, match="nope"):
        run_demo(["nope"])
    with pytest.raises(ValueError, match="unknown fault"):
        run_demo(faults="boom")
    with pytest.raises(ValueError, match="timeout"):
        run_demo(timeout=2.0, slow_seconds=1.0)
