"""The offline demo: a fictional corpus, local search and site servers, and a scripted research agent.

Nothing here needs an LLM or the internet. Other areas (summary, eval, serve) use it as a source of real
traces whose every failure signal is known in advance::

    from citetrace.demo import run_demo, QUESTIONS
    results = run_demo()                       # the six default questions, every fault on
    for r in results:
        assert r.expected is not None          # hand-computed signals for this fault selection
"""

from __future__ import annotations

from citetrace.demo._agent import AGENT_NAME, CallResult, DemoAgent, PageText, RunResult, expected_for, html_to_text
from citetrace.demo._catalogue import DEFAULT_QUESTIONS, QUESTIONS, question, select_questions
from citetrace.demo._corpus import PAGE_FAULTS, Page, load_corpus, page
from citetrace.demo._faults import FAULT_HELP, FAULTS, SERVER_FAULTS, parse_faults
from citetrace.demo._plan import LABELS, Call, Claim, Expected, Question, Read, Search
from citetrace.demo._runner import run_demo
from citetrace.demo._search import Hit, SearchIndex
from citetrace.demo._servers import COOKIE_WALL_HTML, DemoServers, RequestRecord

__all__ = [
    "AGENT_NAME",
    "COOKIE_WALL_HTML",
    "Call",
    "CallResult",
    "Claim",
    "DEFAULT_QUESTIONS",
    "DemoAgent",
    "DemoServers",
    "Expected",
    "FAULTS",
    "FAULT_HELP",
    "Hit",
    "LABELS",
    "PAGE_FAULTS",
    "Page",
    "PageText",
    "QUESTIONS",
    "Question",
    "Read",
    "RequestRecord",
    "RunResult",
    "SERVER_FAULTS",
    "Search",
    "SearchIndex",
    "expected_for",
    "html_to_text",
    "load_corpus",
    "page",
    "parse_faults",
    "question",
    "run_demo",
    "select_questions",
]
