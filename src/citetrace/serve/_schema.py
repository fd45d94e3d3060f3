"""The span attributes ``citetrace serve`` decodes, and the one type each must have.

OTLP lets a sender put any ``AnyValue`` under any key: a ``kvlistValue`` where capture writes a string, or an
array mixing strings and maps. The SDK never produces those, so the pure summary (shared with in-process
mode) assumes well-typed values. This is the single place that guarantees it for spans from the wire: the
decoder checks every summary attribute against ``ATTRIBUTE_TYPES`` and refuses the span (OTLP partial
success, counted as ``attribute_type``) when one does not match. Nothing downstream re-checks types.
"""

from __future__ import annotations

from typing import Any, Final, Mapping

from citetrace import names

__all__ = [
    "ARRAY_KEYS", "ATTRIBUTE_TYPES", "BOOL", "DECODED_KEYS", "INT", "NOT_STRING_KEYS", "RECORD_INPUTS", "SUMMARY_INPUTS",
    "STRING", "STRINGS", "attribute_problem",
    "value_problem",
]

STRING: Final = "string"
"""A ``stringValue``."""
STRINGS: Final = "array of strings"
"""An ``arrayValue`` whose every element is a ``stringValue`` (empty allowed)."""
BOOL: Final = "boolean"
"""A ``boolValue`` (what a provider-side search reports about its sources and content)."""
INT: Final = "integer"
"""An ``intValue`` (the claim ledger's vital signs on its iteration spans)."""

ATTRIBUTE_TYPES: Final[Mapping[str, str]] = {
    names.GEN_AI_OPERATION_NAME: STRING,
    names.GEN_AI_AGENT_NAME: STRING,
    names.GEN_AI_TOOL_NAME: STRING,
    names.RUN_ID: STRING,
    names.TOOL_KIND: STRING,
    names.TOOL_STATUS: STRING,
    names.QUERY_HASH: STRING,
    names.QUERY_TEXT: STRING,
    names.URLS_RETURNED: STRINGS,
    names.URL_FULL: STRING,
    names.URL_FINAL: STRING,
    names.CITATIONS: STRINGS,
    names.ERROR_TYPE: STRING,
    names.PAGES_RETURNED: STRINGS,
    names.SEARCH_SOURCES_REPORTED: BOOL,
    names.SEARCH_CONTENT_RETURNED: BOOL,
    names.CONTENT_UNREADABLE: STRING,
    names.LEDGER_TRIGGER: STRING,
    names.LEDGER_STOP_REASON: STRING,
    names.LEDGER_UNRESOLVED: INT,
    names.LEDGER_UNRESOLVED_DELTA: INT,
    names.LEDGER_TOOL_CALLS: INT,
    names.LEDGER_NEW_EVIDENCE: INT,
    names.LEDGER_FLIPS: INT,
    names.summary_attr("searches"): INT,
    names.summary_attr("reads"): INT,
}
"""Every span attribute the summary, its metrics and the assembler read, with the type capture writes. The two
``citetrace.summary.*`` counts are the agent's own summary on a root: the assembler compares them with what it
received, to tell a whole run from a fragment (``names.EVICT_INCOMPLETE``)."""

ARRAY_KEYS: Final[frozenset[str]] = frozenset(k for k, kind in ATTRIBUTE_TYPES.items() if kind == STRINGS)
"""The keys whose value must be an array (a lone string there is refused too)."""
NOT_STRING_KEYS: Final[frozenset[str]] = frozenset(k for k, kind in ATTRIBUTE_TYPES.items() if kind != STRING)
"""The keys where a lone string is the wrong type (arrays, integers): the decoder checks a string only there."""

SUMMARY_INPUTS: Final[frozenset[str]] = frozenset(ATTRIBUTE_TYPES)
"""The keys the receiver decodes (decoding the others is most of the cost and nothing reads them).
(tests/serve checks this against the attribute names the summary code refers to.)"""

RECORD_INPUTS: Final[frozenset[str]] = frozenset({names.RUN_QUESTION, names.ANSWER_TEXT})
"""Root attributes decoded for the run record serve files beside the summary (``citetrace._rootrun``): content,
on a root only when the agent's content capture is on. Not summary inputs, so not in ``ATTRIBUTE_TYPES`` (which
the Go connector mirrors): a value that is not a string is dropped by the assembler, and never refuses a span."""

DECODED_KEYS: Final[frozenset[str]] = SUMMARY_INPUTS | RECORD_INPUTS
"""What the receiver decodes: the summary's inputs and the run record's."""


def _matches(value: Any, kind: str) -> bool:
    if kind == STRING:
        return isinstance(value, str)
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == BOOL:
        return isinstance(value, bool)
    return isinstance(value, tuple) and all(isinstance(item, str) for item in value)


def value_problem(key: str, value: Any) -> str | None:
    """None when ``key`` is not in the schema or ``value`` has its type; else a one-line message naming both."""
    kind = ATTRIBUTE_TYPES.get(key)
    if kind is None or _matches(value, kind):
        return None
    return f"attribute {key!r} must be {'a' if kind == STRING else 'an'} {kind}, not {_describe(value)}"


def attribute_problem(attributes: Mapping[str, Any]) -> str | None:
    """The first ``value_problem`` among ``attributes`` (None when all are well typed)."""
    for key, value in attributes.items():
        problem = value_problem(key, value)
        if problem is not None:
            return problem
    return None


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return "a kvlist"
    if isinstance(value, tuple):
        return "an array with a " + next((_describe(v) for v in value if not isinstance(v, str)), "?")
    if value is None:
        return "an empty value"
    return f"a {type(value).__name__}"
