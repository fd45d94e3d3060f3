"""The two deferred shapes on plain Python targets: a handle whose work runs in a task, and an async
context manager; each is one run that lasts as long as the work, with nothing changed for the caller."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Iterator

import pytest
import wrapt

from citetrace import names, research_run, traced_tool
from citetrace.instrumentation._agents._boundary import Boundary, in_agent
from citetrace.instrumentation._agents._deferred import Later, _context_wrapper, _handle_wrapper
from citetrace.testing import Captured

from .test_boundary import _one_run, cap  # noqa: F401 - the same fixture and check as the boundary's tests

ANSWER = "See [1].\n\n[1]: https://a.example/page"


class _On:
    active = True


@traced_tool(kind="search", name="fake.search")
def search(query: str) -> list[dict[str, str]]:
    """A traced search the framework's work calls."""
    return [{"url": "https://a.example/page"}]


class Handle:
    """What ``run_streamed``/``Workflow.run`` return: the work's task, and the output once it is done."""

    def __init__(self, fail: BaseException | None, stored: BaseException | None) -> None:
        self.output: str | None = None
        self.stored = stored
        self.task = asyncio.get_running_loop().create_task(self._work(fail))

    async def _work(self, fail: BaseException | None) -> None:
        await asyncio.sleep(0)
        search("q")
        if fail is not None:
            raise fail
        self.output = ANSWER


class AgentRun:
    """What ``Agent.iter`` enters: the result once the block has run."""

    output: str | None = None


class Framework:
    name = "bot"

    def stream(self, task: str, fail: BaseException | None = None, stored: BaseException | None = None) -> Handle:
        return Handle(fail, stored)

    @asynccontextmanager
    async def iter(self, task: str) -> AsyncIterator[AgentRun]:
        run = AgentRun()
        yield run
        search("q")
        run.output = ANSWER


def _task(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    return args[0] if args else None


PLAIN = Boundary(agent=lambda i, a, k: i.name, question=_task, answer=lambda h: h.output)
LATER = Later(PLAIN, done=lambda h: h.task, failure=lambda h: h.stored)


@pytest.fixture
def wrapped() -> Iterator[None]:
    """Framework's two entry points wrapped as the instrumentor would, restored after."""
    originals = dict(vars(Framework))
    wrapt.wrap_function_wrapper(Framework, "stream", _handle_wrapper(LATER, _On()))
    wrapt.wrap_function_wrapper(Framework, "iter", _context_wrapper(PLAIN, _On()))
    try:
        yield
    finally:
        for attr in ("stream", "iter"):
            setattr(Framework, attr, originals[attr])


async def test_handle_run_lasts_until_its_task_is_done(wrapped: None, cap: Captured) -> None:
    """The call returns the framework's handle at once with the run still open; the work's tool call is in
    the run's trace, and the run ends with the handle's output when the task is done."""
    handle = Framework().stream("q")
    assert isinstance(handle, Handle) and not cap.run_spans() and not in_agent()
    await handle.task
    await asyncio.sleep(0)  # done-callbacks run on the next loop turn
    root, run = _one_run(cap)
    (tool,) = cap.tool_spans()
    assert tool.context.trace_id == root.context.trace_id and tool.parent.span_id == root.context.span_id
    assert run.answer == ANSWER and run.question == "q" and run.ended_at is not None


async def test_handle_task_failure_marks_the_run(wrapped: None, cap: Captured) -> None:
    """A task that raises ends the run with the error type and no answer; the caller still gets it."""
    handle = Framework().stream("q", fail=KeyError("boom"))
    with pytest.raises(KeyError):
        await handle.task
    await asyncio.sleep(0)
    root, run = _one_run(cap)
    assert run.error_type == "KeyError" and run.answer is None
    assert dict(root.attributes or {})[names.ERROR_TYPE] == "KeyError"


async def test_handle_stored_error_marks_the_run(wrapped: None, cap: Captured) -> None:
    """An error the framework stores on the handle instead of raising (OpenAI's streamed runs) fails the run."""
    handle = Framework().stream("q", stored=RuntimeError("max turns"))
    await handle.task
    await asyncio.sleep(0)
    _, run = _one_run(cap)
    assert run.error_type == "RuntimeError" and run.answer is None


async def test_concurrent_handles_are_separate_runs(wrapped: None, cap: Captured) -> None:
    """Two handles at once are two runs in two traces, each with its own tool call."""
    handles = [Framework().stream(q) for q in ("a", "b")]
    await asyncio.gather(*(h.task for h in handles))
    await asyncio.sleep(0)
    assert sorted(r.question or "" for r in cap.store.runs()) == ["a", "b"]
    assert len({s.context.trace_id for s in cap.tool_spans()}) == 2


async def test_handle_inside_research_run_joins_it(wrapped: None, cap: Captured) -> None:
    """Under the user's research_run the handle's work joins it: one root, the user's, with the answer."""
    async with research_run("mine", agent="app") as run:
        handle = Framework().stream("q")
        await handle.task
        await asyncio.sleep(0)
    root, stored = _one_run(cap)
    assert root.name == "invoke_agent app" and run.answer == ANSWER and stored.question == "mine"


async def test_context_manager_is_one_run_with_the_answer(wrapped: None, cap: Captured) -> None:
    """``async with agent.iter()`` is one run, current inside the block, ended at exit with the output."""
    async with Framework().iter("q") as agent_run:
        assert in_agent() and isinstance(agent_run, AgentRun) and not cap.run_spans()
    assert not in_agent()
    root, run = _one_run(cap)
    (tool,) = cap.tool_spans()
    assert tool.context.trace_id == root.context.trace_id
    assert run.answer == ANSWER and run.ended_at is not None


async def test_context_manager_error_passes_through(wrapped: None, cap: Captured) -> None:
    """An exception in the block reaches the caller unchanged and marks the run."""
    with pytest.raises(ValueError, match="mine"):
        async with Framework().iter("q"):
            raise ValueError("mine")
    _, run = _one_run(cap)
    assert run.error_type == "ValueError" and run.answer is None


async def test_nested_context_manager_joins(wrapped: None, cap: Captured) -> None:
    """An agent entered inside another agent's block is not a second run."""
    async with Framework().iter("outer"):
        async with Framework().iter("inner"):
            pass
    _, run = _one_run(cap)
    assert run.question == "outer"


async def test_switched_off_calls_straight_through(cap: Captured) -> None:
    """With the instrumentor off the wrappers return the framework's own objects and make no run."""

    class Off:
        active = False

    class Plain(Framework):
        pass

    wrapt.wrap_function_wrapper(Plain, "stream", _handle_wrapper(LATER, Off()))
    wrapt.wrap_function_wrapper(Plain, "iter", _context_wrapper(PLAIN, Off()))
    await Plain().stream("q").task
    async with Plain().iter("q") as agent_run:
        assert isinstance(agent_run, AgentRun)
    assert not cap.run_spans() and not cap.store.runs()


async def test_context_manager_inside_research_run_joins_it(wrapped: None, cap: Captured) -> None:
    """Under the user's research_run the block joins it: one root, the user's, with the agent's answer."""
    async with research_run("mine", agent="app") as run:
        async with Framework().iter("q"):
            pass
    root, stored = _one_run(cap)
    assert root.name == "invoke_agent app" and run.answer == ANSWER and stored.question == "mine"
