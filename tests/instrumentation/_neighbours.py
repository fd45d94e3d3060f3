"""Shared by the neighbour tests: an application script that sets its own provider and in-memory exporter after
start-up (what Phoenix's ``register()`` and Langfuse do), optionally with another instrumentation, run in a
subprocess with only environment variables, with and without citetrace; and how its spans are compared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._net import LocalServer

__all__ = ["PAGE", "INSTRUMENT", "PRELUDE", "DUMP", "env", "run_app", "shape", "cli", "split"]

PAGE = "<html><body><article><p>" + "Solar capacity grew again this year. " * 20 + "</p></article></body></html>"

INSTRUMENT = {
    "openinference-smolagents": ("openinference.instrumentation.smolagents", "SmolagentsInstrumentor"),
    "openinference-langchain": ("openinference.instrumentation.langchain", "LangChainInstrumentor"),
    "openllmetry-langchain": ("opentelemetry.instrumentation.langchain", "LangchainInstrumentor"),
}
"""Instrumentations a script turns on when given ``--with NAME``: OpenInference's and OpenLLMetry's."""

PRELUDE = '''import importlib
import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

base, out_path = sys.argv[1], sys.argv[2]
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
INSTRUMENT = ''' + repr(INSTRUMENT) + '''
for name in [a for a in sys.argv[3:] if a in INSTRUMENT]:  # other words are the app's own switches
    module, cls = INSTRUMENT[name]
    getattr(importlib.import_module(module), cls)().instrument(tracer_provider=provider)
'''
"""The application's own provider and exporter, set after start-up, and the instrumentations asked for."""

DUMP = '''
provider.force_flush()
spans = [{"name": s.name, "trace_id": format(s.context.trace_id, "032x"), "span_id": s.context.span_id,
          "parent": s.parent.span_id if s.parent else None, "scope": s.instrumentation_scope.name,
          "attrs": {k: v for k, v in (s.attributes or {}).items() if isinstance(v, (str, int, bool, float))}}
         for s in exporter.get_finished_spans()]
with open(out_path, "w") as fh:
    json.dump({"answer": str(answer), "spans": spans}, fh)
'''
"""Writes what the application's exporter got (and the agent's ``answer``) to the output file."""

SEARCHLIB = '''
def search(query, base):
    """The application's own search function (wrapped by CITETRACE_TOOLS)."""
    return [{"url": f"{base}/page/{i}", "title": f"P{i}"} for i in range(2)]
'''


def env(**extra: str) -> dict[str, str]:
    """This process's environment without any CITETRACE_/OTEL_ variable, plus ``extra``."""
    out = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    out.update(extra)
    return out


def run_app(tmp_path: Path, web: LocalServer, app: str, *, citetrace: bool, others: tuple[str, ...] = (),
            **extra_env: str) -> tuple[dict[str, Any], str]:
    """Run ``app`` (with ``searchlib`` beside it) with the instrumentations ``others``; citetrace switched
    on by environment variables only when ``citetrace``. Returns what the exporter got, and stderr."""
    (tmp_path / "app.py").write_text(app)
    (tmp_path / "searchlib.py").write_text(SEARCHLIB)
    out = tmp_path / f"spans-{citetrace}-{'-'.join(others)}.json"
    environ = env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if citetrace:
        environ.update(CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_TOOLS="searchlib:search=search",
                       CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}", OTEL_TRACES_EXPORTER="none")
        environ.update(extra_env)
    argv = [sys.executable, "app.py", web.base, str(out), *others]
    proc = subprocess.run(argv, cwd=tmp_path, env=environ, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc.stderr


def shape(spans: list[dict[str, Any]], among: list[dict[str, Any]] | None = None) -> list[tuple[str, str, str | None]]:
    """(scope, name, parent's name) of each span, parents looked up ``among`` all the trace's spans (default:
    ``spans``): what 'the same spans, same parents' means here."""
    by_id = {s["span_id"]: s["name"] for s in (spans if among is None else among)}
    return sorted((s["scope"], s["name"], by_id.get(s["parent"])) for s in spans)


def split(spans: list[dict[str, Any]], scope: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(citetrace's spans, everyone else's)."""
    return [s for s in spans if s["scope"] == scope], [s for s in spans if s["scope"] != scope]


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citetrace ARGS --store`` the app's store."""
    return subprocess.run([sys.executable, "-m", "citetrace", *args, "--store", f"sqlite:///{tmp_path / 'store.db'}"],
                          cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
