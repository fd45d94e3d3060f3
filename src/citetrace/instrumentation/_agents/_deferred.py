"""Agent invocations whose work outlives the call: two result shapes on top of ``_boundary``'s runs.

``_boundary`` ends a run when a call returns, when its coroutine is awaited, or when its generator ends.
Three frameworks hand back something else, and the run must last as long as the work:

- a **handle** whose work goes on in an asyncio task the call started (OpenAI Agents ``run_streamed`` ->
  ``RunResultStreaming.run_loop_task``; LlamaIndex ``Workflow.run`` -> ``WorkflowHandler``). The run is
  made current while the call runs, so the task the framework creates copies it (asyncio copies the
  context at ``create_task``); it ends when the task is done, whether or not anyone drains the events,
  and the answer is read from the handle then;
- an **async context manager** (PydanticAI ``Agent.iter``): the run is current from ``__aenter__`` to
  ``__aexit__``, in the caller's task, and the answer is read from the entered value at exit.

Same semantics as ``_boundary`` (it is its ``_Scope``): nested invocations join the outer run, a user's
``research_run`` is joined and not doubled, concurrent invocations are separate runs, and what the
framework returns or raises is handed back untouched.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from citetrace import _telemetry
from citetrace.instrumentation._agents._boundary import Boundary, _Scope, in_agent
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["Later", "handle_row", "context_row"]


@dataclass(frozen=True)
class Later:
    """How a handle says its work is over.

    ``done(handle)`` is the awaitable (a task, a future, or a coroutine run as a task) that completes with
    the work. ``failure(handle)`` is an error the framework stored instead of raising (None: none).
    ``boundary.answer`` is then called with the handle itself.
    """

    boundary: Boundary
    done: Callable[[Any], Awaitable[Any]]
    failure: Callable[[Any], BaseException | None] = lambda handle: None


def handle_row(dist: str, module: str, target: str, later: Later) -> Wrap:
    """A wrap-table row for a target that returns a handle at once (see the module docstring)."""
    return Wrap(dist, module, target, lambda switch: _handle_wrapper(later, switch))


def context_row(dist: str, module: str, target: str, boundary: Boundary) -> Wrap:
    """A wrap-table row for a target that returns an async context manager (see the module docstring)."""
    return Wrap(dist, module, target, lambda switch: _context_wrapper(boundary, switch))


def _scope_for(switch: Switch, boundary: Boundary, instance: Any, args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> _Scope | None:
    """A new scope, or None when the call should go straight through (off, nested, or our failure)."""
    if not switch.active or in_agent() or not _telemetry.current().enabled:
        return None
    try:
        return _Scope(boundary, instance, args, kwargs)
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        return None


def _handle_wrapper(later: Later, switch: Switch) -> Callable[..., Any]:
    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        scope = _scope_for(switch, later.boundary, instance, args, kwargs)
        if scope is None:
            return wrapped(*args, **kwargs)
        tokens = scope.enter()
        try:
            handle = wrapped(*args, **kwargs)
        except BaseException as exc:
            scope.exit(tokens)
            scope.end(exc, None)
            raise
        scope.exit(tokens)
        _end_when_done(scope, later, handle)
        return handle

    return wrapper


def _end_when_done(scope: _Scope, later: Later, handle: Any) -> None:
    """End the run in a done-callback of the handle's work (right away if it cannot be watched)."""
    try:
        future = asyncio.ensure_future(later.done(handle))
    except Exception as exc:  # noqa: BLE001 - the handle changed shape: end the run now, answer unknown
        _telemetry.count_error("capture", exc)
        scope.end(None, None)
        return

    def on_done(fut: "asyncio.Future[Any]") -> None:
        error: BaseException | None
        if fut.cancelled():
            error = asyncio.CancelledError()
        else:
            error = fut.exception()
        if error is None:
            try:
                error = later.failure(handle)
            except Exception as exc:  # noqa: BLE001
                _telemetry.count_error("capture", exc)
        scope.end(error, None if error is not None else scope.answer_of(handle))

    future.add_done_callback(on_done)


def _context_wrapper(boundary: Boundary, switch: Switch) -> Callable[..., Any]:
    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        scope = _scope_for(switch, boundary, instance, args, kwargs)
        if scope is None:
            return wrapped(*args, **kwargs)
        try:
            manager = wrapped(*args, **kwargs)
        except BaseException as exc:
            scope.end(exc, None)
            raise
        return _RunContext(scope, manager)

    return wrapper


class _RunContext:
    """The framework's async context manager, with the run current between enter and exit."""

    def __init__(self, scope: _Scope, manager: Any) -> None:
        self._scope = scope
        self._manager = manager
        self._tokens: tuple[Any, Any, Any] | None = None
        self._value: Any = None

    async def __aenter__(self) -> Any:
        self._tokens = tokens = self._scope.enter()
        try:
            self._value = await self._manager.__aenter__()
        except BaseException as exc:
            self._scope.exit(tokens)
            self._scope.end(exc, None)
            raise
        return self._value

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> Any:
        tokens = self._tokens
        try:
            suppressed = await self._manager.__aexit__(exc_type, exc, tb)
        except BaseException as err:
            if tokens is not None:
                self._scope.exit(tokens)
            self._scope.end(err, None)
            raise
        if tokens is not None:
            self._scope.exit(tokens)
        error = None if suppressed else exc
        self._scope.end(error, None if error is not None else self._scope.answer_of(self._value))
        return suppressed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)
