"""A run is one trace across threads: ``ThreadPoolExecutor.submit`` carries the run into the worker.

Python's thread pools do not copy the caller's context, so a tool called from a worker had no parent span
and no run. ``opentelemetry-instrumentation-threading`` does this for the OpenTelemetry context, but it
pins ``opentelemetry-instrumentation`` to its own exact version (0.66b1 against our 0.66b2: installing it
would downgrade the API/SDK), so this row does the same on ``submit``, which also covers ``Executor.map``,
``loop.run_in_executor`` (the default executor is a ``ThreadPoolExecutor``) and smolagents' ``CodeAgent``
local executor (a one-worker pool per code action). If contrib's instrumentation is active too, nothing is
doubled: the run also travels inside the OpenTelemetry context it carries (``RUN_CONTEXT_KEY``).

Only work submitted inside a citetrace run or tool call is touched; everything else is submitted exactly
as before, so an application's spans outside runs are never re-parented. Carried are the OpenTelemetry
context, the run, and citetrace's tool-call state (nested-call suppression, the tool-call id, the HTTP
status probe's scope). They are set around the one task and reset after it, so nothing stays in the
worker thread for unrelated work submitted later; results and exceptions pass through untouched.
"""

from __future__ import annotations

from typing import Any, Callable

from opentelemetry import context as otel_context

from citetrace.capture._internal import CURRENT_RUN, IN_TOOL, TOOL_CALL_ID, run_in_context
from citetrace.instrumentation import _probe
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS", "carry"]

_VARS = (CURRENT_RUN, IN_TOOL, TOOL_CALL_ID, _probe._SCOPE)


class _Carried:
    """``fn`` run in the submitter's citetrace and OpenTelemetry context, which is restored after."""

    __slots__ = ("fn", "ctx", "values")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.ctx = otel_context.get_current()
        self.values = tuple(var.get() for var in _VARS)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tokens = [var.set(value) for var, value in zip(_VARS, self.values)]  # type: ignore[attr-defined]
        ctx_token = otel_context.attach(self.ctx)
        try:
            return self.fn(*args, **kwargs)
        finally:
            otel_context.detach(ctx_token)
            for var, token in zip(reversed(_VARS), reversed(tokens)):
                var.reset(token)  # type: ignore[attr-defined]


def carry(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` bound to the current run's context when one is active (or a tool call is), else ``fn`` itself."""
    if CURRENT_RUN.get() is None and not IN_TOOL.get() and run_in_context() is None:
        return fn
    return _Carried(fn)


def _submit_factory(switch: Switch) -> Callable[..., Any]:
    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not switch.active or not args:
            return wrapped(*args, **kwargs)
        return wrapped(carry(args[0]), *args[1:], **kwargs)

    return wrapper


ROWS = (Wrap("", "concurrent.futures.thread", "ThreadPoolExecutor.submit", _submit_factory),)
