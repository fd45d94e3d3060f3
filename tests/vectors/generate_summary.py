"""Writes the shared summary vectors (tests/vectors/summary/*.json) from the Python implementation.

    PYTHONPATH=src:tests python tests/vectors/generate_summary.py

Each case's input is built here; its ``expected`` is what ``citetrace serve``'s path computes for it. The pytest
suite checks the committed files equal this output (so a change to the Python summary must regenerate them) and
runs every case through serve's path and the embedded processor; ``go test`` in collector/citetracesummary runs
the same files through the connector. Any divergence fails both suites.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from citetrace import names

from vectors._build import Trace, request
from vectors._runner import VECTORS, run_serve

CASES: dict[str, Callable[[], dict[str, Any]]] = {}


def case(about: str, *, embedded: bool = True, **config: Any) -> Callable[[Callable[[], list[dict[str, Any]]]], Any]:
    """Register a case: the function returns its batches (``{"at", "request"}``)."""
    def register(fn: Callable[[], list[dict[str, Any]]]) -> Any:
        CASES[fn.__name__] = lambda: {"name": fn.__name__, "about": about, "config": config, "embedded": embedded,
                                      "batches": fn()}
        return fn
    return register


def one(*traces: Trace, at: float = 0.0) -> list[dict[str, Any]]:
    return [{"at": at, "request": request(*traces)}]


A, B, C = "https://a.example/report", "https://b.example/data", "https://c.example/page"


@case("A healthy run: searches return what is read and cited.")
def healthy_run() -> list[dict[str, Any]]:
    t = Trace(1)
    t.search("solar growth 2024", [A, B, C])
    t.fetch(A)
    t.fetch(B)
    t.root([A, B])
    return one(t)


@case("Empty searches, failed reads (status and span error), rate limits.")
def failures() -> list[dict[str, Any]]:
    t = Trace(2)
    t.search("nothing here", [])
    t.search("rate limited", [], status=names.STATUS_RATE_LIMITED, error=True)
    t.search("no status but errored", [A], status=None, error=True)
    t.fetch(A, status=names.STATUS_EMPTY)
    t.fetch(B, status=None, error=True)
    t.fetch(C, status=names.STATUS_RATE_LIMITED, attrs={names.HTTP_RESPONSE_STATUS_CODE: 429})
    t.fetch(C, status="bogus")
    t.root([A])
    return one(t)


@case("Cited URLs no search returned, and cited URLs never fetched.")
def uncited_and_unfetched() -> list[dict[str, Any]]:
    t = Trace(3)
    t.search("q", [A, B])
    t.fetch(A)
    t.root([A, B, "https://made-up.example/source", "https://made-up.example/source#again"])
    return one(t)


@case("Secrets in URLs: raw citations meet redacted results and reads under one key.")
def secrets_in_urls() -> list[dict[str, Any]]:
    t = Trace(4)
    raw = "https://user:hunter2@api.example/v1/doc?api_key=sk-abcdefghijkl1234&id=7"
    redacted = "https://REDACTED:REDACTED@api.example/v1/doc?api_key=REDACTED&id=7"
    token = "https://news.example/story?accessToken=abc123&x=1#frag"
    shape = "https://x.example/p?q=tvly-AAAAAAAAAAAAAAAAAAAA&z=2"
    path_param = "https://shop.example/cart;jsessionid=ABCDEF?item=3"
    oauth = "https://login.example/cb#access_token=xyz&state=1"
    t.search("q", [redacted, token, shape, "https://shop.example/cart;jsessionid=REDACTED?item=3", oauth])
    t.fetch(redacted)
    t.fetch("https://news.example/story?accessToken=REDACTED&x=1")
    t.root([raw, token, shape, path_param, oauth, "https://sk-hynix.example/tech/sk-hynix-q3-results"])
    return one(t)


@case("Canonical URL forms: scheme, case, ports, slashes, tracking parameters, encodings, hosts.")
def canonical_forms() -> list[dict[str, Any]]:
    t = Trace(5)
    results = [
        "http://Example.COM:80/Path/?utm_source=x&b=2&a=1&fbclid=y#top",
        "https://www.example.com/", "https://example.com:8443/x", "HTTPS://example.org/a%2Fb/c%7e/",
        "https://example.org/sp ace/ü?q=a+b&r=%20c&empty=&flag", "https://[2001:db8::1]:443/v6",
        "https://bücher.example/straße", "https://example.net/a/../b/./c", "https://example.net?x=1",
        "ftp://files.example/x", "mailto:someone@example.com", "https://example.net/%E2%82%AC/%zz/%e2%82",
        "https://example.io/trail///", "  https://padded.example/x  ", "https://example.com./dot",
        "https://example.com/q?UTM_Campaign=1&MSCLKID=2&keep=3", "https://gh.example/?a=1&a=2",
    ]
    t.search("forms", results)
    t.fetch("https://example.com/path?b=2&a=1")
    t.fetch("https://example.org/a/b/c~")
    t.root([
        "https://example.com/Path?b=2&a=1", "http://www.example.com", "http://example.com:8443/x/",
        "https://example.org/a%2Fb/c~", "https://example.org/sp%20ace/%C3%BC?q=a%20b&r=+c&empty&flag=",
        "https://[2001:db8::1]/v6/", "https://BÜCHER.example/stra%C3%9Fe", "https://example.net/a/../b/./c#x",
        "https://example.net/?x=1", "ftp://files.example/x", "https://example.net/%E2%82%AC/%zz/%e2%82",
        "https://example.io/trail", "https://padded.example/x", "https://example.com/dot",
        "https://example.com/q?keep=3", "https://gh.example?a=1&a=2", "https://[::1/broken", "https://[1.2.3.4]/v4",
        "https://example.com:99999/badport", "https://example.com:abc/badport", "//no-scheme.example/x", "",
        "https://ｅｘａｍｐｌｅ.com/fullwidth", "https://a℀b.example/nfkc",
    ])
    return one(t)


@case("Too many searches and repeated queries (hash, then folded text when there is no hash).",
      max_searches=3)
def too_many_searches() -> list[dict[str, Any]]:
    t = Trace(6)
    for q in ("one", "two", "one", "ONE  "):
        t.search(q, [A])
    t.tool(names.TOOL_KIND_SEARCH, "web_search", attrs={names.QUERY_TEXT: "Straße  Plan"})
    t.tool(names.TOOL_KIND_SEARCH, "web_search", attrs={names.QUERY_TEXT: "STRASSE plan"})
    t.tool(names.TOOL_KIND_SEARCH, "web_search", attrs={names.QUERY_TEXT: ""})
    t.tool(names.TOOL_KIND_SEARCH, "web_search", attrs={names.QUERY_TEXT: " "})
    t.tool(names.TOOL_KIND_SEARCH, "web_search", attrs={names.QUERY_HASH: "", names.QUERY_TEXT: ""})
    t.root([A])
    return one(t)


@case("Retries are not repeats: a query searched again right after its attempt failed (rate_limited, error) is a "
      "retry; again after an answer (ok or empty) it is a repeat.")
def retried_queries() -> list[dict[str, Any]]:
    t = Trace(90)
    t.search("solar", [], status=names.STATUS_RATE_LIMITED)
    t.search("Solar ", [A])  # retry of the 429: not a repeat
    t.search("wind", [], status=names.STATUS_ERROR)
    t.search("tides", [B])  # another query in between
    t.search("wind", [B])  # still right after wind's own failed attempt: a retry
    t.search("solar", [A])  # after solar's answer: a repeat
    t.search("solar", [], status=names.STATUS_RATE_LIMITED)  # after an answer too: a repeat, although it failed
    t.search("solar", [A])  # right after that failure: a retry
    t.search("tides", [], status=names.STATUS_EMPTY)  # after an answer: a repeat
    t.search("tides", [B])  # after an empty answer: a repeat (empty is an answer, not a failure)
    t.root([A, B])
    return one(t)


@case("Spans out of order across batches (an export retried after a later one got through, or re-routed): search "
      "attempts are taken in the order their spans end, as in-process, so a retry stays a retry and a repeat a repeat.")
def out_of_order() -> list[dict[str, Any]]:
    t = Trace(92)
    s1 = t.search("solar", [], status=names.STATUS_RATE_LIMITED)
    s2 = t.search("solar", [A])  # retry of the 429
    s3 = t.search("wind", [B])
    s4 = t.search("wind", [B])  # a repeat
    s5 = t.search("wind", [], status=names.STATUS_ERROR)  # after an answer: a repeat
    s6 = t.search("wind", [B])  # right after that failure: a retry
    f1 = t.fetch(A)
    root = t.root([A, B])
    return [  # in arrival order they would be 3 repeats (solar's 429 after its answer, and wind's twice)
        {"at": 0.0, "request": request(t, spans=[s2, s4, f1])},
        {"at": 0.4, "request": request(t, spans=[s6, s5, s3, s1])},
        {"at": 0.8, "request": request(t, spans=[root])},
    ]


@case("Redirected fetches (url.full -301-> citetrace.url.final): the final URL is read, and stands for a search "
      "result when url.full was one (not one more URL seen); a redirect of a URL no search returned is still uncited.")
def redirected_fetch() -> list[dict[str, Any]]:
    t = Trace(91)
    old, new = "https://a.example/old", "https://a.example/new"
    t.search("q", [old])
    t.fetch(old, attrs={names.URL_FINAL: new, names.PAGES_RETURNED: [new]})
    t.fetch("https://x.example/moved", attrs={names.URL_FINAL: "https://x.example/here",
                                              names.PAGES_RETURNED: ["https://x.example/here"]})
    t.fetch(B, attrs={names.URL_FINAL: ""})  # an empty final URL is no redirect
    t.root([new, "https://x.example/here", B])
    return one(t)


@case("Runs split between two summarizers (a restart, a resize) or cut by a cap: a root whose own summary (the "
      "agent's, which saw every span) counts more searches or reads than arrived is counted incomplete, not "
      "summarised (its citations would look unreturned and unread); a root whose summary matches is summarised.",
      embedded=False)
def split_runs() -> list[dict[str, Any]]:
    agent_says = {names.summary_attr("searches"): 1, names.summary_attr("reads"): 2}
    root_only = Trace(92)  # its tool spans went to the instance that stopped
    root_only.root([A, B], attrs=agent_says)
    part = Trace(93)  # one read went elsewhere
    part.search("q", [A, B])
    part.fetch(A)
    part.root([A, B], attrs=agent_says)
    whole = Trace(94)
    whole.search("q", [A, B])
    whole.fetch(A)
    whole.fetch(B)
    whole.root([A, B], attrs=agent_says)
    return [{"at": 0.0, "request": request(root_only)}, {"at": 0.1, "request": request(part)},
            {"at": 0.2, "request": request(whole)}]


@case("The agent raised: error.type on the root, or an ERROR status.")
def agent_error() -> list[dict[str, Any]]:
    t1, t2 = Trace(7), Trace(8)
    t1.search("q", [A])
    t1.root([A], attrs={names.ERROR_TYPE: "ValueError"})
    t2.fetch(A)
    t2.root([], error=True)
    return one(t1, t2)


@case("Two runs in one trace, plus roots over the per-trace cap (refused, counted).", max_roots_per_trace=2,
      embedded=False)
def multiple_roots() -> list[dict[str, Any]]:
    t = Trace(9)
    t.search("q1", [A], run="run-a", agent="alpha")
    t.fetch(A, run="run-a", agent="alpha")
    t.search("q2", [], run="run-b", agent="beta")
    t.root([A], run="run-a", agent="alpha", span="a000000000000001")
    t.root([B], run="run-b", agent="beta", span="b000000000000002")
    t.root([C], run="run-c", agent="gamma", span="c000000000000003")
    return one(t)


@case("A run inside a run (a sub-agent): each root summarises its own run's tool calls.")
def nested_runs() -> list[dict[str, Any]]:
    t = Trace(24)
    inner_root = "1100000000000011"
    t.search("outer q", [A, B], run="outer", agent="lead")
    t.search("inner q", [B], run="inner", agent="helper", parent=inner_root)
    t.fetch(B, run="inner", agent="helper", parent=inner_root)
    t.root([B], run="inner", agent="helper", span=inner_root, parent=t.root_id, ms=20.0)
    t.fetch(A, run="outer", agent="lead")
    t.root([A, B], run="outer", agent="lead")
    return one(t)


@case("Tool spans under a root citetrace did not make: summarised at the TTL, named by the service.",
      embedded=False)
def foreign_root() -> list[dict[str, Any]]:
    t = Trace(10, service="langgraph-app")
    t.search("q", [A], run=None, agent=None, parent="f00000000000000f")
    t.fetch(B, run=None, agent=None, parent="f00000000000000f")
    t.other("LangGraph", {"openinference.span.kind": "CHAIN"}, parent="")
    return one(t)


@case("Wrongly typed attributes: each such span is refused alone; the rest are counted.", embedded=False)
def wrong_attribute_types() -> list[dict[str, Any]]:
    t = Trace(11)
    t.search("ok", [A])
    t.search("kvlist kind", [A], attrs={names.TOOL_KIND: {"x": 1}})
    t.search("mixed urls", [], attrs={names.URLS_RETURNED: ["https://x.example/", {"a": 1}]})
    t.search("lone string", [], attrs={names.URLS_RETURNED: "https://lone.example/"})
    t.fetch(B, attrs={names.TOOL_STATUS: 5})
    t.fetch(B, attrs={names.URL_FULL: ("raw", {"bytesValue": "aGk="})})
    t.fetch(C, attrs={names.SEARCH_SOURCES_REPORTED: "yes"})
    t.fetch(C, attrs={names.RUN_ID: None})
    t.fetch(C)
    t.other("an int where the ledger wants one", {names.LEDGER_TOOL_CALLS: "three"})
    t.root([A, C])
    return one(t)


@case("Huge URL lists: one under the per-trace URL cap, then spans that would pass it (refused).",
      max_urls_per_trace=2500, embedded=False)
def huge_url_lists() -> list[dict[str, Any]]:
    t = Trace(12)
    many = [f"https://r{i % 97}.example/p/{i}?id={i}&utm_medium=x" for i in range(2000)]
    t.search("big", many)
    t.search("too big", [f"https://big.example/{i}" for i in range(600)])
    t.fetch(many[5])
    t.root([many[5], many[1999], "https://big.example/3"])
    return one(t)


@case("Per-trace tool-span cap.", max_spans_per_trace=3, embedded=False)
def spans_per_trace() -> list[dict[str, Any]]:
    t = Trace(13)
    for i in range(5):
        t.fetch(f"https://s.example/{i}")
    t.root([])
    return one(t)


@case("The stable sample: healthy runs kept by the FNV-1a hash of their trace id (12.5 %, default salt).",
      sample_percent=12.5, sample_salt="default-hash-seed")
def sampling_decision() -> list[dict[str, Any]]:
    traces = []
    for n in range(100, 140):
        t = Trace(n)
        t.search("q", [A], run=f"run-{n}")
        t.fetch(A, run=f"run-{n}")
        t.root([A], run=f"run-{n}")
        traces.append(t)
    return one(*traces)


@case("Spans across batches: a duplicate re-sent by a retry counts once; a span after finalisation is late.",
      embedded=False)
def batches_duplicates_late() -> list[dict[str, Any]]:
    t = Trace(14)
    s1 = t.search("q", [A])
    f1 = t.fetch(A)
    root = t.root([A])
    late = t.fetch(B)
    return [
        {"at": 0.0, "request": request(t, spans=[s1, f1])},
        {"at": 0.5, "request": request(t, spans=[s1, root])},
        {"at": 10.0, "request": request(t, spans=[late])},
    ]


@case("Traces in flight over the cap: the least recently active is evicted; one with its root is still "
      "summarised, one without is lost (both counted).", max_traces=2, embedded=False)
def capacity_eviction() -> list[dict[str, Any]]:
    t1, t2, t3 = Trace(15), Trace(16), Trace(17)
    t1.search("q", [A])
    t1.root([A])
    t2.fetch(A)
    t3.fetch(B)
    t3.root([B])
    return [{"at": 0.0, "request": request(t1)}, {"at": 0.1, "request": request(t2)},
            {"at": 0.2, "request": request(t3)}]


@case("Bytes held over the bound: the least recently active traces are evicted (counted).",
      max_held_bytes=6000, embedded=False)
def held_bytes() -> list[dict[str, Any]]:
    traces = []
    for n in range(18, 22):
        t = Trace(n)
        t.search("q", [f"https://held.example/{n}/{i}" for i in range(8)])
        t.root([f"https://held.example/{n}/0"])
        traces.append(t)
    return [{"at": 0.1 * i, "request": request(t)} for i, t in enumerate(traces)]


@case("Provider-side search: unreported sources make citations uncheckable (unreported_searches counts each "
      "such search); returned content counts as read; "
      "page texts that came with results count once per URL key (pages_from_search); the URLs of a fetch of several "
      "URLs in one call count as fetched but not as pages from search.")
def provider_search() -> list[dict[str, Any]]:
    t1, t2 = Trace(22), Trace(23)
    t1.search("provider", [], status=names.STATUS_OK, attrs={names.SEARCH_SOURCES_REPORTED: False})
    t1.search("provider again", [], status=names.STATUS_OK, attrs={names.SEARCH_SOURCES_REPORTED: False})
    t1.root(["https://anything.example/x"])
    t2.search("with content", [A, B], attrs={names.SEARCH_CONTENT_RETURNED: True, names.SEARCH_SOURCES_REPORTED: True})
    t2.search("pages", [C], attrs={names.PAGES_RETURNED: [C]})
    # the same page again in another form, and one more: pages_from_search counts distinct URL keys (2)
    again = "https://C.EXAMPLE/page#top"
    t2.search("pages again", [again, "https://d.example/page"],
              attrs={names.PAGES_RETURNED: [again, "https://d.example/page"]})
    # a fetch of several URLs in one call: the pages it read count as read, not as pages from search
    t2.search("more", ["https://e.example/1", "https://e.example/2"])
    t2.fetch("https://e.example/1", attrs={names.PAGES_RETURNED: ["https://e.example/1", "https://e.example/2"]})
    t2.root([A, B, C, "https://e.example/1", "https://e.example/2"])
    return one(t1, t2)


@case("Label caps: agents and tools past the cap become 'other'; empty names are 'unknown'.", max_tool_names=2)
def label_caps() -> list[dict[str, Any]]:
    traces = []
    for n, agent in enumerate(("a1", "a2", "a3", "a4")):
        t = Trace(30 + n)
        t.search("q", [A], tool=f"tool{n}", agent=agent, run=f"run-{n}")
        t.fetch(A, tool="", agent=agent, run=f"run-{n}")
        t.root([A], agent=agent, run=f"run-{n}")
        traces.append(t)
    return one(*traces)


@case("Edge spans: a root with no tool calls, a negative duration, no service name, bad ids (refused), and "
      "spans of other instrumentations only.", embedded=False)
def edge_spans() -> list[dict[str, Any]]:
    t1, t2, t3 = Trace(40), Trace(41, service=None), Trace(42)
    t1.root(None, agent=None, run="bare")
    t2.fetch(A, agent=None, start=2_000_000_000_000_000_000, end=1_999_999_999_000_000_000)
    t2.root([A], agent=None)
    t3.other("GET /", {"http.request.method": "GET"})
    bad = dict(t3.spans[0], spanId="0000000000000000", attributes=t1.spans[0]["attributes"])
    return [{"at": 0.0, "request": request(t1, t2)}, {"at": 0.0, "request": request(t3)},
            {"at": 0.0, "request": request(t3, spans=[bad])}]


URL_PIECES = {
    "scheme": ["https://", "http://", "HTTPS://", "Http://", "ftp://", "", "//", "mailto:", " https://", "\thttps://"],
    "userinfo": ["", "", "", "user:pw@", "u@", "a:b@c@", "%40:x@"],
    "host": ["example.com", "Example.COM", "www.example.org", "bücher.example", "[2001:db8::1]", "[::1", "[v1.x]",
             "[1.2.3.4]", "ｅｘａｍｐｌｅ.com", "a℀b.example", "example.com.", "xn--bcher-kva.example", "İstanbul.tr", "",
             "KELVIN.example"],
    "port": ["", "", ":80", ":443", ":8080", ":", ":99999", ":abc", ":0443"],
    "path": ["", "/", "/a/b/", "/A%2fB", "/%7euser/", "/sp ace", "/ü/€", "/%E2%82", "/%zz%4", "/a;jsessionid=S3CR3T/b",
             "/tech/sk-hynix-q3-results", "//double//", "/a+b", "/%C3%BC", "/x;p=1", "/%ED%A0%80", "/%F0%9F%98%80",
             "/\u00e9t\u00e9", "/\n", "/a#b"],
    "query": ["", "?", "?a=1&b=2", "?utm_source=x&b=2", "?api_key=sk-abcdefghijklmnop&id=1", "?q=a+b%20c&&x",
              "?token=abc", "?accessToken=1&ClientSecret=2", "?code=xyz", "?x=tvly-ABCDEFGHIJKL", "?a=%zz&b=%e2%82",
              "?UTM_Medium=1&keep", "?a=1;b=2", "?ghp_aaaaaaaaaaaaaaaaaaaaaaaa=1", "?k=AKIAABCDEFGHIJKLMNOP", "?s=ſecret",
              "?Key=1", "?x=eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.sig", "?a=ü&b=€", "?=x", "?a==b"],
    "fragment": ["", "", "#", "#top", "#access_token=xyz&state=1", "#sk-aaaaaaaaaaaa", "#a=b", "#ü"],
}


def url_cases() -> list[str]:
    """Hand-picked and combinatorial URLs (deterministic) for the URL-key vector."""
    import random

    rng = random.Random(20)
    urls = ["", " ", "not a url", "https://", "http://a", "https://a.example/x\n", "https://a.example/\x00x",
            "\u2003https://em-space.example/x\u2003", "\x1chttps://fs.example/", "https://a.example:8080",
            "https://a.example/?utm_source=only", "https://a.example/?fbclid=1#frag", "HTTP://A.EXAMPLE/A/"]
    for _ in range(1500):
        urls.append("".join(rng.choice(URL_PIECES[k]) for k in ("scheme", "userinfo", "host", "port", "path", "query",
                                                                "fragment")))
    # the commonest shape, scheme://host/path and nothing after it, which the Go key takes without allocating, and
    # the edges of that shortcut (no path, a trailing dot or slash, upper case, a port, an escape, key shapes)
    urls += ["https://example.com/a/b", "http://example.com/a", "https://www.example.org/2024/05/article-title",
             "https://docs.example.com/en/latest/api.html", "https://a.example/", "https://a.example/p.",
             "https://sub-domain.example/x_y~z", "https://a.example//double", "https://a.example/a/b/",
             "https://a.example./x", "https://a.example", "https://xn--bcher-kva.example/p", "https://1.2.3.4/x",
             "https://example.com/tech/sk-hynix-q3-results", "https://example.com/sk-abcdefghijklmnopqrstuv",
             "https://example.com/v/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkw.c2lnbmF0dXJl",
             "https://Example.com/a", "https://example.com/A/B", "https://example.com:443/x", "https://example.com/a%20b",
             "http://a-b.c-d.example/-/_/~/.", "https://example.com/token/secret/password"]
    # secrets nested in parameter values (_redact_params/_redact_nested): URLs raw and percent-encoded, forms,
    # ";"-separated queries, more levels than are followed, other schemes' userinfo, plurals, PEM blocks
    urls += ["https://login.example/auth?redirect_uri=https://app.example/cb?access_token=xyz&state=1",
             "https://login.example/auth?next=https%3A%2F%2Fapp.example%2Fcb%3Faccess_token%3Dxyz%26x%3D1&s=2",
             "https://a.example/go?url=https%3A%2F%2Fb.example%2F%3Fnext%3Dhttps%253A%252F%252Fc.example%252F"
             "%253Fapi_key%253Dsk-abcdefghijkl&x=1",
             "https://a.example/r?u=https://b.example/?u=https://c.example/?u=https://d.example/?token=abc",
             "https://a.example/p?data=client_secret%3Dabc%26grant%3Dx&keep=a%20b",
             "https://a.example/p?a=1;token=abc;b=2", "https://a.example/p;jsessionid=abc?x=1;y=2",
             "https://a.example/p?db=postgresql://bob:pw@db.example/x&y=1",
             "https://a.example/p?cookies=sid%3D1&passwords=x&tokens=y",
             "https://a.example/p?pem=-----BEGIN RSA PRIVATE KEY-----abc-----END RSA PRIVATE KEY-----&x=1",
             "https://a.example/p?pem=-----BEGIN PRIVATE KEY-----cut-off",
             "https://a.example/p?q=see+https://b.example/x?sig=abc.&r=1",
             "https://a.example/p?v=%zz%3D1&w=a%3Db+c", "https://a.example/p?=%3D&&x=&token",
             "https://a.example/p#state=1&next=https://b.example/?code=xyz"]
    return urls


def url_vector() -> dict[str, Any]:
    """Every URL with its ``url_key`` and ``redact_url`` as Python computes them."""
    from citetrace._urls import canonical_url, redact_url, url_key

    return {"about": "url_key, redact_url and canonical_url of tricky and combinatorial URLs (citetrace/_urls.py)",
            "cases": [{"url": u, "key": url_key(u), "redacted": redact_url(u), "canonical": canonical_url(u)}
                      for u in url_cases()]}


def render_urls(data: dict[str, Any]) -> str:
    """The committed text of the URL vector: one case a line."""
    lines = ["{", f' "about": {json.dumps(data["about"])},', ' "cases": [']
    lines.append(",\n".join("  " + json.dumps(c, ensure_ascii=False) for c in data["cases"]))
    lines += [" ]", "}"]
    return "\n".join(lines) + "\n"


URL_VECTOR = VECTORS.parent / "url_keys.json"
"""The URL-key vector (one file; the Go suite reads it too)."""


@case("The claim ledger's revision iterations and stop reason become the ledger metrics (a re-sent iteration "
      "counts once).", embedded=False)
def ledger_iterations() -> list[dict[str, Any]]:
    t = Trace(50)
    t.search("q", [A])
    iterations = [
        t.other("ledger.iteration", {names.GEN_AI_AGENT_NAME: "scout", names.LEDGER_TRIGGER: names.TRIGGER_CONTRADICTED,
                                     names.LEDGER_UNRESOLVED: 3, names.LEDGER_UNRESOLVED_DELTA: 0,
                                     names.LEDGER_TOOL_CALLS: 4, names.LEDGER_NEW_EVIDENCE: 1, names.LEDGER_FLIPS: 2}),
        t.other("ledger.iteration", {names.GEN_AI_AGENT_NAME: "scout", names.LEDGER_TRIGGER: names.TRIGGER_STALE,
                                     names.LEDGER_UNRESOLVED: 1, names.LEDGER_UNRESOLVED_DELTA: -2,
                                     names.LEDGER_TOOL_CALLS: -1, names.LEDGER_NEW_EVIDENCE: 2}),
        t.other("ledger.iteration", {names.LEDGER_TRIGGER: "not-a-trigger", names.LEDGER_UNRESOLVED: 1}),
        t.other("ledger.iteration", {names.LEDGER_TRIGGER: names.TRIGGER_OPEN_QUESTION}),
    ]
    t.root([A], attrs={names.LEDGER_STOP_REASON: names.STOP_GOAL_SATISFIED})
    return [{"at": 0.0, "request": request(t)}, {"at": 0.1, "request": request(t, spans=iterations[:1])}]


@case("Fetches whose content gave no text count under their reason (citetrace_unreadable_reads_total); a value "
      "outside the closed set, and the attribute on a search, count nothing.")
def unreadable_reads() -> list[dict[str, Any]]:
    t = Trace(51)
    t.search("reports", [A, B, C])
    for url, reason in ((A, names.PDF_NO_TEXT), (B, names.CONSENT_WALL), (C, names.CONSENT_WALL),
                        (C + ".png", names.BINARY_CONTENT), (A + "?v=2", "not-a-reason")):
        t.fetch(url, status=names.STATUS_EMPTY, attrs={names.CONTENT_UNREADABLE: reason})
    t.search("more", [A], attrs={names.CONTENT_UNREADABLE: names.PDF_DAMAGED})
    t.root([A])
    return one(t)


def build(name: str) -> dict[str, Any]:
    """One case with its expected results."""
    data = CASES[name]()
    data["expected"] = run_serve(data)
    return data


def render(data: dict[str, Any]) -> str:
    """The committed text of a vector: one line per batch, the expected results one item a line."""
    head = {k: v for k, v in data.items() if k not in ("batches", "expected")}
    lines = ["{"] + [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    lines.append(' "batches": [')
    lines.append(",\n".join("  " + json.dumps(b, ensure_ascii=False, separators=(",", ":")) for b in data["batches"]))
    lines.append(" ],")
    expected = json.dumps(data["expected"], indent=1, ensure_ascii=False).replace("\n", "\n ")
    lines.append(f' "expected": {expected}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> int:
    VECTORS.mkdir(exist_ok=True)
    for name in CASES:
        (VECTORS / f"{name}.json").write_text(render(build(name)))
    stale = {p.stem for p in VECTORS.glob("*.json")} - set(CASES)
    for name in stale:
        (VECTORS / f"{name}.json").unlink()
    URL_VECTOR.write_text(render_urls(url_vector()))
    print(f"wrote {len(CASES)} vectors to {VECTORS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
