"""SerpApi: the official ``serpapi`` client's ``Client.search`` and ``google-search-results``'
``GoogleSearch.get_dict`` (patched on ``SerpApiClient.get_json``, which every engine class and
``get_dict``/``get_dictionary`` go through).

Both distributions install into the same ``serpapi`` package directory, so each row is checked against
its own distribution. The new client raises ``serpapi.HTTPError`` (a ``requests`` HTTPError with the
response); the legacy one returns the error JSON, so a probe on ``get_response`` sees the 429.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _shapes
from citetrace.instrumentation._table_types import Patch, Probe

__all__ = ["ROWS"]


def _client_query(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    params = _shapes.arg(args, kwargs, 0, "params")
    for source in (params if isinstance(params, Mapping) else {}, kwargs):
        value = source.get("q")
        if isinstance(value, str):
            return value
    return None


def _legacy_query(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    params = getattr(args[0], "params_dict", None) if args else None
    value = params.get("q") if isinstance(params, Mapping) else None
    return value if isinstance(value, str) else None


def _response_status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    return getattr(result, "status_code", None)


CLIENT_SEARCH = ToolSpec("serpapi.search", names.TOOL_KIND_SEARCH, query_from=_client_query,
                         is_rate_limit=_shapes.rate_limited)
LEGACY_SEARCH = ToolSpec("serpapi.google_search", names.TOOL_KIND_SEARCH, query_from=_legacy_query,
                         classify=_shapes.probe_classify, is_rate_limit=_shapes.rate_limited, skip_self=True)

ROWS = (
    Patch("serpapi", "serpapi.core", "Client.search", CLIENT_SEARCH),
    Patch("google-search-results", "serpapi.serp_api_client", "SerpApiClient.get_json", LEGACY_SEARCH,
          pass_instance=True),
    Probe("google-search-results", "serpapi.serp_api_client", "SerpApiClient.get_response", _response_status),
)
