"""capture's interface to its sibling packages (instrumentation, ledger): the run lifecycle, the
context variables and the result readers the library wrappers reuse, beyond the public API.

An explicit internal module: other citetrace packages import these names from here (never from
``capture``'s other private modules; ``tests/test_boundaries.py`` enforces it). Not a public API.
"""

from __future__ import annotations

from citetrace.capture._context import CURRENT_RUN, IN_TOOL, OUTSIDE_RUN_CALLS, TOOL_CALL_ID, run_in_context
from citetrace.capture._extract import (
    QUERY_KWARGS, URL_KWARGS, arg_value, decode_bytes, extract_urls, http_status_of, http_status_of_exc, is_rate_limit_exc,
    locate_results, text_size,
)
from citetrace.capture._pending import ADOPTER, child_context
from citetrace.capture._redirects import redirect_of, set_redirect_source
from citetrace.capture._run import attach_run, detach_run, finish_run, run_context, start_run
from citetrace.capture._status import set_observation_seam, set_status_source
from citetrace.capture._stream import async_generator_tool, iterate

__all__ = [
    "ADOPTER", "CURRENT_RUN", "IN_TOOL", "OUTSIDE_RUN_CALLS", "QUERY_KWARGS", "TOOL_CALL_ID", "URL_KWARGS", "arg_value",
    "async_generator_tool", "attach_run", "child_context", "decode_bytes", "detach_run", "extract_urls", "finish_run",
    "http_status_of", "http_status_of_exc", "is_rate_limit_exc", "iterate", "locate_results", "redirect_of",
    "run_context", "run_in_context", "set_observation_seam", "set_redirect_source", "set_status_source",
    "start_run", "text_size",
]
