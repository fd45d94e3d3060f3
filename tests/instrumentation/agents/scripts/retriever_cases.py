"""Call every web retriever of one library for real, in each scenario of ``_retrievers.SCENARIOS``, with only
the network replaced: a local server answers as the row of ``_retrievers`` says, and ``_fakenet.reroute``
sends the library's ``requests``/urllib3/aiohttp traffic there. Runs in the library's side venv
(``.venv-gptr`` or ``.venv-storm``), instrumented by ``CiteTraceInstrumentor``, spans captured in memory.

Usage: ``python retriever_cases.py gptr|storm``. Prints one JSON line (scenario ``uninstrumented``: the ok call
again after ``uninstrument()``): {name: {scenario: {"query", "raised",
"served", "spans": [{"name", "attrs"}]}}}; the test (``test_retrievers.py``) judges it.
"""
import importlib
import json
import os
import sys

sys.path.insert(0, os.environ["AGENT_TEST_DIR"])  # the agents test directory: _fakenet, _retrievers
sys.path.insert(0, os.path.join(os.environ["AGENT_TEST_DIR"], "scripted"))  # STORM's scripted embedder

from _fakenet import reroute  # noqa: E402
from _net import LocalServer  # noqa: E402
from _retrievers import GPTR, STORM, Row  # noqa: E402

from citetrace.instrumentation import CiteTraceInstrumentor  # noqa: E402
from citetrace.testing import capture_spans  # noqa: E402

LIBRARY = sys.argv[1]
server = LocalServer()
reroute(server.base)


def _routes(row: Row, scenario: str) -> dict[str, tuple[int, str, str]]:
    if scenario == "ok":
        return {p: (200, body, _ctype(body)) for p, body in row.routes(row.urls).items()}
    if scenario == "empty":
        return {p: (200, body, _ctype(body)) for p, body in row.routes([]).items()}
    status, body = (429, '{"error": "Too many requests"}') if scenario == "429" else (500, "<html>boom</html>")
    return {p: (status, body, "text/html") for p in row.routes(row.urls)}


def _ctype(body: str) -> str:
    return "text/html" if body.startswith("<") else "application/json"


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def _build(name: str, row: Row, query: str) -> object:
    if LIBRARY == "gptr":
        from citetrace.instrumentation._gpt_researcher_web import RETRIEVERS

        module, cls = RETRIEVERS[name]
        retriever = getattr(importlib.import_module(f"gpt_researcher.retrievers.{module}"), cls)(query)
        return lambda: retriever.search(max_results=5)
    from citetrace.instrumentation._storm_web import RETRIEVERS as STORM_RETRIEVERS

    retriever = getattr(importlib.import_module("knowledge_storm.rm"), STORM_RETRIEVERS[name])(**row.kwargs)
    return lambda: retriever.forward(query, exclude_urls=[])


def case(name: str, row: Row, scenario: str, cap: object) -> dict[str, object]:
    os.environ.update(row.env)
    server.routes = _routes(row, scenario)
    served = len(server.requests)
    query = f"solar growth {name} {scenario}"
    cap.clear()  # type: ignore[attr-defined]
    raised = None
    try:
        _build(name, row, query)()  # type: ignore[operator]
    except Exception as exc:  # the retriever's own exception: recorded, the test judges it
        raised = type(exc).__name__
    spans = [{"name": s.name, "attrs": {k: _jsonable(v) for k, v in (s.attributes or {}).items()}}
             for s in cap.spans]  # type: ignore[attr-defined]
    return {"query": query, "raised": raised, "served": len(server.requests) - served, "spans": spans}


def main() -> dict[str, dict[str, object]]:
    """Every scenario instrumented, then each retriever's ok call once more after ``uninstrument()``."""
    table = GPTR if LIBRARY == "gptr" else STORM
    out: dict[str, dict[str, object]] = {}
    try:
        with capture_spans() as cap:
            instrumentor = CiteTraceInstrumentor()
            instrumentor.instrument(tools="")
            try:
                for name, row in table.items():
                    out[name] = {s: case(name, row, s, cap) for s in ("ok", "empty", "429", "exception")}
            finally:
                instrumentor.uninstrument()
            for name, row in table.items():
                out[name]["uninstrumented"] = case(name, row, "ok", cap)
    finally:
        server.close()
    return out


print(json.dumps(main()))
