"""Deep links into a run page, in Chromium: a tool call is addressable (``#call-N`` opens that row), a cited URL's
fetch links to the call that read it, and the back button walks those jumps back. Over a run recorded with
``@traced_tool`` against 127.0.0.1, served by ``citetrace ui``."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from citetrace.store import open_store
from citetrace.view import RunBrowser
from ._recorded import record_runs

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunBrowser, str]]:
    """One recorded run (a search, then a read of the page it cites) in the run browser."""
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('deep') / 'store.db'}")
    run_id = record_runs(store, 1)[0]
    with RunBrowser(store) as ui:
        yield ui, run_id
    store.close()


def test_a_call_deep_link_opens_that_call(served: tuple[RunBrowser, str], open_page: Any) -> None:
    """/runs/ID#call-1 lands on call 1, opened (its URL shown), and on no other."""
    ui, run_id = served
    page = open_page(ui.url + "runs/" + run_id + "#call-1").page
    assert page.locator("details.call[open]").evaluate_all("els => els.map(e => e.id)") == ["call-1"]
    assert page.locator("#call-1 .url").first.is_visible()


def test_a_citation_links_to_its_read_and_back_returns(served: tuple[RunBrowser, str], open_page: Any) -> None:
    """The cited URL's "fetched" cell links to the read that fetched it; following it opens that call; Back goes
    to where the reader was, and Back again to the run list."""
    ui, run_id = served
    page = open_page(ui.url).page
    with page.expect_navigation():
        page.click(f"a[href='/runs/{run_id}']")
    link = page.locator("#citations a.call-link")
    assert link.get_attribute("href") == "#call-1"
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("location.hash === '#call-1'")
    assert page.locator("#call-1").get_attribute("open") is not None
    page.go_back()
    page.wait_for_function("location.hash === ''")
    page.go_back()
    assert page.locator("#runs").count() == 1
