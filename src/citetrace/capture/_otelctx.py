"""The three OpenTelemetry context operations of a traced call (read the current context, make a span's context
current, restore the previous one), without the API's own frames where that is exact.

Why: a traced call makes each of them once, and through the public API each is two or three Python frames
(``context.get_current`` -> ``_RUNTIME_CONTEXT.get_current`` -> ``ContextVar.get``, and the same for ``attach``,
``detach`` and ``trace.set_span_in_context``). Frames are the bulk of what the wrapper adds to a span
(docs/performance.md). With the API's default runtime context (``ContextVarsRuntimeContext``, which every
process gets unless ``OTEL_PYTHON_CONTEXT`` names another), those functions end in one ``ContextVar``, and
here it is called directly: the same variable, the same values, the same tokens. With any other runtime
context, or an API that keeps its state elsewhere, the public functions are used, so nothing changes but
the cost.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from typing import Callable

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.trace import Span

__all__ = ["current_context", "attach_span", "detach"]


def _default_runtime_variable() -> ContextVar[Context] | None:
    """The ``ContextVar`` behind the API's default runtime context, or None (another runtime context)."""
    try:
        from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext

        runtime = getattr(otel_context, "_RUNTIME_CONTEXT", None)
        variable = getattr(runtime, "_current_context", None)
    except ImportError:  # pragma: no cover - an API without the module: the public functions
        return None
    if type(runtime) is ContextVarsRuntimeContext and isinstance(variable, ContextVar):
        return variable
    return None


def _span_key() -> str | None:
    """The key ``trace.set_span_in_context`` stores the span under, or None (an API that names it elsewhere)."""
    try:
        from opentelemetry.trace.propagation import _SPAN_KEY
    except ImportError:  # pragma: no cover
        return None
    return _SPAN_KEY if isinstance(_SPAN_KEY, str) else None


_VARIABLE = _default_runtime_variable()
_SPAN_KEY = _span_key()

current_context: Callable[[], Context] = _VARIABLE.get if _VARIABLE is not None else otel_context.get_current
"""``opentelemetry.context.get_current``."""


def attach_span(span: Span, ctx: Context) -> Token[Context]:
    """``context.attach(trace.set_span_in_context(span, ctx))``: ``ctx`` with ``span`` as its current span, made
    current; the token restores what was current before."""
    if _VARIABLE is None or _SPAN_KEY is None:
        return otel_context.attach(trace.set_span_in_context(span, ctx))
    values = ctx.copy()  # what set_value does: a copy of the context with the one key set, as a new Context
    values[_SPAN_KEY] = span
    return _VARIABLE.set(Context(values))


def detach(token: Token[Context]) -> None:
    """``context.detach``: restore the context current before ``attach_span``. A token that cannot be reset (a
    coroutine driven from another context) goes to the public function, which logs it and carries on, as before."""
    if _VARIABLE is not None:
        try:
            _VARIABLE.reset(token)
            return
        except (ValueError, RuntimeError):
            pass
    otel_context.detach(token)
