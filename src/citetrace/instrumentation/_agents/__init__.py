"""Agent boundaries: each framework's top-level invocation becomes one citetrace run (see ``_boundary``)."""

from __future__ import annotations

from citetrace.instrumentation._agents import (
    _callids,
    _crewai,
    _gpt_researcher,
    _langgraph,
    _llamaindex,
    _openai_agents,
    _pydantic_ai,
    _smolagents,
    _storm,
)

__all__ = ["ROWS"]

ROWS = (
    *_smolagents.ROWS,
    *_langgraph.ROWS,
    *_openai_agents.ROWS,
    *_llamaindex.ROWS,
    *_pydantic_ai.ROWS,
    *_gpt_researcher.ROWS,
    *_storm.ROWS,
    *_crewai.ROWS,
    *_callids.ROWS,
)
