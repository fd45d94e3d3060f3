"""Runs the caller never finishes are bounded: a real OpenAI Agents ``AgentRunner.run`` coroutine never awaited and
a real smolagents ``stream=True`` generator never iterated end their run when collected; one kept alive
undrained ends past the TTL (an injected clock, no sleep) or at exit (a subprocess); each as ``abandoned``."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agents import Agent
from agents.run import AgentRunner

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.instrumentation._agents import _abandon
from citetrace.testing import Captured

from ._smolscript import ANSWER, lookup_agent as _agent


def _abandoned(cap: Captured) -> Any:
    (root,) = cap.run_spans()
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.error_type == names.ERROR_TYPE_ABANDONED
    assert (root.attributes or {})[names.ERROR_TYPE] == names.ERROR_TYPE_ABANDONED
    return run


def test_a_coroutine_never_awaited_ends_its_run_when_collected(instrumented: CiteTraceInstrumentor,
                                                               cap: Captured) -> None:
    """``AgentRunner().run(...)`` (what ``Runner.run`` awaits) dropped without being awaited: its run is ended
    as abandoned at collection."""
    before = _abandon.abandoned_count()
    with pytest.warns(RuntimeWarning, match="never awaited"):
        coro = AgentRunner().run(Agent(name="researcher"), "What is OpenTelemetry?")
        del coro
        gc.collect()
    run = _abandoned(cap)
    assert run.agent == "researcher" and _abandon.abandoned_count() == before + 1


def test_a_stream_never_iterated_ends_its_run_when_collected(instrumented: CiteTraceInstrumentor,
                                                             cap: Captured) -> None:
    """``run("q", stream=True)`` dropped before its first item: ended as abandoned at collection."""
    steps = _agent().run("q", stream=True)
    assert cap.run_spans() == []
    del steps
    gc.collect()
    _abandoned(cap)


def test_a_stream_kept_undrained_ends_past_the_ttl_and_the_agent_goes_on(instrumented: CiteTraceInstrumentor,
                                                                        cap: Captured) -> None:
    """A stream held undrained past the trace TTL is ended by the next sweep (at the next agent call); the
    caller can still drain it afterwards, getting every step and the answer, and the run is not ended twice."""
    steps = _agent().run("q", stream=True)
    next(steps)
    _abandon.sweep(time.monotonic())  # not due yet
    assert cap.run_spans() == []
    _abandon.sweep(time.monotonic() + cap_ttl() + 1)
    _abandoned(cap)
    rest = list(steps)
    assert type(rest[-1]).__name__ == "FinalAnswerStep" and rest[-1].output == ANSWER
    assert len(cap.run_spans()) == 1


def test_a_started_stream_dropped_is_not_abandoned(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """Started and then dropped, a stream is closed by Python: the caller stopped early, the run ends as before
    (no error), not as abandoned."""
    steps = _agent().run("q", stream=True)
    for step in steps:
        if type(step).__name__ == "ActionStep":  # between steps (closed mid-step, smolagents itself raises)
            break
    del steps, step
    gc.collect()
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.error_type is None


def cap_ttl() -> float:
    from citetrace import _telemetry

    return _telemetry.current().settings.trace_ttl_seconds


AT_EXIT = '''
import sys
sys.path.insert(0, sys.argv[1])
from smolagents import ToolCallingAgent, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction
from _smolscript import Scripted


@tool
def lookup(topic: str) -> str:
    """Look a topic up.

    Args:
        topic: what to look up.
    """
    return "facts"


def call(name, **arguments):
    return ChatMessage(role="assistant", content="", tool_calls=[ChatMessageToolCall(
        ChatMessageToolCallFunction(name=name, arguments=arguments), id=name, type="function")])


agent = ToolCallingAgent(tools=[lookup], model=Scripted([call("lookup", topic="x"), call("final_answer", answer="A")]),
                         max_steps=3, verbosity_level=-1)
KEPT = agent.run("What is kept?", stream=True)
next(KEPT)  # started, held undrained until the process exits
'''


def test_a_stream_held_until_exit_is_ended_at_exit(tmp_path: Path) -> None:
    """A process that exits holding an undrained stream still leaves a finished, abandoned run in the store."""
    (tmp_path / "agent.py").write_text(AT_EXIT)
    store = f"sqlite:///{tmp_path / 'store.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITETRACE_", "OTEL_"))}
    env.update(CITETRACE_AUTO_INSTRUMENT="true", CITETRACE_STORE=store, OTEL_TRACES_EXPORTER="none")
    proc = subprocess.run([sys.executable, "agent.py", str(Path(__file__).parent)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "never finished by its caller" in proc.stderr
    listed = subprocess.run([sys.executable, "-m", "citetrace", "runs", "--json", "--store", store], env=env,
                            capture_output=True, text=True, timeout=60)
    (run,) = json.loads(listed.stdout)
    assert (run["question"], run["error_type"]) == ("What is kept?", names.ERROR_TYPE_ABANDONED)
    assert run["ended_at"] is not None
