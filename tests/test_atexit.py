"""citetrace's exit work also runs in multiprocessing children, which leave by ``os._exit`` (no atexit).

Found by an outside-style check: an agent run 6 times through a ``ProcessPoolExecutor`` (fork, the Linux
default) stored every run, call and page, but no run had a summary (``citetrace runs`` printed ``-``): the
summaries waited in the worker thread for the exit flush that a pool worker never runs. The same for the
spans still queued in the child's batch exporter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

_SRC = Path(__file__).resolve().parents[1] / "src"

_AGENT = textwrap.dedent("""
    import multiprocessing, os, sys
    from concurrent.futures import ProcessPoolExecutor
    import citetrace
    from citetrace import research_run, traced_tool

    if os.environ["AGENT_CONFIGURES"] == "1":  # top level: run again in spawn/forkserver children
        citetrace.configure()

    @traced_tool(kind="search")
    def web_search(query: str) -> list:
        return [{"url": "https://example.org/page/" + query}]

    @traced_tool(kind="fetch")
    def read_page(url: str) -> str:
        return "Solar capacity grew 24 percent in 2024 according to the bureau. " * 4

    def one(i: int) -> str:
        url = f"https://example.org/page/{i}"
        with research_run(question=f"question {i}", agent="pooled") as run:
            read_page(web_search(str(i))[0]["url"])
            run.record_answer(f"Solar grew 24 percent [1].\\n\\n[1] {url}")
        return run.id

    if __name__ == "__main__":
        ctx = multiprocessing.get_context(sys.argv[2])
        with ProcessPoolExecutor(2, mp_context=ctx) as pool:
            print(len(list(pool.map(one, range(4)))), "runs")
""")


def _run(tmp_path: Path, how: str, method: str) -> list[dict[str, object]]:
    (tmp_path / "agent.py").write_text(_AGENT)
    store = f"sqlite:///{tmp_path / 'store.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(PYTHONPATH=str(_SRC), CITETRACE_STORE=store, OTEL_TRACES_EXPORTER="console",
               OTEL_METRICS_EXPORTER="none", OTEL_LOGS_EXPORTER="none")
    env["AGENT_CONFIGURES"] = "1" if how == "explicit" else "0"
    if how == "hook":
        env["CITETRACE_AUTO_INSTRUMENT"] = "true"
    proc = subprocess.run([sys.executable, "agent.py", how, method], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "", "nothing shut down twice, no warning"
    assert "4 runs" in proc.stdout
    roots = [line for line in proc.stdout.splitlines() if '"name": "invoke_agent pooled"' in line]
    assert len(roots) == 4, "every child's spans are exported before it exits"
    listed = subprocess.run([sys.executable, "-m", "citetrace", "runs", "--json", "--store", store], env=env,
                            capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    runs: list[dict[str, object]] = json.loads(listed.stdout)
    return runs


@pytest.mark.parametrize("how", ["hook", "explicit"])
@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_pool_workers_write_their_runs_summaries(tmp_path: Path, how: str, method: str) -> None:
    runs = _run(tmp_path, how, method)
    assert len(runs) == 4
    for run in runs:
        summary = run["summary"]
        assert isinstance(summary, dict), f"{run['run_id']} has no summary"
        assert summary["searches"] == 1 and summary["reads"] == 1 and summary["citations"] == 1 and summary["failed"] is False
