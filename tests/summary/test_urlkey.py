"""The span-URL fast path gives exactly canonical_url's key, and span and citation keys meet."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from citetrace._urls import redact_url
from citetrace.summary._urlkey import _FAST, canonical_key, clear_cache, span_url_key, url_key

_host = st.lists(st.text(alphabet="abcxyzABC019-.", min_size=1, max_size=6), min_size=1, max_size=3).map(".".join)
_path = st.text(alphabet="abcXYZ019-._~/%!$&'()*+,;=:@ é", max_size=14)
_qpart = st.text(alphabet="abcXYZ09-._~%+ ", max_size=6)
_query = st.lists(st.tuples(st.sampled_from(["id", "q", "utm_source", "UTM_x", "gclid", "fbclid", "ref", "a b"]),
                            _qpart), max_size=3)


@st.composite
def urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["http", "https", "HTTPS", "ftp"]))
    port = draw(st.sampled_from(["", ":80", ":443", ":8080"]))
    path = draw(_path)
    query = draw(_query)
    sep = draw(st.sampled_from(["=", ""]))
    url = f"{scheme}://{draw(_host)}{port}" + ("/" + path if path else "")
    if query:
        url += "?" + "&".join(f"{k}{sep}{v}" for k, v in query)
    if draw(st.booleans()):
        url += "#" + draw(st.text(alphabet="ab?#/", max_size=4))
    return url


_label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,4}[a-z0-9])?", fullmatch=True)


@st.composite
def fast_urls(draw: st.DrawFn) -> str:
    """URLs shaped like the fast path's (most of them take it)."""
    host = ".".join(draw(st.lists(_label, min_size=1, max_size=3)))
    url = f"{draw(st.sampled_from(['http', 'https']))}://{host}"
    url += draw(st.text(alphabet="abXY09-._~/", max_size=12).map(lambda p: "/" + p if p else ""))
    pairs = draw(st.lists(st.tuples(st.sampled_from(["id", "Q", "utm_medium", "Utm_x", "gclid", "_ga", "page"]),
                                    st.text(alphabet="aZ09-._~", max_size=4)), max_size=3))
    if pairs:
        url += "?" + "&".join(f"{k}={v}" for k, v in pairs)
    if draw(st.booleans()):
        url += "#" + draw(st.text(alphabet="ab?#/=", max_size=4))
    return url


@settings(max_examples=25, derandomize=True, database=None)  # a fixed sample: a guard, not a search
@given(st.lists(fast_urls(), min_size=20, max_size=20))
def test_fast_strategy_exercises_the_fast_path(batch: list[str]) -> None:
    """Guard against a vacuous property: most generated fast-shaped URLs really take the fast path."""
    assert sum(bool(_FAST.fullmatch(u)) for u in batch) >= 15


@settings(max_examples=400)
@given(st.one_of(urls(), fast_urls()))
@example("https://example.com/a/b/?id=3&utm_source=x#top")
@example("https://example.com///")
@example("https://a.b./x")
@example("https://./x")
@example("https://-a..b-/x?id=1")
@example("https://example.com/?utm_source=x")
@example("http://a-b.example.org/x~y_z.html?q=&id=1")
def test_fast_path_equals_canonical_url(url: str) -> None:
    """For any URL, span_url_key equals canonical_url's key (http/https folded), fast path or not."""
    clear_cache()
    assert span_url_key(url) == canonical_key(url)


def test_fast_path_covers_common_result_urls() -> None:
    """Typical search-result URLs take the fast path (so the summary does not pay canonical_url for them)."""
    for url in ["https://en.wikipedia.org/wiki/Solar_power", "https://www.iea.org/reports/renewables-2024/",
                "https://example.com/article?id=42&utm_source=newsletter", "http://news.example.co.uk/"]:
        assert _FAST.fullmatch(url), url


@given(urls())
def test_citation_key_meets_redacted_span_url(url: str) -> None:
    """A raw citation and the same URL as capture redacted it onto a span share one key."""
    assert url_key(url) == span_url_key(redact_url(url)) == canonical_key(redact_url(url))


def test_secret_bearing_citation_matches_redacted_fetch() -> None:
    """A cited URL with a token matches the fetch span's redacted url.full."""
    cited = "https://api.example.com/doc?id=7&token=s3cr3t"
    assert url_key(cited) == span_url_key(redact_url(cited))
    assert "s3cr3t" not in url_key(cited)
