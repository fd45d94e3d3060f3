"""``@traced_tool``: one span per call of a search or fetch function, sync or async, method or function.

The wrapper is a plain closure (cheapest to call) built with ``functools.wraps`` so that signatures,
docstrings and ``inspect`` keep working; when tracing is disabled it is a flag check and a straight call.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Iterable, TypeVar, overload

from citetrace import names
from citetrace import _telemetry
from citetrace.capture._context import IN_TOOL
from citetrace.capture._core import ToolSpec, _unsuppressed, atraced_call, traced_call
from citetrace.capture._stream import async_generator_tool, iterate

__all__ = ["traced_tool"]

F = TypeVar("F", bound=Callable[..., Any])


def _call_method(fn: Callable[..., Any]) -> Any:
    """For a callable object (not a function), its class's ``__call__``: that says async or generator."""
    if inspect.isfunction(fn) or inspect.ismethod(fn) or isinstance(fn, type):
        return fn
    return getattr(type(fn), "__call__", fn)


def _wrap(target: Callable[..., Any], spec: ToolSpec) -> Callable[..., Any]:
    """The wrapper of the right kind: async generator, generator, coroutine or plain, so that ``inspect``
    still says what the tool is. Each does ``invoke``'s checks itself, so that when tracing is off, suppressed
    or inside a tool it is one frame above the tool: a wrapped recursive tool reaches half the bare depth,
    the floor for a wrapper written in Python (benchmarks/bench_depth.py, tests/capture/test_callables.py)."""
    current = _telemetry.current
    shape = _call_method(target)
    wrapper: Callable[..., Any]
    if inspect.isasyncgenfunction(target) or inspect.isasyncgenfunction(shape):

        wrapper = functools.wraps(target)(async_generator_tool(spec, target))
    elif inspect.isgeneratorfunction(target) or inspect.isgeneratorfunction(shape):

        @functools.wraps(target)
        def gen_wrapper(*args: Any, **kwargs: Any) -> Any:
            if not current().enabled or IN_TOOL.get():
                return (yield from target(*args, **kwargs))
            return (yield from iterate(spec, target, args, kwargs))

        wrapper = gen_wrapper
    elif inspect.iscoroutinefunction(target) or inspect.iscoroutinefunction(shape):

        @functools.wraps(target)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            tel = current()
            ctx = _unsuppressed() if tel.enabled and not IN_TOOL.get() else None
            if ctx is None:
                return await target(*args, **kwargs)
            return await atraced_call(tel, spec, target, args, kwargs, True, ctx)

        wrapper = async_wrapper
    else:

        @functools.wraps(target)
        def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
            # invoke's checks, inlined: a nested (or disabled, or suppressed) call is this one frame
            tel = current()
            ctx = _unsuppressed() if tel.enabled and not IN_TOOL.get() else None
            if ctx is None:
                return target(*args, **kwargs)
            return traced_call(tel, spec, target, args, kwargs, True, ctx)

        wrapper = sync_wrapper
    setattr(wrapper, "__citetrace_spec__", spec)
    return wrapper


def _first_doc_line(fn: Callable[..., Any]) -> str | None:
    doc = inspect.getdoc(fn)
    return doc.strip().splitlines()[0][:200] if doc else None


def _takes_self(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0] in ("self", "cls")


def _check_parameter(fn: Callable[..., Any], option: str, given: str) -> None:
    """``query_arg=``/``url_arg=`` must name a parameter of the tool (unless it takes ``**kwargs``): a typo was
    accepted, and no call ever recorded its query or URL."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return  # a builtin or an odd callable: nothing to check against
    if given in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    shown = ", ".join(p for p in params if p not in ("self", "cls")) or "none"
    label = getattr(fn, "__name__", type(fn).__name__)
    raise ValueError(f"traced_tool({option}={given!r}): {label} has no parameter {given!r} (it has: {shown})")


def _positional_names(fn: Callable[..., Any], skip_self: bool) -> tuple[str, ...]:
    """The names of the parameters a positional argument can fill, ``self``/``cls`` left out when the call's
    first argument is skipped; empty when the signature cannot be read."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    found = tuple(p.name for p in params if p.kind in kinds)
    return found[1:] if skip_self and found else found


@overload
def traced_tool(fn: F) -> F: ...


@overload
def traced_tool(
    fn: None = None,
    *,
    kind: str = ...,
    name: str | None = ...,
    classify: Callable[[Any], str | None] | None = ...,
    extract_urls: Callable[[Any], Iterable[str]] | None = ...,
    query_arg: str | None = ...,
    url_arg: str | None = ...,
    description: str | None = ...,
) -> Callable[[F], F]: ...


def traced_tool(
    fn: Callable[..., Any] | None = None,
    *,
    kind: str = names.TOOL_KIND_SEARCH,
    name: str | None = None,
    classify: Callable[[Any], str | None] | None = None,
    extract_urls: Callable[[Any], Iterable[str]] | None = None,
    query_arg: str | None = None,
    url_arg: str | None = None,
    description: str | None = None,
) -> Any:
    """Trace a search (``kind="search"``) or fetch (``kind="fetch"``) tool.

    ``classify(result)`` may return ``ok``/``empty``/``error``/``rate_limited`` for tools that return
    failures instead of raising (None falls back to the built-in rules); ``extract_urls(result)`` supplies
    the result URLs for shapes the built-in extraction does not know.
    """
    if kind not in names.TOOL_KINDS:
        raise ValueError(f"traced_tool(kind=...) must be one of {names.TOOL_KINDS}, got {kind!r}")
    for hook_name, hook in (("classify", classify), ("extract_urls", extract_urls)):
        if hook is not None and not callable(hook):
            raise TypeError(f"traced_tool({hook_name}=...) must be callable, got {type(hook).__name__}")
    for option, given in (("name", name), ("query_arg", query_arg), ("url_arg", url_arg), ("description", description)):
        if given is not None and not isinstance(given, str):
            raise TypeError(f"traced_tool({option}=...) must be a str, got {type(given).__name__}")

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(func, (staticmethod, classmethod)):  # either order with @classmethod/@staticmethod
            inner = func.__func__
            wrapper = _wrap(inner, _spec(inner, skip_self=isinstance(func, classmethod) and _takes_self(inner)))
            return type(func)(wrapper)
        if not callable(func):
            raise TypeError(f"traced_tool can only wrap a callable, got {type(func).__name__}")
        return _wrap(func, _spec(func, skip_self=_takes_self(func)))

    def _spec(target: Callable[..., Any], *, skip_self: bool) -> ToolSpec:
        for option, given in (("query_arg", query_arg), ("url_arg", url_arg)):
            if given is not None:
                _check_parameter(target, option, given)
        return ToolSpec(
            name=name or str(getattr(target, "__name__", None) or type(target).__name__),
            kind=kind,
            classify=classify,
            result_urls=extract_urls,
            query_arg=query_arg,
            url_arg=url_arg,
            description=description or _first_doc_line(target),
            skip_self=skip_self,
            arg_names=_positional_names(target, skip_self),
        )

    if fn is not None:
        return decorate(fn)
    return decorate
