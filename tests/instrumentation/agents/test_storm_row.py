"""The knowledge-storm row, run by the real Patcher on a stand-in ``knowledge_storm.storm_wiki.engine`` whose
runner writes the files STORM writes (the library itself cannot be installed here: see docs/frameworks.md)."""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Iterator

import pytest

from citetrace import names
from citetrace.instrumentation._agents import _storm
from citetrace.instrumentation._patcher import Patcher
from citetrace.instrumentation.package import SUPPORTED
from citetrace.testing import Captured, capture_spans

ARTICLE = "# Solar power\n\nCapacity doubled [1] while costs fell [2][1].\n\n## Outlook\n\nMore growth [3]."
URLS = {"https://iea.example/solar": 1, "https://irena.example/costs": 2, "https://news.example/outlook": 3}


class STORMWikiRunner:
    """Stand-in with STORMWikiRunner.run's signature and outputs: the article under ``article_output_dir``."""

    def __init__(self, output_dir: str, polish: bool = True) -> None:
        self.output_dir = output_dir
        self.polish = polish

    def run(self, topic: str, ground_truth_url: str = "", do_research: bool = True,
            do_generate_outline: bool = True, do_generate_article: bool = True, do_polish_article: bool = True,
            remove_duplicate: bool = False, callback_handler: object = None) -> None:
        self.article_output_dir = os.path.join(self.output_dir, topic.replace(" ", "_"))
        os.makedirs(self.article_output_dir, exist_ok=True)
        name = "storm_gen_article_polished.txt" if self.polish else "storm_gen_article.txt"
        Path(self.article_output_dir, name).write_text(ARTICLE)
        info = {"url_to_unified_index": URLS, "url_to_info": {u: {"url": u} for u in URLS}}
        Path(self.article_output_dir, "url_to_info.json").write_text(json.dumps(info))


@pytest.fixture
def patched() -> Iterator[Patcher]:
    """The row applied to the stand-in module by the instrumentor's Patcher, removed after."""
    module = types.ModuleType("knowledge_storm.storm_wiki.engine")
    module.STORMWikiRunner = STORMWikiRunner  # type: ignore[attr-defined]
    sys.modules["knowledge_storm.storm_wiki.engine"] = module
    original = vars(STORMWikiRunner)["run"]
    patcher = Patcher(SUPPORTED)
    patcher.start(_storm.ROWS, check_versions=False)
    try:
        yield patcher
    finally:
        patcher.stop()
        del sys.modules["knowledge_storm.storm_wiki.engine"]
        assert vars(STORMWikiRunner)["run"] is original


@pytest.fixture
def cap() -> Iterator[Captured]:
    """Spans in memory, runs in a memory store."""
    with capture_spans() as captured:
        yield captured


@pytest.mark.parametrize("polish", [True, False])
def test_run_is_one_run_with_markers_resolved(patched: Patcher, cap: Captured, tmp_path: Path, polish: bool) -> None:
    """run() is one run; its answer is the (polished, else draft) article, whose [n] markers resolve through
    url_to_info.json into citations, in order of first citation."""
    assert STORMWikiRunner(str(tmp_path), polish=polish).run("Solar power") is None
    (run,) = cap.store.runs()
    assert run.question == "Solar power" and run.agent == "storm"
    assert run.answer is not None and run.answer.startswith(ARTICLE)
    assert "[3]: https://news.example/outlook" in run.answer
    (root,) = cap.run_spans()
    assert list((root.attributes or {})[names.CITATIONS]) == list(URLS)


def test_article_reading_without_files_or_sources(tmp_path: Path) -> None:
    """No article written (its steps switched off): no answer; an article without url_to_info.json: as is."""
    assert _storm.article_with_sources(str(tmp_path)) is None
    (tmp_path / "storm_gen_article.txt").write_text("No sources.")
    assert _storm.article_with_sources(str(tmp_path)) == "No sources."
