"""Run an agent script in a subprocess with nothing but environment variables, then read its runs back
through ``citetrace runs --json`` (the store the script wrote, as a user would)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .._net import LocalServer
from ..test_smolagents import PAGE, lite_html
from ..test_ddgs import DDG_PATH, ddg_html

SCRIPTS = Path(__file__).parent / "scripts"
SUMMARY_FIELDS = ("searches", "reads", "empty_searches", "failed_reads", "rate_limited", "citations",
                  "uncited_from_retrieval", "cited_not_fetched")


def serve_web(server: LocalServer) -> LocalServer:
    """The fake web every script uses: a search engine page with two results, no DuckDuckGo results, one
    good page, one gone (404) and one rate-limited (429)."""
    server.routes["/lite.duckduckgo.com/lite/"] = (200, lite_html(2), "text/html")
    server.routes[DDG_PATH] = (200, ddg_html(0), "text/html")
    server.routes["/lite.example/"] = (200, PAGE, "text/html")
    server.routes["/gone.example/"] = (404, "gone", "text/plain")
    server.routes["/slow.example/"] = (429, "slow down", "text/plain")
    return server


def run_agent(tmp_path: Path, script: str, *args: str, extra_env: dict[str, str] | None = None,
              timeout: float = 120) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run ``scripts/<script>`` with CITETRACE_AUTO_INSTRUMENT=true and a fresh store; return what it printed
    (its last stdout line, JSON) and ``citetrace runs --json``."""
    store = f"sqlite:///{tmp_path / 'store.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_STORE=store, OTEL_TRACES_EXPORTER="none")
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, str(SCRIPTS / script), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    printed = json.loads(proc.stdout.strip().splitlines()[-1])
    listed = subprocess.run([sys.executable, "-m", "citetrace.cli", "runs", "--store", store, "--json"],
                            env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr
    return printed, json.loads(listed.stdout)


def figures(run: dict[str, Any]) -> dict[str, int]:
    """The summary figures the tests compare."""
    summary = run.get("summary") or {}
    return {key: summary.get(key) for key in SUMMARY_FIELDS}


def serve_search_api(server: LocalServer, urls: list[str]) -> None:
    """A Tavily API answering every search with ``urls``."""
    import json as _json

    results = [{"url": u, "title": f"T{i}", "content": "solar", "score": 0.9} for i, u in enumerate(urls)]
    server.routes["/api.tavily.com/search"] = (200, _json.dumps({"query": "q", "results": results}),
                                               "application/json")
    server.routes["/news.example/"] = (200, PAGE, "text/html")
