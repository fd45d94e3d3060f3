"""Capture: turn search and fetch calls into ``execute_tool`` spans and runs into ``invoke_agent`` roots.

Capture knows nothing about summaries or metrics; those subscribe through run-end hooks and span processors.
"""

from __future__ import annotations

from citetrace.capture._citations import cited_urls
from citetrace.capture._context import current_run, in_tool_call, tool_call_id
from citetrace.capture._core import ToolSpec, ainvoke, invoke
from citetrace.capture._decorator import traced_tool
from citetrace.capture._replay import ReplayMiss, replay
from citetrace.capture._run import Run, research_run

__all__ = [
    "ReplayMiss",
    "Run",
    "ToolSpec",
    "ainvoke",
    "cited_urls",
    "current_run",
    "in_tool_call",
    "invoke",
    "replay",
    "research_run",
    "tool_call_id",
    "traced_tool",
]
