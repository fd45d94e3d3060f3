"""A good neighbour, end to end in subprocesses with only environment variables: the application's own
TracerProvider set after start-up, OpenInference's real smolagents instrumentor, a real smolagents
ToolCallingAgent with a scripted model (only the model and the network are stand-ins)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citetrace import names

from ._net import LocalServer

PAGE = "<html><body><article><p>" + "Solar capacity grew again this year. " * 20 + "</p></article></body></html>"

def _app_provider(package: str, instrumentor: str) -> str:
    """The application's own provider and exporter, set after start-up (what Phoenix's register() does), with
    OpenInference's instrumentor for ``package`` when the script is given ``--openinference``."""
    return f'''base, out_path = sys.argv[1], sys.argv[2]
exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
if "--openinference" in sys.argv:
    from openinference.instrumentation.{package} import {instrumentor}
    {instrumentor}().instrument(tracer_provider=provider)
'''


SEARCHLIB = '''
def search(query, base):
    """The application's own search function (wrapped by CITETRACE_TOOLS)."""
    return [{"url": f"{base}/page/{i}", "title": f"P{i}"} for i in range(2)]
'''

APP = '''
import json
import sys

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from smolagents import ToolCallingAgent, VisitWebpageTool, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

import searchlib

''' + _app_provider("smolagents", "SmolagentsInstrumentor") + '''

@tool
def web_search(query: str) -> str:
    """Search the web.

    Args:
        query: what to look for
    """
    return "\\n".join(r["url"] for r in searchlib.search(query, base))


class Scripted(Model):
    """A model that answers from a fixed script of tool calls."""

    def __init__(self) -> None:
        super().__init__(model_id="scripted")
        self.steps = [("web_search", {"query": "solar growth"}),
                      ("visit_webpage", {"url": base + "/page/0"}),
                      ("final_answer", {"answer": f"Solar grew [1].\\n\\n[1] {base}/page/0"})]

    def generate(self, messages, stop_sequences=None, response_format=None, tools_to_call_from=None, **kw):
        name, args = self.steps.pop(0)
        call = ChatMessageToolCall(id=f"call_{len(self.steps)}", type="function",
                                   function=ChatMessageToolCallFunction(name=name, arguments=args))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


tracer = trace.get_tracer("my-app")
with tracer.start_as_current_span("handle request"):
    with tracer.start_as_current_span("load user"):
        pass
    agent = ToolCallingAgent(tools=[web_search, VisitWebpageTool()], model=Scripted(), max_steps=5,
                             verbosity_level=-1)
    answer = agent.run("How fast is solar growing?")
provider.force_flush()
spans = [{"name": s.name, "trace_id": format(s.context.trace_id, "032x"), "span_id": s.context.span_id,
          "parent": s.parent.span_id if s.parent else None, "scope": s.instrumentation_scope.name,
          "attrs": {k: v for k, v in (s.attributes or {}).items() if isinstance(v, (str, int, bool, float))}}
         for s in exporter.get_finished_spans()]
with open(out_path, "w") as fh:
    json.dump({"answer": str(answer), "spans": spans}, fh)
'''


LANGGRAPH_APP = '''
import json
import sys
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import searchlib

''' + _app_provider("langchain", "LangChainInstrumentor") + '''

@tool
def web_search(query: str) -> str:
    """Search the web."""
    return "\\n".join(r["url"] for r in searchlib.search(query, base))


class Scripted(GenericFakeChatModel):
    """A chat model answering from a script; it accepts tools (the script decides the calls)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


messages = [AIMessage(content="", tool_calls=[{"name": "web_search", "args": {"query": "solar"}, "id": "c1"}]),
            AIMessage(content=f"Solar grew [1]({base}/page/0).")]
agent = create_agent(Scripted(messages=iter(messages)), tools=[web_search])
result = agent.invoke({"messages": [{"role": "user", "content": "How fast is solar growing?"}]})
provider.force_flush()
spans = [{"name": s.name, "trace_id": format(s.context.trace_id, "032x"), "span_id": s.context.span_id,
          "parent": s.parent.span_id if s.parent else None, "scope": s.instrumentation_scope.name,
          "attrs": {k: v for k, v in (s.attributes or {}).items() if isinstance(v, (str, int, bool, float))}}
         for s in exporter.get_finished_spans()]
with open(out_path, "w") as fh:
    json.dump({"answer": result["messages"][-1].content, "spans": spans}, fh)
'''

def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(extra)
    return env


@pytest.fixture
def web(server: LocalServer) -> LocalServer:
    """Two pages on a local server."""
    server.routes["/page/"] = (200, PAGE, "text/html")
    return server


def _run_app(tmp_path: Path, web: LocalServer, *, citetrace: bool, openinference: bool,
             app: str = APP) -> tuple[dict[str, Any], str]:
    (tmp_path / "app.py").write_text(app)
    (tmp_path / "searchlib.py").write_text(SEARCHLIB)
    out = tmp_path / f"spans-{citetrace}-{openinference}.json"
    env = _env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if citetrace:
        env.update(CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_TOOLS="searchlib:search=search",
                   CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}", OTEL_TRACES_EXPORTER="none")
    argv = [sys.executable, "app.py", web.base, str(out)] + (["--openinference"] if openinference else [])
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), proc.stderr


def _shape(spans: list[dict[str, Any]], among: list[dict[str, Any]] | None = None) -> list[tuple[str, str, str | None]]:
    """(scope, name, parent's name) of each span, parents looked up ``among`` all the trace's spans (default:
    ``spans``): what 'the same spans, same parents' means here."""
    by_id = {s["span_id"]: s["name"] for s in (spans if among is None else among)}
    return sorted((s["scope"], s["name"], by_id.get(s["parent"])) for s in spans)


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citetrace", *args, "--store", f"sqlite:///{tmp_path / 'store.db'}"],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("openinference", [False, True], ids=["app-provider", "app-provider+openinference"])
def test_application_exporter_gets_its_spans_plus_ours_in_one_trace(tmp_path: Path, web: LocalServer,
                                                                     openinference: bool) -> None:
    """The application's provider, set after start-up, is not refused; its exporter gets every span it gets
    without citetrace (same names, same parents), plus citetrace's, all in one trace; the run is stored."""
    plain, _ = _run_app(tmp_path, web, citetrace=False, openinference=openinference)
    traced, stderr = _run_app(tmp_path, web, citetrace=True, openinference=openinference)
    assert "Overriding of current TracerProvider" not in stderr
    assert traced["answer"] == plain["answer"]
    ours = [s for s in traced["spans"] if s["scope"] == names.INSTRUMENTATION_SCOPE]
    theirs = [s for s in traced["spans"] if s["scope"] != names.INSTRUMENTATION_SCOPE]
    assert _shape(theirs, traced["spans"]) == _shape(plain["spans"])  # not one parent changed
    if openinference:
        assert {"ToolCallingAgent.run", "Step 1", "VisitWebpageTool"} <= {s["name"] for s in theirs}
    tools = sorted(s["name"] for s in ours if s["attrs"].get(names.GEN_AI_OPERATION_NAME) == names.OP_EXECUTE_TOOL)
    assert tools == ["execute_tool search", "execute_tool smolagents.visit_webpage"]
    assert len({s["trace_id"] for s in traced["spans"]}) == 1
    (trace_id,) = {s["trace_id"] for s in traced["spans"]}
    proc = _cli(tmp_path, "runs", "--json")
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads(proc.stdout)
    assert run["trace_id"] == trace_id
    assert run["summary"]["searches"] == 1 and run["summary"]["reads"] == 1
    shown = _cli(tmp_path, "show", trace_id[:10], "--json")
    assert shown.returncode == 0, shown.stderr
    assert [c["tool"] for c in json.loads(shown.stdout)["calls"]] == ["search", "smolagents.visit_webpage"]


def test_langgraph_with_openinference_keeps_its_spans_in_one_trace(tmp_path: Path, web: LocalServer) -> None:
    """A LangGraph create_agent graph under OpenInference's real LangChain instrumentor: the application's
    exporter gets every OpenInference span with exactly the parent it has without citetrace (its root stays
    the trace's root), plus citetrace's spans beneath that root, in one trace; the run is stored."""
    plain, _ = _run_app(tmp_path, web, citetrace=False, openinference=True, app=LANGGRAPH_APP)
    traced, stderr = _run_app(tmp_path, web, citetrace=True, openinference=True, app=LANGGRAPH_APP)
    assert "Overriding of current TracerProvider" not in stderr
    assert traced["answer"] == plain["answer"]
    theirs = [s for s in traced["spans"] if s["scope"] != names.INSTRUMENTATION_SCOPE]
    assert _shape(theirs, traced["spans"]) == _shape(plain["spans"])  # not one parent changed, the root included
    (their_root,) = [s for s in theirs if s["parent"] is None]
    assert their_root["name"] == "LangGraph"
    ours = {s["name"]: s for s in traced["spans"] if s["scope"] == names.INSTRUMENTATION_SCOPE}
    assert sorted(ours) == ["execute_tool search", "invoke_agent LangGraph"]
    assert ours["invoke_agent LangGraph"]["parent"] == their_root["span_id"]  # the run adopted their root
    assert ours["execute_tool search"]["parent"] == ours["invoke_agent LangGraph"]["span_id"]
    assert len({s["trace_id"] for s in traced["spans"]}) == 1
    proc = _cli(tmp_path, "runs", "--json")
    (run,) = json.loads(proc.stdout)
    assert run["trace_id"] == their_root["trace_id"] and run["summary"]["searches"] == 1
    assert run["answer"] == plain["answer"]


RUN_AGENT = '''
import sys
import time

import citetrace
import searchlib

t0 = time.monotonic()
with citetrace.research_run("How fast is solar growing?", agent="console-agent") as run:
    searchlib.search("solar", sys.argv[1])
    run.record_answer("Solar grew.")
print("RUN", run.trace_id, flush=True)
'''


def _run_agent(tmp_path: Path, web: LocalServer, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "agent.py").write_text(RUN_AGENT)
    (tmp_path / "searchlib.py").write_text(SEARCHLIB)
    full = _env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_TOOLS="searchlib:search=search",
                CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}", **env)
    proc = subprocess.run([sys.executable, "agent.py", web.base], cwd=tmp_path, env=full, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_console_exporter_shows_the_tool_spans_of_a_healthy_run(tmp_path: Path, web: LocalServer) -> None:
    """OTEL_TRACES_EXPORTER=console prints a healthy run's tool span as well as its root (nothing is sampled
    away by default)."""
    proc = _run_agent(tmp_path, web, OTEL_TRACES_EXPORTER="console")
    printed = [json.loads(chunk) for chunk in _json_objects(proc.stdout)]
    assert sorted(s["name"] for s in printed) == ["execute_tool search", "invoke_agent console-agent"]
    root = next(s for s in printed if s["name"].startswith("invoke_agent"))
    assert root["attributes"][names.SUMMARY_KEEP] is False  # the decision is recorded, nothing dropped


def _json_objects(text: str) -> list[str]:
    """The ConsoleSpanExporter's JSON objects in ``text`` (each starts with a line holding only '{')."""
    chunks, current = [], []
    for line in text.splitlines():
        if line == "{":
            current = [line]
        elif current:
            current.append(line)
            if line == "}":
                chunks.append("\n".join(current))
                current = []
    return chunks


def test_no_collector_is_quiet_and_prompt(tmp_path: Path, web: LocalServer) -> None:
    """Defaults and nothing listening on the OTLP port: one warning line, no retry tracebacks, and an exit as
    prompt as with no exporter at all (the SDK's retries would add about six seconds)."""
    import time

    start = time.monotonic()
    quiet = _run_agent(tmp_path, web, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="http/protobuf")
    with_default = time.monotonic() - start
    start = time.monotonic()
    _run_agent(tmp_path, web, OTEL_TRACES_EXPORTER="none")
    without = time.monotonic() - start
    assert "Traceback" not in quiet.stderr and "Transient error" not in quiet.stderr
    lines = [line for line in quiet.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "nothing listens on localhost:4318" in lines[0], quiet.stderr
    assert with_default - without < 4.0, (with_default, without)  # the retries cost ~6 s
    proc = _cli(tmp_path, "runs", "--json")
    assert [r["agent"] for r in json.loads(proc.stdout)] == ["console-agent"] * 2
