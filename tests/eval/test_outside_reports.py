"""Reports as agents write them, checked from outside (hout6): real runs (a ``@traced_tool`` search and fetch
with requests against a server on 127.0.0.1, the summary processor, the store), then ``evaluate_run``, the gate
and the run's own summary. Each case broke before its fix:

- a ``[1]`` inside a fenced code block stopped eval ("marker but no reference list"), and reference-shaped
  lines inside a code block were cited sources for the summary (``uncited_url`` on a URL only code named);
- a run still in progress was evaluated on what its store held so far (no tool calls yet), so the gate said
  "returned by no search" of a page the run's search did return;
- a trailing link labelled ``source``, ``link`` or with a host name (``[news.test](...)``) left its label in
  the claim ("... in 2024 source."), so a verbatim claim was PARTIAL, not SUPPORTED;
- an HTML ``<a href>`` link counted its URL as a citation but left the tag in the claim text, and a
  ``<a href=...>[5]</a>`` stopped eval ("marker but no reference list").
"""

from __future__ import annotations

from typing import Iterator

import pytest
import requests

from citetrace import names, traced_tool
from citetrace.capture._citations import cited_urls
from citetrace.claims import split_claims
from citetrace.eval import evaluate_run, gate
from citetrace.eval._evaluate import EvalError
from citetrace.eval._report import parse_report
from citetrace.store import MemoryStore

from _instrumented import summarized_run
from instrumentation._net import LocalServer

PAGE = ("Solar Report 2024\nPublished: 2024-11-02\n\nGlobal solar capacity grew 24 % in 2024. China installed 277 GW "
        "of solar panels in 2024. Module prices fell 35 % over the year. This page is part of a long-running series "
        "on energy statistics and is updated when new figures are released.")
FAB = "https://fabricated.example/in-code"


@traced_tool(kind="search")
def web_search(url: str) -> list[dict[str, str]]:
    """Search (the local server answers with a result list)."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    results: list[dict[str, str]] = response.json()["results"]
    return results


@traced_tool(kind="fetch")
def read_page(url: str) -> requests.Response:
    """Read one page."""
    response = requests.get(url, timeout=5)
    response.raise_for_status()
    return response


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A search API returning the solar page, and the page, on 127.0.0.1."""
    with LocalServer() as srv:
        srv.routes["/solar"] = (200, PAGE, "text/plain; charset=utf-8")
        srv.routes["/search"] = (200, f'{{"results": [{{"url": "{srv.base}/solar"}}]}}', "application/json")
        yield srv


def _run(store: MemoryStore, server: LocalServer, answer: str) -> str:
    with summarized_run(store) as run:
        web_search(f"{server.base}/search")
        read_page(f"{server.base}/solar")
        run.record_answer(answer)
    return run.id


def test_markers_and_reference_lines_in_code_cite_nothing(server: LocalServer) -> None:
    """Code is not prose: a marker or a reference-shaped line inside a fenced block is no citation, in eval
    and in the summary's citations alike."""
    store = MemoryStore()
    solar = f"{server.base}/solar"
    answer = (f"Global solar capacity grew 24 % in 2024 [1].\n\n```text\nprint('cite [2] here')\n[2] {FAB}\n"
              f"[3]: {FAB}/three\n```\n\n[1] {solar}\n")
    run_id = _run(store, server, answer)
    ev = evaluate_run(store, run_id, offline=True)  # raised "citation marker [2] ... no reference list" before
    assert [(p.pair.url, p.label) for p in ev.pairs] == [(solar, "SUPPORTED")]
    assert cited_urls(answer) == [solar]
    summary = store.get_run(run_id).summary  # type: ignore[union-attr]
    assert summary is not None and summary["citations"] == 1 and not summary["failed"]
    assert gate(ev).passed
    # no reference list outside the code at all: the code's marker no longer makes the report unreadable
    only_code = f"Global solar capacity grew 24 % in 2024 ({solar}).\n\n```\nx = refs[1]  # [1]\n```\n"
    assert [c.url for s in parse_report(only_code).sentences for c in s.citations] == [solar]


def test_a_run_in_progress_is_not_evaluated(server: LocalServer) -> None:
    """A run that has not ended has no tool calls in the store yet: evaluating it would call its searched,
    fetched page "returned by no search". It is refused with one line, and evaluated once it has ended."""
    store = MemoryStore()
    solar = f"{server.base}/solar"
    report = f"Global solar capacity grew 24 % in 2024 [1].\n\n[1] {solar}\n"
    with summarized_run(store) as run:
        web_search(f"{server.base}/search")
        read_page(solar)
        with pytest.raises(EvalError, match=rf"run {run.id} has not ended"):
            evaluate_run(store, run.id, report=report, offline=True)
        run.record_answer(report)
    ev = evaluate_run(store, run.id, offline=True)
    assert gate(ev).passed and [p.label for p in ev.pairs] == ["SUPPORTED"]


def test_an_ended_run_that_made_no_calls_is_evaluated() -> None:
    """The refusal is about an unfinished run, not about a run without tool calls: an answer from memory is
    still checked (its citations are unfetched)."""
    store = MemoryStore()
    with summarized_run(store) as run:
        run.record_answer("Global solar capacity grew 24 % in 2024 [1].\n\n[1] https://news.example/solar\n")
    ev = evaluate_run(store, run.id, offline=True)
    assert [p.label for p in ev.pairs] == ["UNFETCHED"]


@pytest.mark.parametrize("label", ["source", "Source", "sources", "link", "ref", "news.test", "www.news.test",
                                   "https://news.test/solar", "news.test/solar"])
def test_a_generic_or_host_link_label_is_no_part_of_the_claim(label: str) -> None:
    """``... in 2024 [source](url).``: the label names where it came from, as a capitalised source name does."""
    (claim,) = split_claims(f"China installed 277 GW of solar panels in 2024 [{label}](https://news.test/solar).")
    assert claim.text == "China installed 277 GW of solar panels in 2024."
    assert claim.urls == ("https://news.test/solar",)


@pytest.mark.parametrize("sentence, expected", [
    ("The code is on [the source](https://a.org/x).", "The code is on the source."),
    ("Read the [source](https://a.org/x) first.", "Read the source first."),
    ("Prices rose in [Norway](https://a.org/n).", "Prices rose in Norway."),
    ("The site moved to [news.test](https://news.test).", "The site moved to news.test."),
])
def test_a_label_the_sentence_needs_stays(sentence: str, expected: str) -> None:
    """After a preposition or an article, or inside the clause, the label is what the sentence says."""
    assert [c.text for c in split_claims(sentence)] == [expected]


def test_a_source_labelled_link_is_judged_on_the_claim_alone(server: LocalServer) -> None:
    """The real run: a verbatim claim cited ``[source](url)`` is SUPPORTED (it was PARTIAL, "... 2024 source.")."""
    store = MemoryStore()
    solar = f"{server.base}/solar"
    run_id = _run(store, server, f"China installed 277 GW of solar panels in 2024 [source]({solar}?utm_source=x).\n")
    ev = evaluate_run(store, run_id, offline=True)
    assert [(p.pair.claim, p.label) for p in ev.pairs] == [
        ("China installed 277 GW of solar panels in 2024.", "SUPPORTED")]


@pytest.mark.parametrize("link, expected", [
    ('<a href="{u}">Solar Report</a>', "China installed 277 GW of solar panels in 2024."),
    ("<a href='{u}'>[5]</a>", "China installed 277 GW of solar panels in 2024."),
    ('<sup><a href="{u}" target="_blank">[1]</a></sup>', "China installed 277 GW of solar panels in 2024."),
    ('(<a href="{u}">source</a>)', "China installed 277 GW of solar panels in 2024."),
])
def test_html_links_cite_like_markdown_links(link: str, expected: str) -> None:
    """An ``<a href>`` is a link: its target is the citation, its label follows the markdown link's rules."""
    url = "https://news.test/solar"
    (claim,) = split_claims(f"China installed 277 GW of solar panels in 2024 {link.format(u=url)}.")
    assert (claim.text, claim.urls) == (expected, (url,))


def test_html_link_label_in_the_sentence_stays() -> None:
    (claim,) = split_claims('Prices rose in <a href="https://a.org/n">Norway</a> last year.')
    assert (claim.text, claim.urls) == ("Prices rose in Norway last year.", ("https://a.org/n",))


def test_html_links_in_a_real_run(server: LocalServer) -> None:
    """eval and the summary read an HTML report's links alike: a ``[5]`` label is no marker, the cited URL is
    the href (not a URL written in the label), and the verbatim claims are SUPPORTED."""
    store = MemoryStore()
    solar = f"{server.base}/solar"
    answer = (f'Global solar capacity grew 24 % in 2024 <a href="{solar}">Solar Report</a>.\n'
              f"China installed 277 GW of solar panels in 2024 <a href='{solar}#panels'>[5]</a>.\n"
              f'Module prices fell 35 % over the year (<a href="{solar}/">{FAB}</a>).\n')
    run_id = _run(store, server, answer)
    ev = evaluate_run(store, run_id, offline=True)
    assert [(p.pair.claim, p.label) for p in ev.pairs] == [
        ("Global solar capacity grew 24 % in 2024.", "SUPPORTED"),
        ("China installed 277 GW of solar panels in 2024.", "SUPPORTED"),
        ("Module prices fell 35 % over the year.", "SUPPORTED"),
    ]
    assert cited_urls(answer) == [solar]
    summary = store.get_run(run_id).summary  # type: ignore[union-attr]
    assert summary is not None and summary["citations"] == 1 and not summary["failed"]
    assert gate(ev, rules=(names.GATE_UNFETCHED, names.GATE_UNCITED_URL)).passed


@pytest.mark.parametrize("heading", ["### Sources used", "## References and further reading", "**Sources consulted:**",
                                     "## Works cited", "## Quellen", "## Fuentes", "## Références", "## Fonti",
                                     "## Bronnen", "## Källor", "## Referências", "## 参考文献", "### Sources Cited"])
def test_reference_headings_agents_write(heading: str) -> None:
    """A numbered source list under the headings agents write (in the report's own language too) is the
    reference list, for eval and capture alike; before, eval stopped with "marker but no reference list"."""
    text = (f"Global solar capacity grew 24 % in 2024 [1]. Wind reached 1,021 GW [2].\n\n{heading}\n"
            "1. [Solar Report](https://news.test/solar)\n2. Wind Statistics - https://www.stats.test/wind/\n")
    report = parse_report(text)
    assert report.references == {"1": "https://news.test/solar", "2": "https://www.stats.test/wind/"}
    assert [c.url for s in report.sentences for c in s.citations] == list(report.references.values())
    assert cited_urls(text) == list(report.references.values())


@pytest.mark.parametrize("heading", ["## Sources of growth", "## Notes on method", "## Referenced projects"])
def test_a_section_about_sources_is_body_text(heading: str) -> None:
    """A heading that only starts with such a word is a section of the report: its list items are claims."""
    text = f"Solar grew 24 % in 2024 (https://news.test/solar).\n\n{heading}\n1. Rooftop solar grew 30 % in 2024.\n"
    assert [s.text for s in parse_report(text).sentences][-1] == "Rooftop solar grew 30 % in 2024."


def test_inline_code_cites_nothing(server: LocalServer) -> None:
    """A URL or a ``[1]`` inside backticks is code (an endpoint, an index), as in a fenced block: it neither
    cites nor stops eval. Before, "`refs[1]`" made a report without a reference list unreadable, and an
    endpoint named in code was a cited page the run never fetched, failing the run on ``uncited_url``."""
    store = MemoryStore()
    solar = f"{server.base}/solar"
    answer = (f"Global solar capacity grew 24 % in 2024 ({solar}).\n\n"
              "Query the API at `https://api.fabricated.example/v1/solar` and read `refs[1]` for the first row.\n")
    run_id = _run(store, server, answer)
    ev = evaluate_run(store, run_id, offline=True)
    assert [(p.pair.url, p.label) for p in ev.pairs] == [(solar, "SUPPORTED"), (None, None)]
    assert cited_urls(answer) == [solar]
    summary = store.get_run(run_id).summary  # type: ignore[union-attr]
    assert summary is not None and summary["citations"] == 1 and not summary["failed"]


def test_a_markdown_link_to_a_url_with_parentheses() -> None:
    """``[Wikipedia](https://en.wikipedia.org/wiki/Mercury_(planet))``: markdown allows balanced parentheses in
    a link's destination, and Wikipedia's disambiguated titles have them. The URL was cut at the first ``)``
    (``.../Mercury_(planet``), so the page the run fetched was "cited but never fetched" and the claim read
    "Mercury is the smallest planet)."."""
    with LocalServer() as srv:
        path = "/wiki/Mercury_(planet)"
        srv.routes[path] = (200, "Mercury is the smallest planet in the Solar System. " * 6, "text/plain")
        srv.routes["/search"] = (200, f'{{"results": [{{"url": "{srv.base}{path}"}}]}}', "application/json")
        store = MemoryStore()
        page = f"{srv.base}{path}"
        answer = (f"Mercury is the smallest planet in the Solar System ([Wikipedia]({page})).\n"
                  f"Mercury is the smallest planet in the Solar System [Wikipedia]({page}).\n")
        with summarized_run(store) as run:
            web_search(f"{srv.base}/search")
            read_page(page)
            run.record_answer(answer)
    ev = evaluate_run(store, run.id, offline=True)
    assert [(p.pair.url, p.pair.claim, p.label) for p in ev.pairs] == [
        (page, "Mercury is the smallest planet in the Solar System.", "SUPPORTED")] * 2
    assert cited_urls(answer) == [page]
    summary = store.get_run(run.id).summary  # type: ignore[union-attr]
    assert summary is not None and summary["citations"] == 1 and not summary["failed"]
    (claim,) = split_claims(f"Mercury is small [Wikipedia](https://en.wikipedia.org/wiki/Mercury_(planet)).")
    assert (claim.text, claim.urls) == ("Mercury is small.", ("https://en.wikipedia.org/wiki/Mercury_(planet)",))


@pytest.mark.parametrize("text, url", [
    ("全球太阳能装机容量在2024年增长了24%（{u}）。", "{u}"),
    ("全球太阳能装机容量在2024年增长了24% {u}。下一句也有内容。", "{u}"),
    ("见{u}，以及其他来源。", "{u}"),
    ("Siehe „{u}“ dazu.", "{u}"),
    ("Voir «{u}» et la suite…", "{u}"),
    ("see {u}…", "{u}"),
    ("太陽光発電の記事 https://ja.wikipedia.org/wiki/太陽光発電。", "https://ja.wikipedia.org/wiki/太陽光発電"),
])
def test_a_bare_url_ends_at_full_width_and_quotation_punctuation(text: str, url: str) -> None:
    """Chinese and Japanese write no space after a URL: it ended at the next whitespace, so "{u}。下一句" was
    the URL, and every bare-URL citation of such a report was a page the run never fetched. A URL now ends at
    full-width punctuation (。，、；：！？（）【】「」...) and typographic quotes, while non-ASCII letters stay."""
    u = "https://news.test/solar"
    assert cited_urls(text.format(u=u)) == [url.format(u=u)]
    assert [c.url for s in parse_report(text.format(u=u)).sentences for c in s.citations] == [url.format(u=u)]


def test_a_source_column_is_no_part_of_a_table_row_claim() -> None:
    """Agents' tables end rows with a Source column: ``| Germany | 59 TWh | [IEA](url) |``. The link's label
    was read as part of the row ("Germany | 59 TWh | IEA"); it names the source, as it would in prose. A label
    that says something (``[59 TWh](url)``) stays."""
    text = ("| Country | Solar 2023 | Source |\n|---|---|---|\n"
            "| Germany | 59 TWh | [IEA](https://news.test/table) |\n"
            "| Spain | 45 TWh | ([source](https://news.test/table)) |\n"
            "| Italy | [31 TWh](https://news.test/table) | |\n")
    rows = [s for s in parse_report(text).sentences if s.block == "table_row"]
    assert [s.text for s in rows] == ["Germany | 59 TWh |", "Spain | 45 TWh |", "Italy | 31 TWh |"]
    assert [[c.url for c in s.citations] for s in rows] == [["https://news.test/table"]] * 3


def test_a_marker_before_full_width_punctuation_leaves_no_space() -> None:
    """"增长了24%[1]。": the blanked marker left "增长了24% 。" in the claim a judge reads (as it does not before a
    full stop)."""
    text = "全球太阳能装机容量在2024年增长了24%[1]。中国安装了277吉瓦[2]！\n\n[1] https://news.test/solar\n[2] https://news.test/cn\n"
    assert [s.text for s in parse_report(text).sentences] == ["全球太阳能装机容量在2024年增长了24%。", "中国安装了277吉瓦！"]
