"""The run list in pages: a store of hundreds of runs (recorded for real with ``@traced_tool`` against 127.0.0.1) is
listed LIST_PAGE rows at a time, paged with the keyboard, filters kept across pages; a bad page number or an
ambiguous run-id prefix is one clear page with the right status, never a 500."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any, Iterator

import pytest

from citetrace.store import open_store
from citetrace.view import RunBrowser
from citetrace.view._runs import LIST_PAGE
from ._recorded import record_runs

pytestmark = pytest.mark.slow

RUNS = 2 * LIST_PAGE + 25
AGENTS = 2


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunBrowser]:
    """RUNS runs, one search and one read each, by AGENTS agents in turn, served by the run browser."""
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('paging') / 'store.db'}")
    record_runs(store, RUNS, AGENTS)
    with RunBrowser(store) as browser:
        yield browser
    store.close()


def _shown(page: Any) -> list[str]:
    return list(page.locator("#runs tr[data-run]").evaluate_all("els => els.map(e => e.dataset.run)"))


def test_list_pages_with_the_keyboard(ui: RunBrowser, open_page: Any) -> None:
    """LIST_PAGE rows a page, newest first; "older" and "newer" walk every run once, by keyboard alone."""
    page = open_page(ui.url).page
    seen = _shown(page)
    assert len(seen) == LIST_PAGE
    assert page.locator("#newer").count() == 0
    while page.locator("#older").count():
        page.locator("#older").focus()
        with page.expect_navigation():
            page.keyboard.press("Enter")
        seen += _shown(page)
    assert len(seen) == RUNS == len(set(seen))
    with page.expect_navigation():
        page.locator("#newer").focus()
        page.keyboard.press("Enter")
    assert len(_shown(page)) == LIST_PAGE
    page.go_back()
    assert len(_shown(page)) == RUNS - 2 * LIST_PAGE


def test_filters_are_kept_across_pages(ui: RunBrowser, open_page: Any) -> None:
    """An agent filter with more than a page of runs pages through that agent's runs only."""
    page = open_page(ui.url + "?agent=agent0").page
    first = _shown(page)
    assert len(first) == LIST_PAGE
    with page.expect_navigation():
        page.click("#older")
    rest = _shown(page)
    assert "agent=agent0" in page.url
    assert len(first) + len(rest) == len(range(0, RUNS, AGENTS))
    assert set(page.locator("#runs tr[data-run] td:nth-child(3)").all_inner_texts()) == {"agent0"}


@pytest.mark.parametrize("query", ["page=abc", "page=0", "page=-3", "page=1e3"])
def test_a_bad_page_number_is_a_400(ui: RunBrowser, query: str) -> None:
    """A page that is not a whole number from 1 is refused with one line; past the last page is the last page."""
    with pytest.raises(urllib.error.HTTPError) as bad:
        urllib.request.urlopen(ui.url + "?" + query, timeout=30)
    assert bad.value.code == 400
    body = bad.value.read().decode("utf-8")
    assert "page" in body and "Traceback" not in body and len(body) < 500
    with urllib.request.urlopen(ui.url + "?page=9999", timeout=30) as resp:
        assert resp.read().decode("utf-8").count("<tr data-run=") == RUNS - 2 * LIST_PAGE


def test_an_ambiguous_prefix_is_a_404_naming_the_count(ui: RunBrowser) -> None:
    """/runs/<prefix of every run id> says how many runs it matches; it was a 500 "AmbiguousRunId"."""
    with urllib.request.urlopen(ui.url + "?page=1", timeout=30) as resp:
        first = resp.read().decode("utf-8").split('<tr data-run="', 1)[1].split('"', 1)[0]
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(ui.url + "runs/" + first[:4], timeout=30)
    assert missing.value.code == 404
    assert f"matches {RUNS} runs" in missing.value.read().decode("utf-8")


def test_search_finds_a_run_older_than_the_list_reads(ui: RunBrowser, open_page: Any,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The list reads only the newest LIST_LIMIT runs; a search for an older run's id (or a unique prefix of it)
    still lists it, as /runs/<id> opens it (it said "No run matches")."""
    import citetrace.view._runs as runs

    oldest = _shown(open_page(ui.url + "?page=3").page)[-1]
    monkeypatch.setattr(runs, "LIST_LIMIT", 50)
    assert oldest not in _shown(open_page(ui.url).page)
    page = open_page(ui.url).page
    page.keyboard.press("/")
    page.keyboard.type(oldest[:-2])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _shown(page) == [oldest]


def test_an_ambiguous_search_says_how_many_runs_it_matches(ui: RunBrowser, open_page: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A search matching no run the list read but several older ones says so, instead of "No run matches"."""
    import citetrace.view._runs as runs

    every = [i for n in (1, 2, 3) for i in _shown(open_page(ui.url + f"?page={n}").page)]
    second = every[-1][:16]  # "YYYYMMDD-HHMMSS-": the oldest run's second, shared by the runs recorded in it
    older = [i for i in every if i.startswith(second)]
    assert len(older) > 1 and not any(i.startswith(second) for i in every[:50])  # 425 runs take several seconds
    monkeypatch.setattr(runs, "LIST_LIMIT", 50)
    page = open_page(ui.url + "?q=" + second).page
    assert _shown(page) == []
    assert page.locator("#search-note").inner_text().startswith(f"run id prefix '{second}' matches {len(older)} runs")
