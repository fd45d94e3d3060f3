"""Run an agent script in a subprocess with nothing but environment variables, then read its runs back
through ``citetrace runs --json`` (the store the script wrote, as a user would)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._net import LocalServer
from ._research import figures, run_script, runs
from ..test_smolagents import PAGE, lite_html
from ..test_ddgs import DDG_PATH, ddg_html

SCRIPTS = Path(__file__).parent / "scripts"


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
    """Run ``scripts/<script>`` in place (it imports the fake network from the test folder) with
    ``agent_env``; return what it printed (its last stdout line, JSON) and ``citetrace runs --json``, newest
    first."""
    out = run_script(tmp_path, SCRIPTS / script, *args, extra_env=extra_env, timeout=timeout)
    return json.loads(out.strip().splitlines()[-1]), list(reversed(runs(tmp_path)))


def serve_search_api(server: LocalServer, urls: list[str]) -> None:
    """A Tavily API answering every search with ``urls``."""
    import json as _json

    results = [{"url": u, "title": f"T{i}", "content": "solar", "score": 0.9} for i, u in enumerate(urls)]
    server.routes["/api.tavily.com/search"] = (200, _json.dumps({"query": "q", "results": results}),
                                               "application/json")
    server.routes["/news.example/"] = (200, PAGE, "text/html")
