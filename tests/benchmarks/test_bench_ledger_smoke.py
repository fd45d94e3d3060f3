"""bench_ledger runs end to end in quick mode and prints well-formed tables (no assertion about time)."""

from __future__ import annotations

from .test_bench_smoke import _number, _run, _tables


def test_ledger_quick_prints_operation_and_whole_run_tables() -> None:
    """Both backends print an operations table (ratios to a bare write) and a whole-run table with the audit."""
    out = _run("bench_ledger.py", "--quick")
    tables = _tables(out)
    assert [t[0][0] for t in tables] == ["sqlite: operation", "sqlite: whole run", "memory: operation",
                                         "memory: whole run"]
    for ops, whole in (tables[0:2], tables[2:4]):
        assert [r[0] for r in ops[1:]][0] == "bare store write (1 entry + 1 row)" and _number(ops[1][2]) == 1.0
        assert all(_number(r[1]) > 0 and _number(r[2]) > 0 for r in ops[1:])
        assert whole[2][0] == "audit (50 claims re-derived)" and _number(whole[2][1]) > 0
    assert out.count("audit per claim:") == 2
