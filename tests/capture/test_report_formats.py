"""cited_urls on the report formats of deep-research agents: next-line URLs, storm's URL map, APA links."""

from __future__ import annotations

from citetrace.capture._citations import cited_urls
from _report_formats import (
    BLS, FED, FOMC, GPT_RESEARCHER, NEXT_LINE, NEXT_LINE_BARE, OTHER, STORM, STORM_MAP,
)


def test_reference_entry_with_url_on_next_line() -> None:
    """``[n] Title`` then ``URL: ...`` is one entry: [2] cited first comes first, the URL line is no body URL."""
    assert cited_urls(NEXT_LINE) == [BLS, FED]


def test_numbered_entry_with_bare_url_on_next_line() -> None:
    """Under a heading, ``1. Title`` with the URL alone on the next line resolves marker [1]."""
    assert cited_urls(NEXT_LINE_BARE) == [BLS, FED]


def test_bare_markers_resolve_through_url_map() -> None:
    """storm's bare ``[2][1]`` markers resolve through the run's URL map, in order of first citation."""
    assert cited_urls(STORM) == []
    assert cited_urls(STORM, url_map=STORM_MAP) == [BLS, FED]


def test_text_reference_list_wins_over_url_map() -> None:
    """A marker the text lists keeps the text's URL; the map only fills markers the text does not list."""
    text = "Claim [1]. Other [2].\n\n[1] https://text.example/a\n"
    assert cited_urls(text, url_map={"1": "https://map.example/x", "2": "https://map.example/y"}) == [
        "https://text.example/a", "https://map.example/y"]


def test_gpt_researcher_in_text_citations_and_apa_list() -> None:
    """In-text ``([Author, 2024](url))`` links count in place; an uncited APA entry is listed after them."""
    assert cited_urls(GPT_RESEARCHER) == [BLS, FOMC, FED, OTHER]


def test_url_map_of_reads_storm_and_plain_maps() -> None:
    """storm's url_to_info.json and plain maps either way round give marker -> URL; junk is a named error."""
    import pytest

    from citetrace._reflist import url_map_of

    assert url_map_of({"url_to_unified_index": {BLS: 2, FED: 1}, "url_to_info": {}}) == {"2": BLS, "1": FED}
    assert url_map_of({"1": FED}) == url_map_of({FED: 1}) == {"1": FED}
    assert url_map_of({FED: 1, "not a url": 2}, strict=False) == {"1": FED}
    with pytest.raises(ValueError, match="'not a url'"):
        url_map_of({FED: 1, "not a url": 2})
    with pytest.raises(ValueError, match="must be a JSON object"):
        url_map_of([FED])
