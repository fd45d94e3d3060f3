"""TraceSummaryProcessor on a real SDK pipeline: root attributes, store, runless traces, errors, threads."""

from __future__ import annotations

import threading
from typing import Any, Callable

import pytest

from citetrace import names, research_run, traced_tool
from citetrace.store import MemoryStore, RunRecord
from citetrace.summary import SpanRecord, Thresholds, summarize

from .conftest import Rig


class RateLimitError(Exception):
    """Named like the rate-limit errors of search SDKs."""


@traced_tool(kind="search")
def web_search(query: str) -> list[dict[str, str]]:
    if query == "nothing":
        return []
    if query == "too fast":
        raise RateLimitError("429")
    return [{"url": f"https://{query.split()[0].lower()}.example/{i}"} for i in range(3)]


@traced_tool(kind="fetch")
def read_page(url: str) -> str:
    if "broken" in url:
        raise ConnectionError("reset")
    return "page text " * 50


def one_run(answer: str, *queries: str, reads: tuple[str, ...] = ()) -> str:
    with research_run("q", agent="scout") as run:
        for q in queries:
            try:
                web_search(q)
            except RateLimitError:
                pass
        for url in reads:
            try:
                read_page(url)
            except ConnectionError:
                pass
        run.record_answer(answer)
    return run.id


def test_summary_written_on_root_before_it_ends(make_rig: Callable[..., Rig]) -> None:
    """The exported root carries citetrace.summary.* computed by hand: 3 searches (1 repeat), 2 reads, 1 uncited."""
    rig = make_rig()
    one_run("See https://solar.example/0 and https://nowhere.example/x.", "Solar growth", "solar  GROWTH", "wind",
            reads=("https://solar.example/0", "https://broken.example/"))
    (root,) = rig.roots()
    attrs = root.attributes or {}
    expected = {"searches": 3, "reads": 2, "repeat_queries": 1, "empty_searches": 0, "failed_reads": 1,
                "rate_limited": 0, "distinct_urls_seen": 6, "citations": 2, "uncited_from_retrieval": 1,
                "cited_not_fetched": 1}
    for field, value in expected.items():
        assert attrs[names.summary_attr(field)] == value, field
    assert tuple(attrs[names.SUMMARY_FAILURE_REASONS]) == (names.REASON_UNCITED_URL, names.REASON_CITED_NOT_FETCHED)
    assert attrs[names.SUMMARY_KEEP] is True and attrs[names.SUMMARY_FAILED] is True
    assert 0 < attrs[names.summary_attr("slowest_ms")] <= attrs[names.summary_attr("total_ms")]


def test_processor_agrees_with_pure_summary_and_store(make_rig: Callable[..., Rig]) -> None:
    """The stored summary equals summarize() over the same finished spans (except the hook-time total_ms)."""
    rig = make_rig()
    run_id = one_run("https://wind.example/1", "wind power", "nothing", "too fast", reads=("https://wind.example/1",))
    rig.flush()
    record = rig.store.get_run(run_id)
    assert record is not None and record.summary is not None
    stored = record.summary
    records = [SpanRecord.from_readable_span(s) for s in rig.everything.get_finished_spans()]
    pure = summarize(records, thresholds=Thresholds(sample_percent=0.0)).to_dict()
    assert {k: v for k, v in stored.items() if k != "total_ms"} == {k: v for k, v in pure.items() if k != "total_ms"}
    assert stored["failure_reasons"] == [names.REASON_EMPTY_SEARCH, names.REASON_RATE_LIMITED]
    assert stored["run_id"] == run_id and stored["agent"] == "scout"


def test_agent_error_is_a_failure_and_still_raises(make_rig: Callable[..., Rig]) -> None:
    """An exception escaping the run reaches the caller unchanged; the summary says agent_error and keeps it."""
    rig = make_rig()
    with pytest.raises(KeyError):
        with research_run("q", agent="scout"):
            web_search("solar")
            raise KeyError("boom")
    (root,) = rig.roots()
    assert tuple((root.attributes or {})[names.SUMMARY_FAILURE_REASONS]) == (names.REASON_AGENT_ERROR,)
    assert len(rig.kept_spans()) == 2
    assert rig.value("citetrace_run_failures_total", agent="scout", reason=names.REASON_AGENT_ERROR) == 1


def test_runless_tool_call_is_its_own_exported_trace(make_rig: Callable[..., Rig]) -> None:
    """A tool call outside any run: exported (it is its trace's root), counted as a tool call, not as a run."""
    rig = make_rig()
    web_search("solar")
    (span,) = rig.kept_spans()
    assert (span.attributes or {})[names.TOOL_KIND] == "search"
    assert rig.value("citetrace_tool_calls_total", agent=names.AGENT_UNKNOWN, tool="web_search", kind="search",
                     status="ok") == 1
    assert rig.value("citetrace_runs_total", agent=names.AGENT_UNKNOWN, outcome="ok") == 0
    assert rig.store.runs() == []
    assert rig.processor.traces_in_flight == 0


def test_runless_trace_with_children_follows_its_own_keep(make_rig: Callable[..., Rig]) -> None:
    """A user span around tool calls: its root is exported; the children only when a failure (here: empty search)."""
    rig = make_rig()
    with rig.tracer.start_as_current_span("job"):
        web_search("solar")
    assert [s.name for s in rig.kept_spans()] == ["job"]
    rig.kept.clear()
    with rig.tracer.start_as_current_span("job"):
        web_search("nothing")
    assert sorted(s.name for s in rig.kept_spans()) == ["execute_tool web_search", "job"]


def test_foreign_traces_pass_through(make_rig: Callable[..., Rig]) -> None:
    """A trace without citetrace spans is not ours to sample: every span is exported."""
    rig = make_rig()
    with rig.tracer.start_as_current_span("request"):
        with rig.tracer.start_as_current_span("db"):
            pass
    assert sorted(s.name for s in rig.kept_spans()) == ["db", "request"]
    assert rig.value("citetrace_traces_sampled_total", decision="drop") == 0


def test_run_nested_in_user_span(make_rig: Callable[..., Rig]) -> None:
    """A run inside a user span: its root is exported at once; the trace is decided when the user span ends."""
    rig = make_rig()
    with rig.tracer.start_as_current_span("request"):
        one_run("https://solar.example/0", "solar", reads=("https://solar.example/0",))
        rig.flush()
        assert [s.name for s in rig.kept.get_finished_spans()] == ["invoke_agent scout"]
    assert sorted(s.name for s in rig.kept_spans()) == ["invoke_agent scout", "request"]
    assert rig.value("citetrace_runs_total", agent="scout", outcome="ok") == 1


class BrokenStore(MemoryStore):
    """A store whose summary writes fail."""

    def put_summary(self, run_id: str, summary: dict[str, Any], *, trace_id: str = "", agent: str = "",
                    run: Any = None) -> None:
        raise OSError("disk full")


def test_store_failure_is_counted_not_raised(make_rig: Callable[..., Rig]) -> None:
    """A failing store write never reaches the agent; it is counted in citetrace_store_write_errors_total."""
    rig = make_rig(store=BrokenStore())
    one_run("", "solar")
    rig.flush()
    assert rig.value("citetrace_store_write_errors_total") == 1


class RunRowsLost(MemoryStore):
    """A store where the agent's own run-row writes fail (its summaries still land)."""

    def put_run(self, run: RunRecord) -> None:
        raise OSError("disk full")


def test_a_summary_files_the_roots_times_when_the_agents_run_row_was_lost(make_rig: Callable[..., Rig]) -> None:
    """The in-process summary files the root's own start, end and (content capture on) question and answer, not
    the write time, when the run's own record never reached the store."""
    rig = make_rig(store=RunRowsLost(), capture_content=True)
    run_id = one_run("See https://solar.example/0.", "solar", reads=("https://solar.example/0",))
    rig.flush()
    [root] = rig.roots()
    run = rig.store.get_run(run_id)
    assert run is not None and run.summary is not None and run.summary["searches"] == 1
    assert (run.started_at, run.ended_at) == ((root.start_time or 0) / 1e9, (root.end_time or 0) / 1e9)
    assert (run.question, run.answer) == ("q", "See https://solar.example/0.")


def test_exporter_failure_is_counted_not_raised(make_rig: Callable[..., Rig]) -> None:
    """An exporter that raises costs an error count, never an exception in the agent."""
    rig = make_rig()

    def boom(spans: Any) -> Any:
        raise RuntimeError("collector down")

    rig.kept.export = boom  # type: ignore[method-assign]
    one_run("", "nothing")
    rig.flush()
    assert rig.value("citetrace_span_processing_errors_total") == 1


def test_concurrent_runs_are_summarized_separately(make_rig: Callable[..., Rig]) -> None:
    """Eight threads, each with its own runs of i+1 searches: every stored summary has its own count."""
    rig = make_rig()
    ids: dict[int, list[str]] = {}

    def worker(i: int) -> None:
        ids[i] = [one_run("", *[f"t{i} q{j}" for j in range(i + 1)]) for _ in range(5)]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rig.flush()
    for i, run_ids in ids.items():
        for run_id in run_ids:
            record = rig.store.get_run(run_id)
            assert record is not None and record.summary is not None
            assert record.summary["searches"] == i + 1
    assert rig.processor.traces_in_flight == 0
    assert rig.value("citetrace_runs_total", agent="scout", outcome="ok") == 40


def test_metrics_off_still_summarizes(make_rig: Callable[..., Rig]) -> None:
    """Without a registry the processor still writes the summary on the root and records no metric."""
    rig = make_rig(metrics=False)
    one_run("", "solar")
    (root,) = rig.roots()
    assert (root.attributes or {})[names.summary_attr("searches")] == 1
    assert rig.value("citetrace_runs_total", agent="scout", outcome="ok") == 0


def test_plain_readable_spans_are_summarized(make_rig: Callable[..., Rig]) -> None:
    """ReadableSpans built by hand (plain attribute dicts, no SDK internals) go through the public fallback."""
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.trace import SpanContext, TraceFlags

    rig = make_rig()
    tid = 0xABC
    root_ctx = SpanContext(tid, 1, is_remote=False, trace_flags=TraceFlags(1))
    tool = ReadableSpan("execute_tool s", SpanContext(tid, 2, is_remote=False, trace_flags=TraceFlags(1)),
                        parent=root_ctx,
                        attributes={names.TOOL_KIND: "search", names.TOOL_STATUS: "empty", names.RUN_ID: "r1",
                                    names.GEN_AI_AGENT_NAME: "hand"}, start_time=0, end_time=2_000_000)
    root = ReadableSpan("invoke_agent hand", root_ctx, parent=None,
                        attributes={names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.RUN_ID: "r1",
                                    names.GEN_AI_AGENT_NAME: "hand"}, start_time=0, end_time=5_000_000)
    rig.processor.on_end(tool)
    rig.processor.on_end(root)
    rig.flush()
    record = rig.store.get_run("r1")
    assert record is not None and record.summary is not None
    assert record.summary["empty_searches"] == 1 and record.summary["total_ms"] == 5.0
    assert sorted(s.name for s in rig.kept.get_finished_spans()) == ["execute_tool s", "invoke_agent hand"]


def test_two_runs_in_one_trace_are_summarized_separately(make_rig: Callable[..., Rig]) -> None:
    """Two runs under one user span: each root gets its own counts; one failing run keeps the whole trace."""
    rig = make_rig()
    with rig.tracer.start_as_current_span("request"):
        first = one_run("", "solar", "wind")
        second = one_run("", "nothing")
    rig.flush()
    summaries = {r: rig.store.get_run(r).summary for r in (first, second)}  # type: ignore[union-attr]
    assert summaries[first] is not None and summaries[first]["searches"] == 2
    assert summaries[second] is not None and summaries[second]["empty_searches"] == 1
    assert len(rig.kept_spans()) == 1 + 2 + 3  # request, two roots, three searches


def test_root_with_remote_parent_is_decided_at_its_end(make_rig: Callable[..., Rig]) -> None:
    """A run continuing a trace from another process (remote parent) is decided when its root ends."""
    from opentelemetry import context, trace
    from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

    rig = make_rig()
    remote = SpanContext(0x1234, 0x99, is_remote=True, trace_flags=TraceFlags(1))
    token = context.attach(trace.set_span_in_context(NonRecordingSpan(remote)))
    try:
        one_run("", "solar")
    finally:
        context.detach(token)
    assert [s.name for s in rig.kept_spans()] == ["invoke_agent scout"]
    assert rig.processor.traces_in_flight == 0
