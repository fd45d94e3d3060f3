"""gpt-researcher: ``GPTResearcher.conduct_research`` then ``write_report`` on one instance is one run.

The run opens at ``conduct_research`` (question: the instance's ``query``), stays open between the two
awaits, and ends when ``write_report`` returns the report, which is the answer (its markdown links and
reference list are the citations). A ``write_report`` without ``conduct_research`` is a run of its own;
a researcher dropped after ``conduct_research`` ends its run when collected. Its ``multi_agents`` flow
is a LangGraph graph and is covered by that row (the report is under the state's ``report`` key; tested end
to end too).

Tested against the real library (tests/instrumentation/agents/test_gpt_researcher.py, gpt-researcher 0.15.1
in the venv ``scripts/setup`` builds) with a scripted model; its retrievers and scrapers are rows in
``_gpt_researcher_web``. The stand-in class of test_gpt_researcher_row.py covers the keyed-run edge cases.
"""

from __future__ import annotations

from typing import Any

from citetrace.instrumentation._agents._boundary import Boundary, agent_row, text_of

__all__ = ["ROWS", "START", "FINISH"]

DIST = "gpt-researcher"
_MODULE = "gpt_researcher.agent"


def _query(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    query = getattr(instance, "query", None)
    return query if isinstance(query, str) else None


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    return "gpt-researcher"


START = Boundary(agent=_agent, question=_query, default_agent="gpt-researcher", keyed="start")
FINISH = Boundary(agent=_agent, question=_query, answer=text_of, default_agent="gpt-researcher", keyed="finish")

ROWS = (
    agent_row(DIST, _MODULE, "GPTResearcher.conduct_research", START),
    agent_row(DIST, _MODULE, "GPTResearcher.write_report", FINISH),
)
