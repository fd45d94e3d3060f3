"""The demo agent as a bench agent: ``citetrace bench examples/bench/demo-questions.yaml --agent
citetrace.demo.bench_agent:answer``. It finds the demo question with that text, runs its plan against the
local demo servers (started once, on free loopback ports, stopped at exit) inside the bench's run, and
returns the report. ``answer`` runs with no fault; ``answer_with_faults`` with every fault on."""

from __future__ import annotations

import atexit
import threading

from citetrace.demo._agent import DemoAgent
from citetrace.demo._catalogue import QUESTIONS
from citetrace.demo._servers import DemoServers

__all__ = ["answer", "answer_with_faults"]

_lock = threading.Lock()
_agents: dict[str, DemoAgent] = {}


def _agent(faults: str) -> DemoAgent:
    with _lock:
        agent = _agents.get(faults)
        if agent is None:
            servers = DemoServers(faults=faults)
            servers.start()
            atexit.register(servers.stop)
            agent = _agents[faults] = DemoAgent(servers.search_url, servers.site_url, faults=faults)
        return agent


def _run(question: str, faults: str) -> str:
    match = next((q for q in QUESTIONS if q.question.strip().lower() == question.strip().lower()), None)
    if match is None:
        raise ValueError(f"the demo agent only knows its own questions (see `citetrace demo --list`): {question!r}")
    report, _cited, _targets = _agent(faults).research(match)
    return report


def answer(question: str) -> str:
    """The demo agent's report for one of its questions, no fault injected."""
    return _run(question, "none")


def answer_with_faults(question: str) -> str:
    """The same, with every fault on (429s, 404s, a timeout, a fabricated citation...)."""
    return _run(question, "all")
