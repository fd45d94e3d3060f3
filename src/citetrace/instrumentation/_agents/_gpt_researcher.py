"""gpt-researcher: ``GPTResearcher.conduct_research`` then ``write_report`` on one instance is one run.

The run opens at ``conduct_research`` (question: the instance's ``query``), stays open between the two
awaits, and ends when ``write_report`` returns the report, which is the answer (its markdown links and
reference list are the citations). A ``write_report`` without ``conduct_research`` is a run of its own;
a researcher dropped after ``conduct_research`` ends its run when collected. Its ``multi_agents`` flow
is a LangGraph graph and is covered by that row (the report is under the state's ``report`` key).

Not run here against the real library: gpt-researcher 0.15.1 (the newest that resolves next to the other
extras) pins numpy 2.2, python-dateutil 2.9 and filelock 3, so installing it would downgrade three packages
the project already uses and add ~90 more (spacy, unstructured, pymupdf...). The row is written against
gpt-researcher's ``agent.py`` (0.15/0.16: ``async conduct_research(self, on_progress=None)``, ``async
write_report(self, ...) -> str``, ``self.query``); its tests run the same row on a stand-in class with those
signatures (tests/instrumentation/agents/test_gpt_researcher_row.py), and it was checked by hand once against
the real class in a venv of its own (docs/frameworks.md says what that covered).
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
