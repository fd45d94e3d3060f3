"""cited_urls: which URLs a report cites, in order of first citation."""

from __future__ import annotations

import pytest

from citetrace.capture._citations import cited_urls


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        ("A [2]. B [1].\n\n[1] https://one.example/a\n[2] https://two.example/b\n",
         ["https://two.example/b", "https://one.example/a"]),
        ("Footnote[^1].\n\n[^1]: https://foot.example/x", ["https://foot.example/x"]),
        ("See [the docs](https://docs.example/p).", ["https://docs.example/p"]),
        ("Bare https://bare.example/x, and again https://bare.example/x/.", ["https://bare.example/x"]),
        ("Listed but uncited:\n\n- [1] https://listed.example/", ["https://listed.example/"]),
        ("No sources at all.", []),
        ("Unknown marker [9].\n[1] https://one.example/", ["https://one.example/"]),
        ("(https://paren.example/a)", ["https://paren.example/a"]),
    ],
)
def test_cited_urls(report: str, expected: list[str]) -> None:
    """Markers resolve through the reference list; links and bare URLs count in place; duplicates collapse."""
    assert cited_urls(report) == expected


_BODY = "Capacity rose 24 percent in 2024"


@pytest.mark.parametrize(
    "report",
    [
        f"{_BODY} [https://a.example/display](https://b.example/real).",
        f"{_BODY} [1].\n\n```bash\ncurl https://api.example/v1/search\n```\n\n[1] https://a.example/p\n",
        f"{_BODY} [1].\n\n~~~\nhttps://code.example/z\n~~~\n\n[1] https://a.example/p\n",
        f"{_BODY} ([the agency](https://a.example/p)) and [1].\n\n[1] https://b.example/q\n",
    ],
)
def test_the_summary_cites_what_eval_pairs(report: str) -> None:
    """The run's ``citetrace.citations`` and eval's parser agree: a URL that is only a link's display text, or
    only inside a fenced code block, is no citation (before, the summary counted it, a citation no search
    returned and never fetched, while eval never paired it)."""
    from citetrace._urls import url_key
    from citetrace.eval._report import parse_report

    assert [url_key(u) for u in cited_urls(report)] == [url_key(u) for u in parse_report(report).cited_urls]
