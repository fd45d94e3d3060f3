"""@traced_tool on every kind of callable: classmethod and staticmethod in either order, generator and
async-generator tools (their span covers the iteration), objects with an async __call__, and recursion."""

from __future__ import annotations

import asyncio
import inspect
import sys
from typing import Any, AsyncIterator, Iterator

import pytest
from opentelemetry import trace

from citetrace import names, traced_tool
from citetrace.testing import capture_spans


class Library:
    """Tools declared the ways a class can declare them."""

    @traced_tool(kind="search")
    @classmethod
    def class_search(cls, query: str) -> list[dict[str, str]]:
        """Search as a classmethod, traced_tool on top."""
        return [{"url": f"https://c.example/{cls.__name__}"}]

    @classmethod
    @traced_tool(kind="search")
    def class_search_below(cls, query: str) -> list[dict[str, str]]:
        """Search as a classmethod, traced_tool below."""
        return [{"url": "https://c.example/below"}]

    @traced_tool(kind="search")
    @staticmethod
    def static_search(query: str) -> list[dict[str, str]]:
        """Search as a staticmethod."""
        return [{"url": "https://s.example/1"}]


def test_classmethod_and_staticmethod_in_either_order() -> None:
    """Each order defines the class, calls bind as usual, and the query (not cls) is read from the arguments."""
    with capture_spans(capture_content=True) as cap:
        assert Library.class_search("q1") == [{"url": "https://c.example/Library"}]
        assert Library().class_search_below("q2") == [{"url": "https://c.example/below"}]
        assert Library.static_search("q3") == [{"url": "https://s.example/1"}]
    assert [s.name for s in cap.spans] == ["execute_tool class_search", "execute_tool class_search_below",
                                           "execute_tool static_search"]
    assert [s.attributes[names.QUERY_TEXT] for s in cap.spans] == ["q1", "q2", "q3"]  # type: ignore[index]


@traced_tool(kind="fetch")
def stream_page(url: str) -> Iterator[str]:
    """A fetch that streams its text in chunks."""
    current = trace.get_current_span()
    yield f"chunk one of {url} " * 5
    assert trace.get_current_span() is current  # the tool's own span is current while its code runs
    yield "chunk two " * 5


@traced_tool(kind="search")
def stream_results(query: str) -> Iterator[dict[str, str]]:
    """A search that yields its results one by one."""
    for i in range(3):
        yield {"url": f"https://r.example/{i}"}


def test_generator_tools_stay_generators_and_their_span_covers_the_iteration() -> None:
    """inspect sees a generator function; the span is open while iterating and a streamed page is a read."""
    assert inspect.isgeneratorfunction(stream_page) and inspect.isgeneratorfunction(stream_results)
    with capture_spans() as cap:
        chunks = stream_page("https://p.example/a")
        assert cap.spans == []  # nothing ran yet
        first = next(chunks)
        assert cap.spans == [] and trace.get_current_span() is trace.INVALID_SPAN  # not current in our code
        rest = list(chunks)
        results = list(stream_results("q"))
    fetch, search = cap.spans
    assert first + "".join(rest) and fetch.attributes[names.TOOL_STATUS] == "ok"  # type: ignore[index]
    assert fetch.attributes[names.RESULT_SIZE] == len(first) + sum(map(len, rest))  # type: ignore[index]
    assert search.attributes[names.RESULT_COUNT] == 3  # type: ignore[index]
    assert list(search.attributes[names.URLS_RETURNED]) == [r["url"] for r in results]  # type: ignore[index]


def test_generator_stopped_early_and_failing_generator() -> None:
    """Closing a generator ends its span with what it gave; an exception inside one fails the span and
    reaches the caller as the same object."""
    boom = ValueError("boom")

    @traced_tool(kind="search")
    def failing(query: str) -> Iterator[dict[str, str]]:
        yield {"url": "https://f.example/1"}
        raise boom

    with capture_spans() as cap:
        gen = stream_results("q")
        next(gen)
        gen.close()
        with pytest.raises(ValueError) as raised:
            list(failing("q"))
    assert raised.value is boom
    closed, failed = cap.spans
    assert closed.attributes[names.RESULT_COUNT] == 1  # type: ignore[index]
    assert failed.attributes[names.TOOL_STATUS] == "error"  # type: ignore[index]


def test_send_and_return_value_reach_the_generator() -> None:
    """send() values reach the tool and its return value comes back through StopIteration."""

    @traced_tool(kind="search")
    def echo(query: str) -> Any:
        got = yield {"url": "https://e.example/0"}
        yield {"url": f"https://e.example/{got}"}
        return "done"

    with capture_spans():
        gen = echo("q")
        next(gen)
        assert gen.send("x") == {"url": "https://e.example/x"}
        with pytest.raises(StopIteration) as stop:
            next(gen)
    assert stop.value.value == "done"


@traced_tool(kind="search")
async def astream_results(query: str) -> AsyncIterator[dict[str, str]]:
    """An async search that yields results as they arrive."""
    for i in range(2):
        await asyncio.sleep(0)
        yield {"url": f"https://a.example/{i}"}


def test_async_generator_tool_stays_one_and_its_span_covers_the_iteration() -> None:
    """inspect sees an async generator function; the span ends after the last item, counting both."""
    assert inspect.isasyncgenfunction(astream_results)

    async def consume() -> list[dict[str, str]]:
        return [item async for item in astream_results("q")]

    with capture_spans() as cap:
        items = asyncio.run(consume())
    (span,) = cap.spans
    assert len(items) == 2 and span.attributes[names.RESULT_COUNT] == 2  # type: ignore[index]


class AsyncFetcher:
    """A tool object whose __call__ is a coroutine."""

    async def __call__(self, url: str) -> str:
        await asyncio.sleep(0)
        if url.endswith("/fail"):
            raise RuntimeError("upstream failed")
        return "page text " * 20


def test_object_with_async_call_gets_a_span_that_covers_the_await() -> None:
    """The wrapper is a coroutine function; the span ends after the await, with the real outcome."""
    fetch = traced_tool(kind="fetch")(AsyncFetcher())
    assert inspect.iscoroutinefunction(fetch)

    async def run() -> None:
        assert await fetch("https://o.example/a") == "page text " * 20
        with pytest.raises(RuntimeError):
            await fetch("https://o.example/fail")

    with capture_spans() as cap:
        asyncio.run(run())
    ok, failed = cap.spans
    assert ok.name == "execute_tool AsyncFetcher" and ok.attributes[names.RESULT_SIZE] == 200  # type: ignore[index]
    assert failed.attributes[names.TOOL_STATUS] == "error"  # type: ignore[index]


def _depth() -> int:
    frame, n = sys._getframe(1), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1  # type: ignore[assignment]
    return n


def test_wrapper_adds_one_frame_per_nested_call_and_two_for_the_traced_one() -> None:
    """Recursion inside a traced tool costs one extra frame per level (the wrapper), the traced outer call two."""
    depths: list[int] = []

    def bare(n: int) -> int:
        depths.append(_depth())
        return 0 if n == 0 else bare(n - 1)

    @traced_tool(kind="search")
    def wrapped(n: int) -> int:
        depths.append(_depth())
        return 0 if n == 0 else wrapped(n - 1)

    base = _depth()
    bare(2)
    bare_steps = [d - base for d in depths]
    depths.clear()
    with capture_spans():
        wrapped(2)
    steps = [d - base for d in depths]
    assert bare_steps == [1, 2, 3]
    assert steps[0] - bare_steps[0] <= 2  # the decorator's wrapper and invoke
    assert [b - a for a, b in zip(steps, steps[1:])] == [2, 2]  # nested: the wrapper and the tool


def _reach(dig: Any) -> int:
    """The deepest level ``dig(1)`` reaches before ``RecursionError`` (sync or async), from this frame."""
    reached = [0]

    def note(n: int) -> None:
        reached[0] = max(reached[0], n)

    try:
        result = dig(1, note)
        if inspect.iscoroutine(result):
            asyncio.run(result)
    except RecursionError:
        pass
    return reached[0]


# The documented floor (docs/performance.md): one wrapper frame per nested level, so a wrapped recursive
# tool reaches half the bare depth, less the few frames of the one traced (outer) call.
_WRAPPED_DEPTH_FRACTION = 0.49


def test_wrapped_recursion_reaches_half_the_bare_depth() -> None:
    """A recursive sync tool reaches at least 0.49 of the bare function's depth before RecursionError."""

    def bare(n: int, note: Any) -> int:
        note(n)
        return int(bare(n + 1, note))

    @traced_tool(kind="search")
    def wrapped(n: int, note: Any) -> int:
        note(n)
        return int(wrapped(n + 1, note))

    bare_depth = _reach(bare)
    with capture_spans() as cap:
        depth = _reach(wrapped)
    assert bare_depth > 100
    assert depth >= _WRAPPED_DEPTH_FRACTION * bare_depth, (depth, bare_depth)
    (span,) = cap.spans  # only the outer call is traced, and it records the RecursionError
    assert span.attributes[names.ERROR_TYPE] == "RecursionError"  # type: ignore[index]


def test_wrapped_async_recursion_reaches_half_the_bare_depth() -> None:
    """A recursive coroutine tool also costs one wrapper frame per nested level (it was two: wrapper and ainvoke)."""

    async def bare(n: int, note: Any) -> int:
        note(n)
        return int(await bare(n + 1, note))

    @traced_tool(kind="search")
    async def wrapped(n: int, note: Any) -> int:
        note(n)
        return int(await wrapped(n + 1, note))

    bare_depth = _reach(bare)
    with capture_spans() as cap:
        depth = _reach(wrapped)
    assert depth >= _WRAPPED_DEPTH_FRACTION * bare_depth, (depth, bare_depth)
    assert len(cap.spans) == 1


def test_fetch_returning_an_iterator_is_not_a_failed_read() -> None:
    """A plain function that returns a generator object gets it back unchanged, and its span says ok with no
    size, never an empty or failed read."""
    chunks = (c for c in ["a " * 50])

    @traced_tool(kind="fetch")
    def lazy_page(url: str) -> Iterator[str]:
        return chunks

    with capture_spans() as cap:
        assert lazy_page("https://l.example/p") is chunks
    (span,) = cap.spans
    assert span.attributes[names.TOOL_STATUS] == "ok" and names.RESULT_SIZE not in span.attributes  # type: ignore[index,operator]


def test_async_generator_closed_early_or_failing() -> None:
    """aclose() ends the span with what was yielded; an exception fails it and reaches the caller unchanged."""
    boom = KeyError("gone")

    @traced_tool(kind="search")
    async def failing(query: str) -> AsyncIterator[dict[str, str]]:
        yield {"url": "https://f.example/1"}
        raise boom

    async def run() -> None:
        gen = astream_results("q")
        assert await gen.__anext__() == {"url": "https://a.example/0"}
        await gen.aclose()
        with pytest.raises(KeyError) as raised:
            _ = [item async for item in failing("q")]
        assert raised.value is boom

    with capture_spans() as cap:
        asyncio.run(run())
    closed, failed = cap.spans
    assert closed.attributes[names.RESULT_COUNT] == 1  # type: ignore[index]
    assert failed.attributes[names.TOOL_STATUS] == "error"  # type: ignore[index]
