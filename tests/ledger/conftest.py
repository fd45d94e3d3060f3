"""Ledger fixtures: both store backends, a run with fetched pages, and a scripted entailment check."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from _pgserver import BACKENDS, make_store

from citetrace import names
from citetrace.ledger import EntailmentDecision, Ledger
from citetrace.store import MemoryStore, RunRecord, SQLiteStore, Store

RUN = "20261201-100000-abcd0001"
VENDOR = "https://acme.example/docs/sso"
ANALYSIS = "https://analyst.example/acme-review"
NEWS = "https://news.example/acme-sso"
VENDOR_V1 = ("Acme Docs. Single sign-on. SSO is available on the Business and Enterprise tiers. "
             "Seats cost $12 per month.")
VENDOR_V2 = ("Acme Docs, updated. As of September 2026, SSO is included on the Business and Enterprise tiers. "
             "Seats cost $14 per month.")
ANALYSIS_TEXT = "Analyst review of Acme. In our testing, SSO remains limited to the Enterprise tier."
NEWS_TEXT = "Acme news. Acme said   SSO is available on the Business and\nEnterprise tiers."


@pytest.fixture(params=BACKENDS)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s = make_store(request.param, tmp_path, request)
    s.put_run(RunRecord(RUN, "0" * 32, "tester", "Which Acme tiers include SSO?", 1000.0))
    yield s
    s.close()


@pytest.fixture
def fetched(store: Store) -> Store:
    """The vendor page, an analysis and a news page, fetched once each in the run."""
    store.put_document(RUN, VENDOR, VENDOR_V1, status="ok", fetched_at=1001.0)
    store.put_document(RUN, ANALYSIS, ANALYSIS_TEXT, status="ok", fetched_at=1002.0)
    store.put_document(RUN, NEWS, NEWS_TEXT, status="ok", fetched_at=1003.0)
    return store


@pytest.fixture
def ledger(fetched: Store) -> Ledger:
    return Ledger(RUN, store=fetched, clock=lambda: 2000.0)


class Scripted:
    """An entailment check that answers from a table (span fragment -> label), like a scripted model."""

    name = "scripted"

    def __init__(self, table: dict[str, str], confidence: str = "high") -> None:
        self.table = table
        self.confidence = confidence
        self.calls: list[tuple[str, str]] = []

    def check(self, claim: str, span: str) -> EntailmentDecision:
        self.calls.append((claim, span))
        for fragment, label in self.table.items():
            if fragment in span:
                return EntailmentDecision(label, self.name, self.confidence, "table")
        return EntailmentDecision(names.ENTAIL_INSUFFICIENT, self.name, "low", "not in table")
