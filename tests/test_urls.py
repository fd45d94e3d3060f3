"""URL redaction and discovery."""

from __future__ import annotations

import pytest

from hypothesis import given
from hypothesis import strategies as st

from citetrace._urls import canonical_url, find_urls, redact_text, redact_url, redact_urls


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://a.example/p?q=1", "https://a.example/p?q=1"),
        ("https://u:p@a.example/", "https://REDACTED:REDACTED@a.example/"),
        ("https://a.example/s?api_key=abc&q=solar", "https://a.example/s?api_key=REDACTED&q=solar"),
        ("https://a.example/s?X-Amz-Signature=ff&X-Amz-Credential=cc&n=1",
         "https://a.example/s?X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED&n=1"),
        ("https://a.example/s?access_token=t&token=u&sig=v", "https://a.example/s?access_token=REDACTED&token=REDACTED&sig=REDACTED"),
        ("https://a.example/p?q=tvly-abcdefghijkl1234", "https://a.example/p?q=REDACTED"),
        ("https://a.example/p?q=x#id_token=eyJabcdefghijk.eyJabcdefghijk.sig",
         "https://a.example/p?q=x#id_token=REDACTED"),
        ("https://a.example/cb#access_token=abc&state=s1", "https://a.example/cb#access_token=REDACTED&state=s1"),
        ("https://a.example/p#section-2", "https://a.example/p#section-2"),
        ("https://a.example/p?page=2%20x", "https://a.example/p?page=2%20x"),
        ("https://a.example/p?api%5Fkey=abc", "https://a.example/p?api_key=REDACTED"),
        # a path names a page: slugs that look like key shapes stay (SK Hynix, scikit-learn)
        ("https://news.example/tech/sk-hynix-q3-results-beat-estimates", "https://news.example/tech/sk-hynix-q3-results-beat-estimates"),
        ("https://a.example/tvly-abcdefghijkl1234/x", "https://a.example/tvly-abcdefghijkl1234/x"),
        ("https://medium.example/@someone/post-1", "https://medium.example/@someone/post-1"),
        ("example.org/p?key=abc", "example.org/p?key=REDACTED"),  # no scheme: the same parts
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    """Credentials, secret-looking parameters and key shapes in the query or fragment are masked; the scheme,
    host and path are kept."""
    assert redact_url(url) == expected


def test_redact_text_masks_key_shapes() -> None:
    """Well-known API key shapes inside free text are masked."""
    assert redact_text("use sk-proj1234567890abcd now") == "use REDACTED now"
    assert redact_text("nothing secret here") == "nothing secret here"


def test_find_urls_strips_punctuation_and_dedupes() -> None:
    """Trailing punctuation and unbalanced parentheses are not part of a URL; duplicates collapse."""
    text = "See https://a.example/x. Also (https://b.example/y) and https://a.example/x/#frag."
    assert find_urls(text) == ["https://a.example/x", "https://b.example/y"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("HTTPS://Example.ORG:443/a/", "https://example.org/a"),
        ("https://example.org/a?utm_source=x&id=3#top", "https://example.org/a?id=3"),
        ("http://example.org:80", "http://example.org/"),
    ],
)
def test_canonical_form_matches_same_page(a: str, b: str) -> None:
    """Case of scheme and host, default ports, trailing slash, fragments and tracking parameters do not matter."""
    assert canonical_url(a) == canonical_url(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://example.org/a", "https://example.org/b"),
        ("https://example.org/a?id=3", "https://example.org/a?id=4"),
        ("https://example.org:8443/a", "https://example.org/a"),
        ("https://www.example.org/a", "https://example.org/a"),
        ("https://example.org/A", "https://example.org/a"),
    ],
)
def test_canonical_form_keeps_different_pages_apart(a: str, b: str) -> None:
    """Different paths, query values, ports, hosts and path case are different pages."""
    assert canonical_url(a) != canonical_url(b)


_pieces = st.sampled_from(
    ["https://", "http://", "a.example", "/path", "?", "&", "=", "q", "page", "api_key", "Token", "sig", "code",
     "sk-abcdefghijkl1234", "AKIAABCDEFGHIJKLMNOP", "ghp_" + "a" * 24, "user:pw@", "%20", "-", "_", "#frag", "x",
     "HTTPS://", "#", "@", "#access_token=", "sk-hynix-q3-results", "eyJabcdefghijk.eyJabcdefghijk.s", "%5F", " ",
     "\n", "://"]
)
_url_like = st.lists(_pieces, min_size=1, max_size=8).map("".join)


@given(st.lists(_url_like, max_size=12))
def test_batch_redaction_equals_per_url_redaction(urls: list[str]) -> None:
    """redact_urls (the batch fast path for search results) gives exactly what redact_url gives per URL."""
    assert redact_urls(urls) == [redact_url(u) for u in urls]


@given(st.lists(st.text(), max_size=6))
def test_batch_redaction_equals_per_url_redaction_on_any_text(urls: list[str]) -> None:
    """The same on arbitrary strings (a result's "url" field can hold anything)."""
    assert redact_urls(urls) == [redact_url(u) for u in urls]


def test_batch_with_one_secret_redacts_only_that_url() -> None:
    """A clean batch comes back equal; one secret in a batch is redacted, the others are untouched."""
    clean = [f"https://cache.example/{i}" for i in range(5)]
    assert redact_urls(clean) == clean
    returned = redact_urls(clean)  # served from the memo of the last clean batch
    assert returned == clean and returned is not clean
    returned.append("https://cache.example/x?token=abc")  # what a caller does with its copy ...
    clean.append("https://cache.example/y?token=abc")  # ... or with its own list, after the call
    assert redact_urls(clean)[-1] == "https://cache.example/y?token=REDACTED"  # neither reached the memo
    pair = ["https://cache.example/p?q=1", "https://cache.example/api-key/page"]
    assert redact_urls(pair) == pair
    one = ["\n".join(pair)]  # the same text as that clean batch, but one URL whose query runs on
    assert redact_urls(one) == [redact_url(one[0])] != one
    clean.pop()
    mixed = clean + ["https://cache.example/x?token=abc"]
    assert redact_urls(mixed)[-1] == "https://cache.example/x?token=REDACTED"
    assert redact_urls(mixed)[-1] == "https://cache.example/x?token=REDACTED"
