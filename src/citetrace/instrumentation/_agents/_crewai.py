"""CrewAI: ``Crew.kickoff`` and ``Crew.akickoff`` are the run; crewai-tools' Serper search and website
scraper are a search and a fetch.

``kickoff_async`` is ``asyncio.to_thread(kickoff)`` (the thread copies the context, so a crew kicked off
inside a run joins it) and ``kickoff_for_each`` calls ``kickoff`` per input (one run each). With
``Crew(stream=True)``, ``kickoff`` returns a streaming output whose iteration calls ``kickoff`` again with
streaming off: that inner call is the run, so the outer streaming call is passed through. The answer is
``CrewOutput.raw``; the crew's ``name`` (``crew`` by default) names the run; the question is the
``inputs`` value under ``topic``/``question``/``query``/``task``/``input``, else the only str input.

Tools: ``SerperDevTool._run`` posts to Serper and returns ``{"organic": [{"link", ...}], ...}`` (``news`` for
news searches) or raises ``requests``' ``HTTPError`` (a 429 is ``rate_limited``). ``ScrapeWebsiteTool._run``
returns the page text whatever the HTTP status, so a probe on the ``safe_get`` it imports keeps the status: a 4xx/5xx read is an ``error``, a 429 ``rate_limited``. The URL is the ``website_url``
argument or the one the tool was built with.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from citetrace import names
from citetrace.capture import ToolSpec
from citetrace.instrumentation import _probe, _shapes
from citetrace.instrumentation._agents._boundary import Boundary, boundary_wrapper, text_of
from citetrace.instrumentation._table_types import Patch, Probe, Switch, Wrap

__all__ = ["ROWS", "BOUNDARY", "SERPER", "SCRAPE"]

DIST = "crewai"
TOOLS_DIST = "crewai-tools"
_QUESTION_KEYS = ("topic", "question", "query", "task", "input")


def _crew(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) else None


def _question(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    inputs = args[0] if args else kwargs.get("inputs")
    if not isinstance(inputs, Mapping):
        return None
    for key in _QUESTION_KEYS:
        if isinstance(inputs.get(key), str):
            return str(inputs[key])
    texts = [v for v in inputs.values() if isinstance(v, str)]
    return texts[0] if len(texts) == 1 else None


def _answer(result: Any) -> str | None:
    return text_of(getattr(result, "raw", None))


BOUNDARY = Boundary(agent=_crew, question=_question, answer=_answer, default_agent="crew")


def _unless_streaming(switch: Switch) -> Callable[..., Any]:
    """The boundary, except for a streaming crew's outer call (its inner ``kickoff`` is the run)."""
    inner = boundary_wrapper(BOUNDARY, switch)

    def wrapper(wrapped: Callable[..., Any], instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if getattr(instance, "stream", False) is True:
            return wrapped(*args, **kwargs)
        return inner(wrapped, instance, args, kwargs)

    return wrapper


def _organic_urls(result: Any) -> list[str] | None:
    if not isinstance(result, Mapping):
        return None
    urls: list[str] = []
    for key in ("organic", "news"):
        for item in result.get(key) or ():
            link = item.get("link") if isinstance(item, Mapping) else None
            if isinstance(link, str):
                urls.append(link)
    return urls


def _organic_count(result: Any) -> int | None:
    urls = _organic_urls(result)
    return None if urls is None else len(urls)


def _query(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    value = kwargs.get("search_query") or kwargs.get("query")
    return value if isinstance(value, str) else None


def _scrape_url(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str | None:
    """``_run(self, **kwargs)``: the ``website_url`` argument, else the tool's own (``args[0]`` is the tool)."""
    url = kwargs.get("website_url")
    if url is None and args:
        url = getattr(args[0], "website_url", None)
    return url if isinstance(url, str) else None


def _scrape_status(result: Any) -> str | None:
    if _probe.saw(429):
        return names.STATUS_RATE_LIMITED
    status = _probe.last_status()
    return names.STATUS_ERROR if status is not None and status >= 400 else None


def _scraped_text(result: Any) -> str | None:
    return result if isinstance(result, str) else None


def _response_status(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Any:
    return getattr(result, "status_code", None)


SERPER = ToolSpec("crewai.serper_search", names.TOOL_KIND_SEARCH, query_from=_query, result_urls=_organic_urls,
                  result_count=_organic_count, is_rate_limit=_shapes.rate_limited)
SCRAPE = ToolSpec("crewai.scrape_website", names.TOOL_KIND_FETCH, url_from=_scrape_url, result_text=_scraped_text,
                  classify=_scrape_status, is_rate_limit=_shapes.rate_limited, skip_self=True)

ROWS = (
    Wrap(DIST, "crewai.crew", "Crew.kickoff", _unless_streaming),
    Wrap(DIST, "crewai.crew", "Crew.akickoff", lambda switch: boundary_wrapper(BOUNDARY, switch)),
    Patch(TOOLS_DIST, "crewai_tools.tools.serper_dev_tool.serper_dev_tool", "SerperDevTool._run", SERPER),
    Patch(TOOLS_DIST, "crewai_tools.tools.scrape_website_tool.scrape_website_tool", "ScrapeWebsiteTool._run",
          SCRAPE, pass_instance=True),
    Probe(TOOLS_DIST, "crewai_tools.tools.scrape_website_tool.scrape_website_tool", "safe_get", _response_status),
)
