"""Tool-name rules: which MCP tool calls are searches, which are fetches, and which are neither.

An MCP client calls every tool through one method, ``ClientSession.call_tool(name, arguments)``, so the kind
of a call can only come from the tool's name. ``CITETRACE_MCP_TOOLS`` (or ``configure(mcp_tools=...)``)
holds ``pattern=kind`` rules, comma-separated: ``pattern`` a shell-style glob on the tool name (``*``, ``?``,
``[...]``), ``kind`` one of ``search``, ``fetch`` or ``none``. The user's rules are tried first, in order,
then the defaults below; the first match wins, and a name nothing matches is left alone (``none``).

Names are compared case-insensitively with ``-`` read as ``_``, so ``tavily-search`` and ``tavily_search``
(the Tavily server renamed its tools) are one name. Kept free of heavy imports: ``config`` validates with it.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache

from citetrace import names

__all__ = ["DEFAULT_RULES", "KIND_NONE", "parse_rules", "kind_of"]

KIND_NONE = "none"
_KINDS = (*names.TOOL_KINDS, KIND_NONE)
_PATTERN = re.compile(r"^[A-Za-z0-9_.*?\[\]!/:-]+$")

_SEARCH_TOOLS = (
    # Brave (the reference server and brave-search-mcp-server); local/image/video results are not pages
    "brave_web_search", "brave_news_search",
    "tavily_search", "firecrawl_search", "web_search_exa", "exa_search", "perplexity_search",
    # DuckDuckGo, Serper/Google, SearXNG, Kagi, Jina, Bright Data, and the generic names many servers use
    "search", "web_search", "search_web", "google_search", "bing_search", "duckduckgo_search",
    "duckduckgo_web_search", "searxng_web_search", "kagi_search_fetch", "jina_search", "search_engine",
    "serper_search", "serpapi_search", "you_search",
)
_FETCH_TOOLS = (
    # the reference fetch server, fetch-mcp, DuckDuckGo's fetch_content, Jina/SearXNG readers
    "fetch", "fetch_url", "fetch_html", "fetch_markdown", "fetch_txt", "fetch_content", "fetch_webpage",
    "web_fetch", "read_url", "url_read", "web_url_read", "jina_reader",
    "firecrawl_scrape", "tavily_extract", "crawling_exa", "scrape", "scrape_url", "scrape_webpage",
    "scrape_as_markdown", "scrape_as_html",
)
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    *((name, names.TOOL_KIND_SEARCH) for name in _SEARCH_TOOLS),
    *((name, names.TOOL_KIND_FETCH) for name in _FETCH_TOOLS),
)
"""(pattern, kind) pairs tried after the user's rules: exact names of the common search and fetch servers."""


def _normal(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def parse_rules(raw: str) -> tuple[tuple[str, str], ...]:
    """The (pattern, kind) pairs of a rules string; a bad entry raises ``ValueError`` naming it."""
    rules: list[tuple[str, str]] = []
    for entry in raw.split(","):
        entry = entry.strip()
        if not entry:
            continue
        pattern, sep, kind = entry.rpartition("=")
        kind = kind.strip().lower()
        if not sep or not pattern.strip():
            raise ValueError(f"entry {entry!r}: expected pattern=kind (kind: search, fetch or none)")
        if kind not in _KINDS:
            raise ValueError(f"entry {entry!r}: kind must be search, fetch or none, got {kind!r}")
        if not _PATTERN.match(pattern.strip()):
            raise ValueError(f"entry {entry!r}: {pattern.strip()!r} is not a tool-name pattern")
        rules.append((_normal(pattern), kind))
    return tuple(rules)


def normalise(raw: str) -> str:
    """A validated rules string (the settings parser: bad input raises, naming the entry)."""
    parse_rules(raw)
    return raw.strip()


@lru_cache(maxsize=512)
def kind_of(tool_name: str, user_rules: str | None) -> str:
    """``search``, ``fetch`` or ``none`` for one tool name under the user's rules, then the defaults.

    Cached on (name, rules): a client calls few distinct tools, and the rules string changes only with
    ``configure()``. A rules string that no longer parses (it was validated when read) counts as none.
    """
    name = _normal(tool_name)
    try:
        rules = (parse_rules(user_rules) if user_rules else ()) + DEFAULT_RULES
    except ValueError:
        rules = DEFAULT_RULES
    for pattern, kind in rules:
        if fnmatch.fnmatchcase(name, pattern):
            return kind
    return KIND_NONE
