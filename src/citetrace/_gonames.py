"""Writes the Go constants of the collector's ``citetracesummary`` connector from ``names.py``.

The Go component must put exactly the names on the wire that the Python summary does. Rather than retyping
them, this module generates ``collector/citetracesummary/internal/names/names_gen.go`` from ``names.py`` (the
constants in ``GO_NAMES``, with the first line of each docstring), the attribute schema ``citetrace serve``
checks types against (``serve/_schema.py``), the metric buckets and the default thresholds. A test asserts the
committed file equals this output, so a name the connector uses changed in Python alone fails CI. (Names the
connector does not use are left out, so adding one to names.py needs no regeneration.)

    python -m citetrace._gonames > collector/citetracesummary/internal/names/names_gen.go
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
from typing import Any

from citetrace import names

__all__ = ["generate", "GO_FILE", "GO_NAMES"]

GO_FILE = "collector/citetracesummary/internal/names/names_gen.go"
"""Where the generated file lives, relative to the repository root."""


GO_NAMES = (
    "GEN_AI_OPERATION_NAME", "GEN_AI_TOOL_NAME", "GEN_AI_AGENT_NAME", "ERROR_TYPE", "URL_FULL", "URL_FINAL",
    "SEARCH_SOURCES_REPORTED", "SEARCH_CONTENT_RETURNED", "TOOL_KIND", "TOOL_STATUS", "URLS_RETURNED",
    "PAGES_RETURNED", "QUERY_HASH", "QUERY_TEXT", "RUN_ID", "CITATIONS", "OP_INVOKE_AGENT",
    "TOOL_KIND_SEARCH", "TOOL_KIND_FETCH", "TOOL_KINDS", "STATUS_OK", "STATUS_EMPTY", "STATUS_ERROR",
    "STATUS_RATE_LIMITED", "TOOL_STATUSES", "SUMMARY_PREFIX", "SUMMARY_FIELDS", "SUMMARY_FAILURE_REASONS",
    "SUMMARY_KEEP", "SUMMARY_FAILED", "REASON_UNCITED_URL", "REASON_CITED_NOT_FETCHED", "REASON_EMPTY_SEARCH",
    "REASON_FAILED_READS", "REASON_TOO_MANY_SEARCHES", "REASON_RATE_LIMITED", "REASON_AGENT_ERROR",
    "FAILURE_REASONS", "OUTCOME_OK", "OUTCOME_FAILED", "TOOL_OVERFLOW", "AGENT_UNKNOWN", "LABEL_AGENT",
    "LABEL_OUTCOME", "LABEL_REASON", "LABEL_TOOL", "LABEL_KIND", "LABEL_STATUS", "METRIC_RUNS_TOTAL",
    "METRIC_RUN_FAILURES_TOTAL", "METRIC_TOOL_CALLS_TOTAL", "METRIC_TOOL_CALL_DURATION_SECONDS",
    "METRIC_RUN_SEARCHES", "METRIC_RUN_READS", "METRIC_RUN_REPEAT_QUERIES", "METRIC_RUN_DISTINCT_URLS",
    "METRIC_RUN_CITATIONS", "METRIC_RUN_SLOWEST_CALL_SECONDS", "METRIC_RUN_DURATION_SECONDS",
    "METRIC_UNCITED_CITATIONS_TOTAL", "METRIC_UNFETCHED_CITATIONS_TOTAL", "METRIC_UNREADABLE_READS_TOTAL",
    "CONTENT_UNREADABLE", "UNREADABLE_REASONS", "METRIC_TRACES_IN_FLIGHT",
    "METRIC_TRACES_EVICTED_TOTAL", "METRIC_SPANS_DROPPED_TOTAL", "METRIC_SPAN_PROCESSING_ERRORS_TOTAL",
    "REJECT_INVALID_SPAN", "REJECT_ATTRIBUTE_TYPE", "LABEL_EVICT_REASON", "EVICT_CAPACITY", "EVICT_TTL",
    "EVICT_SHUTDOWN", "EVICT_MEMORY", "EVICT_INCOMPLETE", "EVICT_REASONS", "LABEL_DROP_REASON", "DROP_SPANS_PER_TRACE",
    "DROP_ROOTS_PER_TRACE", "DROP_URLS_PER_TRACE", "DROP_REASONS",
    "LEDGER_TRIGGER", "LEDGER_STOP_REASON", "LEDGER_UNRESOLVED", "LEDGER_UNRESOLVED_DELTA", "LEDGER_TOOL_CALLS",
    "LEDGER_NEW_EVIDENCE", "LEDGER_FLIPS", "TRIGGERS", "STOP_REASONS", "LABEL_TRIGGER", "LABEL_STOP_REASON",
    "METRIC_LEDGER_ITERATIONS_TOTAL", "METRIC_LEDGER_FLAT_ITERATIONS_TOTAL", "METRIC_LEDGER_TOOL_CALLS_TOTAL",
    "METRIC_LEDGER_NEW_EVIDENCE_TOTAL", "METRIC_LEDGER_STATUS_FLIPS_TOTAL", "METRIC_LEDGER_UNRESOLVED",
    "METRIC_LEDGER_STOPS_TOTAL",
)
"""The names.py constants the connector uses (strings and tuples of strings), in the generated file's order."""


def _docstrings() -> dict[str, str]:
    """The first line of each constant's docstring in names.py (the string literal after its assignment)."""
    tree = ast.parse(inspect.getsource(names))
    docs: dict[str, str] = {}
    body = tree.body
    for node, following in zip(body, body[1:] + [None]):  # type: ignore[list-item]
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if (isinstance(target, ast.Name) and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant) and isinstance(following.value.value, str)):
            docs[target.id] = " ".join(following.value.value.strip().split("\n")[0].split())
    return docs


def _go_name(name: str) -> str:
    return "".join(part[:1].upper() + part[1:].lower() for part in name.split("_") if part)


def _go_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _go_float(value: float) -> str:
    return repr(float(value))


def _constants() -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name in GO_NAMES:
        value = getattr(names, name)
        if not (isinstance(value, str) or (isinstance(value, tuple) and all(isinstance(v, str) for v in value))):
            raise TypeError(f"names.{name} is neither a string nor a tuple of strings")
        out.append((name, value))
    return out


def generate() -> str:
    """The Go source, byte for byte."""
    from citetrace.serve._internal import ATTRIBUTE_TYPES
    from citetrace.metrics._internal import COUNT_BUCKETS, RUN_SECONDS_BUCKETS, TOOL_SECONDS_BUCKETS
    from citetrace.summary import Thresholds

    docs = _docstrings()
    lines = [
        "// Code generated by `python -m citetrace._gonames` from src/citetrace/names.py. DO NOT EDIT.",
        "",
        "// Package names holds every name the citetrace summary puts on the wire, generated from names.py so the",
        "// collector component and the Python summary cannot drift apart.",
        "package names",
        "",
        "const (",
    ]
    tuples: list[tuple[str, tuple[str, ...]]] = []
    for name, value in _constants():
        if isinstance(value, tuple):
            tuples.append((name, value))
            continue
        if name in docs:
            lines.append(f"\t// {_go_name(name)}: {docs[name]}")
        lines += [f"\t{_go_name(name)} = {_go_string(value)}", ""]
    lines[-1:] = [")", "", "var ("]
    for name, value in tuples:
        if name in docs:
            lines.append(f"\t// {_go_name(name)}: {docs[name]}")
        lines += [f"\t{_go_name(name)} = []string{{{', '.join(_go_string(v) for v in value)}}}", ""]
    lines += [
        "\t// AttributeTypes is serve/_schema.py ATTRIBUTE_TYPES: the one type each attribute the summary reads must have.",
        "\tAttributeTypes = []AttributeType{",
    ]
    for key, kind in ATTRIBUTE_TYPES.items():
        lines.append(f"\t\t{{{_go_string(key)}, {_go_string(kind)}}},")
    lines += ["\t}", ""]
    for name, buckets in (("CountBuckets", COUNT_BUCKETS), ("ToolSecondsBuckets", TOOL_SECONDS_BUCKETS),
                          ("RunSecondsBuckets", RUN_SECONDS_BUCKETS)):
        lines.append(f"\t// {name} is metrics/_metrics.py's histogram buckets of the same name.")
        lines += [f"\t{name} = []float64{{{', '.join(_go_float(b) for b in buckets)}}}", ""]
    lines[-1:] = [")", ""]
    lines += [
        "// AttributeType is one entry of AttributeTypes: a key and the type its value must have.",
        "type AttributeType struct {",
        "\tKey  string",
        "\tType string",
        "}",
        "",
    ]
    defaults = Thresholds()
    lines += [
        "// The default thresholds (summary/_model.py Thresholds).",
        "const (",
        f"\tDefaultMaxSearches = {defaults.max_searches}",
        "",
        f"\tDefaultMaxFailedReads = {defaults.max_failed_reads}",
        "",
        f"\tDefaultSamplePercent = {_go_float(defaults.sample_percent)}",
        "",
        f"\tDefaultSampleSalt = {_go_string(defaults.sample_salt)}",
        ")",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(generate())
