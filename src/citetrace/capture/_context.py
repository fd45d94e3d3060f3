"""Context variables shared by tool wrappers and runs (kept apart to avoid an import cycle)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Iterator

from opentelemetry import context as otel_context

if TYPE_CHECKING:
    from citetrace.capture._run import Run

__all__ = ["CURRENT_RUN", "RUN_CONTEXT_KEY", "run_in_context", "IN_TOOL", "TOOL_CALL_ID", "current_run", "in_tool_call",
           "tool_call_id", "OUTSIDE_RUN_CALLS"]

CURRENT_RUN: ContextVar["Run | None"] = ContextVar("citetrace_run", default=None)
IN_TOOL: ContextVar[bool] = ContextVar("citetrace_in_tool", default=False)
TOOL_CALL_ID: ContextVar[str | None] = ContextVar("citetrace_tool_call_id", default=None)
OUTSIDE_RUN_CALLS: ContextVar[list[int] | None] = ContextVar("citetrace_outside_run_calls", default=None)
"""A counter of traced calls that ended outside any run, set by whoever needs one in this context (the ledger's
revision controller, re-opened after a restart, counts its iterations' calls with it); None: nobody counts."""
RUN_CONTEXT_KEY = otel_context.create_key("citetrace-run")
"""The run also travels in the OpenTelemetry context (set with its root span), so whatever carries that
context into a worker thread (``opentelemetry-instrumentation-threading``, a framework's own propagation)
carries the run with it, not only the parent span."""


def current_run() -> "Run | None":
    """The research run active in this context, or None."""
    return CURRENT_RUN.get() or run_in_context()


def run_in_context(ctx: otel_context.Context | None = None) -> "Run | None":
    """The run carried by the current OpenTelemetry context, or by ``ctx`` (a thread that got only that
    context)."""
    run = (ctx if ctx is not None else otel_context.get_current()).get(RUN_CONTEXT_KEY)  # get_value, one frame less
    return run  # type: ignore[return-value]


def in_tool_call() -> bool:
    """True while a traced tool call runs in this context (nested wrapped calls then pass through)."""
    return IN_TOOL.get()


@contextmanager
def tool_call_id(call_id: str) -> Iterator[None]:
    """Attach the caller's tool-call id (``gen_ai.tool.call.id``) to the tool span(s) started inside.

    The id must be a non-empty string (what every provider's tool call carries): checked here, on entry, so
    a wrong argument fails at the call that made it rather than as an odd span attribute later.
    """
    if not isinstance(call_id, str):
        raise TypeError(f"tool_call_id() expects the call id as str, got {type(call_id).__name__}")
    if not call_id:
        raise ValueError("tool_call_id() needs a non-empty call id")
    token = TOOL_CALL_ID.set(call_id)
    try:
        yield
    finally:
        TOOL_CALL_ID.reset(token)
