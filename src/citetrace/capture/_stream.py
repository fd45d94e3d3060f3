"""Generator and async-generator tools: one span that covers the whole iteration.

A tool written as a generator does its work while the caller iterates, so its span starts at the call and
ends when the generator is exhausted, raises, or is closed (the caller stopped early, or dropped it). The
span's context is current only while the tool's own code runs (each ``next``/``send``/``throw`` step), never
in the caller's code between items. What it yielded is classified as the result once it ends: the items of a
search, the text of a fetch (its ``str`` or ``bytes`` chunks joined), so a streamed page is a read, not an
empty one. Items are held by reference until the end, as a list result would be; ``send``, ``throw`` and
``close`` reach the tool's generator unchanged, and its return value and exceptions come back as they were.
"""

from __future__ import annotations

import functools
from typing import Any, AsyncGenerator, Awaitable, Callable, Generator, Mapping, Sequence

from opentelemetry import context as otel_context
from opentelemetry import trace

from citetrace import names
from citetrace.capture import _replay
from citetrace.capture._context import IN_TOOL
from citetrace.capture._core import ToolSpec, _Call, _fail, _finish, _passthrough, _start

__all__ = ["iterate", "async_generator_tool"]


def _collected(spec: ToolSpec, items: list[Any]) -> Any:
    """What a list-returning twin of the tool would have returned: the items, or a fetch's joined text."""
    if spec.kind == names.TOOL_KIND_FETCH and items:
        if all(isinstance(i, str) for i in items):
            return "".join(items)
        if all(isinstance(i, (bytes, bytearray)) for i in items):
            return b"".join(items)
    return items


def _begin(spec: ToolSpec, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[_Call | None, Any]:
    """Start the span without leaving its context attached (it is attached per step)."""
    call = _start(spec, args, kwargs)
    if call is None:
        return None, None
    call.detach()
    return call, trace.set_span_in_context(call.span)


def _enter(ctx: Any) -> tuple[Any, Any]:
    return otel_context.attach(ctx), IN_TOOL.set(True)


def _leave(tokens: tuple[Any, Any]) -> None:
    IN_TOOL.reset(tokens[1])
    otel_context.detach(tokens[0])


def _replayed(spec: ToolSpec, wrapped: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any],
              is_async: bool) -> Callable[..., Any]:
    """Under replay: a generator (function) yielding the recorded items (a recorded fetch text as one item),
    or raising the recorded exception; the real tool on a ``passthrough`` miss."""
    replaying = _replay.current()
    if replaying is None:
        return wrapped
    recorded = replaying.stand_in(spec, args, kwargs, wrapped, False)
    if recorded is wrapped:
        return wrapped

    def items() -> list[Any]:
        value = recorded()
        return [value] if isinstance(value, (str, bytes)) else list(value)

    if is_async:
        async def agen(*_a: Any, **_k: Any) -> AsyncGenerator[Any, Any]:
            for item in items():
                yield item

        return agen

    def gen(*_a: Any, **_k: Any) -> Generator[Any, Any, Any]:
        yield from items()

    return gen


def iterate(spec: ToolSpec, wrapped: Callable[..., Generator[Any, Any, Any]], args: Sequence[Any],
            kwargs: Mapping[str, Any]) -> Generator[Any, Any, Any]:
    """Run the generator ``wrapped(*args, **kwargs)`` inside one tool span that lasts for the iteration."""
    if _passthrough():
        return (yield from wrapped(*args, **kwargs))
    wrapped = _replayed(spec, wrapped, args, kwargs, False)
    call, ctx = _begin(spec, args, kwargs)
    if call is None:
        return (yield from wrapped(*args, **kwargs))
    items: list[Any] = []
    sent: Any = None
    thrown: BaseException | None = None
    gen: Generator[Any, Any, Any] | None = None
    while True:
        tokens = _enter(ctx)
        try:
            if gen is None:
                gen = wrapped(*args, **kwargs)
            item = gen.throw(thrown) if thrown is not None else gen.send(sent)
        except StopIteration as stop:
            _finish(call, _collected(spec, items))
            return stop.value
        except BaseException as exc:
            _fail(call, exc)
            raise
        finally:
            _leave(tokens)
        items.append(item)
        sent, thrown = None, None
        try:
            sent = yield item
        except GeneratorExit:  # the caller stopped early (or dropped us): close the tool, keep what it gave
            tokens = _enter(ctx)
            try:
                gen.close()
            except BaseException as exc:
                _fail(call, exc)
                raise
            finally:
                _leave(tokens)
            _finish(call, _collected(spec, items))
            raise
        except BaseException as exc:  # thrown in by the caller: the tool's generator gets it next step
            thrown = exc


async def _in_span(call: _Call | None, ctx: Any, step: Callable[[], Awaitable[Any]]) -> Any:
    """Await one step of the tool's async generator with its span current; a failure fails the span
    (exhaustion, ``StopAsyncIteration``, is the caller's to handle)."""
    tokens = _enter(ctx) if call is not None else None
    try:
        return await step()
    except StopAsyncIteration:
        raise
    except BaseException as exc:
        if call is not None:
            _fail(call, exc)
        raise
    finally:
        if tokens is not None:
            _leave(tokens)


def async_generator_tool(spec: ToolSpec, wrapped: Callable[..., AsyncGenerator[Any, Any]]) -> Callable[..., Any]:
    """The async twin of ``iterate``, as the wrapper itself (an async generator cannot delegate with ``yield
    from``, and ``async for`` would drop ``asend``/``athrow``); no span when tracing is off or suppressed."""

    async def agen_wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
        passthrough = _passthrough()
        call, ctx = (None, None) if passthrough else _begin(spec, args, kwargs)
        source = wrapped if passthrough else _replayed(spec, wrapped, args, kwargs, True)
        items: list[Any] = []
        sent: Any = None
        thrown: BaseException | None = None
        agen = source(*args, **kwargs)  # creating an async generator runs none of its code
        while True:
            step: Callable[[], Awaitable[Any]] = (
                functools.partial(agen.athrow, thrown) if thrown is not None else functools.partial(agen.asend, sent)
            )
            try:
                item = await _in_span(call, ctx, step)
            except StopAsyncIteration:
                if call is not None:
                    _finish(call, _collected(spec, items))
                return
            if call is not None:
                items.append(item)
            sent, thrown = None, None
            try:
                sent = yield item
            except GeneratorExit:
                await _in_span(call, ctx, agen.aclose)
                if call is not None:
                    _finish(call, _collected(spec, items))
                raise
            except BaseException as exc:
                thrown = exc

    return agen_wrapper
