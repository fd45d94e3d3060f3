"""What the two deferred agent-boundary shapes cost per invocation, as ratios against ``research_run`` by hand.

The shapes (``instrumentation/_agents/_deferred.py``) cover OpenAI Agents ``run_streamed`` and LlamaIndex
``Workflow.run`` (a handle whose work runs in a task the call starts; the run ends in the task's
done-callback) and PydanticAI ``Agent.iter`` (an async context manager). Configurations, all inside one event
loop, interleaved and shuffled round by round (the table gives the median of the rounds):

  bare, task                   ``await agent.stream(q).task``: the handle's task alone (no tracing)
  research_run by hand, task   ``async with research_run(...)`` around it, ``record_answer`` of the output
  handle boundary              the same method wrapped by ``_handle_wrapper`` (ends in the done-callback)
  bare, context manager        ``async with agent.iter(q)``: an ``asynccontextmanager`` (no tracing)
  research_run by hand, cm     ``async with research_run(...)`` around it, ``record_answer`` of the output
  context boundary             the same method wrapped by ``_context_wrapper``

Capture only: an SDK ``TracerProvider`` + ``BatchSpanProcessor`` + an exporter that drops spans, and a memory
store; ``force_flush`` (untimed) between configurations. GC stays on.

Run:  .venv/bin/python benchmarks/bench_agents_deferred.py [--calls 2000] [--rounds 7] [--quick]
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import wrapt

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness  # noqa: E402

from citetrace import research_run  # noqa: E402
from citetrace import _telemetry  # noqa: E402
from citetrace.config import load_settings  # noqa: E402
from citetrace.instrumentation._agents._boundary import Boundary  # noqa: E402
from citetrace.instrumentation._agents._deferred import Later, _context_wrapper, _handle_wrapper  # noqa: E402
from citetrace.store import MemoryStore  # noqa: E402

from bench_agents import ANSWER, AlwaysOn  # noqa: E402 - the same answer and always-on switch


class Handle:
    """A framework handle: the work runs in a task created by the call."""

    def __init__(self) -> None:
        self.output: str | None = None
        self.task = asyncio.get_running_loop().create_task(self._work())

    async def _work(self) -> None:
        self.output = ANSWER


class Result:
    output: str | None = None


class Agent:
    name = "bench"

    def stream(self, task: str) -> Handle:
        return Handle()

    @asynccontextmanager
    async def iter(self, task: str) -> AsyncIterator[Result]:
        result = Result()
        yield result
        result.output = ANSWER


class Wrapped(Agent):
    pass


BOUNDARY = Boundary(agent=lambda i, a, k: i.name, question=lambda i, a, k: a[0],
                    answer=lambda value: value.output)


async def _per_call(fn: Callable[[], Awaitable[Any]], calls: int) -> float:
    await fn()
    start = time.perf_counter()
    for _ in range(calls):
        await fn()
    return (time.perf_counter() - start) / calls


async def bench(calls: int, rounds: int) -> dict[str, float]:
    provider, _counting = _harness.sdk_provider()
    _telemetry.reset(load_settings(), tracer_provider=provider, store=MemoryStore())
    wrapt.wrap_function_wrapper(Wrapped, "stream", _handle_wrapper(Later(BOUNDARY, done=lambda h: h.task), AlwaysOn()))
    wrapt.wrap_function_wrapper(Wrapped, "iter", _context_wrapper(BOUNDARY, AlwaysOn()))
    plain, wrapped = Agent(), Wrapped()

    async def bare_task() -> None:
        await plain.stream("q").task

    async def by_hand_task() -> None:
        async with research_run("q", agent="bench") as run:
            handle = plain.stream("q")
            await handle.task
            run.record_answer(str(handle.output))

    async def handle_boundary() -> None:
        await wrapped.stream("q").task
        await asyncio.sleep(0)  # the run ends in the done-callback: let it run inside the timing

    async def bare_cm() -> None:
        async with plain.iter("q"):
            pass

    async def by_hand_cm() -> None:
        async with research_run("q", agent="bench") as run:
            async with plain.iter("q") as result:
                pass
            run.record_answer(str(result.output))

    async def context_boundary() -> None:
        async with wrapped.iter("q"):
            pass

    configs: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
        ("bare, task", bare_task), ("research_run by hand, task", by_hand_task), ("handle boundary", handle_boundary),
        ("bare, context manager", bare_cm), ("research_run by hand, cm", by_hand_cm),
        ("context boundary", context_boundary),
    ]
    samples: dict[str, list[float]] = {}
    rng = random.Random(7)
    for _ in range(rounds):
        rng.shuffle(configs)
        for name, fn in configs:
            samples.setdefault(name, []).append(await _per_call(fn, calls))
            provider.force_flush()
    provider.shutdown()
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    calls, rounds = _harness.calls_and_rounds(__doc__, argv)
    t = asyncio.run(bench(calls, rounds))
    print(f"machine: {_harness.machine()}")
    order = ["bare, task", "research_run by hand, task", "handle boundary", "bare, context manager",
             "research_run by hand, cm", "context boundary"]
    by_hand = {name: t["research_run by hand, task"] if i < 3 else t["research_run by hand, cm"]
               for i, name in enumerate(order)}
    rows = [(name, t[name] * 1e6, t[name] / by_hand[name]) for name in order]
    print(_harness.format_table(["agent invocation", "µs/call", "x research_run by hand"], rows))
    print(f"handle boundary: {t['handle boundary'] / t['research_run by hand, task']:.2f} x research_run by hand; "
          f"context boundary: {t['context boundary'] / t['research_run by hand, cm']:.2f} x by hand")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
