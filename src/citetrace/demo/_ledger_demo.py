"""The demo's ledger mode: four scenarios on the ledger pages, each a traced research run with a ledger.

``sso`` reproduces the design's example: the claim starts ``insufficient`` (one vendor source), becomes
``contradicted`` by an independent analysis, is ``verified`` against the updated vendor page, and the run
stops ``goal_satisfied`` with a last delta of -1. ``contested`` flips twice, ``blocked`` leaves a
sub-question blocked with its queries, ``budget`` runs out of tool calls and renders a labelled partial
report. ``EXPECTED`` holds what each must show; ``citetrace demo --ledger all --check`` compares.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from citetrace import names, research_run
from citetrace.demo._ledger_agent import LedgerAgent
from citetrace.demo._ledger_pages import CLAIMS
from citetrace.demo._ledger_site import LedgerSite
from citetrace.ledger import Budgets, Ledger, RevisionController, audit

__all__ = [
    "LEDGER_SCENARIOS", "EXPECTED", "LedgerDemoResult", "ledger_demo_command", "mismatches", "run_ledger_demo",
    "select_scenarios",
]

AGENT = "demo-ledger"


@dataclass
class LedgerDemoResult:
    """One scenario's run: ids, the main claim's path, the vital signs, the stop reason and the report."""

    scenario: str
    run_id: str
    transitions: list[str]
    statuses: dict[str, str]
    questions: dict[str, str]
    vital_signs: list[dict[str, Any]]
    stop_reason: str | None
    report: str
    audit_breaks: list[str] = field(default_factory=list)


def _loop(agent: LedgerAgent, ledger: Ledger, budgets: Budgets, blocked: tuple[str, ...] = ()) -> RevisionController:
    ctl = RevisionController(ledger, budgets)
    for it in ctl:
        with it:
            agent.repair(ledger, it.trigger, blocked)
    return ctl


def _sso(agent: LedgerAgent, ledger: Ledger) -> RevisionController:
    q = ledger.add_question("Which Acme Cloud tiers include SSO?")
    c = ledger.add_claim(CLAIMS["sso"], question=q)
    agent.gather(ledger, c, source_class="vendor_docs")
    agent.settle(ledger, c)  # one vendor source: stays insufficient
    return _loop(agent, ledger, Budgets(tool_calls=12, iterations=6))


def _contested(agent: LedgerAgent, ledger: Ledger) -> RevisionController:
    q = ledger.add_question("What monthly uptime does Acme Cloud guarantee?")
    c = ledger.add_claim(CLAIMS["uptime"], question=q, impact="high")
    agent.gather(ledger, c, source_class="vendor_docs")
    agent.gather(ledger, c, source_class="news")
    agent.settle(ledger, c)  # vendor + news: verified in pass 1
    vendor = ledger.evidence(ledger.claim(c).supports[0])
    agent.enter(ledger, c, vendor.url, vendor.source_class, "routine re-read")  # the SLA page has changed
    return _loop(agent, ledger, Budgets(tool_calls=12, iterations=6))


_BLOCKED_QUERIES = ("acme starter addon cost", "starter addon single-signon")


def _blocked(agent: LedgerAgent, ledger: Ledger) -> RevisionController:
    q1 = ledger.add_question("What does a Business seat on Acme Cloud cost?")
    ledger.add_question("Is an SSO add-on sold for the Starter tier?", depends_on=[q1])
    c = ledger.add_claim(CLAIMS["price"], question=q1)
    agent.gather(ledger, c, source_class="vendor_docs")
    agent.settle(ledger, c)
    return _loop(agent, ledger, Budgets(tool_calls=12, iterations=6), _BLOCKED_QUERIES)


def _budget(agent: LedgerAgent, ledger: Ledger) -> RevisionController:
    q = ledger.add_question("How many business customers does Acme Cloud have?")
    c = ledger.add_claim(CLAIMS["customers"], question=q)
    agent.gather(ledger, c, source_class="vendor_docs")
    agent.settle(ledger, c)
    return _loop(agent, ledger, Budgets(tool_calls=4, iterations=6))


LEDGER_SCENARIOS: dict[str, tuple[str, Callable[[LedgerAgent, Ledger], RevisionController]]] = {
    "sso": ("Which Acme Cloud tiers include SSO?", _sso),
    "contested": ("What uptime does Acme Cloud guarantee?", _contested),
    "blocked": ("What does Acme Cloud cost, and is SSO sold separately?", _blocked),
    "budget": ("How many customers does Acme Cloud have?", _budget),
}

EXPECTED: dict[str, dict[str, Any]] = {
    "sso": {"transitions": ["insufficient->contradicted", "contradicted->insufficient", "insufficient->verified"],
            "stop_reason": names.STOP_GOAL_SATISFIED, "deltas": [0, -1],
            "triggers": [names.TRIGGER_INSUFFICIENT, names.TRIGGER_CONTRADICTED]},
    "contested": {"transitions": ["insufficient->verified", "verified->insufficient", "insufficient->contradicted",
                                  "contradicted->insufficient", "insufficient->contested"],
                  "stop_reason": names.STOP_GOAL_SATISFIED,
                  "triggers": [names.TRIGGER_STALE, names.TRIGGER_CONTRADICTED]},
    "blocked": {"transitions": ["insufficient->verified"], "stop_reason": names.STOP_GOAL_SATISFIED,
                "questions": {"q1": names.Q_ANSWERED, "q2": names.Q_BLOCKED},
                "triggers": [names.TRIGGER_INSUFFICIENT, names.TRIGGER_OPEN_QUESTION]},
    "budget": {"transitions": [], "stop_reason": names.STOP_BUDGET_PREFIX + "tool_calls",
               "triggers": [names.TRIGGER_INSUFFICIENT, names.TRIGGER_INSUFFICIENT]},
}
"""What each scenario must show (the main claim is c1)."""


def select_scenarios(spec: str | Iterable[str] | None) -> list[str]:
    """Scenario names from ``all``, ``a,b`` or a list; ValueError naming an unknown one."""
    if spec is None or spec == "all":
        return list(LEDGER_SCENARIOS)
    chosen = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    unknown = [s for s in chosen if s not in LEDGER_SCENARIOS]
    if unknown or not chosen:
        raise ValueError(f"unknown ledger scenario(s) {', '.join(unknown) or '(none)'}; "
                         f"choose from {', '.join(LEDGER_SCENARIOS)} or all")
    return chosen


def _one(name: str, site: LedgerSite) -> LedgerDemoResult:
    question, script = LEDGER_SCENARIOS[name]
    agent = LedgerAgent(site.base_url)
    try:
        with research_run(question=question, agent=AGENT) as run:
            ledger: Ledger = run.ledger
            ctl = script(agent, ledger)
            report = ledger.render()
            run.record_answer(report)
    finally:
        agent.session.close()
    main = ledger.claim("c1")
    return LedgerDemoResult(
        name, run.id, [f"{h.from_status}->{h.to_status}" for h in main.history],
        {c.id: c.status for c in ledger.claims()}, {q.id: q.status for q in ledger.questions()},
        list(ctl.vital_signs), ctl.stop_reason, report, audit(ledger.store, run.id).breaks)


def run_ledger_demo(scenarios: str | Iterable[str] | None = None, *,
                    on_result: Callable[[LedgerDemoResult], None] | None = None) -> list[LedgerDemoResult]:
    """Run the chosen scenarios (default all) against a local site; telemetry is the caller's choice."""
    names_ = select_scenarios(scenarios)
    results = []
    for name in names_:
        with LedgerSite() as site:  # a fresh site per scenario: page versions count from the first fetch
            result = _one(name, site)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results


def mismatches(result: LedgerDemoResult) -> list[str]:
    """How a result differs from ``EXPECTED`` (empty when it matches)."""
    want = EXPECTED[result.scenario]
    got = {"transitions": result.transitions, "stop_reason": result.stop_reason,
           "triggers": [s["trigger"] for s in result.vital_signs],
           "deltas": [s["unresolved_delta"] for s in result.vital_signs], "questions": result.questions}
    out = [f"{key}: expected {value!r}, got {got[key]!r}" for key, value in want.items() if got[key] != value]
    return out + [f"audit: {b}" for b in result.audit_breaks]


def _passes(transitions: list[str]) -> str:
    """``insufficient -> contradicted | new pass -> verified``: the claim's path, a bar where a pass opens."""
    path = ["insufficient"]
    for step in transitions:
        _before, after = step.split("->")
        path.append("| new pass" if after == names.CLAIM_INSUFFICIENT else f"-> {after}")
    return " ".join(path)


def format_ledger_result(result: LedgerDemoResult) -> str:
    """A scenario as ``citetrace demo --ledger`` prints it: the claim's path, the iterations, the report."""
    lines = [f"== ledger scenario {result.scenario}: run {result.run_id}",
             f"   claim c1: {_passes(result.transitions)}"]
    for s in result.vital_signs:
        lines.append(f"   iteration {s['iteration']}: trigger {s['trigger']} -> {s['repair']}, unresolved"
                     f" {s['unresolved']} (delta {s['unresolved_delta']:+d}), tool calls {s['tool_calls']},"
                     f" new evidence {s['new_evidence']}")
    lines.append(f"   stop: {result.stop_reason}   audit: {'ok' if not result.audit_breaks else 'BROKEN'}")
    lines += ["", *("   " + line if line else "" for line in result.report.rstrip().splitlines())]
    return "\n".join(lines)


def ledger_demo_command(args: Any) -> int:
    """``citetrace demo --ledger SCENARIOS``: configure, run, print; with ``--check`` exit 1 on a mismatch."""
    import json as _json

    from citetrace import configure
    from citetrace.cli import CommandError

    try:
        chosen = select_scenarios(args.ledger)
        telemetry = configure(store=args.store, metrics="off")
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    bad = 0

    def show(result: LedgerDemoResult) -> None:
        nonlocal bad
        problems = mismatches(result)
        bad += bool(problems)
        if args.json:
            print(_json.dumps({**result.__dict__, "mismatches": problems}, default=str), flush=True)
        else:
            print(format_ledger_result(result) + "\n", flush=True)
            for problem in problems:
                print(f"   MISMATCH {problem}", flush=True)

    try:
        run_ledger_demo(chosen, on_result=show)
    finally:
        telemetry.shutdown()
    if not args.json:
        store = f" --store {args.store}" if args.store else ""
        print(f"{len(chosen)} ledger scenario(s) done; see one with `citetrace ledger show RUN{store}`"
              f" and `citetrace ledger audit RUN{store}`.")
    return 1 if (args.check and bad) else 0
