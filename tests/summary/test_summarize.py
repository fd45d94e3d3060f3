"""summarize(): every field and failure reason against values computed by hand, and URL matching edge cases."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citetrace import names
from citetrace.summary import SpanRecord, Thresholds, TraceSummary, keep_by_hash, summarize, url_key

TRACE = 0x0123456789ABCDEF0123456789ABCDEF
NEVER = Thresholds(sample_percent=0.0)
_ids = iter(range(100, 100_000))


def root(citations: tuple[str, ...] = (), *, error: bool = False, start: int = 0, end: int = 9_000_000,
         **extra: Any) -> SpanRecord:
    attrs: dict[str, Any] = {names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT, names.GEN_AI_AGENT_NAME: "scout",
                             names.RUN_ID: "run-1", names.CITATIONS: citations, **extra}
    return SpanRecord(TRACE, 1, None, "invoke_agent scout", start, end, attrs, error)


def search(query_hash: str, urls: tuple[str, ...] = (), status: str = "ok", ms: int = 1) -> SpanRecord:
    attrs = {names.TOOL_KIND: "search", names.TOOL_STATUS: status, names.QUERY_HASH: query_hash,
             names.URLS_RETURNED: urls}
    start = next(_ids) * 10_000_000
    return SpanRecord(TRACE, next(_ids), 1, "execute_tool search", start, start + ms * 1_000_000, attrs)


def fetch(url: str, status: str = "ok", ms: int = 1) -> SpanRecord:
    attrs = {names.TOOL_KIND: "fetch", names.TOOL_STATUS: status, names.URL_FULL: url}
    start = next(_ids) * 10_000_000
    return SpanRecord(TRACE, next(_ids), 1, "execute_tool fetch", start, start + ms * 1_000_000, attrs)


def test_healthy_run_counts_every_field() -> None:
    """A clean run: 2 searches, 2 reads, 3 distinct URLs, 2 citations all returned and fetched, no reasons."""
    spans = [
        search("q1", ("https://a.example/1", "https://b.example/2"), ms=3),
        search("q2", ("https://b.example/2", "https://c.example/3"), ms=7),
        fetch("https://a.example/1", ms=5),
        fetch("https://c.example/3", ms=2),
    ]
    s = summarize(spans, root=root(("https://a.example/1", "https://c.example/3")), thresholds=NEVER)
    assert (s.searches, s.reads, s.repeat_queries, s.empty_searches, s.failed_reads, s.rate_limited) == (
        2, 2, 0, 0, 0, 0)
    assert (s.distinct_urls_seen, s.citations, s.uncited_from_retrieval, s.cited_not_fetched) == (3, 2, 0, 0)
    assert s.slowest_ms == 7.0 and s.total_ms == 9.0
    assert s.failure_reasons == () and not s.failed and not s.keep
    assert (s.agent, s.run_id, s.trace_id) == ("scout", "run-1", f"{TRACE:032x}")


def test_every_failure_reason_at_once() -> None:
    """Each reason fires on its own signal: uncited, unfetched, empty, >1 failed read, >10 searches, 429, error."""
    spans = [search(f"q{i}", ("https://a.example/1",)) for i in range(10)]
    spans += [search("q0", status="empty"), search("q1", status="rate_limited")]
    spans += [fetch("https://a.example/1", status="error"), fetch("https://a.example/1", status="empty")]
    s = summarize(spans, root=root(("https://a.example/1", "https://z.example/"), error=True), thresholds=NEVER)
    assert s.searches == 12 and s.repeat_queries == 2 and s.empty_searches == 1 and s.rate_limited == 1
    assert s.reads == 2 and s.failed_reads == 2
    assert s.uncited_from_retrieval == 1 and s.cited_not_fetched == 1
    assert s.uncited_urls == ("https://z.example/",) and s.unfetched_urls == ("https://z.example/",)
    assert s.failure_reasons == tuple(names.FAILURE_REASONS)
    assert s.failed and s.keep


def test_thresholds_are_strictly_greater_than() -> None:
    """Exactly max_searches searches and exactly max_failed_reads failed reads are not failures; one more is."""
    at = [search(f"q{i}") for i in range(3)] + [fetch("https://a.example/", status="error")]
    th = Thresholds(max_searches=3, max_failed_reads=1, sample_percent=0.0)
    assert summarize(at, root=root(), thresholds=th).failure_reasons == ()
    over = at + [search("q9"), fetch("https://b.example/", status="rate_limited")]
    assert summarize(over, root=root(), thresholds=th).failure_reasons == (
        names.REASON_FAILED_READS, names.REASON_TOO_MANY_SEARCHES, names.REASON_RATE_LIMITED)


def test_rate_limited_fetch_counts_as_failed_read_and_rate_limit() -> None:
    """A 429 on a fetch is both a failed read and a rate limit; an error-status search is neither empty nor a read."""
    s = summarize([fetch("https://a.example/", status="rate_limited"), search("q", status="error")], root=root(),
                  thresholds=NEVER)
    assert (s.reads, s.failed_reads, s.rate_limited, s.searches, s.empty_searches) == (1, 1, 1, 1, 0)


def test_fetched_means_any_fetch_even_a_failed_one() -> None:
    """A cited URL whose fetch failed is not 'cited_not_fetched' (it was fetched); the failed read counts."""
    spans = [search("q", ("https://a.example/",)), fetch("https://a.example/", status="error")]
    s = summarize(spans, root=root(("https://a.example/",)), thresholds=NEVER)
    assert s.cited_not_fetched == 0 and s.failed_reads == 1 and s.failure_reasons == ()


def test_missing_status_falls_back_to_span_status() -> None:
    """Without citetrace.tool.status a tool span counts as error when its span status is ERROR, else ok."""
    bad = SpanRecord(TRACE, 5, 1, "f", 0, 1, {names.TOOL_KIND: "fetch"}, True)
    good = SpanRecord(TRACE, 6, 1, "f", 0, 1, {names.TOOL_KIND: "fetch", names.TOOL_STATUS: "weird"}, False)
    s = summarize([bad, good], root=root(), thresholds=NEVER)
    assert (s.reads, s.failed_reads) == (2, 1)


def test_non_tool_spans_are_ignored_but_root_is_found() -> None:
    """An HTTP child span is not a tool call; the invoke_agent root is found among the spans when not given."""
    http = SpanRecord(TRACE, 7, 1, "GET", 0, 1, {"http.request.method": "GET"})
    s = summarize([http, root(("https://x.example/",)), fetch("https://x.example/")], thresholds=NEVER)
    assert (s.searches, s.reads, s.citations, s.uncited_from_retrieval, s.cited_not_fetched) == (0, 1, 1, 1, 0)
    assert s.agent == "scout" and s.total_ms == 9.0


def test_without_root_uses_span_extent_and_tool_span_identity() -> None:
    """No root: total_ms spans first start to last end; agent and run id come from a tool span."""
    a = SpanRecord(TRACE, 8, None, "s", 1_000_000, 3_000_000,
                   {names.TOOL_KIND: "search", names.GEN_AI_AGENT_NAME: "solo", names.RUN_ID: "r9"})
    b = SpanRecord(TRACE, 9, None, "s", 2_000_000, 6_500_000, {names.TOOL_KIND: "search"})
    s = summarize([a, b], thresholds=NEVER)
    assert s.total_ms == 5.5 and s.slowest_ms == 4.5 and s.agent == "solo" and s.run_id == "r9"
    assert summarize([], thresholds=NEVER, default_agent="svc").agent == "svc"
    assert summarize([], thresholds=NEVER).agent == names.AGENT_UNKNOWN


def test_repeat_queries_fold_text_when_no_hash() -> None:
    """Queries repeat after folding case and whitespace (text fallback when no hash is recorded)."""
    spans = [SpanRecord(TRACE, i, 1, "s", 0, 1, {names.TOOL_KIND: "search", names.QUERY_TEXT: q})
             for i, q in enumerate(["Solar  Growth", "solar growth ", "SOLAR\tgrowth", "wind"], start=20)]
    assert summarize(spans, root=root(), thresholds=NEVER).repeat_queries == 2


def test_citations_argument_overrides_root_and_dedupes_by_key() -> None:
    """citations= beats the root's; two spellings of one page count once and keep the first spelling."""
    spans = [search("q", ("https://a.example/p",)), fetch("https://a.example/p")]
    s = summarize(spans, root=root(("https://zzz.example/",)),
                  citations=["https://A.example/p/", "https://a.example/p#x", "https://b.example/"], thresholds=NEVER)
    assert s.citations == 2 and s.uncited_urls == ("https://b.example/",)


def test_keep_equals_collector_hash_for_healthy_runs() -> None:
    """A healthy run is kept exactly when keep_by_hash (the collector's probabilistic policy) keeps its trace."""
    th = Thresholds(sample_percent=50.0, sample_salt="s")
    for tid in range(1, 200):
        r = SpanRecord(tid, 1, None, "invoke_agent a", 0, 1, {names.GEN_AI_OPERATION_NAME: names.OP_INVOKE_AGENT})
        assert summarize([], root=r, thresholds=th).keep is keep_by_hash(tid, salt="s", percent=50.0)


def test_to_attributes_and_to_dict() -> None:
    """Root attributes are exactly the summary fields, the reasons, failed and keep; the dict is JSON-able."""
    s = summarize([fetch("https://a.example/", status="error")] * 2, root=root(), thresholds=NEVER)
    attrs = s.to_attributes()
    assert set(attrs) == {names.summary_attr(f) for f in names.SUMMARY_FIELDS} | {
        names.SUMMARY_FAILURE_REASONS, names.SUMMARY_FAILED, names.SUMMARY_KEEP}
    assert attrs[names.SUMMARY_FAILURE_REASONS] == [names.REASON_FAILED_READS]
    assert attrs[names.summary_attr("failed_reads")] == 2 and attrs[names.SUMMARY_KEEP] is True
    back = json.loads(json.dumps(s.to_dict()))
    assert back["failure_reasons"] == [names.REASON_FAILED_READS] and back["reads"] == 2
    assert isinstance(s, TraceSummary)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://Example.COM/Page", "https://example.com/Page"),
        ("http://example.com:80/p", "http://example.com/p"),
        ("https://example.com:443/p", "https://example.com/p"),
        ("https://example.com/p/", "https://example.com/p"),
        ("https://example.com", "https://example.com/"),
        ("https://example.com/p#section-2", "https://example.com/p"),
        ("https://example.com/p?utm_source=x&id=3&gclid=9", "https://example.com/p?id=3"),
        ("HTTPS://example.com/p", "https://example.com/p"),
        ("http://example.com/p", "https://example.com/p"),
        ("https://example.com/a%20b", "https://example.com/a b"),
        ("https://example.com/p?token=abc", "https://example.com/p?token=REDACTED"),
        (" https://example.com/p ", "https://example.com/p"),
    ],
)
def test_same_page_matches(a: str, b: str) -> None:
    """Spellings of one page share a key (case of scheme/host, default port, slash, fragment, tracking, scheme)."""
    assert url_key(a) == url_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.com/Page", "https://example.com/page"),
        ("https://www.example.com/p", "https://example.com/p"),
        ("https://example.com:8443/p", "https://example.com/p"),
        ("https://example.com/p?id=3", "https://example.com/p?id=4"),
        ("https://example.com/p?a=1&b=2", "https://example.com/p?b=2&a=1"),
        ("https://example.com/p", "https://example.com/p/q"),
        ("https://example.org/p", "https://example.com/p"),
        ("ftp://example.com/p", "https://example.com/p"),
    ],
)
def test_different_pages_do_not_match(a: str, b: str) -> None:
    """Path case, www, non-default ports, query values and order, hosts and schemes keep pages apart."""
    assert url_key(a) != url_key(b)


_label = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
_seg = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~", min_size=1, max_size=8)
_page = st.tuples(st.lists(_label, min_size=2, max_size=3), st.lists(_seg, max_size=3),
                  st.lists(st.tuples(st.sampled_from(["id", "q", "page"]), _label), max_size=2, unique_by=lambda kv: kv[0]))


def _url(page: tuple[list[str], list[str], list[tuple[str, str]]]) -> str:
    host, segs, query = page
    url = "https://" + ".".join(host) + "/" + "/".join(segs)
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")


@given(_page, st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_citation_matches_result_under_cosmetic_changes(page: Any, upper: bool, port: bool, slash: bool,
                                                        track: bool) -> None:
    """Property: a citation spelled differently (host case, :443, trailing slash, tracking, fragment) still matches."""
    result = _url(page)
    host, rest = result[len("https://"):].split("/", 1)
    cited = "https://" + (host.upper() if upper else host) + (":443" if port else "") + "/" + rest
    if slash and "?" not in cited and not cited.endswith("/"):
        cited += "/"
    if track:
        cited += ("&" if "?" in cited else "?") + "utm_campaign=x"
    cited += "#frag"
    s = summarize([search("q", (result,)), fetch(result)], root=root((cited,)), thresholds=NEVER)
    assert (s.uncited_from_retrieval, s.cited_not_fetched) == (0, 0)


@given(_page, _page)
def test_different_pages_never_match(a: Any, b: Any) -> None:
    """Property: two different generated pages never share a key, so a citation of one is uncited by the other."""
    if a != b:
        assert url_key(_url(a)) != url_key(_url(b))
        s = summarize([search("q", (_url(a),))], root=root((_url(b),)), thresholds=NEVER)
        assert s.uncited_from_retrieval == 1


def test_pages_from_search_count_once_per_key_and_as_read() -> None:
    """Page texts that came with search results: distinct URL keys (another form of a URL counts once),
    read for cited_not_fetched without any fetch call, and written on the root."""
    first = search("q1", ("https://a.example/1", "https://b.example/2"))
    again = search("q2", ("https://A.EXAMPLE/1#top",))
    for span, pages in ((first, ("https://a.example/1", "https://b.example/2")), (again, ("https://A.EXAMPLE/1#top",))):
        span.attributes[names.PAGES_RETURNED] = pages  # type: ignore[index]
    s = summarize([first, again], root=root(("https://a.example/1", "https://b.example/2")), thresholds=NEVER)
    assert (s.pages_from_search, s.reads, s.cited_not_fetched) == (2, 0, 0)
    assert s.to_attributes()[names.summary_attr("pages_from_search")] == 2
    assert summarize([search("q", ("https://a.example/1",))]).pages_from_search == 0
