"""The demo servers over real HTTP: deterministic search, served pages, and every fault on request."""

from __future__ import annotations

import socket
import time

import pytest
import requests

from citetrace.demo import COOKIE_WALL_HTML, DemoServers, SearchIndex, html_to_text, load_corpus, page


def test_search_returns_ranked_json_results(servers: DemoServers) -> None:
    """A search answers JSON results with url, title and snippet, the same ones the BM25 index ranks."""
    r = requests.get(servers.search_url, params={"q": "Lake Orrin phosphorus", "n": "3"}, timeout=5)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    results = r.json()["results"]
    expected = SearchIndex(load_corpus()).search("Lake Orrin phosphorus", 3)
    assert [x["url"] for x in results] == [servers.page_url(h.page.slug) for h in expected]
    assert all(x["title"] and x["snippet"] for x in results)
    again = requests.get(servers.search_url, params={"q": "Lake Orrin phosphorus", "n": "3"}, timeout=5)
    assert again.json() == r.json()


def test_search_with_no_matching_term_is_empty(servers: DemoServers) -> None:
    """A typo query shares no term with the corpus and answers 200 with no results."""
    r = requests.get(servers.search_url, params={"q": "altavrea cofee harvst"}, timeout=5)
    assert r.status_code == 200 and r.json()["results"] == []


def test_search_rate_limit_fault(servers: DemoServers) -> None:
    """``fault=rate_limit`` answers 429 with a Retry-After header."""
    r = requests.get(servers.search_url, params={"q": "coffee", "fault": "rate_limit"}, timeout=5)
    assert r.status_code == 429 and r.headers["Retry-After"] == "1"


@pytest.mark.parametrize(("params", "needle"), [({}, "missing query"), ({"q": "x", "n": "0"}, "n must be"),
                                                 ({"q": "x", "n": "many"}, "n must be")])
def test_search_bad_input_is_a_400_naming_the_problem(servers: DemoServers, params: dict[str, str],
                                                       needle: str) -> None:
    """Missing or malformed parameters get 400 and a JSON error that names the problem."""
    r = requests.get(servers.search_url, params=params, timeout=5)
    assert r.status_code == 400 and needle in r.json()["error"]


def test_site_serves_pages_as_html(servers: DemoServers) -> None:
    """A corpus page is served as HTML whose readable text is the page text; unknown paths are 404."""
    p = page("altavera-harvest-2024")
    r = requests.get(servers.page_url(p.slug), timeout=5)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("text/html")
    assert html_to_text(r.text) == p.text
    assert requests.get(servers.page_url("no-such-page"), timeout=5).status_code == 404
    assert requests.get(servers.site_url + "/", timeout=5).text.count("<li>") == len(load_corpus())


def test_page_faults(servers: DemoServers) -> None:
    """The gone page is 404, the walled page is 200 with under 200 characters of text."""
    assert requests.get(servers.page_url("lake-orrin-monitoring-buoys"), timeout=5).status_code == 404
    wall = requests.get(servers.page_url("halverncycle-safety-2024"), timeout=5)
    assert wall.status_code == 200 and wall.text == COOKIE_WALL_HTML
    assert len(html_to_text(wall.text)) < 200


def test_slow_page_times_out_a_short_client_and_serves_a_patient_one(servers: DemoServers) -> None:
    """The slow page answers after ``slow_seconds``: a shorter client timeout fails, a longer one gets the page."""
    url = servers.page_url("lake-orrin-fisheries-2024")
    with pytest.raises(requests.ReadTimeout):
        requests.get(url, timeout=0.3)
    t0 = time.monotonic()
    r = requests.get(url, timeout=10)
    assert r.status_code == 200 and time.monotonic() - t0 >= 0.9


def test_fault_on_any_page_by_query(servers: DemoServers) -> None:
    """``?fault=`` applies a page fault to any page, per request."""
    url = servers.page_url("altavera-roastery")
    assert requests.get(url, params={"fault": "not_found"}, timeout=5).status_code == 404
    assert requests.get(url, params={"fault": "cookie_wall"}, timeout=5).text == COOKIE_WALL_HTML
    assert requests.get(url, timeout=5).status_code == 200


def test_disabled_faults_are_not_applied() -> None:
    """With no fault enabled, the faulty pages are served normally and the search never answers 429."""
    with DemoServers(faults="none", slow_seconds=5.0) as srv:
        assert requests.get(srv.search_url, params={"q": "x", "fault": "rate_limit"}, timeout=5).status_code == 200
        for slug in ("lake-orrin-monitoring-buoys", "halverncycle-safety-2024", "lake-orrin-fisheries-2024"):
            r = requests.get(srv.page_url(slug), timeout=2)
            assert r.status_code == 200 and html_to_text(r.text) == page(slug).text


def test_requests_are_logged(servers: DemoServers) -> None:
    """Every answered request is in the log with its status and the fault applied."""
    before = len(servers.requests)
    requests.get(servers.search_url, params={"q": "coffee", "fault": "rate_limit"}, timeout=5)
    requests.get(servers.page_url("halverncycle-safety-2024"), timeout=5)
    new = servers.requests[before:]
    assert [(r.server, r.status, r.fault) for r in new] == [("search", 429, "rate_limit"),
                                                              ("site", 200, "cookie_wall")]


def test_stop_releases_the_ports_and_cuts_slow_requests_short() -> None:
    """Stopping returns quickly even with a slow request in flight, and the ports no longer accept."""
    srv = DemoServers(slow_seconds=30.0).start()
    host_port = srv.site_url.rsplit(":", 1)
    slow = srv.page_url("lake-orrin-fisheries-2024")
    import threading

    t = threading.Thread(target=lambda: requests.get(slow, timeout=60), daemon=True)
    t.start()
    assert srv.slow_started.wait(10)  # the slow answer is being held back: stop() must cut it short
    t0 = time.monotonic()
    srv.stop()
    t.join(timeout=10)
    assert time.monotonic() - t0 < 5 and not t.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(host_port[1])), timeout=1).close()
    with pytest.raises(RuntimeError, match="not running"):
        _ = srv.search_url


def test_bad_constructor_arguments_are_named() -> None:
    """Unknown fault names and a non-positive delay raise ValueError naming them."""
    with pytest.raises(ValueError, match="unknown fault.*bogus"):
        DemoServers(faults="bogus")
    with pytest.raises(ValueError, match="slow_seconds"):
        DemoServers(slow_seconds=0)
