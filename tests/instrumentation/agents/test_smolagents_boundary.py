"""smolagents' MultiStepAgent.run as a boundary, in process with the real library and a scripted model: the
generator closed undrained, the agent's own failure, return_full_result, and uninstrumenting."""

from __future__ import annotations

import pytest
from smolagents import ToolCallingAgent

from citetrace import names
from citetrace.instrumentation import CiteTraceInstrumentor
from citetrace.testing import Captured

from ._smolscript import ANSWER, Scripted, lookup, lookup_agent as _agent, tool_call

FORCED = "Out of steps: solar grew, see [1](https://a.example/x)."


def _looping_agent(**kwargs: object) -> ToolCallingAgent:
    """Calls ``lookup`` on every step until ``max_steps`` (2); smolagents then asks the model for a final
    answer from memory (``provide_final_answer``), which is ``FORCED``."""
    from smolagents.models import ChatMessage

    steps = [tool_call("lookup", topic="solar"), tool_call("lookup", topic="wind"),
             ChatMessage(role="assistant", content=FORCED)]
    return ToolCallingAgent(tools=[lookup], model=Scripted(steps), max_steps=2, verbosity_level=0, **kwargs)


@pytest.mark.parametrize("how", ["run", "stream", "full_result"])
def test_max_steps_reached_is_a_failed_run_with_the_forced_answer(instrumented: CiteTraceInstrumentor,
                                                                  cap: Captured, how: str) -> None:
    """smolagents does not raise at ``max_steps``: it records ``AgentMaxStepsError`` on the last step (its
    ``RunResult.state`` is ``max_steps_error``) and returns an answer forced from memory. Found by an
    outside-style check: the run was ``ok``, where the same stop is a failed run in the OpenAI Agents SDK
    (``MaxTurnsExceeded``) and LlamaIndex (``max_iterations``). The caller gets the same value as before."""
    agent = _looping_agent(return_full_result=how == "full_result")
    if how == "stream":
        items = list(agent.run("q", stream=True))
        assert type(items[-1]).__name__ == "FinalAnswerStep" and items[-1].output == FORCED
    else:
        result = agent.run("q")
        assert (result.output, result.state) == (FORCED, "max_steps_error") if how == "full_result" else (
            result == FORCED)
    (run,) = cap.store.runs()
    assert (run.error_type, run.answer) == ("AgentMaxStepsError", FORCED)
    (root,) = cap.run_spans()
    assert (root.attributes or {})[names.ERROR_TYPE] == "AgentMaxStepsError"
    assert list((root.attributes or {})[names.CITATIONS]) == ["https://a.example/x"]


def test_stream_closed_undrained_ends_the_run(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """run(stream=True) consumed up to its first ActionStep then closed: the run ends, with no answer."""
    steps = _agent().run("q", stream=True)
    for step in steps:
        if type(step).__name__ == "ActionStep":
            break
    assert cap.run_spans() == []
    steps.close()
    (root,) = cap.run_spans()
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.answer is None and run.error_type is None
    assert names.CITATIONS not in (root.attributes or {})


def test_stream_closed_mid_step_raises_as_smolagents_does(instrumented: CiteTraceInstrumentor,
                                                          cap: Captured) -> None:
    """Closed mid-step, smolagents' generator raises on close; the caller sees that same error, and the run
    ends without being marked failed."""
    steps = _agent().run("q", stream=True)
    next(steps)
    with pytest.raises(RuntimeError, match="ignored GeneratorExit"):
        steps.close()
    (run,) = cap.store.runs()
    assert run.ended_at is not None and run.error_type is None


def test_return_full_result_answer_is_its_output(instrumented: CiteTraceInstrumentor, cap: Captured) -> None:
    """With return_full_result the agent returns a RunResult; the stored answer is its output."""
    result = _agent(return_full_result=True).run("q")
    assert type(result).__name__ == "RunResult" and result.output == ANSWER
    (run,) = cap.store.runs()
    assert run.answer == ANSWER
    assert list((cap.run_spans()[0].attributes or {})[names.CITATIONS]) == ["https://a.example/x"]


def test_the_agents_failure_reaches_the_caller_and_marks_the_run(instrumented: CiteTraceInstrumentor,
                                                                 cap: Captured) -> None:
    """A model failure raises out of run() unchanged; the run records the error type and no answer."""
    agent = ToolCallingAgent(tools=[lookup], model=Scripted([]), max_steps=1, verbosity_level=0)
    with pytest.raises(Exception) as caught:
        agent.run("q")
    (run,) = cap.store.runs()
    assert run.error_type == type(caught.value).__qualname__ and run.answer is None


def test_uninstrumented_agent_makes_no_run(cap: Captured) -> None:
    """After uninstrument the same agent runs with no run at all."""
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    instrumentor.uninstrument()
    assert _agent().run("q") == ANSWER
    assert cap.store.runs() == [] and cap.run_spans() == []
