"""gpt-researcher end to end: ``GPTResearcher.conduct_research`` then ``write_report`` is one run, with the real
library, its default Tavily retriever and BeautifulSoup scraper over a fake network, and a scripted
OpenAI-compatible model (chat completions, streamed or not, and embeddings) on 127.0.0.1.

gpt-researcher cannot be installed next to the other frameworks (docs/frameworks.md), so the agent runs in
the venv that ``scripts/setup`` builds (``.venv-gptr``; ``GPTR_PYTHON`` points elsewhere). A missing venv
fails the test: it is a missing set-up step, not a reason to skip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .._sidevenv import side_python
from ._research import INVENTED, ResearchWeb, figures, run_agent, runs, show

SCRIPT = "gpt_researcher_agent.py"
PYTHON = side_python("gptr")
SUB_QUERIES = ["mixed sources", "nothing at all", "throttle me"]
"""What the scripted planner asks for: one search finding a good page, a 404 and a 429; one finding
nothing; one rate-limited. gpt-researcher adds the question itself, and searches it once more to plan. With
the Serper retriever, a fourth gets no response at all (``broken``): its retriever raises."""
SEARCH_PATHS = {"tavily": "/api.tavily.com/search", "serper": "/google.serper.dev/search"}


def report(web: ResearchWeb) -> str:
    """A report in gpt-researcher's own style: APA in-text citations as markdown links, and an APA reference
    list. It cites a page read, a page only searched (then read, as gpt-researcher reads what it finds) and
    one no search returned."""
    a, b = web.good
    return (f"# OpenTelemetry\n\nOpenTelemetry traces agents ([Page A, 2024]({a})). Spans nest "
            f"([Page B, n.d.]({b})). Some say otherwise ([Nobody, 2023]({INVENTED})).\n\n## References\n\n"
            f"Page A. (2024). *Page*. [{a}]({a})\n\nPage B. (n.d.). *Page*. [{b}]({b})\n\n"
            f"Nobody. (2023). *Never searched*. [{INVENTED}]({INVENTED})\n")


def _model(web: ResearchWeb, retriever: str = "tavily") -> None:
    """The scripted model: an agent role for ``choose_agent``, the sub-queries for the planner, else the
    report (gpt-researcher streams the report: the server answers ``stream: true`` with SSE)."""

    def reply(body: dict[str, Any]) -> str:
        prompt = json.dumps(body.get("messages"))
        if "agent_role_prompt" in prompt:
            return json.dumps({"server": "Research Agent", "agent_role_prompt": "You are a careful researcher."})
        if "search queries" in prompt:
            return json.dumps(SUB_QUERIES + (["broken link"] if retriever == "serper" else []))
        if "You are a research editor" in prompt:  # multi_agents' editor: the plan, one section
            return json.dumps({"title": "OpenTelemetry", "date": "2026-12-01", "sections": ["Tracing"]})
        if "table_of_contents" in prompt:  # multi_agents' writer: the layout around the sections
            a = web.good[0]
            return json.dumps({"table_of_contents": "- Tracing", "introduction": f"OpenTelemetry ([Page A]({a})).",
                               "conclusion": "It traces.", "sources": [f"- Page A, 2024 [{a}]({a})"]})
        return report(web)

    web.chat = reply


@pytest.fixture
def web(research_web: ResearchWeb) -> ResearchWeb:
    """The fake Tavily API, pages and model, with an empty request log; the gpt-researcher venv must exist."""
    assert Path(PYTHON).exists(), f"no gpt-researcher venv at {PYTHON}: run scripts/setup"
    research_web.requests.clear()
    return research_web


def _env(web: ResearchWeb, retriever: str) -> dict[str, str]:
    return {"AGENT_TEST_DIR": str(Path(__file__).parent), "OPENAI_API_KEY": "k", "OPENAI_BASE_URL": f"{web.base}/v1",
            "TAVILY_API_KEY": "k", "SERPER_API_KEY": "k", "RETRIEVER": retriever, "SCRAPER": "bs",
            "FAST_LLM": "openai:gpt-4o-mini",
            "SMART_LLM": "openai:gpt-4o-mini", "STRATEGIC_LLM": "openai:gpt-4o-mini"}


def _run(tmp_path: Path, web: ResearchWeb, mode: str, retriever: str = "tavily") -> str:
    """The script's verdict: its last line (gpt-researcher prints its own messages before it)."""
    _model(web, retriever)
    out = run_agent(tmp_path, SCRIPT, web.base, mode, report(web), extra_env=_env(web, retriever), python=PYTHON)
    return out.strip().splitlines()[-1]


def _served(web: ResearchWeb, retriever: str = "tavily") -> dict[str, int]:
    """What the researchers really did, from the server's own log (status 0: a search left unanswered)."""
    searches = [status for method, path, status in web.requests if path.endswith(SEARCH_PATHS[retriever])]
    reads = [status for method, path, status in web.requests if method == "GET"]
    return {"searches": len(searches), "reads": len(reads), "failed_reads": sum(s != 200 for s in reads),
            "rate_limited": searches.count(429) + reads.count(429)}


@pytest.mark.parametrize("retriever", ["tavily", "serper"])
def test_research_then_report_is_one_summarized_run(tmp_path: Path, web: ResearchWeb, retriever: str) -> None:
    """One researcher is exactly one run: the query as question, ``write_report``'s return as the answer, and
    the figures of what the retriever and scraper really did (5 searches, one empty, one 429, and with Serper a
    sixth that got no response; 4 pages read, one 404 and one 429), with the APA report's 3 citations, one of
    which nothing fetched or returned."""
    assert _run(tmp_path, web, "research", retriever) == "true"
    found = runs(tmp_path)
    assert len(found) == 1, found
    run = found[0]
    assert (run["agent"], run["question"], run["answer"]) == ("gpt-researcher", "What is OpenTelemetry?", report(web))
    expected = {"searches": 5 + (retriever == "serper"), "reads": 4, "empty_searches": 1, "failed_reads": 2,
                "rate_limited": 2, "citations": 3, "uncited_from_retrieval": 1, "cited_not_fetched": 1}
    assert figures(run) == expected == {**expected, **_served(web, retriever)}
    assert run["error_type"] is None and run["ended_at"] is not None


@pytest.mark.parametrize("retriever", ["tavily", "serper"])
def test_each_url_of_browse_urls_is_its_own_read(tmp_path: Path, web: ResearchWeb, retriever: str) -> None:
    """The retriever spans carry the query held on the instance (its HTTP call to Tavily or Serper is no second
    span), a retriever that raised is an ``error``, and each URL ``browse_urls`` scraped is one fetch span with
    its own status (never one empty call for the list); the good pages are stored."""
    _run(tmp_path, web, "research", retriever)
    shown = show(tmp_path, runs(tmp_path)[0]["run_id"])
    calls = shown["calls"]
    searches = [c for c in calls if c["kind"] == "search"]
    assert {c["tool"] for c in searches} == {f"gpt_researcher.{retriever}"}
    assert all(c["query_hash"] for c in searches)
    raised = ["error"] if retriever == "serper" else []
    assert sorted(c["status"] for c in searches) == sorted(["empty", "ok", "ok", "ok", "rate_limited", *raised])
    reads = {c["url"]: c["status"] for c in calls if c["kind"] == "fetch"}
    a, b = web.good
    assert reads == {a: "ok", b: "ok", web.mixed[1]: "error", web.mixed[2]: "rate_limited"}
    assert {c["tool"] for c in calls if c["kind"] == "fetch"} == {"gpt_researcher.scrape"}
    stored = {d["url"] for d in shown["documents"]}
    assert {a, b} <= stored


@pytest.mark.parametrize("mode", ["twice", "concurrent"])
def test_two_researchers_are_two_runs(tmp_path: Path, web: ResearchWeb, mode: str) -> None:
    """Two researchers, one after the other or at once with ``asyncio.gather``, are two runs in two traces,
    each with its own question, the report, and its own searches (together, all the server answered)."""
    assert _run(tmp_path, web, mode).strip() == "[true, true]"
    found = runs(tmp_path)
    assert sorted(r["question"] for r in found) == ["Q1", "Q2"]
    assert len({r["trace_id"] for r in found}) == 2
    assert all(r["answer"] == report(web) and figures(r)["citations"] == 3 for r in found)
    both = {k: sum(figures(r)[k] for r in found) for k in ("searches", "reads", "failed_reads", "rate_limited")}
    assert both == _served(web)


def test_write_report_alone_is_a_run(tmp_path: Path, web: ResearchWeb) -> None:
    """``write_report`` with an external context and no research is a run of its own, with no tool calls:
    every citation is one nothing fetched."""
    assert _run(tmp_path, web, "report_only").strip() == "true"
    (run,) = runs(tmp_path)
    assert run["answer"] == report(web)
    assert figures(run) == {"searches": 0, "reads": 0, "empty_searches": 0, "failed_reads": 0, "rate_limited": 0,
                            "citations": 3, "uncited_from_retrieval": 3, "cited_not_fetched": 3}


def test_multi_agents_graph_is_one_run_with_the_report_key(tmp_path: Path, web: ResearchWeb) -> None:
    """The wheel's ``multi_agents`` flow (a LangGraph graph whose nodes run researchers, and a sub-graph per
    section) is one run: every researcher inside joins it, its answer is the state's ``report`` (the
    publisher's layout, with the section researcher's report in it), and the figures are every search and
    read both researchers made, as the server saw them."""
    published = json.loads(_run(tmp_path, web, "multi_agents"))
    assert report(web) in published and "## Conclusion" in published
    found = runs(tmp_path)
    assert len(found) == 1, [(r["agent"], r["question"]) for r in found]
    run = found[0]
    assert run["answer"] == published and run["error_type"] is None
    served = _served(web)
    assert served == {"searches": 9, "reads": 7, "failed_reads": 4, "rate_limited": 4}  # 5 + 4 searches; 4 + 3 reads
    assert figures(run) == {**served, "empty_searches": 2, "citations": 3, "uncited_from_retrieval": 1,
                            "cited_not_fetched": 1}
