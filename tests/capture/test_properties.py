"""Property tests: the wrapped tool returns exactly what it returned and raises exactly what it raised."""

from __future__ import annotations

import asyncio
import traceback
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citetrace import research_run, traced_tool
from citetrace.testing import capture_spans

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text() | st.binary(),
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(["url", "link", "results", "error", "text", "content", "status_code", "x"]),
                      children, max_size=5),
    max_leaves=20,
)
odd_objects = st.builds(object) | st.builds(lambda n: type("Weird", (), {"url": n, "results": n})(), json_like)
results = json_like | odd_objects
exceptions = st.sampled_from([ValueError, KeyError, RuntimeError, TimeoutError, OSError, ZeroDivisionError]).flatmap(
    lambda cls: st.text(max_size=20).map(cls)
)
kinds = st.sampled_from(["search", "fetch"])
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(value=results, kind=kinds, arg=st.text(max_size=40))
def test_returns_the_same_object(value: Any, kind: str, arg: str) -> None:
    """Whatever the tool returns comes back as the very same object, for search and fetch alike."""

    @traced_tool(kind=kind)
    def tool(x: str) -> Any:
        return value

    with capture_spans() as cap:
        with research_run("q", agent="prop"):
            assert tool(arg) is value
    assert len(cap.tool_spans()) == 1


@SETTINGS
@given(exc=exceptions, kind=kinds)
def test_raises_the_same_exception_with_its_traceback(exc: BaseException, kind: str) -> None:
    """Whatever the tool raises propagates as the same object, with the tool's frame in its traceback."""

    @traced_tool(kind=kind)
    def failing_tool(x: str) -> Any:
        raise exc

    with capture_spans() as cap:
        try:
            failing_tool("https://x.example")
        except BaseException as caught:  # noqa: BLE001
            assert caught is exc
            frames = [f.name for f in traceback.extract_tb(caught.__traceback__)]
            assert "failing_tool" in frames
        else:
            raise AssertionError("exception swallowed")
    assert len(cap.tool_spans()) == 1


@SETTINGS
@given(value=results)
def test_async_returns_the_same_object(value: Any) -> None:
    """Async tools return the same object too."""

    @traced_tool(kind="search")
    async def tool(q: str) -> Any:
        return value

    with capture_spans():
        assert asyncio.run(tool("q")) is value
