"""The run page agrees with the run's summary on pages whose text came with a search result (Tavily's
``raw_content``): such a cited page was read (``pages_from_search``), not "never fetched". The real
tavily-python client inside a ``research_run``, with only its HTTP replaced (``responses``)."""

from __future__ import annotations

import responses
from tavily import TavilyClient

from citetrace.store import MemoryStore
from citetrace.view import build_run_view, render_run_page

from _instrumented import summarized_run

PAGE = "Solar capacity grew 24 percent in 2024, the agency said in its yearly report on renewables. " * 4
RESULTS = {"query": "q", "results": [
    {"url": "https://solar.example/report", "title": "t", "content": "c", "raw_content": PAGE},
    {"url": "https://solar.example/snippet-only", "title": "t", "content": "c", "raw_content": None},
]}


@responses.activate
def test_cited_page_read_with_its_search_result_is_not_unfetched() -> None:
    """A cited page whose text came with the search is read on the page as in the summary; a cited result
    with no text is still never read; the page shows each so."""
    responses.post("https://api.tavily.com/search", json=RESULTS)
    store = MemoryStore()
    with summarized_run(store) as run:
        TavilyClient(api_key="tvly-test").search("solar growth", include_raw_content=True)
        run.record_answer("Solar grew 24 percent [1]. Another result [2].\n\n"
                          "[1] https://solar.example/report\n[2] https://solar.example/snippet-only\n")
    record = store.get_run(run.id)
    assert record is not None and record.summary is not None
    summary = record.summary
    assert summary["pages_from_search"] == 1 and summary["unfetched_urls"] == ["https://solar.example/snippet-only"]
    view = build_run_view(store, record)
    got = {c.url: (c.unfetched, c.read_with_search) for c in view.citations}
    assert got == {"https://solar.example/report": (False, True), "https://solar.example/snippet-only": (True, False)}
    page = render_run_page(view)
    assert page.count('data-fetched="with its search result"') == 1
    assert "1 cited URL(s) were never read successfully" in page
