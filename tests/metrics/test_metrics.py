"""Metrics: scraped from a real HTTP endpoint, parsed, checked by promtool; exemplars, overflow, no _created."""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import urllib.request
from typing import Callable, Iterator
from wsgiref.simple_server import WSGIServer, make_server

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families

from citetrace import names, research_run, traced_tool
from citetrace.summary import metrics_wsgi_app, start_metrics_server

from .conftest import Rig


@traced_tool(kind="search")
def search(query: str) -> list[dict[str, str]]:
    return [] if query == "nothing" else [{"url": f"https://{query}.example/"}]


@traced_tool(kind="fetch")
def fetch(url: str) -> str:
    raise ConnectionError("refused")


def scrape(port: int, openmetrics: bool = False) -> str:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics")
    if openmetrics:
        req.add_header("Accept", "application/openmetrics-text; version=1.0.0")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return str(resp.read().decode("utf-8"))


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


@pytest.fixture
def served(make_rig: Callable[..., Rig]) -> Iterator[tuple[Rig, int]]:
    """A rig whose registry is served by start_metrics_server on a free loopback port."""
    rig = make_rig(max_tool_names=2)
    server = start_metrics_server(0, registry=rig.registry)
    try:
        yield rig, server.server_port
    finally:
        server.shutdown()
        server.server_close()


def two_runs() -> str:
    with research_run("q", agent="scout") as run:
        search("solar")
        search("solar")
        search("nothing")
        run.record_answer("https://solar.example/ and https://ghost.example/")
    with research_run("q", agent="scout"):
        search("wind")
        for _ in range(2):
            try:
                fetch("https://wind.example/")
            except ConnectionError:
                pass
    return run.trace_id


def test_scraped_values_match_hand_counts(served: tuple[Rig, int]) -> None:
    """Two runs (one with empty search + uncited + unfetched, one with 2 failed reads) show exactly in /metrics."""
    rig, port = served
    two_runs()
    got = samples(scrape(port))

    def v(name: str, **labels: str) -> float:
        return got.get((name, tuple(sorted(labels.items()))), 0.0)

    assert v("citetrace_runs_total", agent="scout", outcome="failed") == 2
    assert v("citetrace_runs_total", agent="scout", outcome="ok") == 0
    for reason, count in [(names.REASON_EMPTY_SEARCH, 1), (names.REASON_UNCITED_URL, 1),
                          (names.REASON_CITED_NOT_FETCHED, 1), (names.REASON_FAILED_READS, 1)]:
        assert v("citetrace_run_failures_total", agent="scout", reason=reason) == count, reason
    assert v("citetrace_tool_calls_total", agent="scout", tool="search", kind="search", status="ok") == 3
    assert v("citetrace_tool_calls_total", agent="scout", tool="search", kind="search", status="empty") == 1
    assert v("citetrace_tool_calls_total", agent="scout", tool="fetch", kind="fetch", status="error") == 2
    assert v("citetrace_tool_call_duration_seconds_count", agent="scout", tool="search", kind="search") == 4
    assert v("citetrace_run_searches_count", agent="scout") == 2
    assert v("citetrace_run_searches_sum", agent="scout") == 4
    assert v("citetrace_run_reads_sum", agent="scout") == 2
    assert v("citetrace_run_repeat_queries_sum", agent="scout") == 1
    assert v("citetrace_run_distinct_urls_sum", agent="scout") == 2
    assert v("citetrace_run_citations_sum", agent="scout") == 2
    assert v("citetrace_uncited_citations_total", agent="scout") == 1
    assert v("citetrace_unfetched_citations_total", agent="scout") == 2
    assert v("citetrace_run_duration_seconds_count", agent="scout") == 2
    assert v("citetrace_traces_in_flight") == 0
    assert not any(name.endswith("_created") for name, _ in got)


def test_exposition_passes_promtool(served: tuple[Rig, int]) -> None:
    """`promtool check metrics` accepts the scraped exposition without a single lint message."""
    promtool = shutil.which("promtool")
    assert promtool, "promtool missing: scripts/setup installs Debian's prometheus package"
    two_runs()
    result = subprocess.run([promtool, "check", "metrics"], input=scrape(port=served[1]), capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "" and result.stderr.strip() == ""


def test_duration_exemplars_carry_the_trace_id(served: tuple[Rig, int]) -> None:
    """OpenMetrics scrapes show trace-id exemplars on citetrace_tool_call_duration_seconds buckets."""
    rig, port = served
    first_trace = two_runs()
    exemplars = {s.exemplar.labels["trace_id"]
                 for fam in parse_openmetrics(scrape(port, openmetrics=True))
                 if fam.name == names.METRIC_TOOL_CALL_DURATION_SECONDS
                 for s in fam.samples if s.exemplar is not None}
    assert exemplars and all(len(t) == 32 for t in exemplars)
    assert exemplars <= {first_trace} | {format(s.context.trace_id, "032x") for s in rig.everything.get_finished_spans()}


def test_tool_label_overflows_past_the_cap(served: tuple[Rig, int]) -> None:
    """With max_tool_names=2, a third distinct tool name is counted under tool="other"."""
    rig, port = served

    @traced_tool(kind="search", name="third_tool")
    def third(query: str) -> list[str]:
        return []

    two_runs()
    with research_run("q", agent="scout"):
        third("x")
    got = samples(scrape(port))
    key = ("citetrace_tool_calls_total",
           tuple(sorted({"agent": "scout", "tool": names.TOOL_OVERFLOW, "kind": "search", "status": "empty"}.items())))
    assert got[key] == 1
    assert not any(dict(labels).get("tool") == "third_tool" for _, labels in got)


def test_wsgi_app_serves_the_same_registry(make_rig: Callable[..., Rig]) -> None:
    """metrics_wsgi_app mounted in an existing WSGI server answers with the same exposition."""
    rig = make_rig()
    two_runs()
    server: WSGIServer = make_server("127.0.0.1", 0, metrics_wsgi_app(rig.registry))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        got = samples(scrape(server.server_port))
    finally:
        server.shutdown()
        server.server_close()
    assert got[("citetrace_runs_total", (("agent", "scout"), ("outcome", "failed")))] == 2


def test_bad_ports_are_named(make_rig: Callable[..., Rig]) -> None:
    """A port out of range is a ValueError; a port already bound is an OSError naming address and port."""
    rig = make_rig()
    with pytest.raises(ValueError, match="metrics port"):
        start_metrics_server(70000, registry=rig.registry)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(OSError, match=f"127.0.0.1:{port}"):
            start_metrics_server(port, registry=rig.registry)


def test_labels_stay_in_closed_sets_under_hostile_input() -> None:
    """5000 distinct tool names, odd kinds and statuses: at most cap+1 tool values, only closed-set kinds/statuses."""
    from prometheus_client import CollectorRegistry

    from citetrace.summary import SummaryMetrics

    registry = CollectorRegistry()
    metrics = SummaryMetrics(registry, max_tool_names=3)
    for i in range(5000):
        metrics.observe_tool("agent", f"tool-{i}", "search", "ok", 0.01, i + 1)
    metrics.observe_tool("agent", "x", "telepathy", "ok", 0.01)
    metrics.observe_tool("agent", "tool-0", "fetch", "exploded", 0.01)
    fams = {f.name: f for f in registry.collect()}
    calls = fams[names.counter_base(names.METRIC_TOOL_CALLS_TOTAL)].samples
    assert {s.labels["tool"] for s in calls} == {"tool-0", "tool-1", "tool-2", names.TOOL_OVERFLOW}
    assert {s.labels["kind"] for s in calls} <= set(names.TOOL_KINDS)
    assert {s.labels["status"] for s in calls} <= set(names.TOOL_STATUSES)
    assert sum(s.value for s in calls) == 5001


def test_unreadable_reads_are_counted_by_reason(served: tuple[Rig, int]) -> None:
    """Fetches that gave no text say why in /metrics: a consent wall (the IAB-style banner) and a scanned PDF
    (no text layer) each under their reason, through the real capture rules; an ordinary page and a failed
    fetch count nothing there."""
    from _pdfbytes import make_pdf

    wall = ("<html><body><div class='cmp'><p>We value your privacy. We and our 842 partners store and/or access "
            "information on a device, such as cookies, and process personal data, such as unique identifiers, "
            "for personalised advertising and content, advertising and content measurement, audience research "
            "and services development. You can accept or manage your choices by clicking below, including your "
            "right to object where legitimate interest is used.</p><button>Accept all</button>"
            "<button>Manage preferences</button></div></body></html>")
    pages = {"https://news.example/wall": wall, "https://docs.example/scan.pdf": make_pdf([None]),
             "https://docs.example/page": "An ordinary page with enough text to be a read. " * 10}

    @traced_tool(kind="fetch")
    def read(url: str) -> str | bytes:
        return pages[url]

    rig, port = served
    with research_run("q", agent="scout"):
        for url in pages:
            read(url)
        try:
            fetch("https://wind.example/")
        except ConnectionError:
            pass
    got = samples(scrape(port))
    unreadable = {labels: value for (name, labels), value in got.items() if name == "citetrace_unreadable_reads_total"}
    assert unreadable == {(("agent", "scout"), ("reason", names.CONSENT_WALL)): 1.0,
                          (("agent", "scout"), ("reason", names.PDF_NO_TEXT)): 1.0}
