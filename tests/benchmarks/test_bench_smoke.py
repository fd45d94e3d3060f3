"""The benchmark scripts run end to end in quick mode and print well-formed tables.

No assertion here is about time: timings belong to the benchmark output, never to a test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import _harness  # noqa: E402
import bench_store  # noqa: E402



def _run(script: str, *args: str, timeout: float = 240) -> str:
    env = dict(os.environ)
    env.pop("OTEL_SDK_DISABLED", None)
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args], capture_output=True, text=True, timeout=timeout, env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _tables(output: str) -> list[list[list[str]]]:
    """Every Markdown table in the output, as rows of cells (header first, separator dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in output.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(set(c) <= set("-:") and c for c in cells):
                assert len(current) == 1, "separator must follow exactly one header row"
                continue
            current.append(cells)
        elif current:
            tables.append(current)
            current = []
    for table in tables:
        assert len({len(row) for row in table}) == 1, f"ragged table: {table}"
    return tables


def _number(cell: str) -> float:
    return float(cell.replace(",", "").rstrip(" %"))


def test_capture_quick_prints_search_and_fetch_tables() -> None:
    """bench_capture --quick prints both tables with every configuration, numbers in each cell, spans exported."""
    out = _run("bench_capture.py", "--quick")
    search, fetch = _tables(out)
    assert search[0] == ["search tool, 10 results", "µs/call", "min µs", "x hand-written", "spans exported"]
    labels = [row[0] for row in search[1:]]
    assert labels == [
        "bare call (no tracing)",
        "hand-written OTel span, same 9 attributes",
        "@traced_tool",
        "hand-written span, never-seen URLs every call",
        "@traced_tool, never-seen URLs every call",
        "hand-written span, never-seen URLs, all with a query",
        "@traced_tool, never-seen URLs, all with a query",
        "hand-written span inside a root span, same 11 attributes",
        "@traced_tool inside research_run",
        "@traced_tool, OTEL_SDK_DISABLED=true",
    ]
    assert [row[0] for row in fetch[1:]] == [
        "bare fetch (no tracing, no store)",
        "hand-written span + SQLiteStore.put_document",
        '@traced_tool(kind="fetch") + SQLite store',
    ]
    for row in search[1:] + fetch[1:]:
        assert all(_number(cell) > 0 for cell in row[1:4]), row
    by_label = {row[0]: row for row in search[1:] + fetch[1:]}
    assert by_label["hand-written OTel span, same 9 attributes"][3] == "1.00"
    # every traced call became an exported span (a few hundred spans never fill the batch queue)
    for label in ("@traced_tool", "@traced_tool inside research_run", '@traced_tool(kind="fetch") + SQLite store'):
        assert by_label[label][4] == "100.0 %", by_label[label]
    assert by_label["bare call (no tracing)"][4] == "-"
    assert "@traced_tool disabled:" in out and "µs over the bare call" in out
    for what in ("never-seen URLs", "never-seen URLs, all with a query", "a call inside research_run"):
        assert f"@traced_tool, {what}: " in out, what
    for label in ("hand-written span inside a root span, same 11 attributes", "@traced_tool inside research_run"):
        assert by_label[label][4] == "100.0 %", by_label[label]  # root spans counted too
    assert out.startswith("machine: ") or "\nmachine: " in out


def test_store_quick_stores_each_text_once() -> None:
    """bench_store --quick writes 300 documents and exactly one text per distinct page, in every mode."""
    out = _run("bench_store.py", "--quick")
    (table,) = _tables(out)
    assert table[0][0] == "store write" and table[0][-1] == "texts / documents"
    unique = len(set(bench_store.plan(300, 0.3)))
    assert 0 < unique < 300
    assert [row[0] for row in table[1:]] == ["SQLiteStore.put_document", "the agent's store (BufferedStore), free",
                                        '@traced_tool(kind="fetch") in research_run']
    for row in table[1:]:
        assert row[-1] == f"{unique:,} / 300", row
        assert all(_number(cell) > 0 for cell in row[1:-1]), row


def test_plan_repeats_pages_at_the_requested_share() -> None:
    """The fetch plan re-reads earlier pages, about as often as asked, and is the same every time."""
    order = bench_store.plan(10_000, 0.3)
    assert order == bench_store.plan(10_000, 0.3)
    repeats = len(order) - len(set(order))
    assert 2_700 < repeats < 3_300
    first_seen: dict[int, int] = {}
    for i, page in enumerate(order):
        first_seen.setdefault(page, i)
    assert all(first_seen[page] <= i for i, page in enumerate(order))
    url_a, text_a = bench_store.page(1)
    url_b, text_b = bench_store.page(2)
    assert url_a != url_b and text_a != text_b and len(text_a) == bench_store.PAGE_CHARS


def test_netguard_records_non_loopback_connects() -> None:
    """The network guard used before timing the peers sees a connection attempt to a non-loopback address."""
    code = (
        "import socket, sys; sys.path.insert(0, %r); import _harness as h; g = h.NetGuard();"
        "s = socket.socket(); s.setblocking(False); s.connect_ex(('192.0.2.1', 9)); s.close();"
        "t = socket.socket(); t.setblocking(False); t.connect_ex(('127.0.0.1', 9)); t.close();"
        "print(g.outside, g.loopback)" % str(BENCH)
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert "socket.connect 192.0.2.1" in proc.stdout
    assert "socket.connect 127.0.0.1" in proc.stdout.split("] [", 1)[1]


def test_format_table_aligns_numbers_right() -> None:
    """format_table gives a Markdown table whose numeric columns are right-aligned."""
    table = _harness.format_table(["what", "µs"], [["a", 1.5], ["bb", 1234.0]])
    lines = table.splitlines()
    assert lines[0] == "| what | µs    |"
    assert lines[1] == "|------|------:|"
    assert lines[2] == "| a    |  1.50 |"
    assert lines[3] == "| bb   | 1,234 |"


def test_strace_lines_outside_loopback_are_flagged() -> None:
    """The strace half of the network check flags IPv4/IPv6 connects that are not loopback, and only those."""
    import bench_capture

    line = '1 connect(3, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr("%s")}, 16) = 0'
    assert bench_capture._external_syscall(line % "192.0.2.1")
    assert not bench_capture._external_syscall(line % "127.0.0.1")
    v6 = '1 connect(3, {sa_family=AF_INET6, sin6_port=htons(4318), inet_pton(AF_INET6, "%s", &sin6_addr)}, 28) = 0'
    assert bench_capture._external_syscall(v6 % "2001:db8::1")
    assert not bench_capture._external_syscall(v6 % "::1")
    assert not bench_capture._external_syscall('1 connect(3, {sa_family=AF_UNIX, sun_path="/run/x"}, 110) = 0')


def test_view_quick_prints_its_table() -> None:
    """bench_view --quick renders and loads a run page and prints one row per step, the baseline first."""
    out = _run("bench_view.py", "--quick")
    (table,) = _tables(out)
    assert [row[0] for row in table[1:]][0].startswith("`citetrace show`")
    assert len(table) == 5 and all(float(row[1].strip("*")) >= 0 for row in table[1:])
    assert "50 call rows in the DOM" in out


def test_agents_quick_prints_every_configuration() -> None:
    """bench_agents --quick prints one row per configuration with numbers, and the four ratio lines."""
    out = _run("bench_agents.py", "--quick")
    (table,) = _tables(out)
    assert table[0] == ["agent invocation", "µs/call", "x hand-written root", "x research_run by hand"]
    labels = [row[0] for row in table[1:]]
    for label in ("bare call", "hand-written root span", "research_run by hand", "boundary, sync",
                  "boundary, generator (5)", "LangGraph invoke, unpatched", "LangGraph invoke, patched",
                  "submit in a run, unpatched", "submit in a run, patched"):
        assert label in labels, label
    for row in table[1:]:
        assert all(_number(cell) > 0 for cell in row[1:]), row
    assert {row[0]: row for row in table[1:]}["hand-written root span"][2] == "1.00"
    for line in ("x research_run by hand; generator:", "nested call (joins the run):", "LangGraph one-node invoke:",
                 "ThreadPoolExecutor.submit inside a run:"):
        assert line in out, line


def test_store_lock_quick_prints_its_table() -> None:
    """bench_store_lock --quick prints the lock-wait, loss-window and exit rows, with every summary stored."""
    out = _run("bench_store_lock.py", "--quick")
    (table,) = _tables(out)
    rows = {row[0]: row[1] for row in table[1:]}
    assert len(rows) == 8
    assert any(k.startswith("store locked by another process") for k in rows)
    assert [v for k, v in rows.items() if k.startswith("summaries in the store")] == ["200 of 200", "200 of 200"]


def test_serve_bounds_quick_prints_every_attack() -> None:
    """bench_serve_bounds.py --quick runs each attack against a real serve and prints one table row per attack."""
    out = _run("bench_serve_bounds.py", "--quick")
    [table] = _tables(out)
    assert len(table) == 6, table
    assert all(row[1] for row in table[1:])


def test_replay_quick_prints_its_table() -> None:
    """bench_replay --quick records and replays a traced search and prints the three rows."""
    out = _run("bench_replay.py", "--quick")
    (table,) = _tables(out)
    assert [row[0].split(" (")[0] for row in table[1:]] == ["traced, not recorded", "recorded", "replayed from the store"]


def test_model_citations_quick_prints_its_table() -> None:
    """bench_model_citations --quick evaluates the linked and the provider-cited run and prints the three rows."""
    (table,) = _tables(_run("bench_model_citations.py", "--quick"))
    assert [row[0] for row in table[1:]] == ["markdown links in the text", "model citations (url_citation spans)",
                                              "placing the spans alone"]


def test_depth_prints_bare_and_wrapped_depths() -> None:
    """bench_depth prints a bare and a wrapped row for each tool shape, each wrapped row with its one span."""
    (table,) = _tables(_run("bench_depth.py", "--quick"))
    assert table[0] == ["recursive tool", "depth reached", "x bare", "spans exported"]
    rows = {row[0]: row for row in table[1:]}
    for shape in ("plain function", "coroutine function", "generator function"):
        bare, wrapped = rows[f"{shape}, bare"], rows[f"{shape}, @traced_tool"]
        assert bare[2] == "1.000" and int(bare[1]) > 100
        assert 0 < int(wrapped[1]) < int(bare[1]) and wrapped[3] == "1"


def test_instructions_counts_a_pair_under_callgrind() -> None:
    """bench_instructions counts the hand-written and the traced call of one row under callgrind and prints
    both counts and their ratio (valgrind is one of scripts/setup's Debian packages)."""
    # four interpreters under valgrind: about 40 s on an idle machine, minutes on a loaded one
    (table,) = _tables(_run("bench_instructions.py", "--only", "same", "--calls", "20", timeout=900))
    assert table[0] == ["search tool, 10 results", "hand-written instr/call", "@traced_tool instr/call",
                        "x hand-written"]
    (row,) = table[1:]
    assert row[0] == "the same 10 results each call"
    hand, traced = (int(cell.replace(",", "")) for cell in row[1:3])
    assert hand > 10_000 and traced > 10_000  # a span costs far more than a bare call under any interpreter
    assert float(row[3]) == pytest.approx(traced / hand, abs=0.001)
