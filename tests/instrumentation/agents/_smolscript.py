"""A scripted smolagents model, shared by the in-process smolagents tests and the subprocess agent script
(``scripts/smolagents_agent.py`` puts this directory on ``sys.path``): the model is the only stand-in."""

from __future__ import annotations

from typing import Any

from smolagents.models import ChatMessage, Model

__all__ = ["Scripted"]


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
