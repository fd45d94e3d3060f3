"""Exa (``exa-py``): ``search``, ``search_and_contents`` and ``get_contents``, sync and async.

Results are ``SearchResponse`` objects whose ``.results`` carry ``.url`` and ``.text``. Exa reports any
HTTP failure as ``ValueError("Request failed with status code 429: ...")``; the status in the message is
what makes a 429 ``rate_limited``.
"""

from __future__ import annotations

from typing import Any

from citetrace import names
from citetrace.capture._core import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch

__all__ = ["ROWS"]

DIST = "exa-py"


def _contents_text(result: Any) -> str | None:
    return _shapes.join_texts(_shapes.items_attr(result, "results"), ("text", "summary"))


SEARCH = ToolSpec("exa.search", names.TOOL_KIND_SEARCH, is_rate_limit=_shapes.rate_limited)
SEARCH_AND_CONTENTS = ToolSpec("exa.search_and_contents", names.TOOL_KIND_SEARCH, is_rate_limit=_shapes.rate_limited)
GET_CONTENTS = ToolSpec(
    "exa.get_contents",
    names.TOOL_KIND_FETCH,
    url_from=_shapes.url_list_from(0, "urls"),
    result_text=_contents_text,
    is_rate_limit=_shapes.rate_limited,
)

ROWS = (
    Patch(DIST, "exa_py.api", "Exa.search", SEARCH),
    Patch(DIST, "exa_py.api", "Exa.search_and_contents", SEARCH_AND_CONTENTS),
    Patch(DIST, "exa_py.api", "Exa.get_contents", GET_CONTENTS),
    Patch(DIST, "exa_py.api", "AsyncExa.search", SEARCH, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.search_and_contents", SEARCH_AND_CONTENTS, is_async=True),
    Patch(DIST, "exa_py.api", "AsyncExa.get_contents", GET_CONTENTS, is_async=True),
)
