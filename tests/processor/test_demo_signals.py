"""On the demo's real runs (every question, every fault), the processor's summaries, metrics and sampling
reproduce the hand-computed signals in docs/demo.md exactly."""

from __future__ import annotations

import shutil
import subprocess
import urllib.request
from collections import Counter
from typing import Callable, Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from citetrace import names
from citetrace.demo import DemoServers, RunResult, run_demo
from citetrace.summary import keep_by_hash, start_metrics_server

from .conftest import Rig

AGENT = "demo-researcher"


@pytest.fixture(scope="module")
def servers() -> Iterator[DemoServers]:
    """The demo's search endpoint and site on free loopback ports, every fault enabled."""
    with DemoServers(slow_seconds=1.0) as srv:
        yield srv


@pytest.fixture
def demo(make_rig: Callable[..., Rig], servers: DemoServers) -> tuple[Rig, list[RunResult]]:
    """All nine questions with every fault, through the processor with sampling at 2 % and metrics."""
    rig = make_rig(sample_percent=2.0)
    results = run_demo("all", "all", servers=servers, timeout=0.5, store=rig.store,
                       flush=lambda: rig.processor.force_flush(5_000))
    rig.flush()
    return rig, results


def test_every_signal_on_root_and_in_store(demo: tuple[Rig, list[RunResult]]) -> None:
    """Each run's root attributes and stored summary equal its hand-computed signals and failure reasons."""
    rig, results = demo
    roots = {format(s.context.trace_id, "032x"): s for s in rig.roots()}
    assert {r.question.expected.failed for r in results} == {True, False}  # both kinds are covered
    for result in results:
        expected = result.question.expected
        attrs = roots[result.trace_id].attributes or {}
        for field, value in expected.signals().items():
            assert attrs[names.summary_attr(field)] == value, (result.question.id, field)
        assert tuple(attrs[names.SUMMARY_FAILURE_REASONS]) == expected.failure_reasons, result.question.id
        assert attrs[names.SUMMARY_FAILED] is expected.failed
        assert result.summary is not None
        assert {k: result.summary[k] for k in expected.signals()} == expected.signals()


def test_sampling_keeps_exactly_the_failed_runs(demo: tuple[Rig, list[RunResult]]) -> None:
    """Failed runs are exported whole, healthy runs only as their root unless the 2 % hash keeps them."""
    rig, results = demo
    kept = Counter(format(s.context.trace_id, "032x") for s in rig.kept.get_finished_spans())
    for result in results:
        expected = result.question.expected
        whole = 1 + len(expected.calls)
        by_hash = keep_by_hash(int(result.trace_id, 16), salt="citetrace", percent=2.0)
        assert kept[result.trace_id] == (whole if expected.failed or by_hash else 1), result.question.id


def test_metrics_add_up_to_the_hand_computed_signals(demo: tuple[Rig, list[RunResult]]) -> None:
    """Scraped over HTTP: runs by outcome, failures by reason, calls by status and citation totals match."""
    rig, results = demo
    server = start_metrics_server(0, registry=rig.registry)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    got = {(s.name, tuple(sorted(s.labels.items()))): s.value
           for fam in text_string_to_metric_families(text) for s in fam.samples}
    expected = [r.question.expected for r in results]

    def v(name: str, **labels: str) -> float:
        return got.get((name, tuple(sorted({"agent": AGENT, **labels}.items()))), 0.0)

    assert v("citetrace_runs_total", outcome="failed") == sum(e.failed for e in expected)
    assert v("citetrace_runs_total", outcome="ok") == sum(not e.failed for e in expected)
    for reason in names.FAILURE_REASONS:
        assert v("citetrace_run_failures_total", reason=reason) == sum(reason in e.failure_reasons for e in expected)
    calls = Counter((c.kind, c.status) for e in expected for c in e.calls)
    tools = {names.TOOL_KIND_SEARCH: "web_search", names.TOOL_KIND_FETCH: "read_page"}
    for (kind, status), count in calls.items():
        assert v("citetrace_tool_calls_total", tool=tools[kind], kind=kind, status=status) == count
    assert v("citetrace_uncited_citations_total") == sum(e.uncited_from_retrieval for e in expected)
    assert v("citetrace_unfetched_citations_total") == sum(e.cited_not_fetched for e in expected)
    assert v("citetrace_run_searches_sum") == sum(e.searches for e in expected)
    assert v("citetrace_run_distinct_urls_sum") == sum(e.distinct_urls_seen for e in expected)
    promtool = shutil.which("promtool")
    assert promtool, "promtool missing: scripts/setup installs Debian's prometheus package"
    check = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and not check.stdout.strip(), check.stdout + check.stderr
