"""MCP tools (the ``mcp`` SDK): ``ClientSession.call_tool`` becomes a search or fetch span by tool name.

Every MCP tool goes through one method, so the row is a ``Wrap``: per call, the tool name is looked up in
the tool-name rules (``citetrace._toolrules``: the user's ``CITETRACE_MCP_TOOLS`` first, then the defaults
for the common search and fetch servers). A name that is neither is called straight through, with no span.
``mcp.Client.call_tool`` and ``ClientSessionGroup.call_tool`` both end in this method, so each is one span.

What is read (both SDK generations: 1.x ``isError``/``structuredContent``, 2.x ``is_error``/
``structured_content``):

- the query (search) or URL (fetch) from the call's ``arguments`` dict (``query``, ``q``..., ``url``,
  ``urls``...); the first URL of a list;
- ``isError`` -> ``error`` (``rate_limited`` when its text reports a 429 or a rate limit); the error's text
  is never read as results;
- a search's URLs: the structured content's result list when it has one, else every URL in the text blocks
  (through the one URL extractor, ``citetrace._urlfind``) and the resource links, repeats dropped;
- a fetch's page text: the text blocks and embedded text resources, joined (without the reference fetch
  server's ``Contents of <url>:`` first line, which would make a blank page look read).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping, Sequence

from citetrace import _toolrules, names
from citetrace._urlfind import urls_in
from citetrace import _telemetry
from citetrace.capture import _extract
from citetrace.capture import ToolSpec, ainvoke
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._table_types import Switch, Wrap

__all__ = ["ROWS", "spec_for"]

DIST = "mcp"
_FETCH_HEADER = re.compile(r"\AContents of \S+:\n")  # the reference fetch server's first line, not page text
_RATE = re.compile(r"\b429\b|rate[ _-]?limit|too many requests|quota exceeded", re.I)
_SPECS_MAX = 256  # distinct (tool, kind) specs kept; past that a spec is built per call (still correct)
_specs: dict[tuple[str, str], ToolSpec] = {}


def _arguments(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Mapping[str, Any]:
    value = kwargs["arguments"] if "arguments" in kwargs else (args[1] if len(args) > 1 else None)
    return value if isinstance(value, Mapping) else {}


def _tool_name(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    value = kwargs.get("name", args[0] if args else None)
    return value if isinstance(value, str) else None


def _query(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    arguments = _arguments(args, kwargs)
    for key in (*_extract.QUERY_KWARGS, "search_query", "searchQuery", "objective"):
        value = arguments.get(key)
        if isinstance(value, str):
            return value
    return None


def _url(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    arguments = _arguments(args, kwargs)
    for key in (*_extract.URL_KWARGS, "urls", "links"):
        url = _shapes.first_url(arguments.get(key))
        if url is not None:
            return url
    return None


def _field(result: Any, *keys: str) -> Any:
    for key in keys:
        value = getattr(result, key, None)
        if value is not None:
            return value
    return None


def _is_error(result: Any) -> bool:
    return bool(_field(result, "is_error", "isError"))


def _texts(result: Any) -> list[str]:
    """The text of the text blocks and embedded text resources, in order."""
    texts: list[str] = []
    for block in _field(result, "content") or ():
        text = getattr(block, "text", None)
        if text is None:
            text = getattr(getattr(block, "resource", None), "text", None)
        if isinstance(text, str) and text:
            texts.append(text)
    return texts


def _text(result: Any) -> str | None:
    if _field(result, "content") is None:
        return None  # not a CallToolResult (an input-required round): say nothing of its size
    return "" if _is_error(result) else _FETCH_HEADER.sub("", "\n\n".join(_texts(result)), count=1)


def _urls(result: Any) -> list[str] | None:
    if _field(result, "content") is None:
        return None
    if _is_error(result):
        return []
    structured = _field(result, "structured_content", "structuredContent")
    if structured is not None and _extract.locate_results(structured) is not None:
        found, _count = _extract.extract_urls(structured)
        if found:
            return list(dict.fromkeys(found))
    urls: list[str] = []
    for block in _field(result, "content") or ():
        uri = getattr(block, "uri", None)  # a resource link
        if uri is not None and getattr(block, "type", None) == "resource_link":
            urls.append(str(uri))
    for text in _texts(result):
        urls.extend(urls_in(text))
    return list(dict.fromkeys(urls))


def _classify(result: Any) -> str | None:
    if not _is_error(result):
        return None
    if _probe.saw(429) or any(_RATE.search(text) for text in _texts(result)):
        return names.STATUS_RATE_LIMITED
    return names.STATUS_ERROR


def spec_for(tool: str, kind: str) -> ToolSpec:
    """The spec of one MCP tool under one kind (cached, bounded)."""
    key = (tool, kind)
    spec = _specs.get(key)
    if spec is None:
        # query_arg/url_arg name the arguments dict, which is never a str: the default reading of the
        # first str positional would otherwise take the tool's name for the query
        spec = ToolSpec(tool, kind, query_from=_query, url_from=_url, result_urls=_urls, result_text=_text,
                        classify=_classify, is_rate_limit=_shapes.rate_limited, description="MCP tool",
                        query_arg="arguments", url_arg="arguments")
        if len(_specs) < _SPECS_MAX:
            _specs[key] = spec
    return spec


def _factory(switch: Switch) -> Callable[..., Any]:
    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not switch.active or not _telemetry.current().enabled:
            return wrapped(*args, **kwargs)
        tool = _tool_name(args, kwargs)
        try:
            kind = _toolrules.kind_of(tool, _telemetry.current().settings.mcp_tools) if tool else _toolrules.KIND_NONE
        except Exception as exc:  # noqa: BLE001 - the rules must never break the call
            _telemetry.count_error("capture", exc)
            kind = _toolrules.KIND_NONE
        if kind == _toolrules.KIND_NONE or tool is None:
            return wrapped(*args, **kwargs)
        return _call(spec_for(tool, kind), wrapped, args, kwargs)

    return wrapper


async def _call(spec: ToolSpec, wrapped: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    with _probe.scope():
        return await ainvoke(spec, wrapped, args, kwargs, current=False)


ROWS = (Wrap(DIST, "mcp.client.session", "ClientSession.call_tool", _factory),)
