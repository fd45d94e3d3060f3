"""`citetrace ui` and the run page over a real PostgreSQL run store: the fleet's one database, browsed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from citetrace.store import open_store
from citetrace.view import RunBrowser

pytestmark = pytest.mark.slow


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    return subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=180,
                          env=env, check=False)


def test_run_browser_lists_and_opens_runs_from_postgresql(pg_uri: str, open_page: Any) -> None:
    """Demo runs recorded into PostgreSQL are all listed by the browser, and a failed one opens with its calls."""
    done = _cli("demo", "--store", pg_uri, "--no-metrics", "--questions", "all", "--check")
    assert done.returncode == 0, done.stderr
    listed = _cli("runs", "--store", pg_uri, "--json", "--limit", "100")
    assert listed.returncode == 0, listed.stderr
    runs: list[dict[str, Any]] = json.loads(listed.stdout)
    failed = [r for r in runs if r["summary"]["failure_reasons"]]
    assert runs and failed
    store = open_store(pg_uri)
    try:
        with RunBrowser(store) as browser:
            page = open_page(browser.url).page
            shown = page.locator("#runs tr[data-run]").evaluate_all("els => els.map(e => e.dataset.run)")
            assert shown == [r["run_id"] for r in runs]
            page = open_page(browser.url + "runs/" + failed[0]["run_id"]).page
            assert page.locator("#run-id").inner_text() == failed[0]["run_id"]
            assert page.locator(".call").count() >= 1
    finally:
        store.close()
