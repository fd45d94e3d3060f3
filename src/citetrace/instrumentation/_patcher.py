"""Apply and remove the wrap table: post-import hooks, version checks, exact restore.

Rows are applied when their module is imported (immediately if it already is), through wrapt post-import
hooks, so instrumenting at interpreter start imports none of the wrapped libraries. Removing a row puts
back the very object that was in the class or module ``__dict__`` before. A wrapper that outlives its
patch (a bound method captured while instrumented) checks the ``active`` flag and calls straight through.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import logging
import sys
import threading
from contextlib import contextmanager
from importlib import metadata
from types import ModuleType
from typing import Any, Callable, Iterable, Iterator, Union

import wrapt
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from citetrace.capture import ainvoke, invoke
from citetrace.capture._internal import IN_TOOL, async_generator_tool, iterate
from citetrace.instrumentation import _probe
from citetrace.instrumentation._table_types import Patch, Probe, Wrap

__all__ = ["Patcher", "Row", "tool_object_functions", "version_supported"]

_log = logging.getLogger("citetrace.instrumentation")
Row = Union[Patch, Probe, Wrap]
_MISSING = object()
_version_cache: dict[tuple[str, str | None], bool] = {}
_warned: set[str] = set()


def warn_once(key: str, message: str, *args: Any) -> None:
    """Log a warning the first time ``key`` is seen in this process."""
    if key in _warned:
        return
    _warned.add(key)
    _log.warning(message, *args)


def version_supported(dist: str, supported: dict[str, str]) -> bool:
    """Whether the installed ``dist`` is inside its declared range (logged once when it is not)."""
    spec = supported.get(dist)
    cached = _version_cache.get((dist, spec))
    if cached is not None:
        return cached
    ok = False
    try:
        installed = metadata.version(dist)
    except metadata.PackageNotFoundError:
        warn_once(f"dist:{dist}:{spec}", "citetrace: %s is importable but not installed as a distribution; "
                  "not instrumenting it", dist)
    else:
        try:
            ok = spec is not None and Version(installed) in SpecifierSet(spec)
        except (InvalidVersion, InvalidSpecifier):
            ok = False
        if not ok:
            warn_once(f"dist:{dist}:{spec}", "citetrace: %s %s is outside the supported range %r; not instrumenting it",
                      dist, installed, spec)
    _version_cache[(dist, spec)] = ok
    return ok


def _resolve(module: ModuleType, target: str) -> tuple[Any, str]:
    parent: Any = module
    *path, attr = target.split(".")
    for part in path:
        parent = getattr(parent, part)
    return parent, attr


class Patcher:
    """Owns the applied rows of one instrumentor (thread-safe, idempotent)."""

    def __init__(self, supported: dict[str, str]) -> None:
        self.active = False
        self._supported = supported
        self._lock = threading.RLock()
        self._rows: dict[str, list[Row]] = {}
        self._applied: dict[str, tuple[Any, str, Any]] = {}
        self._hooked: set[str] = set()
        self._check_versions = True

    # -- public ---------------------------------------------------------------------------------------
    def start(self, rows: Iterable[Row], *, check_versions: bool = True) -> None:
        """Apply every row now or when its module is imported."""
        with self._lock:
            self.active = True
            self._check_versions = check_versions
            self._rows = {}
            for row in rows:
                self._rows.setdefault(row.module, []).append(row)
            for module_name in self._rows:
                module = sys.modules.get(module_name)
                if module is not None:
                    self._apply_module(module, module_name)
                elif module_name not in self._hooked:
                    self._hooked.add(module_name)
                    wrapt.register_post_import_hook(functools.partial(self._on_import, name=module_name),
                                                    module_name)

    def stop(self) -> None:
        """Remove every applied row, restoring the exact original objects."""
        with self._lock:
            self.active = False
            for key in list(self._applied):
                parent, attr, original = self._applied.pop(key)
                try:
                    if original is _MISSING:
                        delattr(parent, attr)
                    else:
                        setattr(parent, attr, original)
                except Exception as exc:  # noqa: BLE001
                    warn_once(f"restore:{key}", "citetrace: could not restore %s (%s)", key, exc)

    def applied(self) -> list[str]:
        """Keys of the rows currently applied."""
        with self._lock:
            return sorted(self._applied)

    # -- internals ------------------------------------------------------------------------------------
    def _on_import(self, module: ModuleType, name: str) -> None:
        try:
            with self._lock:
                self._hooked.discard(name)
                if self.active:  # the module as imported: one that replaced itself in sys.modules
                    self._apply_module(sys.modules.get(name) or module, name)
        except Exception as exc:  # noqa: BLE001 - a raising hook would fail the user's import
            warn_once(f"hook:{name}", "citetrace: instrumenting %s failed (%s); skipped", name, exc)

    def _apply_module(self, module: ModuleType, name: str) -> None:
        """Apply the rows of ``name``: the name it is imported under, which may differ from its ``__name__``
        (``sys.modules["crewai.crew"]`` is a module whose ``__name__`` is another one's)."""
        for row in self._rows.get(name, ()):
            if row.key in self._applied:
                continue
            if self._check_versions and row.dist and not version_supported(row.dist, self._supported):
                continue
            try:
                self._apply(module, row)
            except Exception as exc:  # noqa: BLE001 - a moved method must not break the agent
                warn_once(f"row:{row.key}", "citetrace: cannot wrap %s (%s); skipped", row.key, exc)

    def _apply(self, module: ModuleType, row: Row) -> None:
        parent, attr = _resolve(module, row.target)
        original = vars(parent).get(attr, _MISSING) if hasattr(parent, "__dict__") else _MISSING
        if original is _MISSING and not hasattr(parent, attr):
            raise AttributeError(f"{row.target} not found")
        if isinstance(row, Patch):
            inner = tool_object_functions(getattr(parent, attr))
            if inner:  # a framework's tool object: wrap the functions its invoke()/acall() run
                for name, is_async in inner:
                    self._wrap(getattr(parent, attr), name, dataclasses.replace(row, target=f"{row.target}.{name}",
                                                                               is_async=is_async))
                return
            if not callable(getattr(parent, attr)) or isinstance(getattr(parent, attr), type):
                raise TypeError(f"{row.target} is a {type(getattr(parent, attr)).__name__}, not a function or method")
        self._wrap(parent, attr, row)

    def _wrap(self, parent: Any, attr: str, row: Row) -> None:
        original = vars(parent).get(attr, _MISSING) if hasattr(parent, "__dict__") else _MISSING
        if isinstance(row, Patch) and row.is_async is None:
            row = dataclasses.replace(row, is_async=inspect.iscoroutinefunction(getattr(parent, attr)))
        target = getattr(parent, attr)
        if isinstance(row, Probe):
            wrapper = _probe.status_recorder(row.status_of, row.before)
        elif isinstance(row, Wrap):
            wrapper = row.factory(self)
        elif inspect.isasyncgenfunction(target) or inspect.isgeneratorfunction(target):
            wrapper = self._stream_wrapper(row, inspect.isasyncgenfunction(target))
        else:
            wrapper = self._wrapper(row)
        wrapt.wrap_function_wrapper(parent, attr, wrapper)
        self._applied[row.key] = (parent, attr, original)

    def _wrapper(self, row: Patch) -> Callable[..., Any]:
        spec = row.spec
        patcher = self
        own_span = row.own_span
        if row.is_async:

            async def _acall(wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
                with _probe.scope(own_span), _own_span(own_span):
                    return await ainvoke(spec, wrapped, args, kwargs, current=False)

            def awrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...],
                         kwargs: dict[str, Any]) -> Any:
                if not patcher.active:
                    return wrapped(*args, **kwargs)
                if row.pass_instance:
                    return _acall(_dropping_first(wrapped), (instance, *args), kwargs)
                return _acall(wrapped, args, kwargs)

            return awrapper

        pass_instance = row.pass_instance
        open_scope, close_scope = _probe.open_scope, _probe.close_scope

        def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if not patcher.active:
                return wrapped(*args, **kwargs)
            opened = open_scope(own_span)
            outer = IN_TOOL.set(False) if own_span else None
            try:
                if pass_instance:
                    return invoke(spec, _dropping_first(wrapped), (instance, *args), kwargs, current=False)
                return invoke(spec, wrapped, args, kwargs, current=False)
            finally:
                if outer is not None:
                    IN_TOOL.reset(outer)
                close_scope(opened)

        return wrapper

    def _stream_wrapper(self, row: Patch, is_async: bool) -> Callable[..., Any]:
        """A generator or async-generator tool (a page streamed in chunks, hits yielded one by one): the span
        lasts for the iteration and reads what was yielded, as ``@traced_tool`` does (``capture._stream``).
        Calling it still returns a generator at once, running none of its code; no probe scope is opened
        (its steps run in the caller's frames), so only a status the tool raises or returns is seen."""
        spec = row.spec
        patcher = self
        pass_instance = row.pass_instance

        def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            if not patcher.active:
                return wrapped(*args, **kwargs)
            if pass_instance:
                wrapped, args = _dropping_first(wrapped), (instance, *args)
            if is_async:
                return async_generator_tool(spec, wrapped)(*args, **kwargs)
            return iterate(spec, wrapped, args, kwargs)

        return wrapper


@contextmanager
def _own_span(own: bool) -> Iterator[None]:
    """For ``Patch.own_span`` rows: outside any enclosing tool call for the length of this one."""
    token = IN_TOOL.set(False) if own else None
    try:
        yield
    finally:
        if token is not None:
            IN_TOOL.reset(token)


_TOOL_OBJECTS = (
    ("langchain", "invoke", (("func", False), ("coroutine", True))),
    ("llama_index", "acall", (("_fn", False), ("_async_fn", True))),
)
"""(module prefix, the method its framework calls, the instance attributes that method runs): a LangChain tool
(``@tool``, ``StructuredTool.from_function``) runs ``func``/``coroutine``; a LlamaIndex ``FunctionTool`` runs
``_fn`` from ``call`` and ``_async_fn`` from ``acall`` (each a plain function or the other's sync/async twin)."""


def tool_object_functions(target: Any) -> list[tuple[str, bool]]:
    """For a framework's tool object (see ``_TOOL_OBJECTS``): the (attribute, is_async) pairs that are set, whose
    wrapping makes every call its agents make one span; empty for anything else."""
    module = type(target).__module__
    for prefix, method, attrs in _TOOL_OBJECTS:
        if module.startswith(prefix) and callable(getattr(target, method, None)):
            return [(name, is_async) for name, is_async in attrs if callable(getattr(target, name, None))]
    return []


def _dropping_first(wrapped: Callable[..., Any]) -> Callable[..., Any]:
    def call(_instance: Any, *args: Any, **kwargs: Any) -> Any:
        return wrapped(*args, **kwargs)

    return call
