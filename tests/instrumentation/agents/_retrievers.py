"""The retriever tables: how each gpt-researcher and knowledge-storm web retriever's API answers, for the
behavioural tests that call every retriever class for real (``test_retrievers.py``).

Pure data and JSON builders, no library imports: the test (shared venv) reads the row names to parametrize,
and ``scripts/retriever_cases.py`` (run in the side venv) builds each retriever and serves these answers on a
local server, behind ``_fakenet.reroute`` (only the network is replaced). Adding a retriever is one row.

Each row: ``routes(urls)`` -> {path on the local server ("/<host><path>"): JSON or XML body} for a search that
finds ``urls`` (``[]``: finds nothing); ``env``: what the class reads from the environment; ``urls``: what the
API returns in the ``ok`` case (as the retriever reports them); ``kwargs``: constructor keywords (STORM).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable

__all__ = ["Row", "GPTR", "STORM", "SCENARIOS"]

SCENARIOS = ("ok", "empty", "429", "exception")
"""ok: the API returns two results; empty: none; 429: it answers 429 Too Many Requests; exception: it answers 500
with an HTML error page (the retriever raises, or swallows it)."""


@dataclass(frozen=True)
class Row:
    """One retriever: its API's answers, its environment, its constructor keywords."""

    routes: Callable[[list[str]], dict[str, str]]
    urls: list[str]
    env: dict[str, str] = field(default_factory=dict)
    kwargs: dict[str, object] = field(default_factory=dict)
    reads: bool = False
    """Whether the retriever reads each result page itself (STORM's ``WebPageHelper``): one fetch span per URL,
    each a span of its own next to the search span."""


def _pages(host: str) -> list[str]:
    return [f"https://{host}/page/1", f"https://{host}/page/2"]


def _one(path: str, build: Callable[[list[str]], object]) -> Callable[[list[str]], dict[str, str]]:
    return lambda urls: {path: json.dumps(build(urls))}


def _organic(urls: list[str]) -> object:
    return {"organic_results": [{"title": f"T{i}", "link": u, "snippet": "s"} for i, u in enumerate(urls)]}


def _bing(urls: list[str]) -> object:
    return {"webPages": {"value": [{"name": f"T{i}", "url": u, "snippet": "s"} for i, u in enumerate(urls)]}}


def _tavily(urls: list[str]) -> object:
    return {"query": "q", "results": [{"url": u, "title": f"T{i}", "content": "s", "score": 0.9}
                                      for i, u in enumerate(urls)]}


def _serper(urls: list[str]) -> object:
    return {"organic": [{"title": f"T{i}", "link": u, "snippet": "s", "position": i} for i, u in enumerate(urls)]}


def _pmc_id(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


_PMC_XML = ("<pmc-articleset><article><front><article-meta><title-group><article-title>Solar</article-title>"
            "</title-group><abstract><p>Abstract.</p></abstract></article-meta></front><body><p>"
            + "Solar capacity grew fast in every region of the world. " * 4 + "</p></body></article></pmc-articleset>")


def _pubmed(urls: list[str]) -> dict[str, str]:
    """E-utilities: esearch gives the ids, efetch each article's full text (the same XML for every id)."""
    base = "/eutils.ncbi.nlm.nih.gov/entrez/eutils/"
    return {base + "esearch.fcgi": json.dumps({"esearchresult": {"idlist": [_pmc_id(u) for u in urls]}}),
            base + "efetch.fcgi": _PMC_XML}


_ARTICLE = ("<html><body><article><h1>Solar</h1><p>" + "Solar capacity grew fast in every region. " * 8
            + "</p></article></body></html>")
"""A result page long enough for ``WebPageHelper``'s 150-character minimum once trafilatura extracts it."""

def _ddg_html(urls: list[str]) -> str:
    """DuckDuckGo's HTML results page, in the shape ddgs parses (its primp client is the forwarding stand-in)."""
    return "<html><body>" + "".join(
        f'<div class="result results_links web-result"><div class="links_main body"><h2><a href="{u}">T{i}</a></h2>'
        f'<a class="result__snippet" href="{u}">Snippet {i}</a></div></div>' for i, u in enumerate(urls)) + "</body></html>"


def _atom(urls: list[str]) -> str:
    """arXiv's API answer: an Atom feed, one entry per paper, its PDF link titled ``pdf``."""
    entries = "".join(
        f"<entry><id>{u.replace('/pdf/', '/abs/')}</id><title>Paper {i}</title><summary>About solar.</summary>"
        f"<published>2024-01-01T00:00:00Z</published><updated>2024-01-01T00:00:00Z</updated>"
        f"<author><name>A. Author</name></author><link href=\"{u}\" title=\"pdf\" rel=\"related\" "
        f"type=\"application/pdf\"/></entry>" for i, u in enumerate(urls))
    return (f'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
            f'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><title>arXiv</title>'
            f"<opensearch:totalResults>{len(urls)}</opensearch:totalResults>{entries}</feed>")


GPTR: dict[str, Row] = {
    "tavily": Row(_one("/api.tavily.com/search", _tavily), _pages("tavily.example"), {"TAVILY_API_KEY": "k"}),
    "serper": Row(_one("/google.serper.dev/search", _serper), _pages("serper.example"), {"SERPER_API_KEY": "k"}),
    "google": Row(_one("/www.googleapis.com/customsearch/v1",
                       lambda urls: {"items": [{"title": f"T{i}", "link": u, "snippet": "s"} for i, u in enumerate(urls)]}),
                  _pages("google.example"), {"GOOGLE_API_KEY": "k", "GOOGLE_CX_KEY": "cx"}),
    "bing": Row(_one("/api.bing.microsoft.com/v7.0/search", _bing), _pages("bing.example"), {"BING_API_KEY": "k"}),
    "serpapi": Row(_one("/serpapi.com/search.json", _organic), _pages("serpapi.example"), {"SERPAPI_API_KEY": "k"}),
    "searchapi": Row(_one("/www.searchapi.io/api/v1/search", _organic), _pages("searchapi.example"),
                     {"SEARCHAPI_API_KEY": "k"}),
    "searx": Row(_one("/searx.example/search", lambda urls: {"results": [{"url": u, "content": "s"} for u in urls]}),
                 _pages("searx-result.example"), {"SEARX_URL": "https://searx.example"}),
    "bocha": Row(_one("/api.bochaai.com/v1/web-search", lambda urls: {"data": _bing(urls)}), _pages("bocha.example"),
                 {"BOCHA_API_KEY": "k"}),
    "semantic_scholar": Row(_one("/api.semanticscholar.org/graph/v1/paper/search", lambda urls: {"data": [
        {"title": f"T{i}", "abstract": "a", "isOpenAccess": True, "openAccessPdf": {"url": u}}
        for i, u in enumerate(urls)]}), _pages("papers.example")),
    "pubmed_central": Row(_pubmed, ["https://www.ncbi.nlm.nih.gov/pmc/articles/PMC101/",
                                    "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC102/"], {"NCBI_API_KEY": "k"}),
    "xquik": Row(_one("/xquik.com/api/v1/x/tweets/search", lambda urls: {"tweets": [
        {"id": u.rsplit("/", 1)[-1], "text": "Solar grew.", "author": {"username": "solar"}, "likeCount": 1}
        for u in urls]}), ["https://x.com/solar/status/101", "https://x.com/solar/status/102"], {"XQUIK_API_KEY": "k"}),
    "arxiv": Row(lambda urls: {"/export.arxiv.org/api/query": _atom(urls)},
                 ["https://arxiv.org/pdf/2401.00001v1", "https://arxiv.org/pdf/2401.00002v1"]),
    "duckduckgo": Row(lambda urls: {"/html.duckduckgo.com/html/": _ddg_html(urls)}, _pages("ddg.example")),
    "exa": Row(_one("/api.exa.ai/search", lambda urls: {"requestId": "r", "results": [
        {"id": str(i), "url": u, "title": f"T{i}", "text": "Solar grew."} for i, u in enumerate(urls)]}),
        _pages("exa.example"), {"EXA_API_KEY": "k"}),
    "custom": Row(_one("/custom.example/search", lambda urls: [
        {"url": u, "raw_content": "Solar capacity grew fast in every region of the world. " * 3} for u in urls]),
        _pages("custom-result.example"), {"RETRIEVER_ENDPOINT": "https://custom.example/search"}),
}
"""gpt-researcher: name (its ``RETRIEVER`` setting, as in ``_gpt_researcher_web.RETRIEVERS``) -> row."""

STORM: dict[str, Row] = {
    "serper": Row(_one("/google.serper.dev/search", _serper), _pages("serper.example"),
                  kwargs={"serper_search_api_key": "k", "query_params": {"autocorrect": True, "num": 3, "page": 1}}),
    "tavily": Row(_one("/api.tavily.com/search", _tavily), _pages("tavily.example"),
                  kwargs={"tavily_search_api_key": "k", "k": 3}),
    "you": Row(_one("/api.ydc-index.io/search", lambda urls: {"hits": [
        {"url": u, "title": f"T{i}", "description": "d", "snippets": ["s"]} for i, u in enumerate(urls)]}),
        _pages("you.example"), kwargs={"ydc_api_key": "k", "k": 3}),
    "brave": Row(_one("/api.search.brave.com/res/v1/web/search", lambda urls: {"web": {"results": [
        {"url": u, "title": f"T{i}", "description": "d", "extra_snippets": ["s"]} for i, u in enumerate(urls)]}}),
        _pages("brave.example"), kwargs={"brave_search_api_key": "k", "k": 3}),
    "bing": Row(lambda urls: {**_one("/api.bing.microsoft.com/v7.0/search", _bing)(urls),
                              "/bing-result.example/page/": _ARTICLE},
                _pages("bing-result.example"), kwargs={"bing_search_api_key": "k", "k": 3}, reads=True),
    "searxng": Row(_one("/searxng.example/search", lambda urls: {"results": [
        {"url": u, "title": f"T{i}", "content": "s"} for i, u in enumerate(urls)]}),
        _pages("searxng-result.example"), kwargs={"searxng_api_url": "https://searxng.example/search", "k": 3}),
}
"""knowledge-storm: name (as in ``_storm_web.RETRIEVERS``) -> row."""
