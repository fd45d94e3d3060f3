"""A run is one trace across threads: work submitted to thread pools inside a run carries the run and its
OpenTelemetry context; work submitted outside a run is untouched and nothing stays behind in the worker."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import pytest
from opentelemetry import context as otel_context
from opentelemetry import trace

from citetrace import current_run, research_run, traced_tool
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured


@traced_tool(kind="fetch")
def read(url: str) -> str:
    """A fetch tool that reports the thread it ran in."""
    return f"{url} read in {threading.current_thread().name}"


@traced_tool(kind="search")
def failing_search(query: str) -> list[str]:
    """A search tool that raises."""
    raise LookupError(query)


URLS = [f"https://site.example/{i}" for i in range(3)]


@pytest.fixture
def pool() -> Iterator[ThreadPoolExecutor]:
    """An application's pool, created before the run (its worker threads are reused across runs)."""
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="app")
    try:
        yield executor
    finally:
        executor.shutdown()


def _assert_one_trace(cap: Captured, calls: int) -> None:
    (root,) = cap.run_spans()
    tools = cap.tool_spans()
    assert len(tools) == calls
    assert {s.context.trace_id for s in tools} == {root.context.trace_id}
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in tools)
    (run,) = cap.store.runs()
    assert len(cap.store.calls(run.run_id)) == calls


def test_submit_carries_the_run(instrumented: CiteTraceInstrumentor, cap: Captured, pool: ThreadPoolExecutor) -> None:
    """pool.submit inside a run: every call in the run's trace and store record, results unchanged."""
    with research_run("q"):
        results = [pool.submit(read, u).result() for u in URLS]
    assert results == [f"{u} read in app_0" for u in URLS]
    _assert_one_trace(cap, 3)


def test_map_carries_the_run(instrumented: CiteTraceInstrumentor, cap: Captured, pool: ThreadPoolExecutor) -> None:
    """pool.map (which submits) inside a run: one trace."""
    with research_run("q"):
        assert len(list(pool.map(read, URLS))) == 3
    _assert_one_trace(cap, 3)


async def test_run_in_executor_carries_the_run(instrumented: CiteTraceInstrumentor, cap: Captured,
                                               pool: ThreadPoolExecutor) -> None:
    """loop.run_in_executor with the default executor and with the application's pool: one trace."""
    loop = asyncio.get_running_loop()
    async with research_run("q"):
        await loop.run_in_executor(None, read, URLS[0])
        await loop.run_in_executor(pool, read, URLS[1])
    _assert_one_trace(cap, 2)


def test_exceptions_pass_through_unchanged(instrumented: CiteTraceInstrumentor, cap: Captured,
                                           pool: ThreadPoolExecutor) -> None:
    """The worker's exception is the one the caller gets, and the call is still in the run."""
    with research_run("q"):
        future = pool.submit(failing_search, "nothing")
        with pytest.raises(LookupError, match="nothing"):
            future.result()
    _assert_one_trace(cap, 1)


def test_no_context_left_for_later_work(instrumented: CiteTraceInstrumentor, cap: Captured,
                                        pool: ThreadPoolExecutor) -> None:
    """Work submitted after the run, to the same worker thread, sees no run and no parent span."""
    with research_run("q"):
        pool.submit(read, URLS[0]).result()

    def probe() -> tuple[object, bool]:
        return current_run(), trace.get_current_span().get_span_context().is_valid

    assert pool.submit(probe).result() == (None, False)
    read_outside = pool.submit(read, URLS[1])
    read_outside.result()
    outside = [s for s in cap.tool_spans() if s.parent is None]
    assert len(outside) == 1


def test_work_outside_runs_is_submitted_as_is(instrumented: CiteTraceInstrumentor, pool: ThreadPoolExecutor) -> None:
    """Outside a run the application's own callable is what the pool runs (spans there are not re-parented)."""
    tracer = trace.get_tracer("app")
    with tracer.start_as_current_span("app-span"):
        def whoami() -> bool:
            return trace.get_current_span().get_span_context().is_valid

        assert pool.submit(whoami).result() is False  # as without citetrace: pools do not copy context


def test_run_travels_in_the_otel_context(cap: Captured) -> None:
    """A thread that gets only the OpenTelemetry context (what contrib's threading instrumentation carries)
    still finds the run."""
    with research_run("q"):
        ctx = otel_context.get_current()

        def worker() -> None:
            token = otel_context.attach(ctx)
            try:
                read(URLS[0])
            finally:
                otel_context.detach(token)

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    _assert_one_trace(cap, 1)


def test_uninstrumented_pools_do_not_carry(cap: Captured, pool: ThreadPoolExecutor) -> None:
    """Without the instrumentor the worker's call has no parent (the behaviour the issue reported)."""
    with research_run("q"):
        pool.submit(read, URLS[0]).result()
    (span,) = cap.tool_spans()
    assert span.parent is None
