"""bench_http --quick runs end to end and prints every configuration with numbers (no assertion about time)."""

from __future__ import annotations

from .test_bench_smoke import _run

CONFIGS = {f"{client}.{what}" for client in ("requests", "urllib")
           for what in ("other.unpatched", "other.patched", "other.fetch_rules", "search.unpatched", "search.patched")}


def test_bench_http_quick_prints_every_configuration() -> None:
    """Each configuration appears once with a positive per-request time and ratio."""
    rows = {line.split()[0]: line.split()[1:] for line in _run("bench_http.py", "--quick").splitlines()
            if line.split() and line.split()[0] in CONFIGS | {"fn.handwritten_span"}}
    assert set(rows) == CONFIGS | {"fn.handwritten_span"}
    assert all(len(cells) == 3 and all(float(c) > 0 for c in cells) for cells in rows.values())
