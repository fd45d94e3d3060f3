"""The ledger demo's deterministic agent: traced search and fetch, evidence entry, and one repair per trigger.

Its reading of a page is scripted (``DemoEntailment`` answers from the pages' stances, as a model would),
everything else is real: HTTP through ``@traced_tool``, the run store, the ledger's entry check and
state contract, the revision controller. A repair touches one claim; the report is rendered at the end.
"""

from __future__ import annotations

import calendar
import re
from typing import Sequence

from citetrace import names, traced_tool
from citetrace.demo._agent import DemoAgent
from citetrace.demo._ledger_pages import CLAIMS, LEDGER_PAGES
from citetrace.ledger import ADJUDICATE, EntailmentDecision, JudgeEntailment, Ledger, Trigger, assess, claim_trigger

__all__ = ["DemoEntailment", "LedgerAgent", "QUERIES"]

QUERIES = {
    "sso": "acme sso tiers plans",
    "uptime": "acme uptime sla guarantee",
    "price": "acme business seat price",
    "customers": "acme business customers",
}
"""The search query the agent uses for each claim."""
_PUBLISHED = re.compile(r"published (\d{4})-(\d\d)-(\d\d)")


class DemoEntailment:
    """The scripted reading: a span's label for a claim, from the pages' stances (else ``insufficient``)."""

    name = "demo-scripted"

    def check(self, claim: str, span: str) -> EntailmentDecision:
        key = next((k for k, text in CLAIMS.items() if text == claim), None)
        for page in LEDGER_PAGES:
            for version in page.versions:
                for stance in version.stances:
                    if stance.claim == key and stance.span == span:
                        return EntailmentDecision(stance.label, self.name, "high", f"{page.slug} {version.published}")
        return EntailmentDecision(names.ENTAIL_INSUFFICIENT, self.name, "high", "the span does not bear on it")


class LedgerAgent(DemoAgent):
    """Searches, reads, enters evidence and repairs claims over the ``LedgerSite`` (the demo agent's reader)."""

    def __init__(self, base_url: str, *, timeout: float = 5.0) -> None:
        super().__init__(f"{base_url}/search", base_url, timeout=timeout, agent_name="demo-ledger")
        self.entailment = DemoEntailment()
        self.second = JudgeEntailment()  # eval's number/date checker as the second check of numeric claims
        self.read_urls: list[str] = []

    @traced_tool(kind="search", name="web_search")
    def find(self, query: str, *, source_class: str | None = None, exclude: Sequence[str] = ()) -> list[dict[str, str]]:
        """Search the demo site, optionally within or outside source classes."""
        params = {"q": query, "class": source_class or "", "exclude": ",".join(exclude)}
        response = self.session.get(self.search_url, params=params, timeout=self.timeout)
        response.raise_for_status()
        results: list[dict[str, str]] = response.json()["results"]
        return results

    # -- evidence -------------------------------------------------------------------------------------
    def enter(self, ledger: Ledger, cid: str, url: str, source_class: str, query: str) -> list[str]:
        """Read ``url`` and enter every span that bears on the claim, linked to the side it takes."""
        page = self.read(url)
        self.read_urls.append(url)
        claim = ledger.claim(cid)
        m = _PUBLISHED.search(page.text)
        published = float(calendar.timegm((int(m[1]), int(m[2]), int(m[3]), 0, 0, 0))) if m else None
        key = next(k for k, text in CLAIMS.items() if text == claim.text)
        added = []
        for p in LEDGER_PAGES:
            for version in p.versions:
                for stance in version.stances:
                    if stance.claim != key or stance.span not in page.text:
                        continue
                    eid = ledger.add_evidence(url, stance.span, query=query, source_class=source_class,
                                              question=claim.question, published_at=published)
                    label = self.entailment.check(claim.text, stance.span).label
                    side = "supports" if label == names.ENTAIL_SUPPORTED else "contradicts"
                    if eid not in getattr(ledger.claim(cid), side):
                        ledger.link(cid, **{side: [eid]})
                    added.append(eid)
        return added

    def gather(self, ledger: Ledger, cid: str, *, source_class: str | None = None, exclude: Sequence[str] = (),
               fresh_only: bool = False, suffix: str = "") -> list[str]:
        """Search for the claim and enter evidence from the first result (not yet read, with ``fresh_only``)."""
        claim = ledger.claim(cid)
        query = QUERIES[next(k for k, t in CLAIMS.items() if t == claim.text)] + suffix
        if claim.question is not None:
            ledger.record_query(claim.question, query)
        for hit in self.find(query, source_class=source_class, exclude=exclude):
            if fresh_only and hit["url"] in self.read_urls:
                continue
            return self.enter(ledger, cid, hit["url"], hit["source_class"], query)
        return []

    def settle(self, ledger: Ledger, cid: str) -> str:
        """Assess the claim; decide the pass when the checks are conclusive. Returns the claim's status."""
        claim = ledger.claim(cid)
        if claim.status == names.CLAIM_INSUFFICIENT:
            a = assess(ledger, cid, self.entailment, second=self.second)
            if a.verdict != names.CLAIM_INSUFFICIENT:
                ledger.verify(cid, a.verdict, evidence=a.evidence, reason=a.reason)
        self.close_questions(ledger)
        return ledger.claim(cid).status

    @staticmethod
    def close_questions(ledger: Ledger) -> None:
        """Mark answered every open sub-question that has claims and none left to repair."""
        for q in ledger.open_questions():
            mine = [c for c in ledger.claims() if c.question == q.id]
            if mine and all(claim_trigger(ledger, c) is None for c in mine):
                ledger.set_question_status(q.id, names.Q_ANSWERED)

    # -- repairs --------------------------------------------------------------------------------------
    def repair(self, ledger: Ledger, trigger: Trigger, blocked_queries: Sequence[str] = ()) -> None:
        """One repair for one trigger (the claim is repaired; the report is never regenerated)."""
        cid = trigger.claim
        if trigger.kind == names.TRIGGER_INSUFFICIENT and cid:
            self.gather(ledger, cid, exclude=trigger.avoid_classes, fresh_only=True)
        elif trigger.kind == names.TRIGGER_CONTRADICTED and cid:
            ledger.reverify(cid, ADJUDICATE)
            claim = ledger.claim(cid)
            primary = ledger.evidence(claim.supports[0]) if claim.supports else None
            if primary is not None:  # is the primary source still saying it?
                self.enter(ledger, cid, primary.url, primary.source_class, f"re-read {primary.url}")
            against = sorted({ledger.evidence(e).source_class for e in claim.contradicts})
            self.gather(ledger, cid, exclude=against, fresh_only=True, suffix=" current")
        elif trigger.kind == names.TRIGGER_STALE and cid:
            ledger.reverify(cid, "refetch")
            for eid in ledger.claim(cid).supports:
                ev = ledger.evidence(eid)
                if ev.stale:
                    self.enter(ledger, cid, ev.url, ev.source_class, f"re-read {ev.url}")
        elif trigger.kind == names.TRIGGER_OPEN_QUESTION and trigger.question:
            for query in blocked_queries:
                ledger.record_query(trigger.question, query)
                if self.find(query):
                    return
            ledger.set_question_status(trigger.question, names.Q_BLOCKED,
                                       reason=f"no usable result for {len(blocked_queries)} queries")
            return
        if cid:
            self.settle(ledger, cid)
