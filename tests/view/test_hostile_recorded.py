"""A hostile run recorded for real (``@traced_tool`` against pages served on 127.0.0.1, content capture on), browsed
in ``citetrace ui`` with Chromium: bidi overrides cannot reorder what is shown, 200,000-character words and 1 MB
lines do not widen the page (desktop or phone), the run list stays small however long a question is, a judged
passage is shown around its quote, not whole, and a secret typed into a run's address is not echoed back."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest
import requests

from citetrace import research_run, traced_tool
from citetrace.store import Store, open_store
from citetrace.summary import TraceSummaryProcessor
from citetrace.testing import capture_spans
from citetrace.view import RunBrowser, page_for_run
from instrumentation._net import LocalServer

pytestmark = pytest.mark.slow

RLO = "\u202e"
LONG_WORD = "L" * 200_000
PAGE = ("<html><head><title>" + RLO + "fdp.exe</title></head><body><p>" + "Solar grew 24 percent in 2024. " * 40
        + "</p></body></html>")
BIG = "<html><body><p>" + "Solar grew 24 percent in 2024. " * 40 + "filler words here. " * 250_000 + "</p></body></html>"
_BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.fixture(scope="module")
def hostile_ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunBrowser, str, Store]]:
    """One run recorded through ``@traced_tool`` into SQLite, served by the run browser."""
    store = open_store(f"sqlite:///{tmp_path_factory.mktemp('hostile') / 'store.db'}")
    with LocalServer() as site:
        site.routes["/page"] = (200, PAGE, "text/html")
        site.routes["/big"] = (200, BIG, "text/html")
        urls = [site.base + "/page/" + RLO + "lmth.txt", site.base + "/big"]
        site.routes["/search"] = (200, '{"results": [' + ", ".join(f'{{"url": "{u}"}}' for u in urls) + "]}",
                                  "application/json")

        @traced_tool(kind="search")
        def web_search(query: str) -> list[dict[str, str]]:
            response = requests.get(site.base + "/search", params={"q": query}, timeout=10)
            return list(response.json()["results"])

        @traced_tool(kind="fetch")
        def read_page(url: str) -> str:
            return requests.get(url, timeout=10).text

        with capture_spans(store=store, processors=(TraceSummaryProcessor(store=store),), capture_content=True) as cap:
            with research_run(question=f"How fast? {RLO}txet desrever {LONG_WORD}", agent="hunt") as run:
                hits = web_search(f"solar {RLO}gnorw")
                for hit in hits:
                    read_page(hit["url"])
                run.record_answer(f"Solar grew 24 percent in 2024 [1][2]. {RLO}esrever {LONG_WORD}\n" + "x" * 1_000_000
                                  + "\n\n" + "".join(f"[{i + 1}] {h['url']}\n" for i, h in enumerate(hits)))
            cap.tracer_provider.force_flush()
    with RunBrowser(store) as browser:
        yield browser, run.id, store
    store.close()


def _layout(page: Any) -> dict[str, Any]:
    page.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
    return dict(page.evaluate("""() => ({wide: document.documentElement.scrollWidth,
                                         view: document.documentElement.clientWidth,
                                         text: document.body.innerText})"""))


@pytest.mark.parametrize("width", [1200, 375])
def test_layout_holds_and_no_bidi_override_reorders_text(hostile_ui: tuple[RunBrowser, str, Store], open_page: Any,
                                                        width: int, artifacts: Path) -> None:
    """The list and the run page fit the window, and every bidi control is shown as its code point, not obeyed."""
    ui, run_id, _ = hostile_ui
    for url in (ui.url, ui.url + "runs/" + run_id):
        loaded = open_page(url, width=width)
        shown = _layout(loaded.page)
        assert shown["wide"] <= shown["view"], f"{url} is {shown['wide']} px wide in a {shown['view']} px window"
        assert not any(c in shown["text"] for c in _BIDI_CONTROLS), url
        assert "U+202E" in shown["text"]
        assert loaded.console == [] and loaded.dialogs == []
    loaded.page.screenshot(path=str(artifacts / f"hostile-run-{width}.png"))


def test_run_list_shows_the_start_of_a_long_question(hostile_ui: tuple[RunBrowser, str, Store]) -> None:
    """A 200,000-character question costs the list a few hundred characters, not 200 KB per row."""
    ui, run_id, _ = hostile_ui
    with urllib.request.urlopen(ui.url, timeout=30) as resp:
        body = resp.read().decode("utf-8")
    assert run_id in body and "How fast?" in body
    assert len(body) < 30_000


def test_judged_passage_is_cut_around_the_quote(hostile_ui: tuple[RunBrowser, str, Store], tmp_path: Path,
                                                open_page: Any) -> None:
    """A verdict whose passage is a whole 5 MB page (no sentence break in it) shows a window around the quote."""
    _, run_id, store = hostile_ui
    big = next(d for d in store.documents(run_id) if d.url.endswith("/big"))
    evaluation = {"run_id": run_id, "judge": "offline", "offline": True, "judge_version": None,
                  "rates": {}, "pairs": [
        {"claim": "Solar grew 24 percent in 2024.", "url": big.url, "label": "SUPPORTED",
         "passages": [{"start": 0, "end": len(big.text)}],
         "judge": {"name": "offline", "quote": "filler words here. filler words here.", "explanation": "found"}}]}
    path = tmp_path / "judged.html"
    path.write_text(page_for_run(store, run_id, evaluation=evaluation), encoding="utf-8")
    assert path.stat().st_size < 2_500_000  # the answer's 1 MB line is shown whole; the 5 MB passage is not
    page = open_page(path.as_uri()).page
    quotes = page.locator("#citations .quote pre").evaluate_all("els => els.map(e => e.textContent.length)")
    assert quotes and max(quotes) <= 1_500, quotes
    assert page.locator("#citations .quote mark").first.inner_text() == "filler words here. filler words here."


def test_a_secret_in_the_address_is_not_echoed(hostile_ui: tuple[RunBrowser, str, Store]) -> None:
    """The 404 for a run reference that carries credentials names it redacted."""
    ui, _, _ = hostile_ui
    ref = "https%3A%2F%2Fuser%3Ahunter2pass%40x.example%2F%3Fapi_key%3Dsk-SECRETSECRETSECRET12"
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(ui.url + "runs/" + ref, timeout=10)
    body = missing.value.read().decode("utf-8")
    assert missing.value.code == 404 and "no run" in body
    assert "hunter2pass" not in body and "SECRETSECRET" not in body
