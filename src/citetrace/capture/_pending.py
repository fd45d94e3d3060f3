"""An agent boundary's root span, started when it is first needed, so that a root another instrumentation
makes inside the same call stays a root and the run joins its trace.

Why: OpenInference's LangChain tracer (OpenLLMetry's and Langfuse's callback handlers alike) opens its root
span from LangChain's callbacks *inside* ``Pregel.stream``, with whatever span is current as its parent.
Had the boundary made citetrace's ``invoke_agent`` span current there, that root would have become its child:
re-parented. So a boundary that begins with no current span neither makes its span current nor starts it.
It notes the time; ``Adopter``, a span processor on citetrace's and the application's providers, notes the
first root span another instrumentation starts in that call's context (the call's *foreign root*). The
run's span starts when it is first needed: a citetrace span is about to start beneath it, or the run ends.

- If the foreign root is still open then, or the run has ended and no other foreign root started after it
  ended (it enclosed the work), the run's span is its child, in its trace: "roots that others create count".
- Otherwise (no foreign root, or only short ones such as one LLM call each) the run's span is a root of its
  own, with the boundary's start time, exactly as before.

Either way, a span citetrace did not create keeps exactly the parent it has without citetrace.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor

from citetrace import names
from citetrace.capture._context import CURRENT_RUN, run_in_context

if TYPE_CHECKING:
    from citetrace.capture._run import Run

__all__ = ["PendingRoot", "Adopter", "ADOPTER", "child_context"]


class PendingRoot:
    """What a deferred run span will be started with, and the foreign root it may join."""

    __slots__ = ("name", "attributes", "start_ns", "context", "candidate", "spoiled", "lock")

    def __init__(self, name: str, attributes: dict[str, Any], context: Context) -> None:
        self.name = name
        self.attributes = attributes
        self.start_ns = time.time_ns()
        self.context = context
        self.candidate: ReadableSpan | None = None
        self.spoiled = False  # another foreign root started after the first had ended: it enclosed nothing
        self.lock = threading.Lock()

    def note(self, span: ReadableSpan) -> None:
        """A foreign root started in this run's context (called from ``Adopter.on_start``)."""
        with self.lock:
            first = self.candidate
            if first is None:
                self.candidate = span
            elif first.end_time is not None:
                self.spoiled = True

    def parent(self, at_end: bool) -> tuple[Context, int]:
        """The context and start time for the run's span (see the module docstring)."""
        with self.lock:
            first, spoiled = self.candidate, self.spoiled
        if first is not None and not spoiled and (first.end_time is None or at_end):
            return trace.set_span_in_context(first, self.context), max(self.start_ns, first.start_time or 0)  # type: ignore[arg-type]
        return self.context, self.start_ns


class Adopter(SpanProcessor):
    """Notes, for a deferred run current in the starting context, the first root span someone else starts.

    Stateless (the state is the run's ``PendingRoot``): one instance is added to every provider citetrace
    uses or joins. ``on_start`` costs one context-variable read for spans outside such a run.
    """

    def on_start(self, span: Span, parent_context: Context | None = None) -> None:
        run = CURRENT_RUN.get() or run_in_context()
        if run is None:
            return
        pending = run._pending  # noqa: SLF001 - the run's own deferred state
        if pending is None or span.parent is not None:
            return
        try:
            scope = span.instrumentation_scope
            if scope is not None and scope.name == names.INSTRUMENTATION_SCOPE:
                return
            pending.note(span)
        except Exception:  # noqa: BLE001 - a processor never raises into the span's maker
            return

    def on_end(self, span: ReadableSpan) -> None:
        """Nothing to do at the end."""

    def shutdown(self) -> None:
        """Holds nothing."""

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


ADOPTER = Adopter()


def child_context(run: "Run | None") -> Context | None:
    """The parent context for a citetrace span about to start: the run's span when the run is a boundary
    run whose span is not current (``Run.deferred``) and nothing else is current; None (the current context)
    otherwise. A deferred run's span is started here in either case (what ends its wait): under
    OpenLLMetry, whose LangChain spans are current, the tool span's parent is theirs, but the run must be
    open in that trace before the tool's calls are counted."""
    if run is None or not run.deferred:
        return None
    span = run.span  # started no later than the run's first tool call, so that call is counted in its trace
    if trace.get_current_span().get_span_context().is_valid:
        return None
    return trace.set_span_in_context(span)
