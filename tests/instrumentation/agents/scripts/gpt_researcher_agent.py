"""gpt-researcher as its users run it: ``GPTResearcher(query).conduct_research()`` then ``write_report()``,
with its default Tavily retriever and BeautifulSoup scraper over the fake network and a scripted
OpenAI-compatible model (``OPENAI_BASE_URL``). Imports nothing of citetrace. Runs in the gpt-researcher venv.

Usage: ``python agent.py BASE MODE``. MODE ``research`` runs one researcher; ``twice`` runs two researchers
one after the other (two runs); ``concurrent`` runs two at once with ``asyncio.gather``; ``report_only`` calls
``write_report`` with an external context and no research (a run of its own); ``multi_agents`` runs the
wheel's ``multi_agents`` LangGraph flow (``ChiefEditorAgent``: an initial researcher, an editor's plan, one
section researched by a sub-graph with its own researcher, a writer, a publisher writing markdown) and prints
its state's ``report``. Prints the reports' equality with the scripted answer as JSON.

tiktoken downloads its vocabularies at run time (gpt-researcher estimates costs with it), which this
machine cannot: the script registers byte-level encodings under the same names. That is model data, not
code: tiktoken's own ``Encoding`` runs.
"""
import asyncio
import json
import os
import sys

sys.path.insert(0, os.environ["AGENT_TEST_DIR"])  # the test directory, for the fake network

from _fakenet import reroute  # noqa: E402

BASE, MODE, ANSWER = sys.argv[1], sys.argv[2], sys.argv[3]
reroute(BASE)  # gpt-researcher's Tavily retriever posts to https://api.tavily.com/search with requests

import tiktoken  # noqa: E402
import tiktoken.registry  # noqa: E402

for _name in ("o200k_base", "cl100k_base"):
    tiktoken.registry.ENCODINGS[_name] = tiktoken.Encoding(
        name=_name, pat_str=r"\S+|\s+", mergeable_ranks={bytes([i]): i for i in range(256)}, special_tokens={})

from gpt_researcher import GPTResearcher  # noqa: E402


async def research(query: str) -> str:
    researcher = GPTResearcher(query=query, report_type="research_report", verbose=False)
    await researcher.conduct_research()
    return await researcher.write_report()


async def main() -> object:
    if MODE == "research":
        return await research("What is OpenTelemetry?") == ANSWER
    if MODE == "twice":
        return [await research("Q1") == ANSWER, await research("Q2") == ANSWER]
    if MODE == "concurrent":
        return [r == ANSWER for r in await asyncio.gather(research("Q1"), research("Q2"))]
    if MODE == "multi_agents":
        from multi_agents.agents import ChiefEditorAgent

        task = {"query": "What is OpenTelemetry?", "max_sections": 1, "include_human_feedback": False,
                "follow_guidelines": False, "guidelines": [], "model": "gpt-4o-mini", "verbose": False,
                "publish_formats": {"markdown": True, "pdf": False, "docx": False}}
        return (await ChiefEditorAgent(task).run_research_task(task_id="t1"))["report"]
    if MODE == "report_only":
        researcher = GPTResearcher(query="What is OpenTelemetry?", report_type="research_report", verbose=False)
        return await researcher.write_report(ext_context="OpenTelemetry is a tracing standard.") == ANSWER
    raise SystemExit(f"unknown mode {MODE}")


print(json.dumps(asyncio.run(main())))
