"""Every gpt-researcher and knowledge-storm web retriever, called for real: the library's own class, its own
HTTP calls and parsing, with only the network replaced (a local server answering as each API documents, see
``_retrievers``). Per retriever: ok, empty, 429, a failing API, each exactly one search span (the
HTTP-layer rules for Serper, Bing, Google... add no second one), and no span after ``uninstrument()``.

The libraries live in side venvs (docs/frameworks.md): ``scripts/retriever_cases.py`` runs there once per
library and prints what each call did; these tests judge it. A missing venv fails: it is a set-up step.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from citetrace import names
from citetrace.capture._extract import query_hash

from .._sidevenv import side_python
from ._retrievers import GPTR, STORM, Row

HERE = Path(__file__).parent
TABLES = {"gptr": GPTR, "storm": STORM}
READ = "storm.download_webpage"
"""STORM's page-read row (``_storm_web.READ``)."""
CASES = [(lib, name) for lib, table in TABLES.items() for name in table]


@functools.cache
def _run(library: str) -> dict[str, Any]:
    """What each retriever of ``library`` did in every scenario: one side-venv run per library, on first use."""
    python = side_python(library)
    assert Path(python).exists(), f"no {library} venv at {python}: run scripts/setup"
    src = str(HERE.parents[2] / "src")  # this checkout's sources, whatever the venv's editable install
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(PYTHONPATH=src, AGENT_TEST_DIR=str(HERE), OTEL_TRACES_EXPORTER="none")
    proc = subprocess.run([python, str(HERE / "scripts" / "retriever_cases.py"), library], env=env, cwd=HERE,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _span(case: dict[str, Any], library: str, name: str) -> dict[str, Any]:
    """The call's search span: exactly one, the retriever's (no HTTP-layer span), and beside it only the page
    reads of a retriever that reads its results itself (``Row.reads``)."""
    spans = case["spans"]
    search = [s for s in spans if s["name"] == f"execute_tool {_tool(library, name)}"]
    reads = [s for s in spans if s["name"] == f"execute_tool {READ}"]
    assert len(search) == 1 and len(search) + len(reads) == len(spans), [s["name"] for s in spans]
    assert _row(library, name).reads or not reads
    attrs = search[0]["attrs"]
    assert attrs[names.GEN_AI_TOOL_NAME] == _tool(library, name)
    assert attrs[names.TOOL_KIND] == names.TOOL_KIND_SEARCH
    assert attrs[names.QUERY_HASH] == query_hash(case["query"])
    return dict(attrs)


def _reads(case: dict[str, Any]) -> dict[str, str]:
    """URL -> status of each page read inside the call."""
    return {s["attrs"][names.URL_FULL]: s["attrs"][names.TOOL_STATUS] for s in case["spans"]
            if s["name"] == f"execute_tool {READ}"}


def _tool(library: str, name: str) -> str:
    return f"{'gpt_researcher' if library == 'gptr' else 'storm'}.{name}"


def _row(library: str, name: str) -> Row:
    return TABLES[library][name]


@pytest.mark.parametrize(("library", "name"), CASES)
def test_ok_reports_what_the_api_returned(library: str, name: str) -> None:
    """Two results from the API: one ok span with the query, count 2 and exactly the URLs the API returned."""
    case = _run(library)[name]["ok"]
    assert case["raised"] is None and case["served"] >= 1
    attrs = _span(case, library, name)
    urls = _row(library, name).urls
    assert attrs[names.TOOL_STATUS] == names.STATUS_OK
    assert attrs[names.RESULT_COUNT] == len(urls)
    assert attrs[names.URLS_RETURNED] == urls
    assert _reads(case) == ({u: names.STATUS_OK for u in urls} if _row(library, name).reads else {})


@pytest.mark.parametrize(("library", "name"), CASES)
def test_nothing_found_is_empty(library: str, name: str) -> None:
    """The API answers 200 with no results: an empty span with count 0."""
    case = _run(library)[name]["empty"]
    attrs = _span(case, library, name)
    assert case["raised"] is None and case["served"] >= 1
    assert attrs[names.TOOL_STATUS] == names.STATUS_EMPTY
    assert attrs[names.RESULT_COUNT] == 0
    assert _reads(case) == {}


@pytest.mark.parametrize(("library", "name"), CASES)
def test_429_is_rate_limited_with_the_status_code(library: str, name: str) -> None:
    """The API answers 429: rate_limited (whether the retriever swallowed it or raised), status code 429."""
    case = _run(library)[name]["429"]
    attrs = _span(case, library, name)
    assert case["served"] >= 1
    assert attrs[names.TOOL_STATUS] == names.STATUS_RATE_LIMITED
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 429


@pytest.mark.parametrize(("library", "name"), CASES)
def test_failing_api_is_an_error(library: str, name: str) -> None:
    """The API answers 500 with an HTML page: error, whether the retriever raised or returned nothing (never a
    false empty); a raised exception is recorded as the error type."""
    case = _run(library)[name]["exception"]
    attrs = _span(case, library, name)
    assert attrs[names.TOOL_STATUS] == names.STATUS_ERROR
    assert attrs[names.HTTP_RESPONSE_STATUS_CODE] == 500
    if case["raised"] is not None:
        assert attrs[names.ERROR_TYPE] == case["raised"]


@pytest.mark.parametrize(("library", "name"), CASES)
def test_after_uninstrument_no_span(library: str, name: str) -> None:
    """After ``uninstrument()`` the same ok call still reaches the API and returns, and makes no span at all."""
    case = _run(library)[name]["uninstrumented"]
    assert case["raised"] is None and case["served"] >= 1
    assert case["spans"] == []
