"""Report parsing and markdown-aware sentence splitting."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citetrace.eval import ReportParseError, make_pairs, parse_report

REFS = "\n\n## References\n[1] https://a.example/one\n[2] https://b.example/two\n"


def texts(report: str) -> list[str]:
    return [s.text for s in parse_report(report).sentences]


def test_marker_after_full_stop_stays_with_its_sentence() -> None:
    """A marker written after the full stop belongs to the sentence before it, not the next one."""
    r = parse_report("Unemployment rose to 4.2% in March. [1] Wages rose too.[2] Prices fell. [1][2]" + REFS)
    s = r.sentences
    assert [x.text for x in s[:3]] == ["Unemployment rose to 4.2% in March.", "Wages rose too.", "Prices fell."]
    assert [c.url for c in s[0].citations] == ["https://a.example/one"]
    assert [c.url for c in s[1].citations] == ["https://b.example/two"]
    assert [c.url for c in s[2].citations] == ["https://a.example/one", "https://b.example/two"]


def test_offsets_point_into_the_original_text() -> None:
    """Each sentence's span in the original report contains the sentence's words and its markers."""
    report = "# Title\n\nIt grew 3.1 percent in the U.S. last year [1]. See https://x.example/a.b for more." + REFS
    r = parse_report(report)
    for s in r.sentences:
        assert s.text.split()[0] in report[s.start:s.end]
        for c in s.citations:
            assert s.start <= c.start < s.end
            assert report[c.start:c.end] in (c.marker, c.url) or report[c.start:c.end].startswith("[")


def test_abbreviations_decimals_and_urls_do_not_split() -> None:
    """Decimals, abbreviations and dotted URLs stay inside one sentence."""
    got = texts("Dr. Smith said the U.S. rate was 4.25 percent, e.g. in Jan. 2024. "
                "Read https://stats.example/a.b.html for details. Done here." + REFS)
    assert got[:3] == ["Dr. Smith said the U.S. rate was 4.25 percent, e.g. in Jan. 2024.",
                       "Read for details.", "Done here."]


def test_headings_lists_and_tables_are_separate_units() -> None:
    """Headings, list items and table rows never merge into neighbouring sentences."""
    r = parse_report("# Jobs\nIntro line one.\n- First item [1]\n- Second item. Another sentence [2]\n\n"
                     "| Metric | Value |\n|---|---|\n| Rate | 4.2% [1] |\n" + REFS)
    kinds = [(s.block, s.text) for s in r.sentences if s.block != "heading"]
    assert kinds == [("paragraph", "Intro line one."), ("list", "First item"), ("list", "Second item."),
                     ("list", "Another sentence"), ("table_header", "Metric | Value"),
                     ("table_row", "Rate | 4.2%")]


def test_markdown_links_and_footnotes_are_citations() -> None:
    """Markdown links cite their target; footnotes resolve through their definitions."""
    r = parse_report("The [office](https://stats.example/u) said so. Rates rose.[^a]\n\n[^a]: <https://fn.example/x>\n")
    assert [c.url for c in r.sentences[0].citations] == ["https://stats.example/u"]
    assert r.sentences[0].text == "The office said so."
    assert [c.url for c in r.sentences[1].citations] == ["https://fn.example/x"]
    assert r.cited_urls == ["https://stats.example/u", "https://fn.example/x"]


def test_numbered_reference_list_under_a_sources_heading() -> None:
    """A numbered list under 'Sources' is the reference list, and ranges like [1-2] expand."""
    r = parse_report("Both agree [1-2].\n\n**Sources**\n1. Office, https://a.example/one\n2. https://b.example/two\n")
    assert [c.url for c in r.sentences[0].citations] == ["https://a.example/one", "https://b.example/two"]
    assert [s.text for s in r.sentences if s.needs_citation] == ["Both agree."]


def test_code_blocks_and_reference_lines_are_not_sentences() -> None:
    """Text in fenced code and the reference list itself is never split into claims."""
    got = texts("Real claim [1].\n\n```\nnot [2] a claim.\n```\n" + REFS)
    assert got == ["Real claim.", "References"]


def test_undefined_marker_is_kept_with_a_problem() -> None:
    """A marker with no reference entry stays a citation with no URL and a problem naming it."""
    r = parse_report("Claim [7]." + REFS)
    (c,) = r.sentences[0].citations
    assert c.url is None and c.problem == "marker [7] has no entry in the reference list"


@pytest.mark.parametrize("bad, message", [
    ("", "report is empty"),
    ("   \n\n", "report is empty"),
    ("a\x00b", "NUL bytes"),
    ("Claim [3] here.", "marker [3] on line 1 but the report has no reference list"),
    ("```\nonly code\n```", "no sentences"),
])
def test_unparseable_input_gets_a_clear_error(bad: str, message: str) -> None:
    """Input that cannot be read as a report raises ReportParseError naming the problem."""
    with pytest.raises(ReportParseError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_report(bad)


def test_no_citation_needed_sentences() -> None:
    """Headings, questions, table headers and transitions need no citation and yield no pairs."""
    r = parse_report("# Findings\n\nWhat happened in 2024? In summary:\n\nThe following sections explain it.\n\n"
                     "Unemployment rose to 4.2% in March.\n")
    reasons = [(s.text, s.needs_citation, s.reason) for s in r.sentences]
    assert reasons == [("Findings", False, "heading"), ("What happened in 2024?", False, "question"),
                       ("In summary:", False, "transition"),
                       ("The following sections explain it.", False, "transition"),
                       ("Unemployment rose to 4.2% in March.", True, "claim")]
    pairs = make_pairs(r.sentences)
    assert [(p.claim, p.url) for p in pairs] == [("Unemployment rose to 4.2% in March.", None)]


def test_one_pair_per_distinct_url() -> None:
    """A sentence citing the same URL twice yields one pair; two URLs yield two."""
    r = parse_report("Claim one [1][1]. Claim two [1][2]." + REFS)
    pairs = make_pairs(r.sentences)
    assert [(p.sentence.index, p.url) for p in pairs] == [
        (0, "https://a.example/one"), (1, "https://a.example/one"), (1, "https://b.example/two")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Rates rose 4.2%.", "Dr. Lee agreed.", "See https://x.example/a.b now.",
                                 "[1]", "- item", "# Head", "| a | b |", "\n", "\n\n", "It fell (e.g. 3.5 pp)."]),
                min_size=1, max_size=12))
def test_parser_never_crashes_and_spans_are_ordered(parts: list[str]) -> None:
    """Any mix of markdown pieces either parses into ordered, non-overlapping spans or raises ReportParseError."""
    report = " ".join(parts) + REFS
    try:
        r = parse_report(report)
    except ReportParseError:
        return
    ends = 0
    for s in r.sentences:
        assert ends <= s.start < s.end <= len(report)
        ends = s.end


def test_hard_wrapped_line_starting_with_a_marker_is_body_text() -> None:
    """A body line that starts with a marker (a wrapped sentence) is not mistaken for a reference entry."""
    r = parse_report("Unemployment rose to 4.2% in March 2024.\n[1] Wages rose 3.1 percent.\n\n"
                     "## References\n[1] https://a.example/one\n[2] Smith, J. (2020). A report without a link.\n")
    assert [(s.text, [c.url for c in s.citations]) for s in r.sentences if s.needs_citation] == [
        ("Unemployment rose to 4.2% in March 2024.", ["https://a.example/one"]), ("Wages rose 3.1 percent.", [])]
    assert r.references == {"1": "https://a.example/one", "2": None}


def test_progress_bar_draws_when_forced() -> None:
    """The progress bar redraws in place and ends with a newline; it stays silent off a terminal."""
    import io

    from citetrace.eval._format import ProgressBar

    out = io.StringIO()
    bar = ProgressBar("pairs", out, force=True, width=4)
    bar(1, 2)
    bar(2, 2)
    assert out.getvalue() == "\r[##..] 1/2 pairs\r[####] 2/2 pairs\n"
    quiet = io.StringIO()
    ProgressBar("pairs", quiet)(1, 2)
    assert quiet.getvalue() == ""


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_parses_or_raises_a_parse_error(text: str) -> None:
    """Any text either parses, with every citation inside its sentence's span, or raises ReportParseError."""
    try:
        r = parse_report(text)
    except ReportParseError:
        return
    for s in r.sentences:
        assert 0 <= s.start < s.end <= len(text)
        assert all(s.start <= c.start < s.end for c in s.citations)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="Ab1 .?:[]^()#|-*>`\nhtps:/x", max_size=200))
def test_markdown_soup_parses_or_raises_a_parse_error(text: str) -> None:
    """Dense markdown punctuation never crashes the parser; spans stay ordered and inside the text."""
    try:
        r = parse_report(text)
    except ReportParseError:
        return
    last = 0
    for s in r.sentences:
        assert last <= s.start < s.end <= len(text)
        last = s.end


def test_blockquote_continuation_lines_lose_their_markers() -> None:
    """A quoted paragraph over several lines reads as one claim without the '>' markers."""
    r = parse_report("> Unemployment rose to 4.2%\n> in March 2024 [1].\n\n[1] https://a.example/one\n")
    assert r.sentences[0].text == "Unemployment rose to 4.2% in March 2024."


def test_hard_wrapped_paragraph_is_not_split_at_line_breaks() -> None:
    """A paragraph wrapped over several lines splits only at its sentence ends."""
    r = parse_report("Unemployment rose to\n4.2% in March 2024 [1]. Wages\nrose too.\n\n[1] https://a.example/one\n")
    assert [s.text for s in r.sentences] == ["Unemployment rose to 4.2% in March 2024.", "Wages rose too."]


def test_llm_style_report_end_to_end() -> None:
    """A typical LLM report (bold lead-ins, wrapped numbered list, nested bullet, quote, footnotes) parses
    into the expected claims and citations."""
    from pathlib import Path

    r = parse_report((Path(__file__).parent / "data" / "llm_style_report.md").read_text(encoding="utf-8"))
    mvgo, chamber = "https://mvgo.example/storage-2024", "https://chamber.example/jobs-2025"
    got = [(s.text, [c.url for c in s.citations]) for s in r.sentences if s.needs_citation]
    assert got == [
        ("Short answer: Marrow Valley's grid batteries more than doubled in 2024, reaching 860 MW by October.", [mvgo]),
        ("Installed capacity rose from 410 MW at the end of 2023 to 860 MW by October 2024, an increase of 110 %.",
         [mvgo]),
        ("The Halden site alone adds 240 MW.", ["https://mvgo.example/2024"]),  # "(MVGO)" names the source
        ("Storage firms employed 1,250 people at the end of 2024 (Valley Chamber of Commerce, 2025).", [chamber]),
        ("Of these, about 540 work in operations and maintenance.", [chamber]),
        ('"We expect to pass 1,200 MW of storage by the end of 2025," said Petra Vann.', [mvgo]),
        ("Batteries supplied 6.4 % of evening peak demand in September 2024, vs. 2.9 % a year earlier.", [mvgo]),
    ]
    assert [s.reason for s in r.sentences if not s.needs_citation] == [
        "heading", "heading", "transition", "transition", "question"]


def test_reference_style_links() -> None:
    """[anchor][key] cites the URL of the "[key]: url" definition and keeps the anchor text."""
    r = parse_report("The [statistics office][stats] said so. Rates rose [the survey][2].\n\n"
                     "[stats]: https://stats.example/u\n[2]: https://survey.example/s\n")
    assert [(s.text, [c.url for c in s.citations]) for s in r.sentences] == [
        ("The statistics office said so.", ["https://stats.example/u"]),
        ("Rates rose the survey.", ["https://survey.example/s"])]


def test_adjacent_markers_are_not_a_reference_link() -> None:
    """[1][2] is two markers, not an anchor '1' linking to reference 2."""
    r = parse_report("Both say so [1][2].\n\n[1] https://a.example/one\n[2] https://b.example/two\n")
    assert [c.url for c in r.sentences[0].citations] == ["https://a.example/one", "https://b.example/two"]
