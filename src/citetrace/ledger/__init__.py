"""The claim ledger: a question graph, an append-only evidence ledger and a claim table, kept in the run store.

A report rendered from it can be re-derived by a second party from the run's own evidence records
(``citetrace ledger audit RUN``), without re-running the search::

    with research_run(question="Which tiers include SSO?") as run:
        ledger = run.ledger
        q = ledger.add_question("Which Acme tiers include SSO?")
        text = read_page(url)                                   # a traced fetch: the text lands in the store
        e = ledger.add_evidence(url, "SSO is available on the Business and Enterprise tiers.",
                                query="acme sso tiers", source_class="vendor_docs")
        c = ledger.add_claim("Acme supports SSO on the Business and Enterprise tiers.", question=q)
        ledger.link(c, supports=[e])
        for it in RevisionController(ledger, budgets=Budgets(tool_calls=20, iterations=5)):
            ...                                                  # repair it.trigger.claim
        run.record_answer(ledger.render())

See docs/ledger.md for the state contract.
"""

from __future__ import annotations

from citetrace.ledger._audit import AuditResult, audit
from citetrace.ledger._controller import (
    Budgets, Iteration, RevisionController, Trigger, claim_trigger, next_trigger,
)
from citetrace.ledger._ledger import Ledger, is_unresolved
from citetrace.ledger._model import (
    ADJUDICATE, Claim, Evidence, EvidenceError, HistoryEntry, IllegalTransition, LedgerError, Question, normalise,
)
from citetrace.ledger._split import split_claims
from citetrace.ledger._verify import (
    Assessment, Corroboration, Entailment, EntailmentDecision, JudgeEntailment, Policy, assess, corroboration,
    freshness, weak_flags,
)

__all__ = [
    "ADJUDICATE", "Assessment", "AuditResult", "Budgets", "Claim", "Corroboration", "Entailment",
    "EntailmentDecision", "Evidence", "EvidenceError", "HistoryEntry", "IllegalTransition", "Iteration", "JudgeEntailment",
    "Ledger", "LedgerError", "Policy", "Question", "RevisionController", "Trigger", "assess", "audit",
    "claim_trigger", "corroboration", "freshness", "is_unresolved", "next_trigger", "normalise", "split_claims", "weak_flags",
]
