"""Run data is shown, never executed: injections in every field stay text, and nothing loads."""

from __future__ import annotations

from html import unescape
from pathlib import Path
from typing import Any

import pytest

from citetrace.store import open_store
from citetrace.view import page_for_run
from ._hostile import EVIL_URL, PAYLOAD, write_hostile_run

pytestmark = pytest.mark.slow


@pytest.fixture()
def hostile_page(tmp_path: Path) -> Path:
    """The hostile run's page, written from a real SQLite store."""
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    run_id = write_hostile_run(store)
    path = tmp_path / "hostile.html"
    path.write_text(page_for_run(store, run_id), encoding="utf-8")
    store.close()
    return path


def test_injected_markup_never_runs(hostile_page: Path, open_page: Any) -> None:
    """No injected script or handler runs, no dialog opens, and nothing but the file is requested."""
    loaded = open_page(hostile_page.as_uri())
    page = loaded.page
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    assert page.evaluate("() => window.__pwned === undefined")
    assert loaded.dialogs == []
    assert loaded.requests == [hostile_page.as_uri()]
    assert page.locator("script").count() == 1  # the page's own, allowed by its hash
    assert page.locator("img").count() == 0
    assert PAYLOAD in page.locator("#answer").inner_text()  # shown as text, verbatim


def test_only_web_urls_become_links(hostile_page: Path, open_page: Any) -> None:
    """A javascript: URL is printed, never linked; http(s) URLs are links with no referrer."""
    page = open_page(hostile_page.as_uri()).page
    hrefs = page.locator("a[href]").evaluate_all("els => els.map(e => e.getAttribute('href'))")
    assert hrefs and all(h.startswith(("https://", "http://", "#")) for h in hrefs)
    assert EVIL_URL in hrefs
    assert "javascript:alert(2)" in page.content()


def test_csp_forbids_everything_but_the_page_itself(hostile_page: Path) -> None:
    """The policy has no 'unsafe-inline', allows no connection and pins the page's own style and script."""
    html = hostile_page.read_text(encoding="utf-8")
    policy = unescape(html.split('http-equiv="Content-Security-Policy" content="', 1)[1].split('"', 1)[0])
    assert "default-src 'none'" in policy and "unsafe" not in policy
    assert "script-src 'sha256-" in policy and "style-src 'sha256-" in policy


RAW_URL = "https://user:pw-hunter2@x.example/p?api_key=sk-SECRETSECRETSECRET123&token=abc123def456ghi"


def test_secrets_a_store_kept_raw_are_redacted_on_the_page(tmp_path: Path, open_page: Any) -> None:
    """A store written before URLs were redacted at capture (or by another writer) keeps them raw: the page
    redacts every one it shows (call URLs, redirect targets, returned URLs, queries, documents and their text),
    not only the answer and the question, and the citation still meets its read."""
    import time

    from citetrace.store import RunRecord, ToolCallRecord

    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    now = time.time()
    store.put_run(RunRecord("old-run", "ef" * 16, "agent", "q " + RAW_URL, now - 2, now, "see [1]\n\n[1] " + RAW_URL))
    store.put_document("old-run", RAW_URL, "page text linking " + RAW_URL, status="ok", http_status=200,
                       fetched_at=now - 1)
    store.put_calls([
        ToolCallRecord("old-run", 0, "search", "search", "ok", now - 2, 5.0, result_count=1,
                       query_text="find " + RAW_URL, urls_returned=(RAW_URL,)),
        ToolCallRecord("old-run", 1, "fetch", "fetch", "ok", now - 1, 5.0, url=RAW_URL, url_final=RAW_URL,
                       http_status=200)])
    store.put_summary("old-run", {"searches": 1, "reads": 1, "citations": 1, "failure_reasons": []},
                      trace_id="ef" * 16, agent="agent")
    path = tmp_path / "old.html"
    path.write_text(page_for_run(store, "old-run"), encoding="utf-8")
    store.close()
    html = path.read_text(encoding="utf-8")
    assert [s for s in ("hunter2", "SECRETSECRET", "abc123def456") if s in html] == []
    page = open_page(path.as_uri()).page
    row = page.locator("#citations tr[data-url]").first
    assert row.get_attribute("data-returned") == "yes" and row.get_attribute("data-fetched") == "ok"
