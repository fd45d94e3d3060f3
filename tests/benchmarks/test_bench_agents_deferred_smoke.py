"""The deferred agent-boundary benchmark runs and prints its table (numbers only in benchmarks/, as ratios)."""

from __future__ import annotations

from .test_bench_smoke import _number, _run, _tables


def test_agents_deferred_quick_prints_every_configuration() -> None:
    """bench_agents_deferred --quick prints the six configurations with positive numbers, each by-hand
    baseline at 1.00, and the ratio line."""
    out = _run("bench_agents_deferred.py", "--quick")
    (table,) = _tables(out)
    assert table[0] == ["agent invocation", "µs/call", "x research_run by hand"]
    rows = {row[0]: row for row in table[1:]}
    assert list(rows) == ["bare, task", "research_run by hand, task", "handle boundary", "bare, context manager",
                          "research_run by hand, cm", "context boundary"]
    assert all(_number(cell) > 0 for row in rows.values() for cell in row[1:])
    assert rows["research_run by hand, task"][2] == rows["research_run by hand, cm"][2] == "1.00"
    assert "handle boundary:" in out and "context boundary:" in out
