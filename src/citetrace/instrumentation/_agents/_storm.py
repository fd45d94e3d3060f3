"""knowledge-storm: ``STORMWikiRunner.run`` is one run; the answer is the article it wrote.

``run(topic, ...)`` returns None. The article is written to the runner's ``article_output_dir``:
``storm_gen_article_polished.txt`` (or ``storm_gen_article.txt`` without the polishing step), and its sources go
to ``url_to_info.json``. Their ``url_to_unified_index`` maps each URL to the number that the article's bare
``[n]`` markers use. The answer is the article followed by one ``[n]: url`` line per source, so that
``citetrace.citations`` (which resolves markers through a reference list) lists the URLs that the markers
point to. The question is the topic.

Tested against the real library (tests/instrumentation/agents/test_storm.py, in the knowledge-storm venv
``scripts/setup`` builds): a full run, research to polishing, with a scripted model; the rows of its
retrievers and page reads are in ``_storm_web``. The stand-in runner of test_storm_row.py covers the file
edge cases (no article, no or foreign ``url_to_info.json``).
"""

from __future__ import annotations

import json
import os
from typing import Any

from citetrace._reflist import url_map_of
from citetrace.instrumentation._agents._boundary import Boundary, agent_row

__all__ = ["ROWS", "BOUNDARY", "article_with_sources"]

DIST = "knowledge-storm"
_ARTICLES = ("storm_gen_article_polished.txt", "storm_gen_article.txt")
_MAX_CHARS = 2_000_000
"""Bound on the article read back (a STORM article is tens of KB)."""
_MAX_INFO_BYTES = 64 * 1024 * 1024
"""A larger ``url_to_info.json`` (it also holds the snippets) is not parsed: the article is kept as is."""


def _topic(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    topic = args[0] if args else kwargs.get("topic")
    return topic if isinstance(topic, str) else None


def article_with_sources(output_dir: str) -> str | None:
    """The article in ``output_dir`` with a ``[n]: url`` line per source from its ``url_to_info.json``."""
    text = None
    for name in _ARTICLES:
        path = os.path.join(output_dir, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read(_MAX_CHARS)
            break
    if text is None:
        return None
    refs: list[tuple[int, str]] = []
    info_path = os.path.join(output_dir, "url_to_info.json")
    if os.path.isfile(info_path) and os.path.getsize(info_path) <= _MAX_INFO_BYTES:
        with open(info_path, encoding="utf-8") as f:
            info = json.load(f)
        try:
            refs = sorted((int(n), url) for n, url in url_map_of(info, strict=False).items())
        except ValueError:  # not storm's map: the article is kept as it is
            refs = []
    if not refs:
        return text
    return text.rstrip("\n") + "\n\n" + "\n".join(f"[{n}]: {url}" for n, url in refs) + "\n"


def _answer(instance: Any, result: Any) -> str | None:
    output_dir = getattr(instance, "article_output_dir", None)
    return article_with_sources(output_dir) if isinstance(output_dir, str) else None


BOUNDARY = Boundary(question=_topic, instance_answer=_answer, default_agent="storm")

ROWS = (agent_row(DIST, "knowledge_storm.storm_wiki.engine", "STORMWikiRunner.run", BOUNDARY),)
