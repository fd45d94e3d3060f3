"""The review queue's page in the run browser: keyboard labelling in a real browser, and the one write guarded."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator

import pytest

from citetrace.store import open_store
from citetrace.view import RunBrowser
from citetrace.view._review import ReviewDesk

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def queue(demo_store: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A review queue sampled from the demo runs by the real `citetrace review sample`."""
    path = str(tmp_path_factory.mktemp("review") / "queue.jsonl")
    done = subprocess.run([sys.executable, "-m", "citetrace", "review", "sample", "--store", demo_store,
                           "--queue", path, "--n", "6", "--judge", "deterministic"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture()
def desk(queue: str, tmp_path: Path, demo_store: str) -> Iterator[tuple[RunBrowser, ReviewDesk, Path]]:
    """The run browser with the queue at /review, labels going to a fresh file."""
    out = tmp_path / "ana.jsonl"
    review = ReviewDesk(queue, labeller="ana", out_path=str(out))
    store = open_store(demo_store)
    with RunBrowser(store, review=review) as browser:
        yield browser, review, out
    store.close()


def _labels(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_keys_label_skip_and_undo_in_a_real_browser(desk: tuple[RunBrowser, ReviewDesk, Path], open_page: Any,
                                                    artifacts: Path) -> None:
    """c labels the pair on screen CONTRADICTED (judge-eval format, labeller, time), n skips, u undoes."""
    browser, review, out = desk
    page = open_page(browser.url + "review").page
    first = page.locator("#pair").get_attribute("data-item")
    assert page.locator("#claim").inner_text() == review.queue.todo[0].claim
    page.screenshot(path=str(artifacts / "ui-review.png"), full_page=True)
    with page.expect_navigation():
        page.keyboard.press("c")
    rows = _labels(out)
    assert [(r["id"], r["label"], r["labeller"]) for r in rows] == [(first, "CONTRADICTED", "ana")]
    assert {"claim", "passage", "labelled_at", "source", "judge_label"} <= set(rows[0])
    second = page.locator("#pair").get_attribute("data-item")
    assert second != first
    with page.expect_navigation():
        page.keyboard.press("n")
    assert page.locator("#pair").get_attribute("data-item") not in (first, second) and len(_labels(out)) == 1
    with page.expect_navigation():
        page.keyboard.press("u")
    assert _labels(out) == [] and page.locator("#pair").get_attribute("data-item") == first


def _post(url: str, form: dict[str, str], headers: dict[str, str] | None = None) -> int:
    data = urllib.parse.urlencode(form).encode()
    req = urllib.request.Request(url + "review", data=data, method="POST", headers={
        "Content-Type": "application/x-www-form-urlencoded", **(headers or {})})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    try:
        with urllib.request.build_opener(NoRedirect).open(req, timeout=10) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_one_write_is_guarded(desk: tuple[RunBrowser, ReviewDesk, Path]) -> None:
    """A post without this server's token, from another origin, for a pair no longer on screen, or too big is
    refused and writes nothing; the right one is a 303 back to the page."""
    browser, review, out = desk
    item = review.queue.todo[0].id
    good = {"token": review.token, "item": item, "key": "s"}
    assert _post(browser.url, {**good, "token": "guess"}) == 403
    assert _post(browser.url, good, {"Origin": "http://evil.example"}) == 403
    assert _post(browser.url, {**good, "item": "r000000000000"}) == 409
    assert _post(browser.url, {**good, "key": "x"}) == 400
    assert _post(browser.url, {**good, "pad": "x" * 5000}) == 400
    assert _labels(out) == []
    assert _post(browser.url, good, {"Origin": browser.url.rstrip("/")}) == 303
    assert [r["label"] for r in _labels(out)] == ["SUPPORTED"]


def test_a_new_session_resumes_and_read_only_stays_read_only(desk: tuple[RunBrowser, ReviewDesk, Path],
                                                             queue: str, demo_store: str) -> None:
    """A second desk for the same labeller starts after the pairs already labelled; without a queue the
    browser has no /review page and refuses every POST."""
    browser, review, out = desk
    first = review.queue.todo[0].id
    assert _post(browser.url, {"token": review.token, "item": first, "key": "a"}) == 303
    resumed = ReviewDesk(queue, labeller="ana", out_path=str(out))
    assert first not in [it.id for it in resumed.queue.todo]
    assert first in [it.id for it in ReviewDesk(queue, labeller="ben", out_path=str(out)).queue.todo]
    store = open_store(demo_store)
    with RunBrowser(store) as plain:
        assert _post(plain.url, {"token": "t", "item": first, "key": "s"}) == 405
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(plain.url + "review", timeout=10)
        assert err.value.code == 404
    store.close()


def test_options_names_the_methods_each_path_takes(desk: tuple[RunBrowser, ReviewDesk, Path]) -> None:
    """With a review queue, a refused method on /review says `Allow: GET, HEAD, POST` (POST is what it takes);
    everywhere else `Allow: GET, HEAD` (it said GET, HEAD on /review too)."""
    browser, _, out = desk
    for path, allowed in (("review", "GET, HEAD, POST"), ("", "GET, HEAD")):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(urllib.request.Request(browser.url + path, method="OPTIONS"), timeout=10)
        assert refused.value.code == 405 and refused.value.headers["Allow"] == allowed
    assert not out.exists() or out.read_text(encoding="utf-8") == ""
