"""Real runs for the browser's tests: ``@traced_tool`` search and fetch against a page served on 127.0.0.1, the
summary processor writing each run's summary into the given store."""

from __future__ import annotations

import requests

from citetrace import research_run, traced_tool
from citetrace.store import Store
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans
from instrumentation._net import LocalServer

__all__ = ["record_runs"]


def record_runs(store: Store, count: int, agents: int = 1) -> list[str]:
    """Record ``count`` runs (one search, one read, a cited answer each) by ``agents`` agents in turn; their ids."""
    ids: list[str] = []
    with LocalServer() as site:
        site.routes["/page"] = (200, "<html><body><p>" + "Solar grew 24 percent. " * 20 + "</p></body></html>",
                                "text/html")
        site.routes["/search"] = (200, f'{{"results": [{{"url": "{site.base}/page/1"}}]}}', "application/json")

        @traced_tool(kind="search")
        def web_search(query: str) -> list[dict[str, str]]:
            return list(requests.get(site.base + "/search", params={"q": query}, timeout=10).json()["results"])

        @traced_tool(kind="fetch")
        def read_page(url: str) -> str:
            return requests.get(url, timeout=10).text

        with capture_spans(store=store, processors=(TraceSummaryProcessor(store=store),)) as cap:
            for i in range(count):
                with research_run(question=f"q{i}", agent=f"agent{i % agents}") as run:
                    hit = web_search(f"solar {i}")[0]
                    read_page(hit["url"])
                    run.record_answer(f"Solar grew [1].\n\n[1] {hit['url']}")
                ids.append(run.id)
            cap.tracer_provider.force_flush()
    return ids
