"""Eval judges atomic claims: each with its own citations, verdicts aggregated per sentence."""

from __future__ import annotations

from citetrace.eval import CONTRADICTED, PARTIAL, SUPPORTED, evaluate_run, parse_report
from citetrace.eval._rates import aggregate_claims
from citetrace.store import MemoryStore, RunRecord

WIND = ("Wind supplied 30 % of power in 2024, up from 25 % in 2020. "
        "The operator reported higher profit for the year.")
PRICES = "The Business tier costs $12 per seat. Single sign-on is offered on Business and Enterprise tiers."


def _run(store: MemoryStore, answer: str, pages: dict[str, str]) -> str:
    store.put_run(RunRecord("r1", "ab" * 16, "tester", "q", 1.0e9, answer=answer))
    for url, text in pages.items():
        store.put_document("r1", url, text, status="ok")
    return "r1"


def test_compound_claim_is_not_contradicted_by_the_other_half(store: MemoryStore) -> None:
    """The operator's missing 12 % is compared only where "operator profit" aligns, not with wind's 25 %."""
    report = ("Wind supplied 30 % of power in 2024, and the operator's profit rose 12 % [1].\n\n"
              "[1] https://grid.example/2024\n")
    ev = evaluate_run(store, _run(store, report, {"https://grid.example/2024": WIND}))
    assert [p.pair.claim for p in ev.pairs] == ["Wind supplied 30 % of power in 2024",
                                                "the operator's profit rose 12 %."]
    assert [p.label for p in ev.pairs] == [PARTIAL, PARTIAL]
    assert ev.claim_labels == {0: PARTIAL}
    assert ev.rates["contradicted_rate"].numerator == 0


def test_each_claim_is_judged_against_its_own_citation(store: MemoryStore) -> None:
    """A claim citing the wrong page is judged against that page only; the sentence aggregates to the worst."""
    report = ("Single sign-on is offered on Business and Enterprise tiers [1], and the Business tier costs "
              "$15 per seat [2].\n\n[1] https://v.example/sso\n[2] https://v.example/prices\n")
    pages = {"https://v.example/sso": "Single sign-on is offered on Business and Enterprise tiers.",
             "https://v.example/prices": PRICES}
    ev = evaluate_run(store, _run(store, report, pages))
    assert [(p.pair.claim_index, p.pair.url) for p in ev.pairs] == [(0, "https://v.example/sso"),
                                                                  (1, "https://v.example/prices")]
    assert [p.label for p in ev.pairs] == [SUPPORTED, CONTRADICTED]  # the first claim is the page's own words
    assert ev.claim_labels == {0: CONTRADICTED}
    # two citations, one per claim: the citation denominator does not double count
    assert ev.rates["dead_or_unfetched_rate"].denominator == 2
    pair = ev.as_dict()["pairs"][1]
    assert pair["claim"] == "the Business tier costs $15 per seat." and pair["claim_index"] == 1


def test_claim_text_has_no_dangling_anchor() -> None:
    """The text judged never keeps a trailing source name or an "according to" with its URL removed."""
    report = parse_report("Home prices rose 4 % this year [Coastal Realty Journal](https://crj.example/a). "
                          "Rents rose 2 % according to https://rents.example/b.\n")
    assert [c.text for s in report.sentences for c in s.claims] == ["Home prices rose 4 % this year.",
                                                                  "Rents rose 2 %."]
    assert [s.text for s in report.sentences] == ["Home prices rose 4 % this year.", "Rents rose 2 %."]


def test_aggregation_rules() -> None:
    """One contradicted claim contradicts the sentence; SUPPORTED needs every claim; else support is PARTIAL."""
    assert aggregate_claims(["SUPPORTED", "CONTRADICTED"]) == "CONTRADICTED"
    assert aggregate_claims(["SUPPORTED", "SUPPORTED"]) == "SUPPORTED"
    assert aggregate_claims(["SUPPORTED", "ABSENT"]) == "PARTIAL"
    assert aggregate_claims(["ABSENT", "JUDGE_ERROR"]) == "JUDGE_ERROR"
    assert aggregate_claims(["ABSENT", "UNFETCHED"]) == "ABSENT"
    assert aggregate_claims([]) == "UNFETCHED"


def test_llm_judge_gets_one_atomic_claim_with_its_sentence(store: MemoryStore, http_server) -> None:  # type: ignore[no-untyped-def]
    """Each atomic claim is its own call; the sentence is sent as context so "it" has a referent."""
    import json
    import re

    from citetrace.eval import LLMJudge

    from .conftest import reply

    users: list[str] = []

    def handle(h) -> None:  # type: ignore[no-untyped-def]
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        users.append(body["messages"][1]["content"])
        answer = {"label": "ABSENT", "quote": "", "explanation": "x"}
        reply(h, 200, {"choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": json.dumps(answer)}}]})

    sentence = "The vendor supports SSO on Business and Enterprise tiers, and it costs $12 per seat"
    report = f"{sentence} [1].\n\n[1] https://v.example/prices\n"
    ev = evaluate_run(store, _run(store, report, {"https://v.example/prices": PRICES}),
                      judge=LLMJudge(http_server(handle) + "/v1", "m"))
    assert len(ev.pairs) == 2 and len(users) == 2
    claims = sorted(re.search(r"CLAIM:\n(.*?)\n\n", u, re.S).group(1) for u in users)  # type: ignore[union-attr]
    assert claims == ["The vendor supports SSO on Business and Enterprise tiers", "it costs $12 per seat."]
    assert all(f"SENTENCE:\n{sentence}." in u for u in users)
