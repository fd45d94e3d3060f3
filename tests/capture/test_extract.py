"""The result readers' fast path (``scan_results``) against the general one (``extract_urls``, ``text_size``).

The fast path reads a list of plain dicts, bare or under a result key, in one pass. Wherever it answers, it
must answer exactly what the general readers do, and a traced tool's span and call record must be the same
with it as without it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citetrace import names, research_run, traced_tool
from citetrace.capture import _extract
from citetrace.testing import capture_spans


class Text(str):
    """A str subclass (the general readers count it as text; the fast path must not guess)."""


KEYS = ["url", "link", "href", "uri", "source", "sourceURL", "source_url", "metadata", "_source", "title", "snippet",
        "score"]
values = st.none() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12) | st.sampled_from(
    ["", "https://a.example/1", "https://b.example/x?q=1"]) | st.builds(Text, st.text(max_size=5))
items = st.dictionaries(st.sampled_from(KEYS), values | st.dictionaries(st.sampled_from(KEYS), values, max_size=3),
                        max_size=5)
item_lists = st.lists(items | st.text(max_size=8), max_size=6)
results = item_lists | st.dictionaries(
    st.sampled_from(["results", "organic_results", "items", "web", "data", "error", "query", "organic", "webPages",
                     "value", "news", "sources", "hits"]),
    item_lists | st.dictionaries(st.just("results"), item_lists, max_size=1) | st.text(max_size=5), max_size=3)


def general(result: Any) -> tuple[list[str], int, int | None]:
    """What the general readers say: (URLs, size, count)."""
    urls, count = _extract.extract_urls(result)
    return urls, _extract.text_size(result, _extract.locate_results(result)), count


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(result=results)
def test_fast_path_agrees_with_the_general_readers(result: Any) -> None:
    """Wherever ``scan_results`` answers, its URLs, size and count are the general readers' exactly."""
    fast = _extract.scan_results(result)
    if fast is not None:
        assert fast == general(result)


TAVILY = {"query": "q", "answer": None, "results": [
    {"url": "https://a.example/1", "title": "A", "content": "alpha", "score": 0.9, "raw_content": None},
    {"url": "https://b.example/2?id=7", "title": "B", "content": "beta", "score": 0.5, "raw_content": None}]}
BRAVE = {"type": "search", "web": {"results": [{"url": "https://c.example/", "title": "C", "description": "c"}]}}
SERPAPI = {"search_metadata": {"status": "Success"}, "organic_results": [
    {"position": 1, "link": "https://d.example/", "title": "D", "snippet": "d"}]}
LISTED = [{"url": "https://e.example/", "title": "E"}, {"href": "https://f.example/", "body": "f"}]
COMMON = [TAVILY, BRAVE, SERPAPI, LISTED, [], {"results": []}]


@pytest.mark.parametrize("result", COMMON, ids=["tavily", "brave", "serpapi", "list", "empty", "no-results"])
def test_common_shapes_take_the_fast_path(result: Any) -> None:
    """The shapes real search APIs return are read by the fast path, with the general readers' answer."""
    fast = _extract.scan_results(result)
    assert fast is not None
    assert fast == general(result)


@pytest.mark.parametrize("result", [
    [{"title": "no url", "metadata": {"source": "https://g.example/"}}],  # the metadata fallback
    [{"url": 7, "link": "https://h.example/"}],  # a URL field that is not text
    [{"url": Text("https://i.example/")}],  # a str subclass
    ({"url": "https://j.example/"},),  # a tuple of results
    {"results": ({"url": "https://k.example/"},)},
    [{"url": "https://l.example/"}, "https://m.example/"],  # a bare URL among the items
], ids=["metadata", "non-str-url", "str-subclass", "tuple", "tuple-under-key", "mixed-items"])
def test_unusual_shapes_are_left_to_the_general_readers(result: Any) -> None:
    """Anything the one-pass reader would have to guess about goes to the general readers instead."""
    assert _extract.scan_results(result) is None


def _traced(result: Any, fast: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """The tool span's attributes and the run's call record for a search returning ``result``."""
    if not fast:
        monkeypatch.setattr(_extract, "scan_results", lambda _result: None)

    @traced_tool(kind="search")
    def search(query: str) -> Any:
        return result

    with capture_spans() as cap:
        with research_run("q", agent="fast") as run:
            assert search("q") is result
    monkeypatch.undo()
    (span,) = cap.tool_spans()
    (call,) = run.calls
    attrs = {k: v for k, v in (span.attributes or {}).items() if k != names.RUN_ID}  # a new run each time
    return attrs, (call.status, call.result_count, call.result_size, call.urls_returned)


@pytest.mark.parametrize("result", [*COMMON, {"error": "quota", "results": []}, {"error": "429 Too Many Requests"}],
                         ids=["tavily", "brave", "serpapi", "list", "empty", "no-results", "error-empty", "error"])
def test_a_traced_search_gets_the_same_span_either_way(result: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the fast path and without it, a search's span attributes and call record are identical."""
    fast_attrs, fast_call = _traced(result, True, monkeypatch)
    slow_attrs, slow_call = _traced(result, False, monkeypatch)
    assert fast_attrs == slow_attrs
    assert fast_call == slow_call
    assert fast_attrs[names.TOOL_STATUS] in names.TOOL_STATUSES
