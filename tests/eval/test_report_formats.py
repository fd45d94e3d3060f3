"""parse_report on the report formats of deep-research agents, and capture and eval agreeing on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citetrace.capture._citations import cited_urls
from citetrace.eval import ReportParseError, parse_report
from citetrace.instrumentation._agents._storm import article_with_sources
from _report_formats import (
    BLS, FED, FOMC, GPT_RESEARCHER, NEXT_LINE, NEXT_LINE_BARE, OTHER, STORM, STORM_INDEX, STORM_MAP,
)


def _cites(text: str, **kw: object) -> list[list[str | None]]:
    return [[c.url for c in s.citations] for s in parse_report(text, **kw).sentences if s.citations]  # type: ignore[arg-type]


@pytest.mark.parametrize("text", [NEXT_LINE, NEXT_LINE_BARE])
def test_reference_entry_with_url_on_next_line(text: str) -> None:
    """Each marker resolves to the URL on the line below its entry, and that line is not a sentence."""
    r = parse_report(text)
    assert _cites(text) == [[BLS], [FED]]
    assert all(c.problem is None for s in r.sentences for c in s.citations)
    assert not any("http" in s.text for s in r.sentences)


def test_bare_markers_resolve_through_url_map() -> None:
    """storm's bare markers need the run's URL map: without it a one-line error, with it each marker's URL."""
    with pytest.raises(ReportParseError, match="no reference list"):
        parse_report(STORM)
    r = parse_report(STORM, url_map=STORM_MAP)
    assert _cites(STORM, url_map=STORM_MAP) == [[BLS, FED], [FED]]
    assert [s.text for s in r.sentences if s.needs_citation] == [
        "Inflation fell to 3.1% in 2024.", "The Fed held rates in December."]


def test_gpt_researcher_in_text_citations_leave_the_claim() -> None:
    """``([Author, 2024](url))`` cites its URL and leaves no "(Author, 2024)" in the claim or its atomic claims."""
    r = parse_report(GPT_RESEARCHER)
    cited = [s for s in r.sentences if s.citations]
    assert [[c.url for c in s.citations] for s in cited] == [[BLS], [FOMC, FED]]
    assert [s.text for s in cited] == ["Inflation fell to 3.1% in 2024.", "The Fed held rates in December."]
    claims = [c.text for s in cited for c in s.claims]
    assert claims and not any("Federal Reserve" in c or "2023" in c or "Bureau" in c for c in claims)
    assert not any("Unused" in s.text for s in r.sentences)  # the APA list is no body text


def test_plain_parenthesised_link_label_stays() -> None:
    """A link in parentheses whose label says something (no author-year form) stays part of the claim."""
    r = parse_report("Prices rose (see [the March figures](https://bls.example/m)).")
    assert "the March figures" in r.sentences[0].text


@pytest.mark.parametrize(("text", "url_map", "listed_only"), [
    (NEXT_LINE, None, []),
    (NEXT_LINE_BARE, None, []),
    (STORM, STORM_MAP, []),
    (GPT_RESEARCHER, None, [OTHER]),
])
def test_capture_and_eval_agree(text: str, url_map: dict[str, str] | None, listed_only: list[str]) -> None:
    """Capture lists exactly eval's cited URLs in eval's order, then only the listed-but-uncited sources."""
    ev = parse_report(text, url_map=url_map).cited_urls
    assert ev
    assert cited_urls(text, url_map=url_map) == ev + listed_only


def test_storm_run_answer_agrees_without_a_map(tmp_path: Path) -> None:
    """The storm row's answer (article plus ``[n]: url`` lines from url_to_info.json) needs no map in either."""
    (tmp_path / "storm_gen_article_polished.txt").write_text(STORM, encoding="utf-8")
    (tmp_path / "url_to_info.json").write_text(json.dumps({"url_to_unified_index": STORM_INDEX}), encoding="utf-8")
    answer = article_with_sources(str(tmp_path))
    assert answer is not None
    assert parse_report(answer).cited_urls == cited_urls(answer) == [BLS, FED]


def test_eval_cli_reads_a_storm_url_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``eval --report article --url-map url_to_info.json`` resolves storm's markers; a bad map is one line, exit 2."""
    from citetrace.cli import main
    from citetrace.store import SQLiteStore

    from .conftest import make_run

    store = SQLiteStore(tmp_path / "store.db")
    make_run(store, None)  # type: ignore[arg-type]
    store.close()
    db = f"sqlite:///{tmp_path}/store.db"
    article, info, bad = tmp_path / "article.txt", tmp_path / "url_to_info.json", tmp_path / "bad.json"
    article.write_text(STORM, encoding="utf-8")
    info.write_text(json.dumps({"url_to_unified_index": STORM_INDEX, "url_to_info": {}}), encoding="utf-8")
    assert main(["eval", "run-1", "--store", db, "--offline", "--json", "--report", str(article),
                 "--url-map", str(info)]) == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert [p["url"] for p in pairs] == [BLS, FED, FED]
    bad.write_text(json.dumps({"url_to_unified_index": {BLS: "two"}}), encoding="utf-8")
    assert main(["eval", "run-1", "--store", db, "--offline", "--report", str(article), "--url-map", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "bad.json" in err and "neither url -> number nor number -> url" in err and len(err.splitlines()) == 1
