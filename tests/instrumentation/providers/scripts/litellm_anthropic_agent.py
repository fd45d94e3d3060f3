"""LiteLLM's Anthropic path (it posts to api.anthropic.com/v1/messages with httpx, no SDK) with server-side
web_search, inside a research_run; only DNS for api.anthropic.com points at the test's server. Prints the run id."""
import socket
import sys

_resolve = socket.getaddrinfo
socket.getaddrinfo = lambda host, *a, **k: _resolve("127.0.0.1" if host == "api.anthropic.com" else host, *a, **k)

import litellm  # noqa: E402

from citetrace import research_run  # noqa: E402

with research_run(question="How fast is solar growing?", agent="litellm-agent") as run:
    reply = litellm.completion(model="anthropic/claude-sonnet-4-5", api_key="sk-ant-test", api_base=sys.argv[1],
                               messages=[{"role": "user", "content": "How fast is solar growing?"}],
                               web_search_options={"search_context_size": "low"})
    run.record_answer(reply.choices[0].message.content)
print(run.id)
