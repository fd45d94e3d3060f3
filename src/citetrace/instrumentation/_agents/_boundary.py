"""The agent boundary: one top-level agent invocation = one citetrace run, with its answer recorded.

API for framework modules (each one is a few getters and a ``ROWS`` tuple)::

    from citetrace.instrumentation._agents._boundary import Boundary, agent_row

    ROWS = (
        agent_row("smolagents", "smolagents.agents", "MultiStepAgent.run", Boundary(
            agent=lambda self, args, kwargs: getattr(self, "name", None),   # agent name, None -> default
            question=lambda self, args, kwargs: args[0] if args else kwargs.get("task"),
            answer=lambda result: ...,            # the call's return value (awaited first) -> text or None
            item_answer=lambda item: ...,         # each item a returned generator yields -> (priority, text)
            default_agent="smolagents",
        )),
    )

``Boundary`` fields (every getter is guarded: an exception in one is counted, never reaches the agent):

- ``agent(instance, args, kwargs) -> str | None``: the agent name (``gen_ai.agent.name``, span name
  ``invoke_agent {agent}``); None or empty uses ``default_agent``.
- ``question(instance, args, kwargs) -> str | None``: the question; stored with the run, on the span only
  with content capture (exactly as ``research_run`` does).
- ``answer(result) -> str | None``: the final answer from the return value (for an ``async def`` target,
  the awaited value). None records no answer.
- ``instance_answer(instance, result) -> str | None``: used instead of ``answer`` when set, for frameworks
  that keep the answer on the object rather than return it (knowledge-storm's runner writes its article to
  its output directory and returns None).
- ``item_answer(item) -> (priority, text) | None``: for targets that return a generator or an async
  generator (or are one): read from each yielded item; the highest priority wins, the latest among equals
  (a LangGraph report key outranks the last AI message). A ``Piece`` is one part of a message streamed in
  parts (LangGraph's ``messages`` mode): consecutive pieces with the same ``key`` are joined.
- ``thread(instance, args, kwargs) -> (owner, thread id) | None``, ``paused(item) -> bool`` and
  ``resumes(instance, args, kwargs) -> bool``: for frameworks whose invocation can stop for input and be
  resumed by a later call (LangGraph's ``interrupt()`` with a checkpointer). A call on a thread that yields
  an item ``paused`` recognises is parked open instead of ended (``_paused``); the next top-level call on
  that thread continues the same run if it ``resumes``, else the parked run ends and a new one starts.
- ``pauses_on(instance, result) -> (owner, key) | None``: the same for frameworks whose call *returns* paused (the
  OpenAI Agents SDK's tool approvals: ``result.interruptions``): the run is parked on what the result says,
  and ``thread`` finds it from the resuming call's input.
- ``failed(instance) -> BaseException | None``: a call that returned (or a stream that ended) but failed by
  the framework's own account, read after it (smolagents returns an answer forced from memory at
  ``max_steps`` and keeps ``AgentMaxStepsError`` on its last step): the answer is recorded and the run ends
  with that error, as a raised one would end it.
- ``keyed``: ``"start"`` opens a run kept on the instance and leaves it open after the call (gpt-researcher's
  ``conduct_research``); ``"finish"`` continues that run, records the answer and ends it (``write_report``);
  a ``"finish"`` without a ``"start"`` is a run of its own. A kept run whose instance is garbage-collected
  is ended then. ``""`` (default): the run is the call.

Semantics (decided here once for every framework):

- The run is ``research_run``'s own: ``start_run``/``attach_run``/``finish_run`` from ``capture._run`` and
  ``Run.record_answer`` (citations parsed, ``citetrace.citations``, answer hash, stored answer).
- Nested invocations (a managed agent, a sub-graph, a graph node calling an agent, ``invoke`` calling
  ``stream``) call straight through and join the outer run: the outermost boundary owns it.
- Under a user's ``research_run`` the invocation joins that run (no second root); its answer is recorded
  on the user's run only if none was recorded by the time the invocation ends, and the user's own
  ``record_answer`` always wins, since it comes later.
- Runs are per context: concurrent invocations in threads or asyncio tasks are separate runs.
- Sync calls end the run when they return or raise; a coroutine when awaited to the end; a (async)
  generator when exhausted, raising, or closed undrained (``finally``), with the answer read so far.
  A coroutine never awaited, or a generator never finished, is bounded by ``_abandon`` (ended as
  ``abandoned`` when collected unstarted, or past the trace TTL, or at exit). What the
  framework's generator raises while being closed undrained (smolagents raises "generator ignored
  GeneratorExit" when closed mid-step) reaches the caller as without citetrace, but does not mark the run
  failed: nothing the agent was asked to do failed.
- The wrapped call's result and exception are handed back untouched (generators are wrapped in ours, which
  forward ``send``/``throw``/``close``).
"""

from __future__ import annotations

import inspect
import threading
import weakref
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, AsyncGenerator, Callable, Coroutine, Generator, Literal

from opentelemetry import trace

from citetrace import _telemetry
from citetrace.capture import Run
from citetrace.capture._internal import CURRENT_RUN, attach_run, detach_run, finish_run, run_context, start_run
from citetrace.instrumentation._agents import _abandon, _paused
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["Boundary", "Getter", "Piece", "agent_row", "boundary_wrapper", "in_agent", "offer_partial", "text_of"]

Getter = Callable[[Any, tuple[Any, ...], dict[str, Any]], "str | None"]
"""``(instance, args, kwargs) -> str | None``; ``instance`` is None for plain functions."""

_IN_AGENT: ContextVar[bool] = ContextVar("citetrace_in_agent", default=False)


class Piece(str):
    """Text that continues the previous answer text when it has the same ``key`` (a streamed message's id)."""

    key: str

    def __new__(cls, text: str, key: str) -> "Piece":
        piece = super().__new__(cls, text)
        piece.key = key
        return piece


def _none(_instance: Any, _args: tuple[Any, ...], _kwargs: dict[str, Any]) -> str | None:
    return None


@dataclass(frozen=True)
class Boundary:
    """How to read one framework's agent invocation (see the module docstring)."""

    agent: Getter = _none
    question: Getter = _none
    answer: Callable[[Any], str | None] = lambda result: None
    item_answer: Callable[[Any], tuple[int, str] | None] | None = None
    instance_answer: Callable[[Any, Any], str | None] | None = None
    default_agent: str = "agent"
    keyed: Literal["", "start", "finish"] = ""
    thread: Callable[[Any, tuple[Any, ...], dict[str, Any]], "_paused.Thread | None"] | None = None
    paused: Callable[[Any], bool] | None = None
    resumes: Callable[[Any, tuple[Any, ...], dict[str, Any]], bool] | None = None
    failed: Callable[[Any], BaseException | None] | None = None
    pauses_on: Callable[[Any, Any], "_paused.Thread | None"] | None = None

    def __post_init__(self) -> None:
        if not self.default_agent.strip():
            raise ValueError("Boundary(default_agent=...) must be a non-empty str")


def agent_row(dist: str, module: str, target: str, boundary: Boundary) -> Wrap:
    """A wrap-table row making ``module:target`` an agent boundary (applied when ``dist`` is supported)."""
    return Wrap(dist, module, target, lambda switch: boundary_wrapper(boundary, switch))


def in_agent() -> bool:
    """True inside an agent boundary in this context (nested invocations then join the outer run)."""
    return _IN_AGENT.get()


def text_of(value: Any) -> str | None:
    """An answer as text: a str as is, None as None, anything else through ``str()`` (a dict or a
    pydantic model carrying URLs still yields its citations)."""
    if value is None or isinstance(value, str):
        return value
    return str(value)


# -- the answer streamed so far, offered by a framework object made inside the run ------------------------
_partials: "weakref.WeakKeyDictionary[Run, Callable[[], str | None]]" = weakref.WeakKeyDictionary()
_partials_lock = threading.Lock()


def offer_partial(read: Callable[[], "str | None"]) -> None:
    """``read()`` gives the current run's answer streamed so far (PydanticAI's ``StreamedRunResult``): used
    at the run's end only if the invocation ends without error and without its final answer (a stream left
    early), as a generator cut early records the text seen so far."""
    run = CURRENT_RUN.get()
    if run is not None:
        with _partials_lock:
            _partials[run] = read


def _partial_of(run: Run) -> str | None:
    with _partials_lock:
        read = _partials.pop(run, None)
    return None if read is None else _guard_answer(lambda _value: read(), None)


# -- keyed runs (one run over several calls on one instance) ----------------------------------------------
_kept: "weakref.WeakKeyDictionary[Any, tuple[Run, Any]]" = weakref.WeakKeyDictionary()
_kept_lock = threading.Lock()


def _keep(instance: Any, run: Run) -> None:
    try:
        fin = weakref.finalize(instance, finish_run, run, None)
        fin.atexit = False  # at exit the provider may be gone; an unfinished run is simply left open
        with _kept_lock:
            _kept[instance] = (run, fin)
    except TypeError:  # not weak-referenceable: the run is this call only
        finish_run(run, None)


def _kept_run(instance: Any, pop: bool) -> Run | None:
    with _kept_lock:
        try:
            entry = _kept.pop(instance, None) if pop else _kept.get(instance)
        except TypeError:
            return None
    if entry is None:
        return None
    if pop:
        entry[1].detach()
    return entry[0]


class _Scope:
    """One top-level invocation: which run it uses, whether it owns it, and how it ends."""

    __slots__ = ("boundary", "instance", "run", "owned", "keep", "ctx", "ended", "started", "watched", "best",
                 "thread", "paused", "__weakref__")

    def __init__(self, boundary: Boundary, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        self.boundary = boundary
        self.instance = instance
        self.keep = False
        self.ctx: Any = None
        self.ended = False
        self.started = False  # the coroutine or generator we returned has begun to run
        self.watched = False
        self.best: _Best | None = None
        self.thread: _paused.Thread | None = None
        self.paused = False
        user_run = CURRENT_RUN.get()
        if user_run is not None:
            self.run, self.owned = user_run, False
            return
        self.owned = True
        kept = _kept_run(instance, pop=boundary.keyed == "finish") if boundary.keyed else None
        if kept is None and boundary.thread is not None:
            kept = self._resumed(boundary, instance, args, kwargs)
        if kept is not None:
            self.run = kept
        else:
            # with nothing current, the run's span waits for a root another instrumentation may make (_pending)
            self.run = start_run(_guard(boundary.question, instance, args, kwargs),
                                 _guard(boundary.agent, instance, args, kwargs) or boundary.default_agent,
                                 deferred=not trace.get_current_span().get_span_context().is_valid)
        self.keep = boundary.keyed == "start"

    def _resumed(self, boundary: Boundary, instance: Any, args: tuple[Any, ...],
                 kwargs: dict[str, Any]) -> Run | None:
        """The run parked on this call's thread, if this call resumes it (a fresh start ends it)."""
        thread = boundary.thread
        try:
            self.thread = thread(instance, args, kwargs) if thread is not None else None
            parked = _paused.take(self.thread) if self.thread is not None else None
            if parked is None:
                return None
            if boundary.resumes is not None and boundary.resumes(instance, args, kwargs):
                return parked
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return None
        _paused.end(parked)
        return None

    def see(self, item: Any) -> None:
        """One item of a stream: the best answer so far, and whether the invocation paused for input."""
        if self.best is not None:
            self.best.see(item)
        if self.thread is not None and self.boundary.paused is not None and not self.paused:
            try:
                self.paused = bool(self.boundary.paused(item))
            except Exception as exc:  # noqa: BLE001
                _telemetry.count_error("capture", exc)

    def enter(self) -> tuple[Any, Any, Any]:
        in_token = _IN_AGENT.set(True)
        if self.owned:
            if self.ctx is None:  # computed once: a generator's run is attached again for every item
                self.ctx = run_context(self.run, beside_foreign=True)
            return (in_token, *attach_run(self.run, self.ctx))
        return in_token, None, None

    def exit(self, tokens: tuple[Any, Any, Any]) -> None:
        in_token, ctx_token, run_token = tokens
        if run_token is not None:
            detach_run(ctx_token, run_token)
        try:
            _IN_AGENT.reset(in_token)
        except ValueError:
            _IN_AGENT.set(False)

    def end(self, exc: BaseException | None, answer: str | None) -> None:
        """Record the answer (owned run, or a user's run without one) and end an owned run (once)."""
        if self.ended:
            return
        self.ended = True
        if self.watched:
            _abandon.forget(self)
        run = self.run
        if self.owned and exc is None and answer is None and _partials:
            answer = _partial_of(run)
        if self.owned and exc is None and self.paused and self.thread is not None:
            _paused.park(self.thread, run)  # resumed by a later call on the thread, or ended by _paused
            return
        if exc is None and answer is not None and (self.owned or run.answer is None):
            if self.owned:
                run.open_span(True)  # the call has returned: a foreign root that enclosed it is adopted
            try:
                run.record_answer(answer)
            except Exception as err:  # noqa: BLE001
                _telemetry.count_error("capture", err)
        if not self.owned:
            return
        if self.keep and exc is None and self.instance is not None:
            if _kept_run(self.instance, pop=False) is not run:
                _keep(self.instance, run)
            return
        if self.keep:
            _kept_run(self.instance, pop=True)
        finish_run(run, exc if exc is not None else self._failed())

    def _pauses_on(self, read: Callable[[Any, Any], "_paused.Thread | None"], result: Any) -> None:
        """The call returned paused (waiting for approval): park the run on the thread the result names."""
        try:
            thread = read(self.instance, result)
        except Exception as err:  # noqa: BLE001
            _telemetry.count_error("capture", err)
            return
        if thread is not None:
            self.thread, self.paused = thread, True

    def _failed(self) -> BaseException | None:
        read = self.boundary.failed
        if read is None:
            return None
        try:
            error = read(self.instance)
        except Exception as err:  # noqa: BLE001
            _telemetry.count_error("capture", err)
            return None
        return error if isinstance(error, BaseException) else None

    def handing_back(self, handle: Any) -> Any:
        """``handle`` (our coroutine or generator) goes to the caller, who ends the run by finishing it: bound
        the run in case the caller never does (``_abandon``)."""
        if self.owned and not self.keep:
            self.watched = True
            _abandon.watch(self, handle)
        return handle

    def abandon(self) -> None:
        """The caller never finished the call: end the run as abandoned, with the answer seen so far."""
        text = self.best.text if self.best is not None else None
        if text is not None and not self.ended:
            try:
                self.run.record_answer(text)
            except Exception as err:  # noqa: BLE001
                _telemetry.count_error("capture", err)
        self.end(_abandon.RunAbandoned("the caller never finished this agent call"), None)

    def answer_of(self, result: Any) -> str | None:
        if self.keep:
            return None
        if self.owned and self.boundary.pauses_on is not None:
            self._pauses_on(self.boundary.pauses_on, result)
        read = self.boundary.instance_answer
        if read is not None:
            instance = self.instance
            return _guard_answer(lambda value: read(instance, value), result)
        return _guard_answer(self.boundary.answer, result)


def _guard(getter: Getter, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    try:
        value = getter(instance, args, kwargs)
        return value.strip() or None if isinstance(value, str) else None
    except Exception as exc:  # noqa: BLE001 - a framework's shape changed: no name, never a broken agent
        _telemetry.count_error("capture", exc)
        return None


def _guard_answer(read: Callable[[Any], str | None], value: Any) -> str | None:
    try:
        text = read(value)
        return text if isinstance(text, str) else None
    except Exception as exc:  # noqa: BLE001
        _telemetry.count_error("capture", exc)
        return None


class _Best:
    """The best answer seen in a stream: highest priority, latest among equals."""

    __slots__ = ("read", "priority", "text", "piece")

    def __init__(self, read: Callable[[Any], tuple[int, str] | None] | None) -> None:
        self.read = read
        self.priority = -1
        self.text: str | None = None
        self.piece: str | None = None  # the key of the message the text was streamed from, in pieces

    def see(self, item: Any) -> None:
        if self.read is None:
            return
        try:
            found = self.read(item)
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return
        if found is None or found[0] < self.priority or not isinstance(found[1], str):
            return
        priority, text = found
        key = text.key if isinstance(text, Piece) else None
        if key is not None and key == self.piece and priority == self.priority and self.text is not None:
            self.text += str(text)
        else:
            self.priority, self.text = priority, str(text)
        self.piece = key


def boundary_wrapper(boundary: Boundary, switch: Switch) -> Callable[..., Any]:
    """The wrapt wrapper for one boundary (``agent_row`` builds it; exposed for tests and user targets)."""

    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not switch.active or _IN_AGENT.get() or not _telemetry.current().enabled:
            return wrapped(*args, **kwargs)
        _abandon.sweep()  # end runs whose caller left them unfinished past the TTL
        _paused.sweep()
        try:
            scope = _Scope(boundary, instance, args, kwargs)
        except Exception as exc:  # noqa: BLE001
            _telemetry.count_error("capture", exc)
            return wrapped(*args, **kwargs)
        tokens = scope.enter()
        try:
            result = wrapped(*args, **kwargs)
        except BaseException as exc:
            scope.exit(tokens)
            scope.end(exc, None)
            raise
        scope.exit(tokens)
        if inspect.iscoroutine(result):
            return scope.handing_back(_coroutine(scope, result))
        if inspect.isgenerator(result):
            return scope.handing_back(_generator(scope, result))
        if inspect.isasyncgen(result):
            return scope.handing_back(_async_generator(scope, result))
        scope.end(None, scope.answer_of(result))
        return result

    return wrapper


async def _coroutine(scope: _Scope, coro: Coroutine[Any, Any, Any]) -> Any:
    scope.started = True
    tokens = scope.enter()
    try:
        result = await coro
    except BaseException as exc:
        scope.exit(tokens)
        scope.end(exc, None)
        raise
    scope.exit(tokens)
    scope.end(None, scope.answer_of(result))
    return result


def _generator(scope: _Scope, gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    scope.started = True
    best = scope.best = _Best(scope.boundary.item_answer)
    error: BaseException | None = None
    action: Callable[..., Any] = gen.__next__
    arg: tuple[Any, ...] = ()
    try:
        while True:
            tokens = scope.enter()
            try:
                item = action(*arg)
            except StopIteration as stop:
                return stop.value
            finally:
                scope.exit(tokens)
            scope.see(item)
            try:
                sent = yield item
            except GeneratorExit:
                raise
            except BaseException as thrown:  # forwarded into the framework's generator, as ``yield from`` does
                action, arg = gen.throw, (thrown,)
            else:
                action, arg = (gen.__next__, ()) if sent is None else (gen.send, (sent,))
    except GeneratorExit:
        raise
    except BaseException as exc:
        error = exc
        raise
    finally:
        tokens = scope.enter()
        try:
            gen.close()  # raises what the framework's generator raises on close (passed on, not the run's error)
        finally:
            scope.exit(tokens)
            scope.end(error, None if error else best.text)


async def _async_generator(scope: _Scope, agen: AsyncGenerator[Any, Any]) -> AsyncGenerator[Any, Any]:
    scope.started = True
    best = scope.best = _Best(scope.boundary.item_answer)
    error: BaseException | None = None
    action: Callable[..., Any] = agen.__anext__
    arg: tuple[Any, ...] = ()
    try:
        while True:
            tokens = scope.enter()
            try:
                item = await action(*arg)
            except StopAsyncIteration:
                return
            finally:
                scope.exit(tokens)
            scope.see(item)
            try:
                sent = yield item
            except GeneratorExit:
                raise
            except BaseException as thrown:
                action, arg = agen.athrow, (thrown,)
            else:
                action, arg = (agen.__anext__, ()) if sent is None else (agen.asend, (sent,))
    except GeneratorExit:
        raise
    except BaseException as exc:
        error = exc
        raise
    finally:
        tokens = scope.enter()
        try:
            await agen.aclose()
        finally:
            scope.exit(tokens)
            scope.end(error, None if error else best.text)
