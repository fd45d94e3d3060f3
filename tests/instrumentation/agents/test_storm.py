"""knowledge-storm end to end: ``STORMWikiRunner.run`` is one run, with the real library (research
conversation, outline, article, polishing), ``SerperRM`` with page extraction over a fake network, and a
scripted OpenAI-compatible model on 127.0.0.1 behind its ``LitellmModel``.

knowledge-storm cannot be installed next to the other frameworks (docs/frameworks.md), so the runner runs in
the venv that ``scripts/setup`` builds (``.venv-storm``; ``STORM_PYTHON`` points elsewhere). A missing venv
fails the test: it is a missing set-up step, not a reason to skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .._sidevenv import side_python
from ._research import ResearchWeb, figures, run_agent, runs, show

SCRIPT = "storm_agent.py"
PYTHON = side_python("storm")
QUESTIONS = ["Which sources mix?", "What about nothing?", "What if throttled?"]
"""The writer's three questions, one per conversation turn; each becomes one query (``QUERIES``)."""
QUERIES = {"mix": "mixed sources", "nothing": "nothing at all", "throttled": "throttle me"}
"""One search finding a good page, a 404 and a 429 (each read by SerperRM's page extraction); one finding
nothing; one rate-limited."""


def _model(web: ResearchWeb) -> None:
    """The scripted model, by STORM's dspy signatures: the writer's questions in turn (per topic), the query
    each question asks for, an expert answer, an outline, a section and a lead section citing ``[1]``/``[2]``
    (STORM maps them to its sources), and ``N/A`` for the rest (related topics, personas)."""
    asked: dict[str, int] = {}

    def reply(body: dict[str, Any]) -> str:
        prompt = str((body.get("messages") or [{}])[-1].get("content", ""))
        if "Ask good questions to get more useful information" in prompt:
            topic = prompt.rsplit("Topic you want to write:", 1)[-1].split("\n", 1)[0].strip()
            turn = asked[topic] = asked.get(topic, -1) + 1
            question = QUESTIONS[turn] if turn < len(QUESTIONS) else "Thank you so much for your help!"
            return f"find out more.\nQuestion: {question}"
        if "What do you type in the search box" in prompt:
            question = prompt.rsplit("Question you want to answer:", 1)[-1]
            return next(f"- {q}" for key, q in QUERIES.items() if key in question)
        if "use information effectively" in prompt:
            return "OpenTelemetry traces agents [1]."
        if "outline for a Wikipedia page" in prompt or "Improve an outline" in prompt:
            return "# Overview\n# Tracing"
        if "Write a Wikipedia section" in prompt:
            return "# Overview\nOpenTelemetry traces agents [1]. Spans nest [2]."
        if "Write a lead section" in prompt:
            return "OpenTelemetry is a tracing standard [1]."
        return "N/A"

    web.chat = reply


@pytest.fixture
def web(research_web: ResearchWeb) -> ResearchWeb:
    """The fake Serper and Tavily APIs, pages and model, with an empty request log; the venv must exist."""
    assert Path(PYTHON).exists(), f"no knowledge-storm venv at {PYTHON}: run scripts/setup"
    research_web.requests.clear()
    _model(research_web)
    return research_web


def _run(tmp_path: Path, web: ResearchWeb, mode: str) -> Any:
    """The script's verdict: its last line, JSON (STORM and LiteLLM print their own messages before it)."""
    env = {"AGENT_TEST_DIR": str(Path(__file__).parent), "HOME": str(tmp_path)}  # LiteLLM's disk cache
    out = run_agent(tmp_path, SCRIPT, web.base, mode, extra_env=env, python=PYTHON)
    return json.loads(out.strip().splitlines()[-1])


def _written(output_dir: str) -> tuple[str, dict[str, str]]:
    """The polished article STORM wrote and the URLs its markers stand for (``url_to_unified_index``)."""
    article = (Path(output_dir) / "storm_gen_article_polished.txt").read_text()
    index = json.loads((Path(output_dir) / "url_to_info.json").read_text())["url_to_unified_index"]
    return article, {str(n): url for url, n in index.items()}


def _served(web: ResearchWeb, search_path: str) -> dict[str, int]:
    searches = [status for method, path, status in web.requests if path.startswith(search_path)]
    reads = [status for method, path, status in web.requests if method == "GET"]
    return {"searches": len(searches), "reads": len(reads), "failed_reads": sum(s != 200 for s in reads),
            "rate_limited": searches.count(429) + reads.count(429)}


def test_run_is_one_summarized_run_with_markers_resolved(tmp_path: Path, web: ResearchWeb) -> None:
    """``run`` + ``post_run`` is exactly one run: the topic as question, the polished article with one
    ``[n]: url`` line per source as the answer, its bare markers counted as the URLs they stand for, and the
    figures of what SerperRM really did (3 searches, one empty, one 429; 3 pages read, a 404 and a 429)."""
    (output_dir,) = _run(tmp_path, web, "run")
    article, urls = _written(output_dir)
    found = runs(tmp_path)
    assert len(found) == 1, found
    run = found[0]
    assert (run["agent"], run["question"]) == ("storm", "OpenTelemetry")
    assert run["answer"].startswith(article.rstrip("\n"))
    sources = [line for line in run["answer"].splitlines() if re.fullmatch(r"\[\d+\]: \S+", line)]
    assert sources == [f"[{n}]: {urls[n]}" for n in sorted(urls, key=int)]
    cited = {urls[n] for n in re.findall(r"\[(\d+)\]", article)}
    read = {web.base + path for method, path, status in web.requests if method == "GET"}
    expected = {"searches": 3, "reads": 3, "empty_searches": 1, "failed_reads": 2, "rate_limited": 2,
                "citations": len(cited), "uncited_from_retrieval": 0, "cited_not_fetched": len(cited - read)}
    assert figures(run) == expected == {**expected, **_served(web, "/google.serper.dev/")}
    assert len(cited) == 2 and run["error_type"] is None


def test_each_url_of_urls_to_articles_is_its_own_read(tmp_path: Path, web: ResearchWeb) -> None:
    """Each page SerperRM's extraction read through ``urls_to_articles`` is one fetch span with its own status,
    although it runs inside the retriever's search span; the search keeps its own status (the page's 429
    is not the search's), and Serper's HTTP call is no second span."""
    _run(tmp_path, web, "run")
    shown = show(tmp_path, runs(tmp_path)[0]["run_id"])
    calls = shown["calls"]
    assert sorted((c["tool"], c["status"]) for c in calls if c["kind"] == "search") == [
        ("storm.serper", "empty"), ("storm.serper", "ok"), ("storm.serper", "rate_limited")]
    reads = {c["url"]: (c["tool"], c["status"]) for c in calls if c["kind"] == "fetch"}
    good, gone, slow = web.mixed
    assert reads == {good: ("storm.download_webpage", "ok"), gone: ("storm.download_webpage", "error"),
                     slow: ("storm.download_webpage", "rate_limited")}
    assert good in {d["url"] for d in shown["documents"]}


def test_two_topics_are_two_runs(tmp_path: Path, web: ResearchWeb) -> None:
    """Two runners, one after the other, are two runs in two traces, each with its topic and its own calls."""
    dirs = _run(tmp_path, web, "twice")
    found = runs(tmp_path)
    assert sorted(r["question"] for r in found) == ["Distributed tracing", "OpenTelemetry"]
    assert len({r["trace_id"] for r in found}) == 2 and len(dirs) == 2
    both = {k: sum(figures(r)[k] for r in found) for k in ("searches", "reads", "failed_reads", "rate_limited")}
    assert both == _served(web, "/google.serper.dev/") == {"searches": 6, "reads": 6, "failed_reads": 4,
                                                            "rate_limited": 4}


def test_a_retriever_exception_fails_the_run(tmp_path: Path, web: ResearchWeb) -> None:
    """With ``TavilySearchRM``, tavily-python raises on the 429 and STORM lets it end ``run``: the run ends with
    that error, its throttled search is ``rate_limited`` (tavily-python's own call inside is no second span),
    and the searches before it are there (one ok, one empty)."""
    assert _run(tmp_path, web, "tavily") == "UsageLimitExceededError"
    (run,) = runs(tmp_path)
    assert run["error_type"] == "UsageLimitExceededError"
    calls = show(tmp_path, run["run_id"])["calls"]
    assert sorted((c["tool"], c["status"]) for c in calls) == [
        ("storm.tavily", "empty"), ("storm.tavily", "ok"), ("storm.tavily", "rate_limited")]
    assert _served(web, "/api.tavily.com/")["searches"] == 3
