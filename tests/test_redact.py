"""Redaction of names, key shapes, path parameters, free text, arguments and reports (citetrace._redact)."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citetrace._redact import (
    REDACTED, is_secret_name, mask_key_shapes, redact_arguments, redact_report, redact_text, redact_url,
    redact_urls,
)


@pytest.mark.parametrize("name", ["api_key", "apiKey", "APIKEY", "X-Api-Key", "accessToken", "authToken",
                                  "clientSecret", "sessionId", "client_secret", "refresh_token", "x-amz-signature",
                                  "Authorization", "password", "passwd", "subscription-key", "jsessionid", "code"])
def test_secret_names_in_any_case_style(name: str) -> None:
    """snake, kebab, camel and upper case names of keys, tokens, secrets and sessions are secret."""
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["q", "query", "page", "id", "monkey_business", "keyword", "KeyError", "sort"])
def test_ordinary_names_are_not_secret(name: str) -> None:
    """Names that only contain a secret word inside another word (or name an exception class) are kept."""
    assert not is_secret_name(name, in_url=False)


def test_code_is_secret_in_urls_only() -> None:
    """OAuth's ``code`` is a secret in a URL, and a common word in an error message."""
    assert is_secret_name("code") and not is_secret_name("code", in_url=False)
    assert redact_text("status code: 401") == "status code: 401"


@pytest.mark.parametrize("key", [
    "sk_live_51HqT9xLk2mN8pQ4rS6tU0vW", "rk_live_51HqT9xLk2mN8pQ4rS6tU0vW",
    "github_pat_11ABCDEFG0123456789abc_defghijklmnopqrstuvw", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "xoxb-123456789012-1234567890123-AbCdEfGh", "xoxp-1234567890-abcdef",
    "ASIAZ7Q2M4N6P8R0T2V4", "xapp-1-A0123456789-1234567890123-abcdef", "whsec_AbCdEfGhIjKlMnOpQrStUvWx",
    "ya29.a0AfH6SMBxYzAbCdEfGhIjKlMnOp", "glpat-AbCdEfGhIjKlMnOpQrSt", "npm_" + "Ab1" * 12,
])
def test_new_key_shapes_are_masked_anywhere(key: str) -> None:
    """Stripe, fine-grained GitHub, Google, Hugging Face, Slack and AWS session keys are masked in text and URLs."""
    assert mask_key_shapes(f"use {key} now") == f"use {REDACTED} now"
    assert key not in redact_url(f"https://a.example/p?k={key}&n=1")


def test_camel_case_parameters_and_path_parameters_are_redacted() -> None:
    """``?accessToken=`` and ``;jsessionid=`` lose their values; the path and other parameters stay."""
    assert redact_url("https://a.example/p?accessToken=abc&page=2") == "https://a.example/p?accessToken=REDACTED&page=2"
    assert (redact_url("https://shop.example/cart;jsessionid=ABC123;v=2?item=4")
            == "https://shop.example/cart;jsessionid=REDACTED;v=2?item=4")
    assert redact_url("https://a.example/matrix;v=2/x") == "https://a.example/matrix;v=2/x"


def test_redaction_is_idempotent() -> None:
    """Redacting twice gives what redacting once gives (so raw and recorded URLs meet in one key)."""
    for url in ["https://u:p@a.example/x;jsessionid=1?apiKey=2#access_token=3", "https://a.example/p?q=AIza" + "x" * 35]:
        assert redact_url(redact_url(url)) == redact_url(url)


def test_free_text_redacts_urls_bearer_and_named_values() -> None:
    """An exception message loses the URL's secrets, a bearer token and a ``password=`` value; prose stays."""
    text = ("401 Client Error: Unauthorized for url: https://bob:pw1@h.example/x?api_key=k1&q=ok "
            "(Authorization: Bearer tok-123456, password=hunter2, retry later)")
    out = redact_text(text)
    for secret in ("pw1", "k1", "tok-123456", "hunter2"):
        assert secret not in out
    assert out.startswith("401 Client Error: Unauthorized for url: https://REDACTED:REDACTED@h.example/x?api_key=")
    assert "q=ok" in out and "retry later" in out


def test_arguments_mask_secret_named_keys_at_any_depth() -> None:
    """Secret-named keyword arguments and dict keys are masked whatever their value; URLs in values redacted."""
    out = redact_arguments(
        ["https://h.example/x?token=t1"],
        {"api_key": "k2", "headers": {"Authorization": "Bearer b3", "Accept": "text/html"}, "auth": ["u", "p4"],
         "proxies": {"https": "http://svc:p5@proxy.example:3128"}, "accessToken": 6},
        4096,
    )
    data = json.loads(out)
    assert data["kwargs"]["api_key"] == data["kwargs"]["auth"] == data["kwargs"]["accessToken"] == REDACTED
    assert data["kwargs"]["headers"] == {"Authorization": REDACTED, "Accept": "text/html"}
    for secret in ("t1", "k2", "b3", "p4", "p5"):
        assert secret not in out


def test_arguments_are_cut_after_redaction() -> None:
    """The cut at the limit comes after redaction, so a secret at the edge is masked, not halved."""
    out = redact_arguments([], {"pad": "x" * 30, "q": "https://h.example/?token=abcdefgh"}, 70)
    assert len(out) <= 70 and "abcdefgh"[:4] not in out.split("token=")[-1]


def test_report_keeps_prose_and_redacts_only_urls_and_key_shapes() -> None:
    """An answer keeps its prose (even words like password: x) while its URLs are redacted."""
    text = "The key: results improved [1]. See https://h.example/r?token=t9 (source).\n\n[1] https://h.example/r?token=t9\n"
    out = redact_report(text)
    assert out == text.replace("t9", REDACTED)


def test_the_tail_hint_is_a_superset_of_every_secret_name_and_key_shape() -> None:
    """The quick check that lets a clean URL skip redaction fires on every secret word and key-shape prefix."""
    from citetrace._redact import _TAIL_HINT, _WORDS

    shapes = ["sk-", "sk_live_", "sk_test_", "rk_live_", "rk_test_", "tvly-", "fc-", "ghp_", "gho_", "ghu_", "ghs_",
              "ghr_", "github_pat_", "akia", "asia", "aiza", "hf_", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "eyj", "code",
              "xapp-", "whsec_", "ya29.", "glpat-", "npm_"]
    for word in _WORDS.split("|") + shapes:
        assert _TAIL_HINT.search(word.lower()) is not None, word


def test_once_logger_redacts_the_message(caplog: pytest.LogCaptureFixture) -> None:
    """The shared once-logger of services and processors never writes a secret from an exception message."""
    from citetrace._logonce import OnceLogger

    with caplog.at_level("DEBUG", logger="citetrace"):
        for _ in range(2):
            OnceLogger("serve").warn("store", OSError("cannot write https://u:pw-8@h.example/?token=t-99"))
    assert len(caplog.records) == 2
    assert all("pw-8" not in r.getMessage() and "t-99" not in r.getMessage() for r in caplog.records)


# -- the batch check (redact_urls) against the per-URL redactor ------------------------------------------------
_HOSTS = st.sampled_from(["a.example", "News.Example.COM", "xn--bcher-kva.example", "bücher.example", "[::1]",
                          "host.example:8443", "bob:pw@x.example", "x.example\ud800"])
_SEGMENTS = st.sampled_from(["", "wiki", "sk-hynix-q3-results", "api-key", "author", "Festk%C3%B6rper", "cart;jsessionid=AB12",
                             "a;b=c", "tokenizer", "asia", "code", "Mercury_(planet)", "é", "%41IzaSy", "x\ud800y", "\n"])
_NAMES = st.sampled_from(["q", "id", "page", "v", "n", "lang", "utm_source", "api_key", "apiKey", "accessToken",
                          "clientSecret", "sessionId", "X-Amz-Signature", "code", "%61pi_key", "api+key", "monkey",
                          "keyword", "jsessionid", "", "Token", "SIG"])
_VALUES = st.sampled_from(["", "1", "42017", "en", "Xb12kLm9QzA", "solid+state", "sk_live_51HqT9xLk2mN8pQ4",
                           "rk_live_51HqT9xLk2mN8pQ4", "github_pat_11ABCDEFG0123456789abc_x", "AIza" + "S" * 32,
                           "hf_" + "A" * 32, "xoxb-1234567890-ab", "xoxp-1234567890-ab", "SK-abcdefgh12",
                           "eyJabcdefghijk.eyJabcdefghijk.sig", "%20", "%E2%82%AC", "\ud800", "a b", "100%",
                           "http%3A%2F%2Fb.example%2Fcb%3Ftoken%3Dx", "https://b.example/cb?access_token=x",
                           "client_secret%3Dx%26y%3D1", "a=b=c=d=e=f", "x;token=y", "http://b.example/?q=1"])
_PAIRS = st.lists(st.tuples(_NAMES, st.sampled_from(["=", ""]), _VALUES).map("".join), max_size=4).map("&".join)
_FRAGMENTS = st.sampled_from(["", "#", "#top", "#access_token=abc123def", "#sk-abcdefgh1234", "#a?b", "#Section_2"])


@st.composite
def _urls(draw: st.DrawFn) -> str:
    scheme = draw(st.sampled_from(["https://", "http://", "HTTPS://", ""]))
    path = "/".join(draw(st.lists(_SEGMENTS, max_size=4)))
    query = draw(st.sampled_from(["", "?", "?"])) and "?" + draw(_PAIRS)
    return f"{scheme}{draw(_HOSTS)}/{path}{query}{draw(_FRAGMENTS)}"


@given(st.lists(st.one_of(_urls(), st.text(max_size=30)), max_size=12))
@example(["https://a.example/p?n=1", "https://a.example/q?apiKey=x"])
@example(["https://a.example/p#sk-abcdefgh1234", "https://a.example/q"])
@example(["https://a.example/p?n=1\ntoken=x"])
@settings(max_examples=400)
def test_batch_check_gives_exactly_the_per_url_redaction(urls: list[str]) -> None:
    """redact_urls's batch check (the fast path for search results) returns exactly what redact_url returns URL
    by URL, on URLs with userinfo, camelCase and %-encoded secret names, every key shape, path parameters,
    fragments, IDNs, newlines and lone surrogates (and on any text a result's "url" field may hold)."""
    expected = [redact_url(u) for u in urls]
    assert redact_urls(urls) == expected
    assert redact_urls(list(urls)) == expected  # a second time: the memo of the last clean batch agrees too


# -- agent-shaped cases (tests/privacy/agent_corpus.py has them end to end) ------------------------------------
@pytest.mark.parametrize(("url", "expected"), [
    ("https://a.example/login?redirect_uri=https://b.example/cb?access_token=t1",
     "https://a.example/login?redirect_uri=https://b.example/cb?access_token=REDACTED"),
    ("https://a.example/login?next=https%3A%2F%2Fb.example%2Fcb%3Ftoken%3Dt2&lang=en",
     "https://a.example/login?next=https%3A%2F%2Fb.example%2Fcb%3Ftoken%3DREDACTED&lang=en"),
    ("https://a.example/p?data=client_secret%3Dt3%26x%3D1", "https://a.example/p?data=client_secret%3DREDACTED%26x%3D1"),
    ("https://a.example/p?a=1;token=t4", "https://a.example/p?a=1;token=REDACTED"),
    ("https://a.example/p?q=solar+power&key=t5", "https://a.example/p?q=solar+power&key=REDACTED"),
])
def test_urls_and_forms_nested_in_query_values_are_redacted(url: str, expected: str) -> None:
    """A login redirect's target, a percent-encoded ``next=``, a form in a value and a ";"-separated query lose
    their secrets; the pairs without one are kept byte for byte."""
    assert redact_url(url) == expected
    assert redact_url(expected) == expected


def test_nesting_is_bounded() -> None:
    """A value nested deeper than the bound is replaced whole when it may hold a secret, and a very deep one
    neither recurses without end nor leaks."""
    deep = "https://a.example/?r=" + "https://a.example/?r=" * 500 + "https://b.example/?token=t6"
    out = redact_url(deep)
    assert "t6" not in out and out.startswith("https://a.example/?r=")


def test_userinfo_of_any_scheme_and_private_keys_are_masked_in_text() -> None:
    """Database, cache and websocket URLs in an exception message lose their password; a private key block
    (whole, or cut off) is masked."""
    text = ("could not connect to postgresql://bob:pw-1@db:5432/x, redis://:pw-2@cache:6379/0 and "
            "wss://bob:pw-3@stream.example/socket; key -----BEGIN RSA PRIVATE KEY-----\nMIIEpw-4\n"
            "-----END RSA PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----\\nMIIEpw-5")
    out = redact_text(text)
    for secret in ("pw-1", "pw-2", "pw-3", "pw-4", "pw-5"):
        assert secret not in out
    assert "postgresql://REDACTED:REDACTED@db:5432/x" in out and "could not connect" in out


def test_arguments_mask_pairs_har_headers_cookies_and_named_positionals() -> None:
    """``params=[("api_key", ...)]``, header pairs, HAR ``{"name", "value"}`` entries, ``cookies=`` and a
    positional argument filling a secret-named parameter are masked; a tuple dict key no longer fails."""
    out = redact_arguments(
        ["https://h.example/", "bob", "pw-6"],
        {"params": [("api_key", "k-7"), ("q", "solar")], "headers": [("X-Api-Key", "k-8")],
         "har": [{"name": "Authorization", "value": "Token k-9"}], "cookies": {"sid": "c-10"},
         "d": {("a", "b"): 1}},
        4096, ("url", "user", "password"),
    )
    data = json.loads(out)
    for secret in ("pw-6", "k-7", "k-8", "k-9", "c-10"):
        assert secret not in out
    assert data["args"][:2] == ["https://h.example/", "bob"] and data["kwargs"]["params"][1] == ["q", "solar"]
    assert data["kwargs"]["d"] == {"('a', 'b')": 1}


@pytest.mark.timeout(60)  # quadratic before: 40,000 letters took 27 s, these would take hours
@pytest.mark.parametrize("text", ["x" * 2_000_000, "a." * 1_000_000, "/eyJ" + "a" * 20 + "-" * 1 + "eyJabc" * 300_000,
                                  "a." * 1_000_000 + " x://u:p@h"])
def test_free_text_redaction_is_linear_in_long_tokens(text: str) -> None:
    """One long token (a base64 body, a dotted run, a JWT-like prefix repeated) is redacted in linear time."""
    assert redact_text(text)


def test_a_name_never_starts_with_a_digit() -> None:
    """In text (and in a URL too broken to parse), ``1:8080/?accessToken=1`` is not the name "1" with the value
    "8080/?accessToken=1": that read hid the secret name behind it (the shared URL vector caught it)."""
    assert redact_url("//[::1:8080/x?accessToken=1&ClientSecret=2") == (
        "//[::1:8080/x?accessToken=REDACTED&ClientSecret=REDACTED")
    assert redact_text("retry 3:token=abc123") == "retry 3:token=REDACTED"
