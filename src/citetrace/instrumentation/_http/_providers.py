"""Provider answers over plain HTTP: the Messages, Responses and chat-completions APIs called without the SDK.

An agent that posts to ``api.anthropic.com/v1/messages``, ``api.openai.com/v1/responses`` or
``/v1/chat/completions``, or ``api.perplexity.ai/chat/completions`` with ``requests``, ``httpx``, ``aiohttp`` or
``urllib`` (LiteLLM posts to Anthropic with httpx; Perplexity's own examples use ``requests``) gets what the
SDK rows record: each server-side search and fetch as a tool span of the run, and the model's citations on it.
The answer is read with the SDK rows' own readers (``_providers``), the request's JSON body standing in for the
SDK call's keywords (``include`` decides whether OpenAI's sources were reported). The request itself is no
span: the model call is not a search.

Read: a non-streamed 2xx JSON answer. Not read: a streamed request (``"stream": true``, server-sent events),
an error answer (nothing ran), any other path or host. A request made inside an SDK call those rows wrap (the
``perplexityai`` SDK posts with httpx) is left to the SDK row, so one answer is read once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

from citetrace._fetchrules import json_object
from citetrace.instrumentation._http._transports import Reply, Sent
from citetrace.instrumentation._providers import _anthropic, _openai
from citetrace.instrumentation._providers._record import Reading, in_sdk_call, read_safely

__all__ = ["ProviderAnswer", "ENDPOINTS", "provider_answer"]

Reader = Callable[[Any, dict[str, Any]], Reading]

ENDPOINTS: dict[tuple[str, str], Reader] = {
    ("api.anthropic.com", "/v1/messages"): _anthropic.read_message,
    ("api.openai.com", "/v1/responses"): _openai.read_response,
    ("api.openai.com", "/v1/chat/completions"): _openai.read_chat_completion,
    ("api.perplexity.ai", "/chat/completions"): _openai.read_chat_completion,
    ("api.perplexity.ai", "/v1/chat/completions"): _openai.read_chat_completion,
}
"""(host, path) of a POST whose JSON answer is read -> the SDK row's reader (Sonar answers are read by the
chat-completions reader, which recognises their ``search_results``)."""
_HOSTS = frozenset(host for host, _path in ENDPOINTS)


@dataclass(frozen=True)
class ProviderAnswer:
    """A recognised provider request: read its answer once the client has it."""

    reader: Reader
    request: dict[str, Any]

    def read(self, reply: Reply) -> None:
        """Record the answer's server-side calls and citations; anything unreadable is counted, never raised."""
        if reply.body is None or reply.status is None or not 200 <= reply.status < 300:
            return
        try:
            data = json.loads(reply.body)
        except ValueError:
            return
        if isinstance(data, dict):
            read_safely(self.reader, data, self.request)


def provider_answer(sent: Sent) -> ProviderAnswer | None:
    """The provider request ``sent`` is, when its answer should be read here; None for every other request."""
    if sent.method.upper() != "POST" or not any(host in sent.url for host in _HOSTS):
        return None  # every other request: a few substring checks, no URL parsing
    parts = urlsplit(sent.url)
    host = (parts.hostname or "").lower()
    if host not in _HOSTS:
        return None
    reader = ENDPOINTS.get((host, (parts.path or "/").rstrip("/")))
    if reader is None or in_sdk_call() or sent.streamed:
        return None
    request = dict(json_object(sent.body))
    if request.get("stream") is True:
        return None
    return ProviderAnswer(reader, request)
