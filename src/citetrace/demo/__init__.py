"""The offline demo: a fictional corpus, local search and site servers, and a scripted research agent.

Nothing here needs an LLM or the internet. Other areas (summary, eval, serve) use it as a source of real
traces whose every failure signal is known in advance.
"""

from __future__ import annotations

from citetrace.demo._corpus import PAGE_FAULTS, Page, load_corpus, page
from citetrace.demo._faults import FAULT_HELP, FAULTS, SERVER_FAULTS, parse_faults
from citetrace.demo._search import Hit, SearchIndex
from citetrace.demo._servers import COOKIE_WALL_HTML, DemoServers, RequestRecord

__all__ = [
    "COOKIE_WALL_HTML",
    "DemoServers",
    "FAULTS",
    "FAULT_HELP",
    "Hit",
    "PAGE_FAULTS",
    "Page",
    "RequestRecord",
    "SERVER_FAULTS",
    "SearchIndex",
    "load_corpus",
    "page",
    "parse_faults",
]
