"""smolagents: ``MultiStepAgent.run`` (``CodeAgent``, ``ToolCallingAgent``) is the run.

``stream=False`` returns the final answer (or a ``RunResult`` with ``return_full_result``); ``stream=True``
returns the step generator, whose ``FinalAnswerStep.output`` is the answer. A managed agent is called
through ``__call__`` -> ``run`` inside its manager's run, so it joins that run.

At ``max_steps`` smolagents does not raise: it asks the model for an answer from memory, returns it, and
keeps ``AgentMaxStepsError`` on the last step (``RunResult.state`` ``max_steps_error``). The run records that
answer and ends failed with that error, as a stop at the turn limit does in the other frameworks.
"""

from __future__ import annotations

from typing import Any

from citetrace.instrumentation._agents._boundary import Boundary, agent_row, text_of

__all__ = ["ROWS", "BOUNDARY"]

DIST = "smolagents"


def _agent(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    name = getattr(instance, "name", None)
    return name if isinstance(name, str) and name else type(instance).__name__


def _task(instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    task = args[0] if args else kwargs.get("task")
    return task if isinstance(task, str) else None


def _answer(result: Any) -> str | None:
    if type(result).__name__ == "RunResult":
        result = getattr(result, "output", None)
    return text_of(result)


def _step_answer(item: Any) -> tuple[int, str] | None:
    if type(item).__name__ != "FinalAnswerStep":
        return None
    text = text_of(getattr(item, "output", None))
    return None if text is None else (1, text)


def _max_steps(instance: Any) -> BaseException | None:
    """The ``AgentMaxStepsError`` smolagents left on the last step of this run, if it ran out of steps."""
    steps = getattr(getattr(instance, "memory", None), "steps", None)
    error = getattr(steps[-1], "error", None) if isinstance(steps, list) and steps else None
    return error if type(error).__name__ == "AgentMaxStepsError" else None


BOUNDARY = Boundary(agent=_agent, question=_task, answer=_answer, item_answer=_step_answer,
                    default_agent="smolagents", failed=_max_steps)

ROWS = (agent_row(DIST, "smolagents.agents", "MultiStepAgent.run", BOUNDARY),)
