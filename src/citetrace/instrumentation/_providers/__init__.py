"""Web search done by the model provider: server-side searches and fetches read from model responses.

One module per provider SDK, each a ``ROWS`` tuple for the wrap table; the recording is shared
(``_record``). See docs/provider-search.md.
"""

from __future__ import annotations

from citetrace.instrumentation._providers import _anthropic, _google, _openai, _perplexity

__all__ = ["ROWS"]

ROWS = (*_openai.ROWS, *_anthropic.ROWS, *_google.ROWS, *_perplexity.ROWS)
