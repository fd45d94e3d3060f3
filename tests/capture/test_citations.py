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
