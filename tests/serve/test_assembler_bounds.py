"""The assembler's per-trace caps (roots, URLs), its bound on bytes held, and its behaviour under overload."""

from __future__ import annotations

from citetrace import names
from citetrace.serve._decode import WireSpan

from ._spans import healthy_run, root, tool
from .test_assembler import Clock, make, value, wire


def test_roots_per_trace_are_capped_and_counted() -> None:
    """A flood of invoke_agent roots in one trace keeps only max_roots_per_trace runs; the rest are refused."""
    clock = Clock()
    asm, metrics = make(clock, max_roots_per_trace=4)
    roots = [root(0xA0, run_id=f"r{i}") for i in range(50)]
    spans = [WireSpan(s.trace_id, 100 + i, 0, s.name, s.start_ns, s.end_ns, dict(s.attributes), False, None)
             for i, s in enumerate(roots)]
    added = asm.add(spans)
    assert added.refused == 46
    assert value(metrics, names.METRIC_SPANS_DROPPED_TOTAL, reason=names.DROP_ROOTS_PER_TRACE) == 46
    clock.now += 3
    assert len(asm.finalize_due()) == 4


def test_urls_per_trace_are_capped_and_counted() -> None:
    """A span that would take its trace past max_urls_per_trace is refused whole and counted."""
    clock = Clock()
    asm, metrics = make(clock, max_urls_per_trace=100)
    spans = [tool(0xB0, i, names.TOOL_KIND_SEARCH, names.STATUS_OK, query=f"q{i}",
                  urls=tuple(f"https://u.org/{i}/{j}" for j in range(30))) for i in range(2, 7)]
    added = asm.add(wire(spans))
    assert added.refused == 2
    assert value(metrics, names.METRIC_SPANS_DROPPED_TOTAL, reason=names.DROP_URLS_PER_TRACE) == 2
    clock.now += 61
    [(summary, _)] = asm.finalize_due()
    assert (summary.searches, summary.distinct_urls_seen) == (3, 90)


def test_citations_count_as_urls_of_their_trace() -> None:
    """A root citing more URLs than the per-trace URL cap is refused (counted), not held."""
    clock = Clock()
    asm, metrics = make(clock, max_urls_per_trace=10)
    added = asm.add(wire([root(0xB1, cited=tuple(f"https://c.org/{i}" for i in range(11)))]))
    assert added.refused == 1 and asm.in_flight == 0
    assert value(metrics, names.METRIC_SPANS_DROPPED_TOTAL, reason=names.DROP_URLS_PER_TRACE) == 1


def test_bytes_held_are_bounded_by_evicting_the_least_recent_trace() -> None:
    """Past max_held_bytes the least recently active traces are evicted (reason memory) until under it."""
    clock = Clock()
    asm, metrics = make(clock, max_held_bytes=200_000)
    long_urls = lambda tid: tuple(f"https://u.org/{tid}/{j}/" + "x" * 900 for j in range(20))  # noqa: E731
    for tid in range(1, 31):
        asm.add(wire([tool(tid, 2, names.TOOL_KIND_SEARCH, names.STATUS_OK, urls=long_urls(tid))]))
        assert asm.held_bytes <= 200_000
    evicted = value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_MEMORY)
    assert evicted > 0 and asm.in_flight == 30 - evicted
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY) == 0


def test_complete_traces_are_finalised_not_evicted_under_overload() -> None:
    """At max_traces, a trace whose grace period is over is finalised normally, not counted as an eviction."""
    clock = Clock()
    asm, metrics = make(clock, max_traces=2)
    asm.add(wire(healthy_run(0xC1)))
    clock.now += 2.5  # its grace period is over, but the finaliser has not run yet
    asm.add(wire(healthy_run(0xC2)[:1]))
    added = asm.add(wire(healthy_run(0xC3)[:1]))
    assert [s.trace_id for s, _ in added.finished] == [f"{0xC1:032x}"]
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY) == 0
    assert asm.in_flight == 2


def test_a_span_that_breaks_the_summary_is_refused_counted_and_loses_nothing_else() -> None:
    """A span the accumulator cannot take is refused and counted; others stay; its clean resend is accepted."""
    clock = Clock()
    asm, metrics = make(clock, max_traces=1)
    asm.add(wire(healthy_run(0xD0)[:1]))  # will be evicted by the next request
    good = wire(healthy_run(0xD1))
    search = good[0]
    broken = search._replace(attributes={**search.attributes, names.URLS_RETURNED: ("https://a.org", {"k": 1})})
    added = asm.add([broken] + good[1:])
    assert added.refused == 1
    assert value(metrics, names.METRIC_SPAN_PROCESSING_ERRORS_TOTAL) == 1
    assert value(metrics, names.METRIC_TRACES_EVICTED_TOTAL, reason=names.EVICT_CAPACITY) == 1
    assert asm.add([search]).refused == 0  # the clean resend is not taken for a duplicate
    clock.now += 3
    [(summary, _)] = asm.finalize_due()
    assert (summary.searches, summary.reads) == (1, 1)


def test_held_bytes_return_to_zero_when_traces_leave() -> None:
    """Finalising, expiring and draining give back every byte charged, so the bound never leaks."""
    clock = Clock()
    asm, _ = make(clock, ttl_seconds=10.0)
    asm.add(wire(healthy_run(0xE1)))
    asm.add(wire(healthy_run(0xE2)[:2]))
    assert asm.held_bytes > 0
    clock.now += 3
    asm.finalize_due()
    clock.now += 11
    asm.finalize_due()
    assert asm.held_bytes == 0 and asm.in_flight == 0
    asm.add(wire(healthy_run(0xE3)[:1]))
    asm.drain()
    assert asm.held_bytes == 0
