"""A scripted smolagents model, shared by the in-process smolagents tests and the subprocess agent script
(``scripts/smolagents_agent.py`` puts this directory on ``sys.path``): the model is the only stand-in."""

from __future__ import annotations

from typing import Any

from smolagents import ToolCallingAgent, tool
from smolagents.models import ChatMessage, ChatMessageToolCall, ChatMessageToolCallFunction, Model

__all__ = ["Scripted", "ANSWER", "lookup", "tool_call", "lookup_agent"]

ANSWER = "Done, see [1](https://a.example/x)."


class Scripted(Model):  # type: ignore[misc]
    """One assistant message per model call; raises when the script is used up."""

    def __init__(self, steps: list[ChatMessage]) -> None:
        super().__init__(model_id="scripted")
        self.steps = steps

    def generate(self, messages: Any, stop_sequences: Any = None, response_format: Any = None,
                 tools_to_call_from: Any = None, **kwargs: Any) -> ChatMessage:
        if not self.steps:
            raise RuntimeError("script exhausted")
        return self.steps.pop(0)


@tool
def lookup(topic: str) -> str:
    """Look a topic up.

    Args:
        topic: what to look up.
    """
    return f"facts about {topic}"


def tool_call(name: str, **arguments: Any) -> ChatMessage:
    """One assistant message calling tool ``name``."""
    function = ChatMessageToolCallFunction(name=name, arguments=arguments)
    return ChatMessage(role="assistant", content="", tool_calls=[ChatMessageToolCall(function, id=name, type="function")])


def lookup_agent(**kwargs: Any) -> ToolCallingAgent:
    """A ToolCallingAgent scripted to call ``lookup`` once, then answer ``ANSWER``."""
    model = Scripted([tool_call("lookup", topic="solar"), tool_call("final_answer", answer=ANSWER)])
    return ToolCallingAgent(tools=[lookup], model=model, max_steps=3, verbosity_level=0, **kwargs)
