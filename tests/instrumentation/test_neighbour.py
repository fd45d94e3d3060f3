"""A good neighbour, end to end in subprocesses with only environment variables: the application's own
TracerProvider set after start-up, OpenInference's real smolagents instrumentor, a real smolagents
ToolCallingAgent with a scripted model (only the model and the network are stand-ins). LangGraph under
OpenInference and OpenLLMetry: ``test_neighbour_langgraph.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citetrace import names

from ._net import LocalServer
from ._neighbours import DUMP, PAGE, PRELUDE, SEARCHLIB, cli, env, run_app, shape, split


@pytest.fixture
def web(server: LocalServer) -> LocalServer:
    """Two pages on a local server."""
    server.routes["/page/"] = (200, PAGE, "text/html")
    return server


APP = PRELUDE + '''
from smolagents import ToolCallingAgent, VisitWebpageTool, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, MessageRole, Model

import searchlib


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


if "citetrace-in-code" in sys.argv:  # the in-code route, after OpenInference: citetrace's wrapper is outermost
    import citetrace
    from citetrace.instrumentation import CiteTraceInstrumentor

    citetrace.configure()
    CiteTraceInstrumentor().instrument()

tracer = trace.get_tracer("my-app")
agent = ToolCallingAgent(tools=[web_search, VisitWebpageTool()], model=Scripted(), max_steps=5, verbosity_level=-1)
if "no-root" in sys.argv:  # the agent called with nothing current: OpenInference's AGENT span is the root
    answer = agent.run("How fast is solar growing?")
else:
    with tracer.start_as_current_span("handle request"):
        with tracer.start_as_current_span("load user"):
            pass
        answer = agent.run("How fast is solar growing?")
''' + DUMP


OI = "openinference-smolagents"


@pytest.mark.parametrize("others", [(), (OI,), (OI, "no-root"), (OI, "no-root", "citetrace-in-code")],
                         ids=["app-provider", "app-provider+openinference", "openinference-root",
                              "openinference-root+citetrace-outermost"])
def test_application_exporter_gets_its_spans_plus_ours_in_one_trace(tmp_path: Path, web: LocalServer,
                                                                     others: tuple[str, ...]) -> None:
    """The application's provider, set after start-up, is not refused; its exporter gets every span it gets
    without citetrace (same names, same parents), plus citetrace's, all in one trace; the run is stored. With
    citetrace instrumented in code after OpenInference, its boundary is the outer wrapper: OpenInference's
    AGENT root, started inside the call, stays the root and the run adopts it."""
    in_code = "citetrace-in-code" in others
    plain, _ = run_app(tmp_path, web, APP, citetrace=False, others=tuple(o for o in others if o != "citetrace-in-code"))
    traced, stderr = run_app(tmp_path, web, APP, citetrace=True, others=others,
                             **({"CITETRACE_AUTO_INSTRUMENT": "false"} if in_code else {}))
    assert "Overriding of current TracerProvider" not in stderr
    assert traced["answer"] == plain["answer"]
    ours, theirs = split(traced["spans"], names.INSTRUMENTATION_SCOPE)
    assert shape(theirs, traced["spans"]) == shape(plain["spans"])  # not one parent changed
    if others:
        assert {"ToolCallingAgent.run", "Step 1", "VisitWebpageTool"} <= {s["name"] for s in theirs}
    if "no-root" in others:  # OpenInference's AGENT span is the root; the run is beneath it (beside, or adopted)
        (root,) = [s for s in traced["spans"] if s["parent"] is None]
        run_span = next(s for s in ours if s["name"].startswith("invoke_agent"))
        assert root["name"] == "ToolCallingAgent.run" and run_span["parent"] == root["span_id"]
    tools = sorted(s["name"] for s in ours if s["attrs"].get(names.GEN_AI_OPERATION_NAME) == names.OP_EXECUTE_TOOL)
    assert tools == ["execute_tool search", "execute_tool smolagents.visit_webpage"]
    assert len({s["trace_id"] for s in traced["spans"]}) == 1
    (trace_id,) = {s["trace_id"] for s in traced["spans"]}
    proc = cli(tmp_path, "runs", "--json")
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads(proc.stdout)
    assert run["trace_id"] == trace_id
    assert run["summary"]["searches"] == 1 and run["summary"]["reads"] == 1
    shown = cli(tmp_path, "show", trace_id[:10], "--json")
    assert shown.returncode == 0, shown.stderr
    assert [c["tool"] for c in json.loads(shown.stdout)["calls"]] == ["search", "smolagents.visit_webpage"]


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


def _run_agent(tmp_path: Path, web: LocalServer, **extra: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "agent.py").write_text(RUN_AGENT)
    (tmp_path / "searchlib.py").write_text(SEARCHLIB)
    full = env(PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_TOOLS="searchlib:search=search",
               CITETRACE_STORE=f"sqlite:///{tmp_path / 'store.db'}", **extra)
    proc = subprocess.run([sys.executable, "agent.py", web.base], cwd=tmp_path, env=full, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_console_exporter_shows_the_tool_spans_of_a_healthy_run(tmp_path: Path, web: LocalServer) -> None:
    """OTEL_TRACES_EXPORTER=console prints a healthy run's tool span as well as its root (nothing is sampled
    away by default). The stable sample is set to 0 %: at its default 2 % a healthy run's random trace id is kept
    by it one time in fifty, which made this test fail that often."""
    proc = _run_agent(tmp_path, web, OTEL_TRACES_EXPORTER="console", CITETRACE_SAMPLE_PERCENT="0")
    printed = [json.loads(chunk) for chunk in _json_objects(proc.stdout)]
    assert sorted(s["name"] for s in printed) == ["execute_tool search", "invoke_agent console-agent"]
    root = next(s for s in printed if s["name"].startswith("invoke_agent"))
    assert root["attributes"][names.SUMMARY_FAILED] is False
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
    proc = cli(tmp_path, "runs", "--json")
    assert [r["agent"] for r in json.loads(proc.stdout)] == ["console-agent"] * 2


APP_ROOT = PRELUDE + '''
import searchlib

QUESTION = "How fast is solar growing?"
tracer = trace.get_tracer("my-app")
if "traceloop" in sys.argv:  # what traceloop-sdk's @workflow(name="research") makes, with content tracing on
    name, attrs = "research.workflow", {"traceloop.span.kind": "workflow", "traceloop.entity.name": "research",
                                        "traceloop.entity.input": json.dumps({"args": [], "kwargs": {"question": QUESTION}})}
else:  # the Langfuse pattern: the application's own span is the trace's root and carries the input
    name, attrs = "research", {"langfuse.trace.input": json.dumps({"query": QUESTION})}
with tracer.start_as_current_span(name, attributes=attrs):
    with tracer.start_as_current_span("plan"):
        pass
    searchlib.search("solar", base)
    searchlib.search("wind", base)
answer = "done"
''' + DUMP


@pytest.mark.parametrize("root", ["langfuse", "traceloop"])
@pytest.mark.parametrize("capture", [False, True], ids=["default", "content-capture"])
def test_the_applications_own_root_is_a_listed_run(tmp_path: Path, web: LocalServer, capture: bool,
                                                   root: str) -> None:
    """No agent framework: the application's own root span (Langfuse-style, or shaped as traceloop-sdk's
    ``@workflow`` makes it) with citetrace tool calls under it is one run, listed and summarized under its
    trace id, its question read off the root only with content capture; the application's spans keep their
    parents, citetrace's are in the same trace."""
    extra = {"CITETRACE_CAPTURE_CONTENT": "true"} if capture else {}
    plain, _ = run_app(tmp_path, web, APP_ROOT, citetrace=False, others=(root,))
    traced, _ = run_app(tmp_path, web, APP_ROOT, citetrace=True, others=(root,), **extra)
    ours, theirs = split(traced["spans"], names.INSTRUMENTATION_SCOPE)
    assert shape(theirs, traced["spans"]) == shape(plain["spans"])
    (top,) = [s for s in traced["spans"] if s["parent"] is None]
    assert top["name"].startswith("research") and {s["trace_id"] for s in ours} == {top["trace_id"]}
    assert sorted(s["name"] for s in ours) == ["citetrace.run.summary", "execute_tool search", "execute_tool search"]
    (run,) = json.loads(cli(tmp_path, "runs", "--json").stdout)
    assert run["trace_id"] == top["trace_id"] and run["agent"] == "research"
    assert run["summary"]["searches"] == 2
    assert run["question"] == ("How fast is solar growing?" if capture else None)
