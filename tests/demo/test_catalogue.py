"""The question catalogue: pinned search results are what the engine returns, plans are valid, and the
default set shows every required fault plus a clean run."""

from __future__ import annotations

import pytest
import requests

from citetrace import names
from citetrace.demo import (
    DEFAULT_QUESTIONS,
    FAULTS,
    QUESTIONS,
    DemoServers,
    Read,
    Search,
    SearchIndex,
    expected_for,
    load_corpus,
    parse_faults,
    question,
    select_questions,
)

REQUIRED = {"empty_search", "rate_limit", "not_found", "timeout", "cookie_wall", "repeat_query",
            "uncited_citation"}


def test_default_set_shows_every_required_fault_and_a_clean_run() -> None:
    """The default questions cover every fault the issue names, plus one question with no fault at all."""
    shown = {f for q in DEFAULT_QUESTIONS for f in q.faults}
    assert REQUIRED <= shown
    assert any(not q.faults for q in DEFAULT_QUESTIONS)
    assert {f for q in QUESTIONS for f in q.faults} == set(FAULTS)
    assert any(q.expected.failure_reasons == () for q in DEFAULT_QUESTIONS)


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q.id)
def test_pinned_results_match_the_search_engine(q: object, servers: DemoServers) -> None:
    """Every search step's pinned result slugs are exactly what the live endpoint returns, in order."""
    assert hasattr(q, "steps")
    for step in q.steps:
        if isinstance(step, Search) and step.fault != "rate_limit":
            r = requests.get(servers.search_url, params={"q": step.query, "n": "5"}, timeout=5)
            assert [servers.slug_of(x["url"]) for x in r.json()["results"]] == list(step.results), step.query


@pytest.mark.parametrize("q", QUESTIONS, ids=lambda q: q.id)
def test_plans_are_consistent(q: object) -> None:
    """Step faults are declared, reads follow a search that returned them, claims cite known pages."""
    assert hasattr(q, "steps")
    slugs = {p.slug for p in load_corpus()}
    seen: set[str] = set()
    for step in q.steps:
        assert step.fault is None or step.fault in q.faults
        if isinstance(step, Search):
            seen.update(step.results)
        else:
            assert isinstance(step, Read) and step.slug in slugs
            assert step.from_memory != (step.slug in seen), step.slug
    for claim in q.claims:
        assert claim.fault is None or claim.fault in q.faults
        assert set(claim.cites) <= slugs
    # The hand-written call lists have one call per step enabled in each mode.
    assert len(q.expected.calls) == len(q.steps)
    assert len(q.expected_clean.calls) == sum(1 for s in q.steps if s.fault is None)


def test_expected_reasons_follow_from_the_hand_counts() -> None:
    """Each expectation's failure reasons agree with its own counts under the default thresholds."""
    for q in QUESTIONS:
        for e in (q.expected, q.expected_clean):
            reasons = set()
            if e.uncited_from_retrieval:
                reasons.add(names.REASON_UNCITED_URL)
            if e.cited_not_fetched:
                reasons.add(names.REASON_CITED_NOT_FETCHED)
            if e.empty_searches:
                reasons.add(names.REASON_EMPTY_SEARCH)
            if e.failed_reads > 1:
                reasons.add(names.REASON_FAILED_READS)
            if e.searches > 10:
                reasons.add(names.REASON_TOO_MANY_SEARCHES)
            if e.rate_limited:
                reasons.add(names.REASON_RATE_LIMITED)
            assert set(e.failure_reasons) == reasons, q.id
            assert e.searches == sum(1 for c in e.calls if c.kind == "search")
            assert e.reads == sum(1 for c in e.calls if c.kind == "fetch")


def test_expected_for_picks_by_fault_selection() -> None:
    """All of a question's faults on gives ``expected``, none gives ``expected_clean``, a mix gives None."""
    q = question("coffee")
    assert expected_for(q, FAULTS) is q.expected
    assert expected_for(q, ()) is q.expected_clean
    assert expected_for(q, {"rate_limit"}) is q.expected_clean
    assert expected_for(q, {"empty_search"}) is None


def test_selection_parsing() -> None:
    """Question and fault selections parse ids, default/all/none, and name unknown values."""
    assert select_questions(None) == DEFAULT_QUESTIONS
    assert select_questions("all") == QUESTIONS
    assert [q.id for q in select_questions("lake, fab")] == ["lake", "fab"]
    with pytest.raises(ValueError, match="unknown question.*nope"):
        select_questions("lake,nope")
    assert parse_faults("none") == frozenset() and parse_faults(None) == frozenset(FAULTS)
    assert parse_faults("timeout,rate_limit") == {"timeout", "rate_limit"}
    with pytest.raises(ValueError, match="unknown fault"):
        parse_faults(["timeout", "boom"])


def test_index_is_deterministic() -> None:
    """Two indexes over the corpus rank the same query identically."""
    a, b = SearchIndex(load_corpus()), SearchIndex(load_corpus())
    assert [h.page.slug for h in a.search("Grenvik fab jobs", 10)] == [h.page.slug for h in b.search("Grenvik fab jobs", 10)]


def test_index_is_rank_bm25_okapi_with_a_never_negative_idf() -> None:
    """The index scores as rank_bm25's BM25Okapi does on a term most pages share, except that its idf stays
    positive: a term in 3 of 4 pages still matches all three (BM25Okapi's own idf would be negative there)."""
    import datetime
    import math

    from rank_bm25 import BM25Okapi

    from citetrace.demo import Page
    from citetrace.demo._search import tokenize

    def page(slug: str, text: str) -> Page:
        return Page(slug, slug, datetime.date(2024, 1, 1), "p", "t", (text,))

    pages = [page("a", "solar panels grew"), page("b", "solar farms and wind"), page("c", "solar storage"),
             page("d", "coffee harvest")]
    hits = SearchIndex(pages).search("solar", 10)
    corpus = [tokenize(p.title) * 2 + tokenize(p.body) for p in pages]
    okapi = BM25Okapi(corpus)
    idf = math.log(1 + (4 - 3 + 0.5) / (3 + 0.5))
    scale = [float(s) / okapi.idf["solar"] for s in okapi.get_scores(["solar"])]
    assert okapi.idf["solar"] != idf  # the library's own idf differs (floored), the tf/length part is the same
    expected = sorted(((round(idf * scale[i], 6), p.slug) for i, p in enumerate(pages) if scale[i] > 0),
                      key=lambda e: (-e[0], e[1]))
    assert [(h.score, h.page.slug) for h in hits] == expected and len(hits) == 3
    assert SearchIndex([]).search("solar") == []
