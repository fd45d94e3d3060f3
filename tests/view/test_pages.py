"""The run page in a real headless Chromium: every failure mode visible, keyboard use, no requests, no errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citetrace import names

pytestmark = pytest.mark.slow

_CONTRAST_JS = """() => {
  function rgb(s) { const m = s.match(/[\\d.]+/g).map(Number); return m.length > 3 ? m : m.concat([1]); }
  function lum(c) { const v = c.slice(0, 3).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; }
  function bg(el) { while (el) { const c = rgb(getComputedStyle(el).backgroundColor); if (c[3] > 0) return c; el = el.parentElement; } return [255, 255, 255, 1]; }
  const bad = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode; const el = node.parentElement;
    if (!node.textContent.trim() || !el || !el.offsetParent) continue;
    const st = getComputedStyle(el); if (st.visibility === "hidden") continue;
    const a = lum(rgb(st.color)), b = lum(bg(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    const large = parseFloat(st.fontSize) >= 24 || (parseFloat(st.fontSize) >= 18.66 && parseInt(st.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push([node.textContent.trim().slice(0, 40), ratio.toFixed(2)]);
  }
  return bad;
}"""


def _cli(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "citetrace", *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _page_file(store: str, run_id: str, folder: Path) -> Path:
    path = folder / f"{run_id}.html"
    _cli("view", run_id, "--store", store, "--evaluate", "-o", str(path))
    return path


@pytest.fixture(scope="module")
def pages(demo_store: str, demo_runs: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory,
          ) -> list[tuple[dict[str, Any], dict[str, Any], Path]]:
    """(run, `citetrace show --json` of it, its page file) for every demo run."""
    folder = tmp_path_factory.mktemp("pages")
    return [(run, json.loads(_cli("show", run["run_id"], "--store", demo_store, "--json")),
             _page_file(demo_store, run["run_id"], folder)) for run in demo_runs]


def test_every_demo_run_shows_what_its_store_records(pages: list[Any], open_page: Any) -> None:
    """Each page's calls by status, fabricated and unfetched citations and failure badges equal the store's."""
    seen_reasons: set[str] = set()
    for run, shown, path in pages:
        page = open_page(path.as_uri()).page
        for status in names.TOOL_STATUSES:
            expected = sum(1 for c in shown["calls"] if c["status"] == status)
            assert page.locator(f".call[data-status='{status}']").count() == expected, (run["run_id"], status)
        summary = run["summary"]
        assert page.locator("#citations tr[data-returned='no']").count() == summary["uncited_from_retrieval"]
        assert page.locator("#citations tr[data-url]:not([data-fetched='ok'])").count() == summary["cited_not_fetched"]
        reasons = page.locator("#header [data-reason]").evaluate_all("els => els.map(e => e.dataset.reason)")
        assert sorted(reasons) == sorted(summary["failure_reasons"])
        assert page.locator("#figures [data-figure='searches'] b").inner_text() == str(summary["searches"])
        seen_reasons.update(reasons)
    assert {"empty_search", "rate_limited", "failed_reads", "uncited_url", "cited_not_fetched",
            "too_many_searches"} <= seen_reasons


def test_pages_make_no_request_and_log_no_error(pages: list[Any], open_page: Any, artifacts: Path) -> None:
    """Opened from a file, a page requests nothing but itself and logs nothing to the console."""
    for run, _shown, path in pages:
        loaded = open_page(path.as_uri())
        reason = (run["summary"]["failure_reasons"] or ["ok"])[0]
        loaded.page.screenshot(path=str(artifacts / f"run-{reason}-{run['run_id'][-8:]}.png"), full_page=True)
        assert loaded.requests == [path.as_uri()]
        assert loaded.console == []


def test_keyboard_moves_between_calls_and_opens_them(pages: list[Any], open_page: Any) -> None:
    """`j` focuses the next call row with a visible outline, Enter opens its details, `k` goes back."""
    _run, shown, path = max(pages, key=lambda p: len(p[1]["calls"]))
    page = open_page(path.as_uri()).page
    page.keyboard.press("j")
    page.keyboard.press("j")
    focused = page.evaluate("() => document.activeElement.parentElement.dataset.seq")
    assert focused == str(shown["calls"][1]["seq"])
    outline = page.evaluate("() => getComputedStyle(document.activeElement).outlineStyle")
    assert outline not in ("none", "")
    page.keyboard.press("Enter")
    assert page.locator(f".call[data-seq='{focused}']").get_attribute("open") is not None
    page.keyboard.press("k")
    assert page.evaluate("() => document.activeElement.parentElement.dataset.seq") == str(shown["calls"][0]["seq"])
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.tagName") in ("SUMMARY", "A", "TR")


def test_text_contrast_passes_wcag_aa(pages: list[Any], open_page: Any) -> None:
    """Every visible text node has at least 4.5:1 contrast against its background (3:1 when large)."""
    for _run, _shown, path in pages[:3]:
        page = open_page(path.as_uri()).page
        page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        assert page.evaluate(_CONTRAST_JS) == []


def test_times_are_local_with_utc_on_hover(pages: list[Any], open_page: Any) -> None:
    """In a Tokyo browser the start time reads 9 hours after UTC, and its title keeps the UTC time."""
    _run, shown, path = pages[0]
    el = open_page(path.as_uri()).page.locator("#header time").first
    title, text = el.get_attribute("title") or "", el.inner_text()
    assert title.endswith("UTC") and text != title
    assert (int(text[11:13]) - int(title[11:13])) % 24 == 9


def test_print_stylesheet_hides_controls_and_opens_details(pages: list[Any], open_page: Any) -> None:
    """Under print media the key help is hidden, and printing opens every collapsed section."""
    _run, _shown, path = pages[0]
    page = open_page(path.as_uri()).page
    page.emulate_media(media="print")
    assert page.locator(".help").is_hidden()
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator("details:not([open])").count() == 0
