"""What the agent boundary costs per invocation, as ratios against baselines timed in the same run.

Configurations (interleaved round by round; the table gives the median of the rounds' per-call times):
  bare call                    a trivial agent method returning a report with two citations (no tracing)
  hand-written root span       the same inside ``tracer.start_as_current_span`` setting the 4 attributes the
                               run's root gets (operation, agent, run id, citations) and the answer hash
  research_run by hand         ``with research_run(q, agent=...) as run: run.record_answer(agent.run(q))``:
                               what a user writes without auto-instrumentation
  boundary, sync               the same method wrapped by the agent boundary (``boundary_wrapper``)
  boundary, generator (5)      a 5-item generator method, wrapped, drained
  research_run by hand, generator (5)
  nested call inside a run     the wrapped method called inside an open run (joins it: the pass-through cost)
  LangGraph invoke, unpatched  a one-node compiled StateGraph returning an AI message
  LangGraph invoke, patched    the same with the instrumentor on (``Pregel.stream`` is the boundary)
  submit in a run, unpatched   ``ThreadPoolExecutor.submit(f).result()`` inside a run
  submit in a run, patched     the same with the executor carry on

Each configuration starts with an empty export queue (``force_flush`` between them, untimed), and the
order is shuffled every round, so the exporter's worker thread never bills one configuration for another's
spans. Capture only: an SDK ``TracerProvider`` + ``BatchSpanProcessor`` + an exporter that drops spans, and a memory
store (the summary processor is measured in bench_summary.py). GC stays on.

Run:  .venv/bin/python benchmarks/bench_agents.py [--calls 2000] [--rounds 7] [--quick]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Iterator

import wrapt

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness  # noqa: E402

from citetrace import names, research_run  # noqa: E402
from citetrace import _telemetry  # noqa: E402
from citetrace.config import load_settings  # noqa: E402
from citetrace.instrumentation import CiteTraceInstrumentor  # noqa: E402
from citetrace.instrumentation._agents._boundary import Boundary, boundary_wrapper, text_of  # noqa: E402
from citetrace.store import MemoryStore, content_hash  # noqa: E402

ANSWER = "Solar grew [1] and wind [2].\n\n[1]: https://a.example/solar\n[2]: https://b.example/wind"


class AlwaysOn:
    active = True


class Agent:
    name = "bench"

    def run(self, task: str) -> str:
        return ANSWER

    def stream(self, task: str) -> Iterator[str]:
        for i in range(4):
            yield f"step {i}"
        yield "FINAL:" + ANSWER


class Wrapped(Agent):
    pass


def _final(item: Any) -> tuple[int, str] | None:
    return (1, item[6:]) if isinstance(item, str) and item.startswith("FINAL:") else None


BOUNDARY = Boundary(agent=lambda i, a, k: i.name, question=lambda i, a, k: a[0], answer=text_of,
                    item_answer=_final)


def _graph() -> Any:
    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, MessagesState, StateGraph

    def answer(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=ANSWER)]}

    graph = StateGraph(MessagesState)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    return graph.compile(name="bench-graph")


def _per_call(fn: Callable[[], Any], calls: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def bench(calls: int, rounds: int) -> dict[str, float]:
    provider, counting = _harness.sdk_provider()
    _telemetry.reset(load_settings(), tracer_provider=provider, store=MemoryStore())
    tracer = provider.get_tracer("bench")
    wrapt.wrap_function_wrapper(Wrapped, "run", boundary_wrapper(BOUNDARY, AlwaysOn()))
    wrapt.wrap_function_wrapper(Wrapped, "stream", boundary_wrapper(BOUNDARY, AlwaysOn()))
    plain, wrapped = Agent(), Wrapped()
    graph = _graph()
    question = {"messages": [("user", "How fast is solar growing?")]}
    pool = ThreadPoolExecutor(max_workers=1)
    instrumentor = CiteTraceInstrumentor()

    def handwritten() -> None:
        with tracer.start_as_current_span("invoke_agent bench") as span:
            text = plain.run("q")
            span.set_attributes({names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "bench",
                                 names.RUN_ID: "r", names.CITATIONS: ["https://a.example/solar", "https://b.example/wind"],
                                 names.ANSWER_HASH: content_hash(text)})

    def by_hand() -> None:
        with research_run("q", agent="bench") as run:
            run.record_answer(plain.run("q"))

    def by_hand_stream() -> None:
        with research_run("q", agent="bench") as run:
            last = None
            for last in plain.stream("q"):
                pass
            run.record_answer(str(last)[6:])

    def nested() -> None:
        for _ in range(10):
            wrapped.run("q")

    def submit() -> None:
        with research_run("q", agent="bench"):
            pool.submit(plain.run, "q").result()

    samples: dict[str, list[float]] = {}

    def outer_nested() -> float:
        with research_run("outer", agent="bench"):
            return _per_call(nested, max(1, calls // 10))

    plain_configs: list[tuple[str, Callable[[], Any], int]] = [
        ("bare call", lambda: plain.run("q"), calls * 10),
        ("hand-written root span", handwritten, calls),
        ("research_run by hand", by_hand, calls),
        ("boundary, sync", lambda: wrapped.run("q"), calls),
        ("research_run by hand, generator (5)", by_hand_stream, calls),
        ("boundary, generator (5)", lambda: list(wrapped.stream("q")), calls),
        ("LangGraph invoke, unpatched", lambda: graph.invoke(question), max(1, calls // 10)),
        ("submit in a run, unpatched", submit, calls),
    ]
    patched_configs: list[tuple[str, Callable[[], Any], int]] = [
        ("LangGraph invoke, patched", lambda: graph.invoke(question), max(1, calls // 10)),
        ("submit in a run, patched", submit, calls),
    ]
    rng = random.Random(7)
    for _ in range(rounds):
        rng.shuffle(plain_configs)  # no configuration always runs first or last in a round
        for name, fn, n in plain_configs:
            samples.setdefault(name, []).append(_per_call(fn, n))
            provider.force_flush()  # each configuration starts with an empty export queue
        samples.setdefault("nested call inside a run (x10)", []).append(outer_nested())
        provider.force_flush()
        instrumentor.instrument(tools="")
        rng.shuffle(patched_configs)
        for name, fn, n in patched_configs:
            samples.setdefault(name, []).append(_per_call(fn, n))
            provider.force_flush()
        instrumentor.uninstrument()
    pool.shutdown()
    provider.shutdown()
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    calls, rounds = _harness.calls_and_rounds(__doc__, argv)
    t = bench(calls, rounds)
    print(f"machine: {_harness.machine()}")
    unit, by_hand = t["hand-written root span"], t["research_run by hand"]
    order = ["bare call", "hand-written root span", "research_run by hand", "boundary, sync",
             "research_run by hand, generator (5)", "boundary, generator (5)", "nested call inside a run (x10)",
             "LangGraph invoke, unpatched", "LangGraph invoke, patched", "submit in a run, unpatched",
             "submit in a run, patched"]
    rows = [(name, t[name] * 1e6, t[name] / unit, t[name] / by_hand) for name in order]
    print(_harness.format_table(["agent invocation", "µs/call", "x hand-written root", "x research_run by hand"],
                                rows))
    graph = t["LangGraph invoke, patched"] / t["LangGraph invoke, unpatched"]
    carry = t["submit in a run, patched"] / t["submit in a run, unpatched"]
    nested = (t["nested call inside a run (x10)"] / 10 - t["bare call"]) * 1e6
    print(f"boundary, sync: {t['boundary, sync'] / by_hand:.2f} x research_run by hand; "
          f"generator: {t['boundary, generator (5)'] / t['research_run by hand, generator (5)']:.2f} x by hand")
    print(f"nested call (joins the run): {nested:+.2f} µs over a bare call")
    print(f"LangGraph one-node invoke: patched {graph:.2f} x unpatched")
    print(f"ThreadPoolExecutor.submit inside a run: patched {carry:.2f} x unpatched")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
