"""Context variables shared by tool wrappers and runs (kept apart to avoid an import cycle)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from citetrace.capture._run import Run

__all__ = ["CURRENT_RUN", "IN_TOOL", "TOOL_CALL_ID", "current_run", "in_tool_call", "tool_call_id"]

CURRENT_RUN: ContextVar["Run | None"] = ContextVar("citetrace_run", default=None)
IN_TOOL: ContextVar[bool] = ContextVar("citetrace_in_tool", default=False)
TOOL_CALL_ID: ContextVar[str | None] = ContextVar("citetrace_tool_call_id", default=None)


def current_run() -> "Run | None":
    """The research run active in this context, or None."""
    return CURRENT_RUN.get()


def in_tool_call() -> bool:
    """True while a traced tool call runs in this context (nested wrapped calls then pass through)."""
    return IN_TOOL.get()


@contextmanager
def tool_call_id(call_id: str) -> Iterator[None]:
    """Attach the caller's tool-call id (``gen_ai.tool.call.id``) to the tool span(s) started inside."""
    token = TOOL_CALL_ID.set(call_id)
    try:
        yield
    finally:
        TOOL_CALL_ID.reset(token)
