"""The query or URL a retriever keeps on its instance (``self.query``), for rows with ``pass_instance``.

Many retriever classes take the query in the constructor and search with no argument
(``TavilySearch(query).search(max_results=5)``, knowledge-storm's and gpt-researcher's retrievers), so the
call's arguments hold nothing to record. A row built with ``Patch(..., pass_instance=True)`` gets the bound
instance as ``args[0]``; its spec sets ``skip_self=True`` and uses these hooks as ``query_from`` /
``url_from``. ``CITETRACE_TOOLS`` entries naming ``Class.method`` use them too.

Decision: an argument wins over the instance (``search("x")`` on an object holding ``self.query = "y"``
searched for ``"x"``); the instance is read only when no argument holds a string.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from citetrace.capture._internal import QUERY_KWARGS, URL_KWARGS, arg_value

__all__ = ["QUERY_ATTRS", "URL_ATTRS", "from_instance"]

QUERY_ATTRS = ("query", "q", "search_query", "question")
URL_ATTRS = ("url", "urls", "link", "page_url")

Hook = Callable[[Sequence[Any], Mapping[str, Any]], "str | None"]


def _first_str(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, str):
                return item
    return None


def from_instance(attrs: Sequence[str], kwarg_names: Sequence[str]) -> Hook:
    """A ``query_from``/``url_from`` hook: the call's arguments first, then ``args[0].<attr>`` for ``attrs``."""

    def hook(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
        found = arg_value(args, kwargs, kwarg_names, None, True)
        if found is not None or not args:
            return found
        instance = args[0]
        for attr in attrs:
            value = _first_str(getattr(instance, attr, None))
            if value is not None:
                return value
        return None

    return hook


QUERY_FROM_INSTANCE = from_instance(QUERY_ATTRS, QUERY_KWARGS)
"""Query: a query-like argument, else ``self.query`` (``q``, ``search_query``, ``question``)."""
URL_FROM_INSTANCE = from_instance(URL_ATTRS, URL_KWARGS)
"""URL: a URL-like argument, else ``self.url`` (or the first of ``self.urls``)."""
