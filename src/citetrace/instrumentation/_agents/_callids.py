"""The model's tool-call id (``gen_ai.tool.call.id``) on the tool spans a framework's tool call makes.

Each framework knows the id at the point it runs a tool but hands the tool only its arguments, so the id is
put in capture's ``TOOL_CALL_ID`` context variable for the duration of that one tool call, and every span
started inside (a library row, a ``@traced_tool``, an HTTP-layer search) carries it:

- LangChain: ``BaseTool.run``/``arun(..., tool_call_id=...)`` (``tool.invoke(ToolCall)``, LangGraph's
  ``ToolNode`` and ``create_agent`` all end there);
- OpenAI Agents SDK: ``_invoke_function_tool_with_metadata(function_tool=, context=ToolContext, ...)``, read
  from ``context.tool_call_id`` (looked up in ``agents.run_internal.tool_execution``, which imported it);
- smolagents: ``ToolCallingAgent.execute_tool_call(name, arguments)`` receives no id. ``process_tool_calls``
  first yields each ``ToolCall`` (name, arguments, id), so its wrapper notes which arguments object belongs
  to which id, and ``execute_tool_call`` looks its own arguments up (by identity, else by the tool name when
  only one pending call has it). Parallel calls run in threads with a copied context, each with its own id.
"""

from __future__ import annotations

import threading
from typing import Any, Iterator, Sequence

from citetrace.capture import tool_call_id
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS"]


def _with_id(call_id: Any, wrapped: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    if not isinstance(call_id, str) or not call_id:
        return wrapped(*args, **kwargs)
    with tool_call_id(call_id):
        return wrapped(*args, **kwargs)


async def _awith_id(call_id: Any, wrapped: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    if not isinstance(call_id, str) or not call_id:
        return await wrapped(*args, **kwargs)
    with tool_call_id(call_id):
        return await wrapped(*args, **kwargs)


# -- LangChain ----------------------------------------------------------------------------------------------
def _langchain_run(switch: Switch) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        return _with_id(kwargs.get("tool_call_id") if switch.active else None, wrapped, args, kwargs)

    return wrapper


def _langchain_arun(switch: Switch) -> Any:
    async def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        return await _awith_id(kwargs.get("tool_call_id") if switch.active else None, wrapped, args, kwargs)

    return wrapper


# -- OpenAI Agents SDK --------------------------------------------------------------------------------------
def _openai_agents(switch: Switch) -> Any:
    async def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        context = kwargs.get("context")
        call_id = getattr(context, "tool_call_id", None) if switch.active else None
        return await _awith_id(call_id, wrapped, args, kwargs)

    return wrapper


# -- smolagents ---------------------------------------------------------------------------------------------
class _Pending:
    """Tool calls a ``process_tool_calls`` has announced and not yet finished: arguments object -> id."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_args: dict[int, tuple[Any, str, str]] = {}  # id(arguments) -> (arguments, name, call id)

    def add(self, call: Any) -> int | None:
        call_id, name, arguments = getattr(call, "id", None), getattr(call, "name", None), getattr(call, "arguments", None)
        if not isinstance(call_id, str) or not isinstance(name, str):
            return None
        with self._lock:
            self._by_args[id(arguments)] = (arguments, name, call_id)  # the tuple keeps the object alive
        return id(arguments)

    def drop(self, keys: list[int]) -> None:
        with self._lock:
            for key in keys:
                self._by_args.pop(key, None)

    def find(self, name: Any, arguments: Any) -> str | None:
        with self._lock:
            found = self._by_args.get(id(arguments))
            if found is not None and found[0] is arguments:
                return found[2]
            named = [call_id for _, other, call_id in self._by_args.values() if other == name]
        return named[0] if len(named) == 1 else None


_PENDING = _Pending()


def _smol_process(switch: Switch) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        steps = wrapped(*args, **kwargs)
        return _noting(steps) if switch.active else steps

    return wrapper


def _noting(steps: Iterator[Any]) -> Iterator[Any]:
    keys: list[int] = []
    try:
        for item in steps:
            if type(item).__name__ == "ToolCall":
                key = _PENDING.add(item)
                if key is not None:
                    keys.append(key)
            yield item
    finally:
        _PENDING.drop(keys)
        close = getattr(steps, "close", None)
        if callable(close):
            close()


def _smol_execute(switch: Switch) -> Any:
    def wrapper(wrapped: Any, instance: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        if not switch.active:
            return wrapped(*args, **kwargs)
        name = args[0] if args else kwargs.get("tool_name")
        arguments = args[1] if len(args) > 1 else kwargs.get("arguments")
        return _with_id(_PENDING.find(name, arguments), wrapped, args, kwargs)

    return wrapper


ROWS = (
    Wrap("langchain-core", "langchain_core.tools.base", "BaseTool.run", _langchain_run),
    Wrap("langchain-core", "langchain_core.tools.base", "BaseTool.arun", _langchain_arun),
    Wrap("openai-agents", "agents.run_internal.tool_execution", "_invoke_function_tool_with_metadata", _openai_agents),
    Wrap("smolagents", "smolagents.agents", "ToolCallingAgent.process_tool_calls", _smol_process),
    Wrap("smolagents", "smolagents.agents", "ToolCallingAgent.execute_tool_call", _smol_execute),
)
