"""knowledge-storm as its README runs it: ``STORMWikiRunner(args, lm_configs, SerperRM(...)).run(topic)`` then
``post_run()``, every step on (research, outline, article, polish), with ``LitellmModel`` against a scripted
OpenAI-compatible model (``api_base``) and ``SerperRM`` (with page extraction) over the fake network. Imports
nothing of citetrace. Runs in the knowledge-storm venv.

Usage: ``python agent.py BASE MODE``. MODE ``run`` runs one topic; ``twice`` two topics one after the other;
``tavily`` one topic with ``TavilySearchRM`` (tavily-python raises on a 429, and STORM lets it end the run:
the script prints the exception's type instead). Prints the output directories (JSON), where the test reads
the article and ``url_to_info.json`` STORM wrote.

STORM loads the ``paraphrase-MiniLM-L6-v2`` embedding model through sentence-transformers (torch, and the
weights from the Hugging Face hub): ``scripted/`` holds a scripted embedding model under that name, put first
on ``sys.path`` here, the way the chat model is scripted. STORM's own code all runs.
"""
import json
import os
import sys

sys.path.insert(0, os.environ["AGENT_TEST_DIR"])  # the test directory, for the fake network
sys.path.insert(0, os.path.join(os.environ["AGENT_TEST_DIR"], "scripted"))  # the scripted embedding model

from _fakenet import reroute  # noqa: E402

BASE, MODE = sys.argv[1], sys.argv[2]
reroute(BASE)  # SerperRM posts to https://google.serper.dev/search with requests

from knowledge_storm import STORMWikiLMConfigs, STORMWikiRunner, STORMWikiRunnerArguments  # noqa: E402
from knowledge_storm.lm import LitellmModel  # noqa: E402
from knowledge_storm.rm import SerperRM, TavilySearchRM  # noqa: E402


def runner(output_dir: str, tavily: bool = False) -> STORMWikiRunner:
    lm_configs = STORMWikiLMConfigs()
    kwargs = {"api_key": "k", "api_base": f"{BASE}/v1", "temperature": 1.0, "top_p": 0.9, "cache": False}
    for setter in ("set_conv_simulator_lm", "set_question_asker_lm", "set_outline_gen_lm", "set_article_gen_lm",
                   "set_article_polish_lm"):
        getattr(lm_configs, setter)(LitellmModel(model="openai/gpt-4o-mini", max_tokens=500, **kwargs))
    args = STORMWikiRunnerArguments(output_dir=output_dir, max_conv_turn=3, max_perspective=0,
                                    disable_perspective=True, search_top_k=3, max_thread_num=2)
    rm = TavilySearchRM(tavily_search_api_key="k", k=3) if tavily else SerperRM(
        serper_search_api_key="k", query_params={"autocorrect": True, "num": 3, "page": 1},
        ENABLE_EXTRA_SNIPPET_EXTRACTION=True)
    return STORMWikiRunner(args, lm_configs, rm)


def storm(topic: str, tavily: bool = False) -> str:
    output_dir = os.path.abspath("storm_out")
    engine = runner(output_dir, tavily)
    engine.run(topic=topic, do_research=True, do_generate_outline=True, do_generate_article=True,
               do_polish_article=True)
    engine.post_run()
    return engine.article_output_dir


if MODE == "run":
    print(json.dumps([storm("OpenTelemetry")]))
elif MODE == "twice":
    print(json.dumps([storm("OpenTelemetry"), storm("Distributed tracing")]))
elif MODE == "tavily":
    try:
        storm("OpenTelemetry", tavily=True)
    except Exception as exc:  # noqa: BLE001 - the failure is what the test looks at
        print(json.dumps(type(exc).__name__))
else:
    raise SystemExit(f"unknown mode {MODE}")
