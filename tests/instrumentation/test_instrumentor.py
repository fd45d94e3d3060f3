"""CiteTraceInstrumentor as a whole: the table matches the installed libraries, instrument/uninstrument are
idempotent and exact, versions are checked, and nothing about it depends on an optional library."""

from __future__ import annotations

import importlib
import json
import logging
import os
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
import responses
import tavily
from opentelemetry.instrumentation.dependencies import get_dist_dependency_conflicts
from packaging.requirements import Requirement

from citetrace.instrumentation import CiteTraceInstrumentor, _tavily
from citetrace.instrumentation._patcher import Patcher
from citetrace.instrumentation._table import ROWS
from citetrace import names
from citetrace.capture._core import ToolSpec
from citetrace.instrumentation._table_types import Patch
from instrumentation._sidevenv import SIDE_VENVS, side_python
from citetrace.instrumentation.package import SUPPORTED
from citetrace.testing import Captured

from .conftest import one_tool_span

LIBRARY_MODULES = ("tavily", "exa_py", "ddgs", "duckduckgo_search", "serpapi", "firecrawl", "trafilatura",
                   "smolagents", "langchain_community")


def _raw(row_module: str, target: str) -> object:
    parent: object = importlib.import_module(row_module)
    *path, attr = target.split(".")
    for part in path:
        parent = getattr(parent, part)
    return vars(parent)[attr]


NOT_INSTALLED_HERE = {dist for _dir, _var, dists in SIDE_VENVS.values() for dist in dists}
"""Rows whose library cannot be installed next to the others (docs/frameworks.md says why): they are checked
the same way inside the side venv that holds them (``test_side_venv_rows_resolve_and_uninstrument_exactly``)."""
INSTALLED_ROWS = [row for row in ROWS if row.dist not in NOT_INSTALLED_HERE]


def test_every_row_names_a_callable_of_a_supported_installed_version() -> None:
    """Each table row resolves to a function in the installed library, whose version is in range."""
    from citetrace.instrumentation._patcher import version_supported

    for row in INSTALLED_ROWS:
        assert callable(_raw(row.module, row.target)), row.key
        if not row.dist:  # standard-library rows (the executor carry) have no distribution to check
            assert row.module.split(".")[0] in sys.stdlib_module_names, row.key
            continue
        assert row.dist in SUPPORTED, row.key
        assert version_supported(row.dist, SUPPORTED), row.dist


def test_instrument_and_uninstrument_are_idempotent_and_exact(caplog: pytest.LogCaptureFixture) -> None:
    """Twice instrument wraps once; twice uninstrument restores every original object (identity)."""
    originals = {row.key: _raw(row.module, row.target) for row in INSTALLED_ROWS}
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    instrumentor.instrument(tools="")
    try:
        assert sorted(instrumentor.wrapped()) == sorted(originals)
        for row in INSTALLED_ROWS:
            current = _raw(row.module, row.target)
            assert current is not originals[row.key]
            assert current.__wrapped__ is originals[row.key], f"{row.key} wrapped twice"  # type: ignore[attr-defined]
    finally:
        instrumentor.uninstrument()
        instrumentor.uninstrument()
    assert all(_raw(row.module, row.target) is originals[row.key] for row in INSTALLED_ROWS)
    assert instrumentor.wrapped() == []


def test_unsupported_version_is_logged_once_and_skipped(caplog: pytest.LogCaptureFixture, cap: Captured) -> None:
    """A library outside its declared range is skipped with one warning; its calls still work, untraced."""
    patcher = Patcher({"tavily-python": "<0.1"})
    original = vars(tavily.tavily.TavilyClient)["search"]
    with caplog.at_level(logging.WARNING, logger="citetrace.instrumentation"):
        for _ in range(2):
            patcher.start(_tavily.ROWS)
            patcher.stop()
    warnings = [r for r in caplog.records if "outside the supported range" in r.getMessage()]
    assert len(warnings) == 1
    assert "tavily-python" in warnings[0].getMessage()
    assert vars(tavily.tavily.TavilyClient)["search"] is original


@responses.activate
def test_row_that_no_longer_resolves_is_skipped_not_raised(caplog: pytest.LogCaptureFixture, cap: Captured) -> None:
    """A table row naming a missing method logs once and the other rows still apply."""
    broken = Patch("tavily-python", "tavily.tavily", "TavilyClient.renamed_away", _tavily.SEARCH)
    patcher = Patcher(SUPPORTED)
    with caplog.at_level(logging.WARNING, logger="citetrace.instrumentation"):
        patcher.start([broken, *_tavily.ROWS])
    try:
        assert "tavily.tavily:TavilyClient.renamed_away" not in patcher.applied()
        assert "tavily.tavily:TavilyClient.search" in patcher.applied()
        assert any("renamed_away" in r.getMessage() for r in caplog.records)
        responses.post("https://api.tavily.com/search", json={"results": []})
        tavily.TavilyClient(api_key="k").search("q")
        assert one_tool_span(cap)
    finally:
        patcher.stop()


def test_metadata_declares_no_required_instrumented_library() -> None:
    """The distribution has no instruments/instruments-any requirements, so opentelemetry-instrument never
    skips citetrace for a missing optional library (CITETRACE_TOOLS needs none)."""
    dist = metadata.distribution("citetrace")
    for raw in dist.requires or []:
        marker = Requirement(raw).marker
        if marker is None:
            continue
        assert not marker.evaluate({"extra": "instruments"}), raw
        assert not marker.evaluate({"extra": "instruments-any"}), raw
    assert get_dist_dependency_conflicts(dist) is None
    assert list(CiteTraceInstrumentor().instrumentation_dependencies()) == []


def test_entry_point_is_registered() -> None:
    """The opentelemetry_instrumentor entry point "citetrace" loads CiteTraceInstrumentor."""
    (ep,) = [ep for ep in metadata.entry_points(group="opentelemetry_instrumentor") if ep.name == "citetrace"]
    assert ep.load() is CiteTraceInstrumentor


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_instrument_imports_no_library_and_wraps_on_later_import() -> None:
    """instrument() imports none of the libraries; importing one afterwards wraps it (post-import hook)."""
    proc = _run(f"""
        import sys
        from citetrace.instrumentation import CiteTraceInstrumentor
        CiteTraceInstrumentor().instrument()
        loaded = [m for m in {LIBRARY_MODULES!r} if m in sys.modules]
        assert loaded == [], loaded
        import tavily
        assert type(vars(tavily.tavily.TavilyClient)["search"]).__name__ == "FunctionWrapper"
        print("ok")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_not_skipped_when_no_library_is_installed(tmp_path: Path) -> None:
    """With every optional library unimportable, instrument() still wraps the CITETRACE_TOOLS functions."""
    module = os.path.join(str(tmp_path), "mytools_nolib.py")
    with open(module, "w") as fh:
        fh.write("def web_search(query):\n    return [{'url': 'https://a.example/1'}]\n")
    proc = _run(f"""
        import sys
        for name in {LIBRARY_MODULES!r}:
            sys.modules[name] = None  # as if not installed: importing raises ImportError
        sys.path.insert(0, {str(tmp_path)!r})
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        import citetrace
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        citetrace.configure(tracer_provider=provider, store="memory://", metrics="off")
        from citetrace.instrumentation import CiteTraceInstrumentor
        CiteTraceInstrumentor().instrument()
        import mytools_nolib
        mytools_nolib.web_search("q")
        print([s.name for s in exporter.get_finished_spans() if s.name.startswith("execute_tool")])
    """, CITETRACE_TOOLS="mytools_nolib:web_search=search")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['execute_tool web_search']"


@responses.activate
def test_sdk_disabled_is_a_straight_call(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """OTEL_SDK_DISABLED: an instrumented library call returns the same result and makes no span."""
    from citetrace import _telemetry
    from citetrace.config import load_settings

    responses.post("https://api.tavily.com/search", json={"results": [{"url": "https://x.example"}]})
    previous = _telemetry.current()
    _telemetry.reset(load_settings(sdk_disabled=True))
    try:
        assert tavily.TavilyClient(api_key="k").search("q") == {"results": [{"url": "https://x.example"}]}
    finally:
        _telemetry.install(previous)
    assert cap.spans == []


def test_a_failing_shape_hook_never_reaches_the_agent(cap: Captured, tmp_path: Path) -> None:
    """A table row whose result hook raises still returns the library's result; the failure is counted."""
    from citetrace import _telemetry
    from citetrace.capture._core import ToolSpec

    def broken(result: object) -> list[str]:
        raise RuntimeError("shape changed")

    (tmp_path / "shape_lib.py").write_text("def search(query):\n    return ['https://a.example']\n")
    sys.path.insert(0, str(tmp_path))
    patcher = Patcher(SUPPORTED)
    try:
        import shape_lib  # type: ignore[import-not-found]

        patcher.start([Patch("", "shape_lib", "search", ToolSpec("shape", "search", result_urls=broken))])
        before = _telemetry.current().hooks.error_counts().get("capture", 0)
        assert shape_lib.search("q") == ["https://a.example"]
        assert _telemetry.current().hooks.error_counts().get("capture", 0) == before + 1
    finally:
        patcher.stop()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("shape_lib", None)


@responses.activate
def test_instrument_honours_tracer_provider_and_sets_a_schema_url(cap: Captured) -> None:
    """instrument(tracer_provider=tp) sends the wrapped calls' spans to tp, under a tracer with citetrace's
    schema_url, as contrib instrumentors do; uninstrument() gives citetrace its previous provider back."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from citetrace import names

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    responses.post("https://api.tavily.com/search", json={"results": [{"url": "https://x.example"}]})
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="", tracer_provider=provider)
    try:
        tavily.TavilyClient(api_key="k").search("q")
    finally:
        instrumentor.uninstrument()
    (span,) = exporter.get_finished_spans()
    assert span.name == "execute_tool tavily.search" and cap.spans == []
    assert span.instrumentation_scope is not None
    assert (span.instrumentation_scope.name, span.instrumentation_scope.schema_url) == (
        names.INSTRUMENTATION_SCOPE, names.SCHEMA_URL)
    instrumentor.instrument(tools="")
    try:
        tavily.TavilyClient(api_key="k").search("q")
    finally:
        instrumentor.uninstrument()
    assert len(exporter.get_finished_spans()) == 1 and len(cap.spans) == 1


@pytest.mark.parametrize("venv", sorted(SIDE_VENVS))
def test_side_venv_rows_resolve_and_uninstrument_exactly(venv: str) -> None:
    """In each side venv, every row of its libraries names a callable of a supported version, is wrapped once,
    and is restored exactly by uninstrument (the checks above, run where those libraries are installed)."""
    python = side_python(venv)
    assert Path(python).exists(), f"no {venv} venv at {python}: run scripts/setup"
    dists = SIDE_VENVS[venv][2]
    src = str(Path(__file__).parents[2] / "src")  # this checkout's sources, whatever the venv's editable install
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([python, str(Path(__file__).parent / "_side_rows.py"), *dists], capture_output=True,
                          text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert found["problems"] == []
    assert sorted(found["checked"]) == sorted(row.key for row in ROWS if row.dist in dists)


@pytest.mark.parametrize("imported_first", [True, False])
def test_row_applies_under_the_name_its_module_is_imported_as(tmp_path: Path, imported_first: bool) -> None:
    """A module listed in ``sys.modules`` under a name other than its ``__name__`` (CrewAI's ``crewai.crew``)
    is wrapped by its row, whether imported before ``start`` or after (the post-import hook)."""
    (tmp_path / "alias_lib_real.py").write_text("def search(query):\n    return []\n")
    (tmp_path / "alias_lib.py").write_text("import sys, alias_lib_real\nsys.modules[__name__] = alias_lib_real\n")
    sys.path.insert(0, str(tmp_path))
    patcher = Patcher(SUPPORTED)
    try:
        if imported_first:
            import alias_lib  # type: ignore[import-not-found]  # noqa: F401
        patcher.start([Patch("", "alias_lib", "search", ToolSpec("alias", "search"))])
        import alias_lib  # noqa: F811

        assert patcher.applied() == ["alias_lib:search"]
        assert hasattr(alias_lib.search, "__wrapped__")
    finally:
        patcher.stop()
        sys.path.remove(str(tmp_path))
        for name in ("alias_lib", "alias_lib_real"):
            sys.modules.pop(name, None)
    assert not hasattr(sys.modules.get("alias_lib_real", alias_lib).search, "__wrapped__")


@pytest.mark.parametrize("own_span", [True, False])
def test_own_span_row_is_a_span_inside_another_tool_call(tmp_path: Path, cap: Captured, own_span: bool) -> None:
    """A ``Patch(own_span=True)`` fetch called inside a wrapped search is a span of its own, whose status
    probe is its own (its 429 is not the search's); without it, the nested call passes through (one span)."""
    from citetrace.instrumentation import _probe

    (tmp_path / "own_lib.py").write_text(
        "def read(url):\n    return None\n\n"
        "def search(query):\n    read('https://a.example/p')\n    return ['https://a.example/p']\n")
    sys.path.insert(0, str(tmp_path))
    patcher = Patcher(SUPPORTED)
    inner = ToolSpec("own.read", "fetch", classify=lambda r: "rate_limited" if _probe.saw(429) else "error")
    try:
        import own_lib  # type: ignore[import-not-found]

        real_read = own_lib.read
        own_lib.read = lambda url: (_probe.record(429), real_read(url))[1]
        patcher.start([Patch("", "own_lib", "search", ToolSpec("own.search", "search")),
                       Patch("", "own_lib", "read", inner, own_span=own_span)])
        assert own_lib.search("q") == ["https://a.example/p"]
    finally:
        patcher.stop()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("own_lib", None)
    statuses = {s.attributes[names.GEN_AI_TOOL_NAME]: s.attributes[names.TOOL_STATUS] for s in cap.tool_spans()}
    if own_span:
        assert statuses == {"own.search": "ok", "own.read": "rate_limited"}
    else:
        assert statuses == {"own.search": "ok"}
