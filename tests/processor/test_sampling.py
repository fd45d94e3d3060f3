"""Keep-on-failure sampling: failed traces kept whole, a stable hash sample, late spans, bounds, TTL, fork."""

from __future__ import annotations

import os
import random
from typing import Callable

import pytest

from citetrace import names, research_run, traced_tool
from citetrace.summary import keep_by_hash

from .conftest import Rig


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [] if query == "nothing" else [{"url": "https://a.example/1"}]


def healthy_run() -> None:
    with research_run("q", agent="scout"):
        search("solar")


def names_of(rig: Rig) -> list[str]:
    return sorted(s.name for s in rig.kept_spans())


def test_failed_trace_kept_whole_healthy_trace_only_root(make_rig: Callable[..., Rig]) -> None:
    """A run with an empty search is exported in full; a healthy run outside the sample exports only its root."""
    rig = make_rig(sample_percent=0.0)
    with research_run("q", agent="scout"):
        search("nothing")
        search("solar")
    assert names_of(rig) == ["execute_tool search", "execute_tool search", "invoke_agent scout"]
    rig.kept.clear()
    healthy_run()
    (root,) = rig.kept_spans()
    assert root.name == "invoke_agent scout"
    assert (root.attributes or {})[names.SUMMARY_KEEP] is False
    assert rig.value("citetrace_traces_sampled_total", decision="keep") == 1
    assert rig.value("citetrace_traces_sampled_total", decision="drop") == 1


def test_stable_sample_is_the_collector_hash(make_rig: Callable[..., Rig]) -> None:
    """Over 600 healthy runs with chosen trace ids, exactly the traces keep_by_hash keeps are exported in full."""
    rng = random.Random(42)
    tids = [rng.getrandbits(128) for _ in range(600)]
    rig = make_rig(sample_percent=2.0, sample_salt="team-salt")
    rig.ids.next_trace_ids.extend(tids)
    for _ in tids:
        healthy_run()
    children = {s.context.trace_id for s in rig.kept_spans() if s.name.startswith("execute_tool")}
    expected = {t for t in tids if keep_by_hash(t, salt="team-salt", percent=2.0)}
    assert children == expected
    assert 0 < len(expected) < 40  # 2 % of 600 is 12; the hash is not biased wildly
    roots = [s for s in rig.kept.get_finished_spans() if s.name.startswith("invoke_agent")]
    assert len(roots) == 600 and all(
        (s.attributes or {})[names.SUMMARY_KEEP] is (s.context.trace_id in expected) for s in roots)


def test_late_span_follows_the_decision(make_rig: Callable[..., Rig]) -> None:
    """Sampling whole traces: a span ending after its root is never exported for a dropped trace, exported for
    a kept one."""
    rig = make_rig(sample_percent=0.0, sampling_scope="trace")
    with research_run("q", agent="scout"):
        search("solar")
        straggler = rig.tracer.start_span("background fetch")
    straggler.end()
    assert names_of(rig) == ["invoke_agent scout"]
    rig.kept.clear()
    with research_run("q", agent="scout"):
        search("nothing")
        straggler = rig.tracer.start_span("background fetch")
    straggler.end()
    assert "background fetch" in names_of(rig)
    assert rig.processor.traces_in_flight == 0


@pytest.mark.parametrize("bound", [{"max_spans_per_trace": 3}, {"max_buffered_spans": 4}])
def test_buffer_bounds_decide_early(make_rig: Callable[..., Rig], bound: dict[str, int]) -> None:
    """Past a buffer bound (per trace, or over all traces) the trace is exported whole, counted as early,
    and its summary still comes."""
    rig = make_rig(**bound)
    with research_run("q", agent="scout"):
        for i in range(6):
            search(f"q{i}")
    assert len(rig.kept_spans()) == 7
    assert rig.value("citetrace_traces_sampled_total", decision="early") == 1
    (root,) = rig.roots()
    assert (root.attributes or {})[names.summary_attr("searches")] == 6


def test_capacity_evicts_oldest_and_counts(make_rig: Callable[..., Rig]) -> None:
    """With max_traces=2, a third open trace evicts the oldest: counted, its buffered spans exported."""
    from opentelemetry import trace

    rig = make_rig(max_traces=2, sampling_scope="trace")
    roots = []
    for i in range(3):
        root = rig.tracer.start_span(f"job{i}")
        rig.tracer.start_span(f"child{i}", context=trace.set_span_in_context(root)).end()
        roots.append(root)
    assert rig.value("citetrace_traces_evicted_total", reason=names.EVICT_CAPACITY) == 1
    assert names_of(rig) == ["child0"]
    assert rig.processor.traces_in_flight == 2
    for root in roots:
        root.end()
    assert rig.processor.traces_in_flight == 0


def test_ttl_evicts_traces_whose_root_never_ends(make_rig: Callable[..., Rig]) -> None:
    """A trace idle longer than the TTL is evicted (counted as ttl); its late spans are still exported."""
    from opentelemetry import trace

    now = [1000.0]
    rig = make_rig(trace_ttl_seconds=0.05, sampling_scope="trace", clock=lambda: now[0])
    root = rig.tracer.start_span("stuck")
    rig.tracer.start_span("child", context=trace.set_span_in_context(root)).end()
    assert rig.processor.traces_in_flight == 1
    now[0] += 0.04  # within the TTL: still held
    rig.flush()
    assert rig.processor.traces_in_flight == 1
    now[0] += 0.02  # past it
    rig.flush()
    assert rig.processor.traces_in_flight == 0
    assert rig.value("citetrace_traces_evicted_total", reason=names.EVICT_TTL) == 1
    root.end()
    assert names_of(rig) == ["child", "stuck"]


def test_an_open_run_outlives_the_ttl(make_rig: Callable[..., Rig]) -> None:
    """A run that makes no tool call for longer than the TTL (the agent reasoning for minutes) is not evicted
    while its root is open: its summary counts every search. Found by hout8 (very long runs): the trace was
    evicted as idle and the run had no summary at all (not in citetrace_runs_total, nothing on its root)."""
    now = [1000.0]
    rig = make_rig(trace_ttl_seconds=600, sample_percent=0.0, clock=lambda: now[0])
    with research_run("q", agent="thinker"):
        search("solar")
        now[0] += 700  # longer than the TTL without a span ending
        search("wind")
        rig.flush()  # a sweep runs while the run is still open
        search("nothing")
    (root,) = rig.roots()
    assert (root.attributes or {})[names.summary_attr("searches")] == 3
    assert rig.value("citetrace_runs_total", agent="thinker", outcome=names.OUTCOME_FAILED) == 1
    assert rig.value("citetrace_traces_evicted_total", reason=names.EVICT_TTL) in (None, 0)
    assert rig.processor.traces_in_flight == 0


def test_shutdown_exports_in_flight_traces(make_rig: Callable[..., Rig]) -> None:
    """Shutdown evicts in-flight traces (reason shutdown) and exports what they buffered."""
    from opentelemetry import trace

    rig = make_rig(sampling_scope="trace")
    root = rig.tracer.start_span("open")
    rig.tracer.start_span("child", context=trace.set_span_in_context(root)).end()
    rig.processor.shutdown()
    assert [s.name for s in rig.kept.get_finished_spans()] == ["child"]
    assert rig.value("citetrace_traces_evicted_total", reason=names.EVICT_SHUTDOWN) == 1


def test_fork_child_starts_empty_and_works(make_rig: Callable[..., Rig]) -> None:
    """After fork the child holds none of the parent's traces and summarizes and exports its own runs."""
    from opentelemetry import trace

    rig = make_rig(sampling_scope="trace")
    root = rig.tracer.start_span("parent-open")
    rig.tracer.start_span("child", context=trace.set_span_in_context(root)).end()
    assert rig.processor.traces_in_flight == 1
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 1
        try:
            rig.kept.clear()
            empty = rig.processor.traces_in_flight == 0
            with research_run("q", agent="scout"):
                search("nothing")
            ok = rig.processor.force_flush(5_000)
            exported = sorted(s.name for s in rig.kept.get_finished_spans())
            code = 0 if empty and ok and exported == ["execute_tool search", "invoke_agent scout"] else 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert rig.processor.traces_in_flight == 1
    root.end()


def test_after_shutdown_spans_are_ignored_quietly(make_rig: Callable[..., Rig]) -> None:
    """A second shutdown is a no-op and spans ending after shutdown are neither exported nor counted as drops."""
    rig = make_rig()
    rig.processor.shutdown()
    rig.processor.shutdown()
    healthy_run()
    assert rig.kept.get_finished_spans() == ()
    assert rig.value("citetrace_spans_dropped_total", reason=names.DROP_BUFFER) == 0
    assert rig.value("citetrace_span_processing_errors_total") == 0
