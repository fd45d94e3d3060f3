"""The three records: question graph, append-only evidence with its entry check, and the claim table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citetrace import names
from citetrace.ledger import EvidenceError, IllegalTransition, Ledger, LedgerError
from citetrace.store import Store
from .conftest import ANALYSIS, NEWS, RUN, VENDOR, VENDOR_V2


def test_open_questions_is_a_query_and_blocked_keeps_queries(ledger: Ledger) -> None:
    """Open sub-questions come from statuses; a blocked one keeps every query it tried."""
    q1 = ledger.add_question("Which tiers include SSO?")
    q2 = ledger.add_question("What does the SSO add-on cost?", depends_on=[q1])
    ledger.record_query(q2, "acme sso add-on price")
    ledger.record_query(q2, "acme sso pricing")
    ledger.set_question_status(q2, names.Q_BLOCKED, reason="no usable result")
    assert [q.id for q in ledger.open_questions()] == [q1]
    blocked = ledger.question(q2)
    assert (blocked.status, blocked.queries, blocked.depends_on) == (
        "blocked", ("acme sso add-on price", "acme sso pricing"), (q1,))
    assert len(ledger.questions()) == 2


def test_abandoned_needs_a_reason_and_unknown_status_is_refused(ledger: Ledger) -> None:
    """Abandoning without a reason, an unknown status, or an unknown dependency raises naming it."""
    q = ledger.add_question("Is there a free tier?")
    with pytest.raises(LedgerError, match="abandoned needs a reason"):
        ledger.set_question_status(q, names.Q_ABANDONED)
    with pytest.raises(LedgerError, match="unknown question status 'done'"):
        ledger.set_question_status(q, "done")
    with pytest.raises(LedgerError, match="unknown sub-question id 'q9'"):
        ledger.add_question("x", depends_on=["q9"])
    ledger.set_question_status(q, names.Q_ABANDONED, reason="out of scope")
    assert ledger.question(q).reason == "out of scope"


def test_evidence_entry_checks_against_the_stored_fetch(ledger: Ledger, fetched: Store) -> None:
    """A span verbatim after whitespace folding is entered with that fetch's time and store ref."""
    eid = ledger.add_evidence(NEWS, "SSO is available on the Business and Enterprise tiers.",
                              query="acme sso", source_class="news")
    ev = ledger.evidence(eid)
    doc = fetched.get(RUN, NEWS)
    assert doc is not None
    assert (ev.retrieved_at, ev.store_ref, ev.content_hash, ev.query) == (1003.0, doc.ref, doc.sha256, "acme sso")


def test_evidence_refused_when_span_absent_or_url_unfetched(ledger: Ledger) -> None:
    """A span not in the page, or a URL never fetched, is refused naming the URL and logged with the reason."""
    with pytest.raises(EvidenceError, match="acme.example/docs/sso.*not verbatim") as info:
        ledger.add_evidence(VENDOR, "SSO is free on every tier.", query="q", source_class="vendor_docs")
    assert info.value.url == VENDOR
    with pytest.raises(EvidenceError, match="https://never.example/x.*never fetched"):
        ledger.add_evidence("https://never.example/x", "anything", query="q", source_class="news")
    assert [r["reason"].split(" ")[0] for r in ledger.rejected()] == ["the", "run"]
    assert [r["url"] for r in ledger.rejected()] == [VENDOR, "https://never.example/x"]
    assert ledger.evidence_records() == []


def test_syndicated_copy_is_recognised(ledger: Ledger) -> None:
    """The same text under another URL is entered as a syndicated copy of the first record."""
    span = "SSO is available on the Business and Enterprise tiers."
    e1 = ledger.add_evidence(VENDOR, span, query="q", source_class="vendor_docs")
    e2 = ledger.add_evidence(NEWS, span, query="q", source_class="news")
    assert ledger.evidence(e2).syndicated_of == e1
    assert ledger.evidence(e1).syndicated_of is None


def test_changed_page_adds_a_record_and_marks_the_old_one_stale(ledger: Ledger, fetched: Store) -> None:
    """A re-fetch whose text changed gives a new record with the new time; the old record becomes stale."""
    e1 = ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="q",
                             source_class="vendor_docs")
    fetched.put_document(RUN, VENDOR, VENDOR_V2, status="ok", fetched_at=1500.0)
    e2 = ledger.add_evidence(VENDOR, "SSO is included on the Business and Enterprise tiers.", query="q2",
                             source_class="vendor_docs")
    old, new = ledger.evidence(e1), ledger.evidence(e2)
    assert (old.stale, old.stale_reason, old.superseded_by) == (True, "page_changed", e2)
    assert (new.stale, new.retrieved_at, old.span) == (False, 1500.0, "SSO is available on the Business and Enterprise tiers.")


def test_mark_stale_and_duplicate_entry(ledger: Ledger) -> None:
    """mark_stale flags a record without editing it; entering the same span twice returns the same id."""
    span = "SSO remains limited to the Enterprise tier."
    e1 = ledger.add_evidence(ANALYSIS, span, query="q", source_class="analysis")
    assert ledger.add_evidence(ANALYSIS, span, query="q", source_class="analysis") == e1
    ledger.mark_stale(e1, "superseded by the vendor")
    assert ledger.evidence(e1).stale and ledger.evidence(e1).span == span
    with pytest.raises(LedgerError, match="unknown evidence id 'e7'"):
        ledger.mark_stale("e7")


def _evidence(ledger: Ledger) -> tuple[str, str]:
    sup = ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="q",
                              source_class="vendor_docs")
    con = ledger.add_evidence(ANALYSIS, "SSO remains limited to the Enterprise tier.", query="q",
                              source_class="analysis")
    return sup, con


@pytest.mark.parametrize("verdict", names.CLAIM_VERDICTS)
def test_every_legal_transition_from_insufficient(ledger: Ledger, verdict: str) -> None:
    """insufficient -> verified | contradicted | unverifiable, each logged in the claim's history."""
    sup, con = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.link(cid, supports=[sup], contradicts=[con])
    assert ledger.verify(cid, verdict) == verdict
    claim = ledger.claim(cid)
    assert (claim.status, claim.pass_no, [(h.from_status, h.to_status) for h in claim.history]) == (
        verdict, 1, [("insufficient", verdict)])


@pytest.mark.parametrize("first", names.CLAIM_VERDICTS)
@pytest.mark.parametrize("second", [*names.CLAIM_VERDICTS, "insufficient", "contested", "maybe"])
def test_every_illegal_transition_names_claim_status_and_request(ledger: Ledger, first: str, second: str) -> None:
    """Within a pass a decided claim cannot move again; the error names the claim, status and request."""
    sup, con = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.link(cid, supports=[sup], contradicts=[con])
    ledger.verify(cid, first)
    with pytest.raises(IllegalTransition) as info:
        ledger.verify(cid, second)
    assert (info.value.claim, info.value.status, info.value.requested) == (cid, first, second)
    assert f"claim {cid}: illegal transition {first} -> {second}" in str(info.value)
    assert ledger.claim(cid).status == first


def test_unknown_verdict_from_insufficient_is_illegal(ledger: Ledger) -> None:
    """insufficient -> insufficient or contested by hand is refused."""
    cid = ledger.add_claim("Acme supports SSO.")
    for bad in ("insufficient", "contested"):
        with pytest.raises(IllegalTransition, match=f"insufficient -> {bad}"):
            ledger.verify(cid, bad)


def test_decisive_verdict_needs_live_evidence_of_its_side(ledger: Ledger) -> None:
    """verified without live support (none, or only stale) is refused; unverifiable takes no evidence."""
    sup, _ = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO.")
    with pytest.raises(LedgerError, match="verified needs live"):
        ledger.verify(cid, "verified")
    ledger.mark_stale(sup)
    with pytest.raises(LedgerError, match="verified needs live"):
        ledger.verify(cid, "verified", evidence=[sup])
    with pytest.raises(LedgerError, match="rests on no evidence"):
        ledger.verify(cid, "unverifiable", evidence=[sup])


def test_reverify_opens_a_new_pass_and_one_flip_is_a_correction(ledger: Ledger) -> None:
    """contradicted in pass 1, verified in pass 2: one flip, history of three steps, not contested."""
    sup, con = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.verify(cid, "contradicted", evidence=[con])
    with pytest.raises(IllegalTransition, match="pass 1 is decided"):
        ledger.verify(cid, "verified", evidence=[sup])
    assert ledger.reverify(cid, "adjudicate") == 2
    with pytest.raises(IllegalTransition, match="pass 2 is still open"):
        ledger.reverify(cid)
    assert ledger.verify(cid, "verified", evidence=[sup]) == "verified"
    claim = ledger.claim(cid)
    assert (claim.pass_no, claim.flips, [h.to_status for h in claim.history]) == (
        2, 1, ["contradicted", "insufficient", "verified"])


def test_flipping_twice_makes_contested_and_final(ledger: Ledger) -> None:
    """verified -> contradicted -> verified across passes is contested; nothing moves it afterwards."""
    sup, con = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO on Business and Enterprise.")
    ledger.verify(cid, "verified", evidence=[sup])
    ledger.reverify(cid)
    ledger.verify(cid, "contradicted", evidence=[con])
    ledger.reverify(cid)
    assert ledger.verify(cid, "verified") == "contested"
    with pytest.raises(IllegalTransition, match="contested -> insufficient"):
        ledger.reverify(cid)
    with pytest.raises(IllegalTransition, match="contested -> verified"):
        ledger.verify(cid, "verified")
    assert ledger.claim(cid).status == "contested" and ledger.claim(cid).flips == 2


def test_unverifiable_between_does_not_reset_flips(ledger: Ledger) -> None:
    """verified, unverifiable, contradicted: the unverifiable pass is not a flip, the change is one flip."""
    sup, con = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO.")
    ledger.verify(cid, "verified", evidence=[sup])
    ledger.reverify(cid)
    ledger.verify(cid, "unverifiable")
    ledger.reverify(cid)
    assert ledger.verify(cid, "contradicted", evidence=[con]) == "contradicted"
    assert ledger.claim(cid).flips == 1


def test_link_refuses_one_record_on_both_sides(ledger: Ledger) -> None:
    """One evidence record cannot both support and contradict a claim."""
    sup, _ = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO.")
    ledger.link(cid, supports=[sup])
    with pytest.raises(LedgerError, match="cannot both support and contradict"):
        ledger.link(cid, contradicts=[sup])


def test_one_id_where_a_list_of_ids_goes_is_refused_naming_it(ledger: Ledger) -> None:
    """``link(c, supports="e1")`` (a careless user's one id) is refused saying a list is wanted: it was read
    letter by letter and refused as "unknown evidence id 'e'"."""
    sup, _ = _evidence(ledger)
    cid = ledger.add_claim("Acme supports SSO.")
    for call in (lambda: ledger.link(cid, supports=sup), lambda: ledger.link(cid, contradicts=sup),
                 lambda: ledger.verify(cid, "verified", evidence=sup), lambda: ledger.add_question("q", depends_on="q1")):
        with pytest.raises(LedgerError, match=r"expects a list of ids, got the string 'e1'|got the string 'q1'"):
            call()
    ledger.link(cid, supports=[sup])
    assert list(ledger.claim(cid).supports) == [sup]


def test_restart_persistence_reopens_and_continues(fetched: Store) -> None:
    """Ledger.open re-reads everything from the store and continues with fresh ids and the same rules."""
    first = Ledger(RUN, store=fetched)
    q = first.add_question("Which tiers include SSO?")
    sup, con = _evidence(first)
    cid = first.add_claim("Acme supports SSO.", question=q)
    first.verify(cid, "contradicted", evidence=[con])
    first.mark_stale(sup)
    again = Ledger.open(RUN[:12], store=fetched)
    assert again.run_id == RUN
    assert [c.status for c in again.claims()] == ["contradicted"]
    assert again.evidence(sup).stale and again.question(q).text == "Which tiers include SSO?"
    assert again.add_claim("Another claim.") == "c2"
    again.reverify(cid, "adjudicate")
    assert Ledger.open(RUN, store=fetched).claim(cid).pass_no == 2
    assert again.audit().ok


def test_open_unknown_run_is_refused(store: Store) -> None:
    """Opening a ledger for a run the store does not know raises naming it."""
    with pytest.raises(LedgerError, match="no run 'nope'"):
        Ledger.open("nope", store=store)


def test_add_claims_uses_the_shared_atomic_splitter(ledger: Ledger) -> None:
    """The issue's example sentence becomes two claims in the claim table."""
    ids = ledger.add_claims("The vendor supports SSO on Business and Enterprise tiers, and it costs $12 per seat.")
    assert [ledger.claim(c).text for c in ids] == [
        "The vendor supports SSO on Business and Enterprise tiers", "it costs $12 per seat."]


_CHILD = """
import sys
from citetrace.ledger import Ledger
from citetrace.store import SQLiteStore
store = SQLiteStore(sys.argv[1])
led = Ledger.open(sys.argv[2], store=store)
cid = led.claims()[0].id
led.reverify(cid, "adjudicate")
led.verify(cid, "verified")
print(led.claim(cid).status, led.claim(cid).pass_no, len(led.evidence_records()))
"""


def test_restart_in_a_new_process_continues_the_same_ledger(tmp_path: Path) -> None:
    """A second process re-opens the SQLite ledger, moves the claim on, and the first sees it after re-opening."""
    from citetrace.store import RunRecord, SQLiteStore

    from .conftest import ANALYSIS_TEXT, VENDOR_V1

    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    store.put_run(RunRecord(RUN, "0" * 32, "t", None, 1.0))
    store.put_document(RUN, VENDOR, VENDOR_V1, status="ok", fetched_at=1.0)
    store.put_document(RUN, ANALYSIS, ANALYSIS_TEXT, status="ok", fetched_at=2.0)
    led = Ledger(RUN, store=store)
    sup, con = _evidence(led)
    cid = led.add_claim("Acme supports SSO.")
    led.link(cid, supports=[sup])
    led.verify(cid, "contradicted", evidence=[con])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _CHILD, str(db), RUN], capture_output=True, text=True, env=env,
                         timeout=60, check=True).stdout
    assert out.split() == ["verified", "2", "2"]
    again = Ledger.open(RUN, store=store)
    assert [h.to_status for h in again.claim(cid).history] == ["contradicted", "insufficient", "verified"]
    assert again.audit().ok


def test_a_busy_store_is_retried_and_a_lasting_lock_raises(tmp_path: Path) -> None:
    """A real SQLite lock held by another connection: the write is retried once it goes, or raises past the wait."""
    import sqlite3

    from citetrace.ledger._journal import Journal
    from citetrace.store import SQLiteStore, StoreBusy

    db = tmp_path / "s.db"
    store = SQLiteStore(db, lock_wait_s=0.05)  # the agent's store: a short lock wait
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    slept: list[float] = []

    def release_on_first_retry(seconds: float) -> None:
        slept.append(seconds)
        if other.in_transaction:
            other.execute("ROLLBACK")

    (stored,) = Journal(store, RUN, sleep=release_on_first_retry).write([("query", {"q": 1})])
    assert slept == [0.01] and stored["seq"] == 1
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(StoreBusy):
        Journal(store, RUN, busy_wait_s=0.0).write([("query", {"q": 2})])
    other.execute("ROLLBACK")
    assert [seq for seq, _k, _d in store.ledger_entries(RUN)] == [1]


def test_show_of_a_run_without_a_ledger_says_so(store: Store) -> None:
    """`citetrace ledger show` of a run that never used `run.ledger` is one sentence, not four empty tables;
    once a question is added the tables come back."""
    from citetrace.ledger._cli import format_ledger

    assert format_ledger(Ledger.open(RUN, store=store)) == (
        f"run {RUN} has no claim ledger (it recorded no question, evidence, claim or iteration)")
    ledger = Ledger.open(RUN, store=store)
    ledger.add_question("Which Acme tiers include SSO?")
    assert format_ledger(Ledger.open(RUN, store=store)).startswith(f"ledger of run {RUN}\n\nSUB-QUESTIONS\n  q1")


def test_two_writers_on_one_run_never_share_an_id_or_lose_a_write(fetched: Store) -> None:
    """Two ledgers opened on the same run (two agents, two processes) each add a claim and evidence. Before,
    both handed out c1/e1 from the state they had read, the second write overwrote the first claim's row and
    the journal's chain forked, so the audit failed and one claim was gone. Now each write checks that it
    extends the journal its writer read; when another writer got there first the ledger re-reads and applies
    the call on the new state."""
    a, b = Ledger(RUN, store=fetched), Ledger(RUN, store=fetched)
    ca = a.add_claim("Writer A says Acme supports SSO.")
    cb = b.add_claim("Writer B says Acme supports SSO.")
    ea = a.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="q",
                        source_class="vendor_docs")
    eb = b.add_evidence(ANALYSIS, "SSO remains limited to the Enterprise tier.", query="q", source_class="analysis")
    assert (ca, cb, ea, eb) == ("c1", "c2", "e1", "e2")
    a.link(ca, supports=[ea])            # a has not seen b's claim or evidence yet: it re-reads first
    b.link(ca, contradicts=[eb])          # nor b a's link: the two links are merged, not overwritten
    again = Ledger.open(RUN, store=fetched)
    assert [c.text for c in again.claims()] == ["Writer A says Acme supports SSO.", "Writer B says Acme supports SSO."]
    assert (again.claim(ca).supports, again.claim(ca).contradicts) == (("e1",), ("e2",))
    assert again.audit().ok, again.audit().breaks


_WRITER = """
import sys
from multiprocessing.connection import Client
from citetrace.ledger import Ledger
from citetrace.store import SQLiteStore
led = Ledger.open(sys.argv[2], store=SQLiteStore(sys.argv[1], lock_wait_s=0.05))
with Client(("127.0.0.1", int(sys.argv[3])), authkey=b"t") as conn:
    conn.send("ready")
    conn.recv()                          # both writers hold the same state before either writes
for i in range(25):
    led.add_claim(f"Claim {i} of writer {sys.argv[4]}.")
"""


def test_two_processes_writing_one_sqlite_ledger_keep_every_claim(tmp_path: Path) -> None:
    """Two processes open the same run's ledger, wait for each other, then add 25 claims each at once:
    50 claims with 50 distinct ids, and the audit holds."""
    from multiprocessing.connection import Listener

    from citetrace.store import RunRecord, SQLiteStore

    db = tmp_path / "s.db"
    store = SQLiteStore(db)
    store.put_run(RunRecord(RUN, "0" * 32, "t", None, 1.0))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    with Listener(("127.0.0.1", 0), authkey=b"t") as listener:
        port = str(listener.address[1])
        procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(db), RUN, port, w], env=env,
                                  stderr=subprocess.PIPE, text=True) for w in ("A", "B")]
        conns = [listener.accept() for _ in procs]
        assert [c.recv() for c in conns] == ["ready", "ready"]
        for c in conns:
            c.send("go")
        errors = [p.communicate(timeout=120)[1] for p in procs]
        for c in conns:
            c.close()
    assert [p.returncode for p in procs] == [0, 0], errors
    led = Ledger.open(RUN, store=store)
    claims = led.claims()
    assert len(claims) == 50 and len({c.id for c in claims}) == 50
    assert sorted(c.text for c in claims) == sorted(f"Claim {i} of writer {w}." for w in "AB" for i in range(25))
    assert led.audit().ok, led.audit().breaks


@pytest.mark.parametrize("published_at", ["2025-01-01", True, float("nan"), float("inf")])
def test_published_at_that_is_no_epoch_time_is_refused_on_entry(ledger: Ledger, published_at: object) -> None:
    """published_at is epoch seconds. A date string was stored as given and the freshness check later raised
    a TypeError traceback out of ``assess``; now the entry is refused with one line naming the argument."""
    with pytest.raises(LedgerError, match=r"published_at must be epoch seconds \(a finite number\)"):
        ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query="q",
                            source_class="vendor_docs", published_at=published_at)  # type: ignore[arg-type]
    assert ledger.evidence_records() == []


@pytest.mark.parametrize("query", [None, 42])
def test_a_query_that_is_no_text_is_refused(ledger: Ledger, query: object) -> None:
    """The record keeps the query that found the span; None or a number was stored as if it were one."""
    with pytest.raises(LedgerError, match="the query for .* must be a str"):
        ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.", query=query,  # type: ignore[arg-type]
                            source_class="vendor_docs")


def test_secrets_in_claims_queries_and_questions_are_redacted_in_every_ledger_sink(fetched: Store) -> None:
    """A claim, a sub-question and a query carry text the agent wrote: like the recorded answer and a search's
    query text, they are stored and shown redacted (key shapes, secret URL parameters, ``password=`` in a
    query). Before, the journal, the rows, ``render()``, ``ledger show --json`` and the refusal message kept
    them verbatim. Evidence spans are page text, checked verbatim against the stored page, and stay as read."""
    import json

    key = "sk-live-ABCDEF1234567890abcdef"
    ledger = Ledger(RUN, store=fetched)
    q = ledger.add_question(f"Does the key {key} work on https://acme.example/admin?token=t0psecret ?")
    ledger.record_query(q, f"acme login password=hunter2 {key}")
    e = ledger.add_evidence(VENDOR, "SSO is available on the Business and Enterprise tiers.",
                            query=f"acme sso password=hunter2 {key}", source_class="vendor_docs")
    c = ledger.add_claim(f"The admin key {key} opens https://acme.example/admin?token=t0psecret for SSO.")
    ledger.link(c, supports=[e])
    with pytest.raises(EvidenceError) as refused:
        ledger.add_evidence(f"{NEWS}?api_key={key}", "not on the page", query="q", source_class="news")
    sinks = [json.dumps(fetched.ledger_entries(RUN)), json.dumps(fetched.ledger_rows(RUN, "claims")),
             json.dumps(fetched.ledger_rows(RUN, "questions")), ledger.render(),
             json.dumps(Ledger.open(RUN, store=fetched).as_dict(), default=str), str(refused.value)]
    for sink in sinks:
        assert key not in sink and "t0psecret" not in sink and "hunter2" not in sink, sink[:300]
    assert ledger.claim(c).text == "The admin key REDACTED opens https://acme.example/admin?token=REDACTED for SSO."
    assert Ledger.open(RUN, store=fetched).audit().ok


@pytest.mark.parametrize("run_id", [None, "", 42])
def test_open_without_a_run_id_is_refused_naming_it(store: Store, run_id: object) -> None:
    """Ledger.open(None) was an AttributeError from the store's id lookup, and "" matched every run as a prefix."""
    with pytest.raises(LedgerError, match="a ledger needs a run id"):
        Ledger.open(run_id, store=store)  # type: ignore[arg-type]
