"""bench_connector.py runs end to end in quick mode against the built collector and prints its two tables.

No assertion here is about time: the figures belong to the benchmark output, never to a test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_bench_connector_quick_prints_throughput_and_memory_tables() -> None:
    """--quick measures forward, connector and pair once, then memory with the bound evicting as many as it held."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_connector.py"), "--quick", "--pair"],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert lines[0].split("|")[1].strip() == "round" and len(lines) == 6, proc.stdout
    memory = [c.strip() for c in lines[-1].strip("|").split("|")]
    assert memory[0] == "500" and memory[5] == "500" and memory[6] == "500", proc.stdout  # held, bound, evicted
    assert "median connector / forward" in proc.stdout and "median pair / forward" in proc.stdout
