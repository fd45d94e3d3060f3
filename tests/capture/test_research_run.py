"""research_run: the invoke_agent root, the recorded answer, citations, errors and run-end hooks."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Mapping

import pytest
from opentelemetry.trace import Span, StatusCode

from citetrace import names, research_run, traced_tool
from citetrace import _telemetry
from citetrace.capture import current_run
from citetrace.testing import capture_spans


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    return "page text " * 40


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [{"url": "https://a.example/1"}]


REPORT = """# Findings

Solar grew 24 % in 2024 [1]. Wind grew too ([source](https://b.example/wind)).

[1] https://a.example/1
"""


def test_root_span_and_children() -> None:
    """The run opens an invoke_agent root; tool spans are its children and carry the run id and agent."""
    with capture_spans() as cap:
        with research_run(question="How fast does solar grow?", agent="scout") as run:
            search("solar growth")
            fetch("https://a.example/1")
            assert current_run() is run
    assert current_run() is None
    (root,) = cap.run_spans()
    assert root.name == "invoke_agent scout"
    attrs = root.attributes or {}
    assert attrs[names.GEN_AI_OPERATION_NAME] == "invoke_agent"
    assert attrs[names.GEN_AI_AGENT_NAME] == "scout"
    assert attrs[names.RUN_ID] == run.id
    assert names.RUN_QUESTION not in attrs
    assert re.fullmatch(r"[0-9a-f]{32}", run.trace_id)
    assert run.trace_id == format(root.context.trace_id, "032x")
    for span in cap.tool_spans():
        assert span.parent is not None and span.parent.span_id == root.context.span_id
        assert (span.attributes or {})[names.RUN_ID] == run.id
        assert (span.attributes or {})[names.GEN_AI_AGENT_NAME] == "scout"


def test_record_answer_sets_citations_and_keeps_text_in_store() -> None:
    """Cited URLs go on the root (always); the answer text only with content capture, but always in the store."""
    with capture_spans() as cap:
        with research_run("q", agent="a") as run:
            cited = run.record_answer(REPORT)
    assert cited == ["https://a.example/1", "https://b.example/wind"]
    attrs = cap.run_spans()[0].attributes or {}
    assert list(attrs[names.CITATIONS]) == cited  # type: ignore[arg-type]
    assert names.ANSWER_TEXT not in attrs
    record = cap.store.get_run(run.id)
    assert record is not None and record.answer == REPORT and record.question == "q"
    with capture_spans(capture_content=True) as cap:
        with research_run("q", agent="a") as run:
            run.record_answer(REPORT)
    attrs = cap.run_spans()[0].attributes or {}
    assert attrs[names.ANSWER_TEXT] == REPORT
    assert attrs[names.RUN_QUESTION] == "q"


def test_calls_recorded_in_order() -> None:
    """The store keeps the run's tool calls in order with status and timing."""
    with capture_spans() as cap:
        with research_run("q", agent="a") as run:
            search("one")
            fetch("https://a.example/1")
            search("two")
    calls = cap.store.calls(run.id)
    assert [(c.seq, c.tool, c.status) for c in calls] == [(0, "search", "ok"), (1, "fetch", "ok"), (2, "search", "ok")]
    assert all(c.duration_ms >= 0 for c in calls)
    assert calls[0].urls_returned == ("https://a.example/1",)
    assert cap.store.documents(run.id)[0].url == "https://a.example/1"


def test_agent_error_marks_root_and_reraises() -> None:
    """An exception escaping the run sets error.type and ERROR on the root and is re-raised unchanged."""
    boom = KeyError("missing")
    with capture_spans() as cap:
        with pytest.raises(KeyError) as info:
            with research_run("q", agent="a") as run:
                raise boom
    assert info.value is boom
    root = cap.run_spans()[0]
    assert (root.attributes or {})[names.ERROR_TYPE] == "KeyError"
    assert root.status.status_code is StatusCode.ERROR
    record = cap.store.get_run(run.id)
    assert record is not None and record.error_type == "KeyError" and record.ended_at is not None


def test_decorator_sync_and_async() -> None:
    """research_run works as a decorator on sync and async functions, one run per call."""

    @research_run("q", agent="deco")
    def agent() -> str:
        fetch("https://a.example/1")
        run = current_run()
        assert run is not None
        return run.id

    @research_run("q", agent="adeco")
    async def aagent() -> str:
        run = current_run()
        assert run is not None
        return run.id

    with capture_spans() as cap:
        first, second = agent(), agent()
        third = asyncio.run(aagent())
    assert len({first, second, third}) == 3
    assert sorted(s.name for s in cap.run_spans()) == ["invoke_agent adeco", "invoke_agent deco", "invoke_agent deco"]


def test_async_context_manager() -> None:
    """`async with research_run(...)` opens and closes a run."""

    async def main() -> str:
        async with research_run("q", agent="am") as run:
            return run.id

    with capture_spans() as cap:
        run_id = asyncio.run(main())
    assert (cap.run_spans()[0].attributes or {})[names.RUN_ID] == run_id


def test_run_end_hooks_write_before_end_and_failures_are_contained() -> None:
    """Hooks see the live root and their attributes land on it; a failing hook is counted, not raised."""
    seen: list[int] = []

    def good(span: Span, trace_id: int) -> Mapping[str, Any]:
        seen.append(trace_id)
        return {"citetrace.summary.searches": 7}

    def bad(span: Span, trace_id: int) -> Mapping[str, Any]:
        raise RuntimeError("hook bug")

    _telemetry.current().hooks.run_end.add(good)
    _telemetry.current().hooks.run_end.add(bad)
    before = _telemetry.current().hooks.error_counts().get("run_end_hook", 0)
    try:
        with capture_spans() as cap:
            with research_run("q", agent="a"):
                pass
    finally:
        _telemetry.current().hooks.run_end.remove(good)
        _telemetry.current().hooks.run_end.remove(bad)
    root = cap.run_spans()[0]
    assert seen == [root.context.trace_id]
    assert (root.attributes or {})["citetrace.summary.searches"] == 7
    assert _telemetry.current().hooks.error_counts()["run_end_hook"] == before + 1


def test_tool_calls_outside_runs_are_their_own_traces() -> None:
    """Without a run, each tool call is a root span of its own trace."""
    with capture_spans() as cap:
        search("a")
        search("b")
    assert all(s.parent is None for s in cap.spans)
    assert len({s.context.trace_id for s in cap.spans}) == 2


def test_bad_arguments_raise() -> None:
    """Misuse raises with a message naming the argument."""
    with pytest.raises(ValueError, match="agent"):
        research_run("q", agent=" ")
    with pytest.raises(TypeError, match="question"):
        research_run(42)  # type: ignore[arg-type]
    with capture_spans():
        with research_run("q", agent="a") as run:
            with pytest.raises(TypeError, match="record_answer"):
                run.record_answer(None)  # type: ignore[arg-type]


@traced_tool(kind="search")
def _search_for(query: str) -> list[dict[str, str]]:
    """A search that returns nothing."""
    return []


def test_captured_content_is_bounded_on_spans_and_whole_in_the_store() -> None:
    """With capture on, a 2 MB answer, question and query go onto the spans cut at 256 Ki characters (a 20 MB
    answer made the batch's export a 413, losing the other runs in it); the store keeps the whole answer."""
    from citetrace._redact import SPAN_CONTENT_CHARS

    big = "Solar grew 24 percent [1]. " * 80_000 + "\n\n[1] https://a.example/1\n"
    with capture_spans(capture_content=True) as cap:
        with research_run("why? " * 400_000, agent="a") as run:
            _search_for("solar " * 400_000)
            run.record_answer(big)
    attrs = cap.run_spans()[0].attributes or {}
    (tool,) = cap.tool_spans()
    assert len(str(attrs[names.ANSWER_TEXT])) == SPAN_CONTENT_CHARS == 262_144
    assert len(str(attrs[names.RUN_QUESTION])) == SPAN_CONTENT_CHARS
    assert len(str((tool.attributes or {})[names.QUERY_TEXT])) == SPAN_CONTENT_CHARS
    assert str(attrs[names.ANSWER_TEXT]) == big[:SPAN_CONTENT_CHARS]
    record = cap.store.get_run(run.id)
    assert record is not None and record.answer == big


def test_call_records_keep_redacted_urls() -> None:
    """The store's call records hold the same redacted, capped URL list as the span."""

    @traced_tool(kind="search")
    def leaky(query: str) -> list[dict[str, str]]:
        return [{"url": f"https://s.example/{i}?api_key=SECRET{i}"} for i in range(5)]

    with capture_spans(max_urls=3) as cap:
        with research_run("q", agent="a") as run:
            leaky("q")
    (call,) = cap.store.calls(run.id)
    assert call.urls_returned == tuple(f"https://s.example/{i}?api_key=REDACTED" for i in range(3))
    assert "SECRET" not in repr(cap.store.calls(run.id))


def test_worker_threads_join_the_run_with_copied_context() -> None:
    """A thread pool submitting with copy_context().run keeps calls inside the run (the documented pattern)."""
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    with capture_spans() as cap:
        with research_run("q", agent="pool") as run:
            with ThreadPoolExecutor(max_workers=4) as pool:
                futures = [pool.submit(contextvars.copy_context().run, fetch, f"https://a.example/{i}") for i in range(8)]
                for f in futures:
                    f.result()
    assert len(cap.store.calls(run.id)) == 8
    assert sorted(c.seq for c in cap.store.calls(run.id)) == list(range(8))
    root = cap.run_spans()[0]
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in cap.tool_spans())


def test_model_citation_spans_are_bounded_redacted_and_stored_at_run_end() -> None:
    """A run keeps at most MAX_CITED_SPANS model citation spans (the rest counted as one capture error each
    time), and its end writes them to the store with URL secrets and key shapes redacted."""
    from citetrace.capture._run import MAX_CITED_SPANS

    with capture_spans() as cap:
        before = _telemetry.current().hooks.error_counts().get("capture", 0)
        with research_run("q") as run:
            run.add_cited_spans([("https://a.example/p?api_key=sk-live-abcdefabcdef0123", "Key sk-live-abcdefabcdef0123 "
                                  "leaked.", 0, 30, "url_citation")])
            run.add_cited_spans([(f"https://s{i}.example/", f"Span {i}.", -1, -1, "x") for i in range(MAX_CITED_SPANS)])
        stored = cap.store.model_citations(run.id)
        assert _telemetry.current().hooks.error_counts().get("capture", 0) == before + 1
    assert len(stored) == MAX_CITED_SPANS and [c.seq for c in stored] == list(range(MAX_CITED_SPANS))
    assert "abcdefabcdef0123" not in stored[0].url + stored[0].text and stored[0].kind == "url_citation"
    assert stored[-1].url == f"https://s{MAX_CITED_SPANS - 2}.example/"


def test_calls_read_while_calls_end_in_other_threads() -> None:
    """Reading ``run.calls`` while tool calls end in other threads (the record is appended without a lock)
    gives only finished records, numbered in order, and the final read has every call."""
    import contextvars
    import threading

    with capture_spans():
        with research_run("q", agent="race") as run:
            stop = threading.Event()
            seen: list[list[Any]] = []

            def reader() -> None:
                while not stop.is_set():
                    seen.append(run.calls)

            def worker() -> None:
                for _ in range(200):
                    search("q")

            threads = [threading.Thread(target=contextvars.copy_context().run, args=(worker,)) for _ in range(4)]
            watcher = threading.Thread(target=reader)
            watcher.start()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            stop.set()
            watcher.join()
            final = run.calls
    assert seen, "the reader never ran"
    for snapshot in seen:
        assert [c.seq for c in snapshot] == list(range(len(snapshot)))
        assert all(c.tool == "search" and c.status == "ok" for c in snapshot)
    assert [c.seq for c in final] == list(range(800))
