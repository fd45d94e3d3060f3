"""`citetrace ui` end to end: the list, its filters and search, opening a run, read-only, loopback only."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace.store import open_store
from citetrace.view import RunBrowser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ui(demo_store: str) -> Iterator[RunBrowser]:
    """The run browser over the demo store, on a free loopback port."""
    store = open_store(demo_store)
    with RunBrowser(store) as browser:
        yield browser
    store.close()


def test_list_filters_and_opens_a_run(ui: RunBrowser, demo_runs: list[dict[str, Any]], open_page: Any,
                                      artifacts: Path) -> None:
    """Filtering by failure reason keeps exactly the runs with it; clicking a run opens its page."""
    page = open_page(ui.url).page
    assert page.locator("#runs tr[data-run]").count() == len(demo_runs)
    page.screenshot(path=str(artifacts / "ui-run-list.png"), full_page=True)
    page.select_option("#reason", "rate_limited")
    with page.expect_navigation():
        page.click("button[type=submit]")
    wanted = [r["run_id"] for r in demo_runs if "rate_limited" in r["summary"]["failure_reasons"]]
    assert page.locator("#runs tr[data-run]").evaluate_all("els => els.map(e => e.dataset.run)") == wanted
    with page.expect_navigation():
        page.click(f"a[href='/runs/{wanted[0]}']")
    assert page.locator("#run-id").inner_text() == wanted[0]
    assert page.locator(".call[data-status='rate_limited']").count() >= 1


def test_outcome_filter_and_trace_id_search(ui: RunBrowser, demo_runs: list[dict[str, Any]], open_page: Any) -> None:
    """outcome=ok lists only healthy runs; a trace id finds its one run, and opens by trace id too."""
    page = open_page(ui.url + "?outcome=ok").page
    ok = [r["run_id"] for r in demo_runs if not r["summary"]["failure_reasons"]]
    assert page.locator("#runs tr[data-run]").evaluate_all("els => els.map(e => e.dataset.run)") == ok
    target = demo_runs[-1]
    page = open_page(ui.url).page
    page.fill("#q", target["trace_id"])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("#runs tr[data-run]").evaluate_all("els => els.map(e => e.dataset.run)") == [target["run_id"]]
    page = open_page(ui.url + "runs/" + target["trace_id"]).page
    assert page.locator("#run-id").inner_text() == target["run_id"]


def test_read_only_with_a_policy_header(ui: RunBrowser) -> None:
    """POST is refused with 405; pages carry a Content-Security-Policy header; a missing run is a 404."""
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(ui.url, data=b"x", method="POST"), timeout=10)
    assert refused.value.code == 405
    with urllib.request.urlopen(ui.url, timeout=10) as resp:
        assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(ui.url + "runs/no-such-run", timeout=10)
    assert missing.value.code == 404


def test_cli_binds_loopback_and_serves(demo_store: str) -> None:
    """`citetrace ui --port 0` prints its 127.0.0.1 URL and serves the run list there."""
    proc = subprocess.Popen([sys.executable, "-m", "citetrace", "ui", "--port", "0", "--store", demo_store],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        url = line.split(" at ", 1)[1].split(" ", 1)[0]
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert b'id="runs"' in resp.read()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
