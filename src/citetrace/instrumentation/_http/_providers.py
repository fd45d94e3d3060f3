"""Provider answers over plain HTTP: the Messages, Responses and chat-completions APIs called without the SDK.

An agent that posts to ``api.anthropic.com/v1/messages``, ``api.openai.com/v1/responses`` or
``/v1/chat/completions``, ``api.perplexity.ai/chat/completions``, or Gemini's
``generativelanguage.googleapis.com/v1beta/models/{model}:generateContent`` with ``requests``, ``httpx``, ``aiohttp`` or
``urllib`` (LiteLLM posts to Anthropic and Gemini with httpx; Perplexity's own examples use ``requests``) gets what the
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
from citetrace.instrumentation._providers import _anthropic, _google, _openai
from citetrace.instrumentation._providers._record import Reading, in_sdk_call, read_safely

__all__ = ["Endpoint", "ProviderAnswer", "ENDPOINTS", "provider_answer"]

Reader = Callable[[Any, dict[str, Any]], Reading]


@dataclass(frozen=True)
class Endpoint:
    """A provider API path whose POSTed JSON answer is read with the SDK row's ``reader``."""

    host: str
    path: str
    """As shown in docs/coverage.md; ``{model}`` stands for one path segment."""
    reader: Reader

    def matches(self, host: str, path: str) -> bool:
        """Exactly this host and path (a ``{model}`` segment matches any one segment: Gemini names the model in
        the path), so another path of the same API (``/v1/models``, ``:streamGenerateContent``) is never read."""
        if host != self.host:
            return False
        head, placeholder, tail = self.path.partition("{model}")
        if not placeholder:
            return path == self.path
        if len(path) <= len(head) + len(tail) or not (path.startswith(head) and path.endswith(tail)):
            return False
        return "/" not in path[len(head):len(path) - len(tail)]  # the model is one path segment


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("api.anthropic.com", "/v1/messages", _anthropic.read_message),
    Endpoint("api.openai.com", "/v1/responses", _openai.read_response),
    Endpoint("api.openai.com", "/v1/chat/completions", _openai.read_chat_completion),
    Endpoint("api.perplexity.ai", "/chat/completions", _openai.read_chat_completion),
    Endpoint("api.perplexity.ai", "/v1/chat/completions", _openai.read_chat_completion),
    Endpoint("generativelanguage.googleapis.com", "/v1beta/models/{model}:generateContent", _google.read_wire_json),
    Endpoint("generativelanguage.googleapis.com", "/v1/models/{model}:generateContent", _google.read_wire_json),
)
"""The provider paths read here (Sonar answers are read by the chat-completions reader, which recognises their
``search_results``; Gemini's REST answer is camelCase JSON, read after renaming its keys as the SDK does)."""
_HOSTS = frozenset(e.host for e in ENDPOINTS)


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
    path = (parts.path or "/").rstrip("/")
    endpoint = next((e for e in ENDPOINTS if e.matches(host, path)), None)
    if endpoint is None or in_sdk_call() or sent.streamed:
        return None
    request = dict(json_object(sent.body))
    if request.get("stream") is True:
        return None
    return ProviderAnswer(endpoint.reader, request)
