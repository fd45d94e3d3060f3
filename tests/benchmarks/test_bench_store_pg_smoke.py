"""bench_store_pg runs end to end in quick mode (its own PostgreSQL) and prints a well-formed table (no
assertion about time)."""

from __future__ import annotations

from .test_bench_smoke import _number, _run, _tables


def test_store_pg_quick_prints_both_backends_with_ratios() -> None:
    """SQLite and PostgreSQL, 1 and 8 writers: positive rates and latencies, SQLite's ratio exactly 1."""
    (table,) = _tables(_run("bench_store_pg.py", "--quick"))
    assert table[0] == ["store", "writers", "documents/s", "vs SQLite", "p50 ms", "p99 ms"]
    assert [(r[0], r[1]) for r in table[1:]] == [("sqlite", "1"), ("postgresql", "1"), ("sqlite", "8"),
                                                 ("postgresql", "8")]
    for row in table[1:]:
        assert _number(row[2]) > 0 and _number(row[4]) > 0 and _number(row[5]) >= _number(row[4])
        assert row[0] != "sqlite" or _number(row[3].rstrip("x")) == 1.0
