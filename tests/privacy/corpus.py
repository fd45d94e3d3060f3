"""The secret corpus: 56 ways a secret reaches citetrace, run through every sink it can land in.

Each case is one research run with a real ``requests`` call (transport scripted by ``responses``), a search
that returns the case's URL, a fetch that reads it, a fetch that fails with ``requests``' own ``HTTPError``
text (which quotes the URL), and an answer that cites it. The sinks are read back as a user would see them:
span attributes and status, span events, the SQLite store (answer apart), ``citetrace eval``, ``citetrace
gate`` (both on the recorded answer and on the raw report passed with ``--report``), ``citetrace show`` and
the ``citetrace view`` run page.

``python -m tests.privacy.corpus`` prints the leaks per sink (the table in docs/privacy.md).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlsplit

import requests
import responses

from citetrace import research_run, traced_tool
from citetrace.cli import main as cli_main
from citetrace.store import SQLiteStore
from citetrace.testing import capture_spans

__all__ = ["Case", "CASES", "PATH_CASES", "SINKS", "Outcome", "run_corpus"]

CLEAN = "https://docs.example.org/energy/report"
SINKS = ("span attributes", "span events", "store, answer aside", "store answer", "eval", "gate", "show", "view")


@dataclass(frozen=True)
class Case:
    """One way a secret arrives. ``secret`` is the text that must appear in no sink."""

    id: str
    secret: str
    url: str = CLEAN
    kwargs: dict[str, Any] = field(default_factory=dict)
    query: str = "battery storage prices"
    error: str | None = None  # a message the failing call raises instead of requests' HTTPError text


def _param(name: str, value: str, base: str = "https://api.example.com/v1/doc?id=7") -> Case:
    return Case(f"query {name}=", value, f"{base}&{name}={value}")


_SK_LIVE = "sk_live_51HqT9xLk2mN8pQ4rS6tU0vWz"
_RK_LIVE = "rk_live_51HqT9xLk2mN8pQ4rS6tU0vWy"
_GITHUB_PAT = "github_pat_11ABCDEFG0123456789abc_" + "defghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVW"
_AIZA = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
_HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh"
_XOXB = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
_XOXP = "xoxp-123456789012-1234567890123-1234567890123-0123456789abcdef0123456789abcdef"
_GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
_AKIA = "AKIA" + "Z7Q2M4N6P8R0T2V4"
_SK_PROJ = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90"
_TVLY = "tvly-dev-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
_JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"

CASES: tuple[Case, ...] = (
    Case("userinfo", "Pw0rd-bob-77", "https://bob:Pw0rd-bob-77@intranet.example.com/reports/q3"),
    _param("api_key", "k-8f3a91d2c4"),
    _param("apikey", "k-7e2b80c1d3"),
    _param("key", "k-6d1a7fb0e2"),
    _param("token", "t-5c09ef6ad1"),
    _param("access_token", "t-4b98de59c0"),
    _param("auth", "a-3a87cd48bf"),
    _param("password", "p-2976bc37ae"),
    _param("secret", "s-18659b269d"),
    _param("X-Amz-Signature", "f00dfeedbeef0123456789abcdef"),
    _param("X-Amz-Credential", "AKIDEXAMPLE-20240101-cred"),
    _param("sig", "g-0754a9158c"),
    _param("code", "c-f643987e4b"),
    _param("session", "x-e532876d3a"),
    _param("sessionid", "x-d421765c29"),
    Case("fragment #access_token=", "t-c310654b18", "https://app.example.com/callback#access_token=t-c310654b18&state=s1"),
    Case("fragment #id_token= (JWT)", _JWT, f"https://app.example.com/cb#id_token={_JWT}"),
    _param("accessToken", "t-b2f9543a07"),
    _param("authToken", "t-a1e8432f96"),
    _param("apiKey", "k-90d7321e85"),
    _param("clientSecret", "s-8fc6210d74"),
    _param("sessionId", "x-7eb51f0c63"),
    _param("client_secret", "s-6da40efb52"),
    _param("refresh_token", "t-5c93fdea41"),
    _param("private_token", "t-4b82ecd930"),
    _param("passwd", "p-3a71dbc82f"),
    _param("Authorization", "Bearer-2960cab71e"),
    _param("API_KEY", "k-1859b9a60d"),
    _param("subscription-key", "k-0748a895fc"),
    _param("X-Api-Key", "k-f637978eeb"),
    _param("signature", "g-e526867dda"),
    _param("x-goog-signature", "g-d415756cc9"),
    Case("query api%5Fkey= (encoded)", "k-c304645bb8", "https://api.example.com/doc?api%5Fkey=k-c304645bb8"),
    Case("sk_live_ in a query value", _SK_LIVE, f"https://api.example.com/doc?q={_SK_LIVE}"),
    Case("rk_live_ in a query value", _RK_LIVE, f"https://api.example.com/doc?q={_RK_LIVE}"),
    Case("github_pat_ in a query value", _GITHUB_PAT, f"https://api.example.com/doc?q={_GITHUB_PAT}"),
    Case("AIza outside key=", _AIZA, f"https://maps.example.com/js?k={_AIZA}&libraries=places"),
    Case("hf_ in a query value", _HF, f"https://hub.example.com/doc?q={_HF}"),
    Case("xoxb- in a query value", _XOXB, f"https://chat.example.com/doc?q={_XOXB}"),
    Case("xoxp- in a query value", _XOXP, f"https://chat.example.com/doc?q={_XOXP}"),
    Case("ghp_ in a query value", _GHP, f"https://git.example.com/doc?q={_GHP}"),
    Case("AKIA in a query value", _AKIA, f"https://s3.example.com/doc?q={_AKIA}"),
    Case("sk-proj- in a query value", _SK_PROJ, f"https://llm.example.com/doc?q={_SK_PROJ}"),
    Case("tvly- in a query value", _TVLY, f"https://search.example.com/doc?q={_TVLY}"),
    Case("JWT in a query value", _JWT[:-4] + "Qz9w", f"https://app.example.com/doc?q={_JWT[:-4]}Qz9w"),
    Case(";jsessionid= path parameter", "9A8B7C6D5E4F3A2B1C0D", "https://shop.example.com/cart;jsessionid=9A8B7C6D5E4F3A2B1C0D?item=4"),
    Case("kwarg api_key=", "kw-8a7b6c5d4e", kwargs={"api_key": "kw-8a7b6c5d4e"}),
    Case("kwarg password=", "kw-7f6e5d4c3b", kwargs={"password": "kw-7f6e5d4c3b"}),
    Case("kwarg headers={Authorization}", "hdr-6e5d4c3b2a", kwargs={"headers": {"Authorization": "Bearer hdr-6e5d4c3b2a"}}),
    Case("kwarg headers={X-API-Key}", "hdr-5d4c3b2a19", kwargs={"headers": {"X-API-Key": "hdr-5d4c3b2a19"}}),
    Case("kwarg proxy URL user:pw@", "prx-4c3b2a1908", kwargs={"proxies": {"https": "http://svc:prx-4c3b2a1908@proxy.example:3128"}}),
    Case("kwarg accessToken=", "kw-3b2a190817", kwargs={"accessToken": "kw-3b2a190817"}),
    Case("kwarg auth=(user, pw)", "kw-2a19081726", kwargs={"auth": ["svc", "kw-2a19081726"]}),
    Case("key shape in the search query", _SK_LIVE.replace("51H", "77Z"), query=f"docs for {_SK_LIVE.replace('51H', '77Z')}"),
    Case("secret URL in the search query", "q-19081726354", query="read https://api.example.com/x?token=q-19081726354"),
    Case("bearer token in an exception message", "exc-0817263544", error="request failed: Authorization: Bearer exc-0817263544"),
)

# Paths name pages and are documented as not redacted: these are listed apart, never counted as leaks.
PATH_CASES: tuple[Case, ...] = (
    Case("Slack webhook path", "B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
         "https://hooks.slack.example/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    Case("bot token in the path", "123456:ABC-DEF1234ghIkl", "https://api.telegram.example/bot123456:ABC-DEF1234ghIkl/getMe"),
    Case("key shape as a path segment", _GHP, f"https://git.example.com/{_GHP}/raw"),
)


@dataclass
class Outcome:
    """What one case left in each sink, and whether the gate named exactly the one citation the run never read
    (on the recorded answer, and on the raw report): a fetched citation reported unfetched is a wrong failure."""

    case: Case
    leaked: dict[str, bool]
    gate_right: bool
    gate_right_raw_report: bool


def _unread(url: str) -> str:
    """The same URL on another host: cited, never fetched, so the gate names it (and must name it redacted)."""
    host = urlsplit(url).hostname or ""
    return url.replace(host, "unread." + host, 1)


def _answer(url: str) -> str:
    return (f"Storage prices fell by 20 percent in 2024 [1]. The full table is at {url} for reference. "
            f"Prices may rise again [2].\n\n[1] {url}\n[2] {_unread(url)}\n")


def _cli(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    return code, out.getvalue() + err.getvalue()


@traced_tool(kind="search")
def web_search(query: str) -> list[dict[str, str]]:
    """Search the (scripted) web."""
    return requests.get("https://search.example.net/api", params={"q": query}, timeout=2).json()["results"]  # type: ignore[no-any-return]


@traced_tool(kind="fetch")
def read_page(url: str, **options: Any) -> str:
    """Read one page."""
    response = requests.get(url, timeout=2)
    response.raise_for_status()
    return response.text


@traced_tool(kind="fetch")
def read_page_strict(url: str, error: str | None = None) -> str:
    """Read one page that answers 401 (or fails with ``error``)."""
    if error is not None:
        raise RuntimeError(error)
    response = requests.get(url + ("&" if "?" in url else "?") + "strict=1", timeout=2)
    response.raise_for_status()
    return response.text


def _one_run(case: Case) -> Any:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        mock.add(responses.GET, "https://search.example.net/api", json={"results": [{"url": case.url, "title": "t"}]})
        mock.add(responses.GET, re.compile(r".*strict=1.*"), status=401)
        mock.add(responses.GET, re.compile(r".*"), body="Storage prices fell by 20 percent in 2024. " * 20)
        with research_run(question="What happened to storage prices?", agent="corpus") as run:
            web_search(case.query)
            read_page(case.url, **case.kwargs)
            try:
                read_page_strict(case.url, error=case.error)
            except (requests.HTTPError, RuntimeError):
                pass
            run.record_answer(_answer(case.url))
    return run


def _text(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _span_sinks(spans: list[Any]) -> tuple[str, str]:
    attrs = _text([[dict(s.attributes or {}), s.status.description] for s in spans])
    events = _text([[e.name, dict(e.attributes or {})] for s in spans for e in s.events])
    return attrs, events


def _store_sinks(store: SQLiteStore, run_id: str) -> tuple[str, str]:
    run = store.get_run(run_id)
    assert run is not None
    record = asdict(run)
    answer = record.pop("answer") or ""
    docs = [{k: v for k, v in asdict(d).items() if k != "text"} for d in store.documents(run_id)]
    return _text([record, [asdict(c) for c in store.calls(run_id)], docs]), answer


def _check(case: Case, capture_content: bool, db: Path) -> Outcome:
    store = SQLiteStore(db)
    with capture_spans(store=store, capture_content=capture_content) as cap:
        run = _one_run(case)
        attrs, events = _span_sinks(cap.spans)
    stored, answer = _store_sinks(store, run.id)
    store.close()
    uri = f"sqlite:///{db}"
    report = db.with_suffix(".md")
    report.write_text(_answer(case.url), encoding="utf-8")
    common = ["--store", uri, "--offline", "--judge", "deterministic"]
    eval_out = "".join(_cli(["eval", run.id, *common, *extra])[1]
                       for extra in ([], ["--json"], ["--report", str(report)], ["--report", str(report), "--json"]))
    gate_right: list[bool] = []
    gate_out = ""
    for extra in ([], ["--json"], ["--report", str(report)], ["--report", str(report), "--json"]):
        code, out = _cli(["gate", run.id, *common, *extra])
        failures = len(json.loads(out)["failures"]) if "--json" in extra else out.count("FAIL ")
        gate_right.append(code == 1 and failures == 1)
        gate_out += out
    show_out = _cli(["show", run.id, "--store", uri])[1] + _cli(["show", run.id, "--store", uri, "--json"])[1]
    view_out = _cli(["view", run.id, "--store", uri, "--evaluate", "-o", "-"])[1]
    texts = dict(zip(SINKS, (attrs, events, stored, answer, eval_out, gate_out, show_out, view_out)))
    return Outcome(case, {sink: case.secret in text for sink, text in texts.items()},
                   gate_right=gate_right[0] and gate_right[1], gate_right_raw_report=gate_right[2] and gate_right[3])


def run_corpus(cases: tuple[Case, ...], *, capture_content: bool) -> list[Outcome]:
    """Every case, each in its own SQLite store under a temporary folder."""
    out: list[Outcome] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n, case in enumerate(cases):
            out.append(_check(case, capture_content, Path(tmp) / f"case{n}.db"))
    return out


def _table(results: dict[str, list[Outcome]]) -> Iterator[str]:
    yield "| sink | " + " | ".join(results) + " |"
    yield "|---|" + "---:|" * len(results)
    for sink in SINKS:
        yield f"| {sink} | " + " | ".join(str(sum(o.leaked[sink] for o in rs)) for rs in results.values()) + " |"
    yield ("| runs where the gate called a fetched citation unfetched (recorded answer / raw report) | "
           + " | ".join(f"{sum(not o.gate_right for o in rs)} / {sum(not o.gate_right_raw_report for o in rs)}"
                        for rs in results.values()) + " |")


def main() -> None:  # pragma: no cover - prints the table for the docs
    """Print leaks per sink with content capture off and on, then the path cases."""
    results = {f"capture {mode}": run_corpus(CASES, capture_content=mode == "on") for mode in ("off", "on")}
    print(f"{len(CASES)} cases")
    print("\n".join(_table(results)))
    detail: Callable[[Outcome], str] = lambda o: ", ".join(s for s, v in o.leaked.items() if v) or "none"
    for mode, rs in results.items():
        for o in rs:
            if any(o.leaked.values()) or not (o.gate_right and o.gate_right_raw_report):
                print(f"  {mode}: {o.case.id}: {detail(o)}; gate right {o.gate_right}/{o.gate_right_raw_report}")
    print("path cases (documented as not redacted):")
    for o in run_corpus(PATH_CASES, capture_content=True):
        print(f"  {o.case.id}: present in {detail(o)}")


if __name__ == "__main__":  # pragma: no cover
    main()
