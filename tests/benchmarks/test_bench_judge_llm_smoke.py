"""bench_judge_llm --quick: every fault the scripted endpoint throws is counted, at the promised request cost."""

from __future__ import annotations

import json

from .test_bench_smoke import _run


def test_bench_judge_llm_counts_every_fault() -> None:
    """Hangs, 500s and prose replies are each one JUDGE_ERROR; each fault costs exactly the requests the
    --judge-retries promise; the healthy server gives no error (times are printed, never asserted)."""
    r = json.loads(_run("bench_judge_llm.py", "--quick", "--json"))
    assert r["judge_errors"] == r["faults_injected"] == sum(
        r["by_mode"][m]["pairs"] for m in ("hang", "broken", "prose") if m in r["by_mode"])
    assert {"ok", "hang", "busy", "broken", "prose"} <= set(r["by_mode"])
    assert all(v["requests"] == v["expected"] for v in r["by_mode"].values())
    assert r["healthy_judge_errors"] == 0 and r["healthy_accuracy"] == 1.0
