"""The agent boundary on plain Python targets: every call shape, nesting, concurrency and keyed runs."""

from __future__ import annotations

import asyncio
import gc
import threading
from typing import Any, AsyncIterator, Iterator

import pytest
import wrapt

from citetrace import names, research_run
from citetrace.instrumentation._agents._boundary import Boundary, boundary_wrapper, in_agent, text_of
from citetrace.testing import Captured, capture_spans

ANSWER = "See [1].\n\n[1]: https://a.example/page"


class _On:
    active = True


class Agent:
    """A stand-in framework: sync, async, generator and async-generator entry points, and a keyed pair."""

    name = "bot"

    def run(self, task: str, fail: bool = False, inner: "Agent | None" = None) -> str:
        if fail:
            raise KeyError("boom")
        if inner is not None:
            inner.run("sub " + task)
        return ANSWER

    async def arun(self, task: str) -> str:
        await asyncio.sleep(0)
        return ANSWER

    def stream(self, task: str) -> Iterator[str]:
        yield "step"
        yield "FINAL:" + ANSWER

    async def astream(self, task: str) -> AsyncIterator[str]:
        yield "step"
        yield "FINAL:" + ANSWER

    async def research(self, task: str) -> list[str]:
        return ["ctx"]

    def report(self) -> str:
        return ANSWER


def _final(item: Any) -> tuple[int, str] | None:
    return (1, item[6:]) if isinstance(item, str) and item.startswith("FINAL:") else None


def _task(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    return args[0] if args else None


PLAIN = Boundary(agent=lambda i, a, k: i.name, question=_task, answer=text_of, item_answer=_final)


@pytest.fixture
def wrapped() -> Iterator[None]:
    """Agent's methods wrapped as the instrumentor would, restored after."""
    originals = dict(vars(Agent))
    for attr in ("run", "arun", "stream", "astream"):
        wrapt.wrap_function_wrapper(Agent, attr, boundary_wrapper(PLAIN, _On()))
    wrapt.wrap_function_wrapper(Agent, "research", boundary_wrapper(
        Boundary(agent=lambda i, a, k: i.name, question=_task, keyed="start"), _On()))
    wrapt.wrap_function_wrapper(Agent, "report", boundary_wrapper(
        Boundary(agent=lambda i, a, k: i.name, answer=text_of, keyed="finish"), _On()))
    try:
        yield
    finally:
        for attr in ("run", "arun", "stream", "astream", "research", "report"):
            setattr(Agent, attr, originals[attr])


@pytest.fixture
def cap() -> Iterator[Captured]:
    """Spans in memory, runs in a memory store."""
    with capture_spans() as captured:
        yield captured


def _one_run(cap: Captured) -> Any:
    roots = cap.run_spans()
    assert len(roots) == 1, [s.name for s in roots]
    runs = cap.store.runs()
    assert len(runs) == 1
    return roots[0], runs[0]


def test_sync_call_is_one_run_with_its_answer(wrapped: None, cap: Captured) -> None:
    """A sync call opens one invoke_agent root with the run id, and records the answer like record_answer."""
    assert Agent().run("q") == ANSWER
    root, run = _one_run(cap)
    attrs = dict(root.attributes or {})
    assert root.name == "invoke_agent bot"
    assert attrs[names.RUN_ID] == run.run_id
    assert list(attrs[names.CITATIONS]) == ["https://a.example/page"]
    assert names.ANSWER_HASH in attrs
    assert run.answer == ANSWER and run.question == "q" and run.ended_at is not None


def test_exception_passes_through_and_marks_the_run(wrapped: None, cap: Captured) -> None:
    """The agent's own exception is re-raised unchanged; the run records its type and no answer."""
    with pytest.raises(KeyError, match="boom"):
        Agent().run("q", fail=True)
    root, run = _one_run(cap)
    assert run.error_type == "KeyError" and run.answer is None
    assert dict(root.attributes or {})[names.ERROR_TYPE] == "KeyError"


def test_nested_invocation_joins_the_outer_run(wrapped: None, cap: Captured) -> None:
    """A sub-agent called inside an agent is not a second run."""
    Agent().run("q", inner=Agent())
    _one_run(cap)


def test_user_research_run_is_not_doubled(wrapped: None, cap: Captured) -> None:
    """Inside the user's research_run the agent joins it; the user's own record_answer wins."""
    with research_run("mine", agent="app") as run:
        Agent().run("q")
        assert run.answer == ANSWER  # recorded on the user's run, which had none
        run.record_answer("mine [x](https://b.example/)")
    root, stored = _one_run(cap)
    assert root.name == "invoke_agent app"
    assert stored.answer == "mine [x](https://b.example/)"


async def test_async_call_and_concurrent_tasks_are_separate_runs(wrapped: None, cap: Captured) -> None:
    """Two asyncio tasks invoking at once make two runs, each with its answer."""
    assert await asyncio.gather(Agent().arun("a"), Agent().arun("b")) == [ANSWER, ANSWER]
    runs = cap.store.runs()
    assert sorted(r.question or "" for r in runs) == ["a", "b"]
    assert all(r.answer == ANSWER for r in runs)
    assert len({s.context.trace_id for s in cap.run_spans()}) == 2


def test_threads_are_separate_runs(wrapped: None, cap: Captured) -> None:
    """Invocations in two threads started outside any run are two runs."""
    threads = [threading.Thread(target=Agent().run, args=(q,)) for q in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.question or "" for r in cap.store.runs()) == ["a", "b"]


def test_generator_drained_records_the_final_item(wrapped: None, cap: Captured) -> None:
    """A drained generator yields the same items and ends the run with the final answer."""
    assert list(Agent().stream("q")) == ["step", "FINAL:" + ANSWER]
    _, run = _one_run(cap)
    assert run.answer == ANSWER and run.ended_at is not None


def test_generator_undrained_still_ends(wrapped: None, cap: Captured) -> None:
    """Closing (or dropping) a generator after one item ends the run in its finally, with no answer."""
    gen = Agent().stream("q")
    assert next(gen) == "step"
    assert not cap.run_spans()
    del gen
    gc.collect()
    _, run = _one_run(cap)
    assert run.ended_at is not None and run.answer is None


def test_code_inside_the_generator_sees_the_run(wrapped: None, cap: Captured) -> None:
    """The framework's generator body runs inside the run (tools it calls join it)."""
    seen: list[bool] = []

    class Probe(Agent):
        def stream(self, task: str) -> Iterator[str]:
            seen.append(in_agent())
            yield "FINAL:" + ANSWER

    wrapt.wrap_function_wrapper(Probe, "stream", boundary_wrapper(PLAIN, _On()))
    list(Probe().stream("q"))
    assert seen == [True] and not in_agent()
    _one_run(cap)


async def test_async_generator(wrapped: None, cap: Captured) -> None:
    """An async generator is one run that ends when exhausted, with the final answer."""
    items = [item async for item in Agent().astream("q")]
    assert items[-1] == "FINAL:" + ANSWER
    _, run = _one_run(cap)
    assert run.answer == ANSWER


async def test_keyed_runs_span_two_calls(wrapped: None, cap: Captured) -> None:
    """research() then report() on one instance is one run whose answer is report()'s value."""
    agent = Agent()
    await agent.research("topic")
    assert not cap.run_spans()  # still open between the calls
    assert agent.report() == ANSWER
    _, run = _one_run(cap)
    assert run.question == "topic" and run.answer == ANSWER


async def test_keyed_run_ends_when_the_instance_goes(wrapped: None, cap: Captured) -> None:
    """A research() never followed by report() ends when its instance is collected."""
    agent = Agent()
    await agent.research("topic")
    del agent
    gc.collect()
    _, run = _one_run(cap)
    assert run.answer is None and run.ended_at is not None


def test_switched_off_calls_straight_through(cap: Captured) -> None:
    """A wrapper whose instrumentor was stopped opens no run."""
    off = _On()
    off.active = False

    class Local(Agent):
        pass

    wrapt.wrap_function_wrapper(Local, "run", boundary_wrapper(PLAIN, off))
    assert Local().run("q") == ANSWER
    assert not cap.run_spans() and not cap.store.runs()


def test_a_failing_getter_never_breaks_the_agent(cap: Captured) -> None:
    """A getter that raises is counted; the call still returns and the run uses the default name."""

    def bad(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
        raise RuntimeError("shape changed")

    class Local(Agent):
        pass

    wrapt.wrap_function_wrapper(Local, "run", boundary_wrapper(Boundary(agent=bad, answer=text_of), _On()))
    assert Local().run("q") == ANSWER
    root, _ = _one_run(cap)
    assert root.name == "invoke_agent agent"


def test_generator_send_and_throw_are_forwarded(cap: Captured) -> None:
    """send() reaches the framework's generator and throw() is raised inside it, as with the bare generator."""

    class Echo(Agent):
        def stream(self, task: str) -> Iterator[str]:
            got = yield "ready"
            try:
                yield f"got {got}"
            except ValueError as exc:
                yield f"handled {exc}"
            yield "FINAL:" + ANSWER

    wrapt.wrap_function_wrapper(Echo, "stream", boundary_wrapper(PLAIN, _On()))
    gen = Echo().stream("q")
    assert next(gen) == "ready"
    assert gen.send("hi") == "got hi"
    assert gen.throw(ValueError("bad")) == "handled bad"
    assert list(gen) == ["FINAL:" + ANSWER]
    _, run = _one_run(cap)
    assert run.answer == ANSWER and run.error_type is None


def test_generator_failure_marks_the_run(cap: Captured) -> None:
    """An exception raised by the framework's generator reaches the consumer and marks the run."""

    class Broken(Agent):
        def stream(self, task: str) -> Iterator[str]:
            yield "step"
            raise KeyError("mid-stream")

    wrapt.wrap_function_wrapper(Broken, "stream", boundary_wrapper(PLAIN, _On()))
    with pytest.raises(KeyError, match="mid-stream"):
        list(Broken().stream("q"))
    _, run = _one_run(cap)
    assert run.error_type == "KeyError"
