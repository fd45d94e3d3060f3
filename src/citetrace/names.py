"""The single source of every name citetrace puts on the wire.

Span attributes, metric names, label value sets and environment variables live here and nowhere else:
code imports them, and dashboards, alert rules and docs are tested against them. A renamed string that
only changed in one place is how a dashboard ends up showing "No data".
"""

from __future__ import annotations

from typing import Final

# ---------------------------------------------------------------------------------------------------------
# GenAI semantic conventions (spelled as in semantic-conventions-genai; not imported from the deprecated
# incubating module on purpose).
# ---------------------------------------------------------------------------------------------------------
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
"""Operation on every span we create: ``execute_tool`` or ``invoke_agent``. Set at span start."""
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
"""The tool's name (the decorated function's name unless ``name=`` is given)."""
GEN_AI_TOOL_TYPE: Final = "gen_ai.tool.type"
"""``function`` for everything we wrap."""
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
"""The caller's tool-call id, when it has one (``tool_call_id=`` keyword or ``call_id`` context)."""
GEN_AI_TOOL_DESCRIPTION: Final = "gen_ai.tool.description"
"""The first line of the tool's docstring."""
GEN_AI_TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
"""Opt-in content: the tool's arguments as JSON, redacted. Only with content capture."""
GEN_AI_AGENT_NAME: Final = "gen_ai.agent.name"
"""The agent's name on the ``invoke_agent`` root span."""
GEN_AI_EVALUATION_RESULT: Final = "gen_ai.evaluation.result"
"""Event name for one citation-support verdict."""
GEN_AI_EVALUATION_NAME: Final = "gen_ai.evaluation.name"
"""Evaluation event attribute: what was evaluated (``citation_support``)."""
GEN_AI_EVALUATION_SCORE_VALUE: Final = "gen_ai.evaluation.score.value"
"""Evaluation event attribute: numeric score."""
GEN_AI_EVALUATION_SCORE_LABEL: Final = "gen_ai.evaluation.score.label"
"""Evaluation event attribute: low-cardinality label (SUPPORTED, PARTIAL, ...)."""
GEN_AI_EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
"""Evaluation event attribute: short explanation."""

OP_EXECUTE_TOOL: Final = "execute_tool"
"""Value of ``gen_ai.operation.name`` on tool spans."""
OP_INVOKE_AGENT: Final = "invoke_agent"
"""Value of ``gen_ai.operation.name`` on the run's root span."""
TOOL_TYPE_FUNCTION: Final = "function"
"""Value of ``gen_ai.tool.type`` for wrapped functions."""
TOOL_TYPE_EXTENSION: Final = "extension"
"""Value of ``gen_ai.tool.type`` for a tool the model provider ran server-side (web search, page fetch)."""
TOOL_PROVIDER_SIDE: Final = "citetrace.tool.provider_side"
"""True on a tool span recorded from a model response: the provider ran the search or fetch server-side.
Its start is when the response arrived; the provider does not say how long the call took."""
TOOL_ERROR_CODE: Final = "citetrace.tool.error_code"
"""The provider's own error code for a failed server-side call (``too_many_requests``, ``max_uses_exceeded``...)."""
SEARCH_SOURCES_REPORTED: Final = "citetrace.search.sources_reported"
"""False on a search whose result URLs the provider did not report (OpenAI without
``include=["web_search_call.action.sources"]``, search-model chat completions): the missing list is not an
empty search, and the run's citations cannot be checked against it (the summary then skips
``uncited_from_retrieval`` and ``cited_not_fetched``)."""
SEARCH_CONTENT_RETURNED: Final = "citetrace.search.content_returned"
"""True on a search whose results carried the pages' content to the model (provider-side search: Anthropic's
encrypted page content, the pages OpenAI says it consulted): citing one of its URLs counts as read, not as
``cited_not_fetched``."""

# Stable general conventions.
ERROR_TYPE: Final = "error.type"
"""Low-cardinality failure class: exception ``__qualname__`` or one of ``ERROR_TYPE_*``."""
EXCEPTION_MESSAGE: Final = "exception.message"
"""On the ``exception`` span event: the exception's message, redacted (``citetrace._redact.redact_text``)."""
EXCEPTION_STACKTRACE: Final = "exception.stacktrace"
"""On the ``exception`` span event: the formatted traceback, redacted like the message."""
HTTP_RESPONSE_STATUS_CODE: Final = "http.response.status_code"
"""HTTP status of the tool's response, when known."""
URL_FULL: Final = "url.full"
"""Fetch: the URL read, with credentials and secret-looking query parameters redacted."""
SERVER_ADDRESS: Final = "server.address"
"""Fetch: the host read from."""

ERROR_TYPE_RATE_LIMITED: Final = "rate_limited"
"""``error.type`` for a rate-limited call that raised nothing we can name, or returned a 429."""
ERROR_TYPE_TOOL_ERROR: Final = "tool_error"
"""``error.type`` for a tool that returned a failure instead of raising."""
ERROR_TYPE_ABANDONED: Final = "abandoned"
"""``error.type`` of an agent run its caller never finished (a coroutine never awaited, a stream left
undrained past the trace TTL): ended by citetrace so that no run stays open forever."""

# ---------------------------------------------------------------------------------------------------------
# citetrace span attributes (the contract).
# ---------------------------------------------------------------------------------------------------------
TOOL_KIND: Final = "citetrace.tool.kind"
"""``search`` or ``fetch``."""
TOOL_STATUS: Final = "citetrace.tool.status"
"""``ok``, ``empty``, ``error`` or ``rate_limited``."""
RESULT_COUNT: Final = "citetrace.result.count"
"""Search: number of results returned."""
RESULT_SIZE: Final = "citetrace.result.size"
"""Characters of text returned."""
URLS_RETURNED: Final = "citetrace.urls_returned"
"""Search: result URLs in order, capped (see ``ENV_MAX_URLS``)."""
PAGES_RETURNED: Final = "citetrace.pages_returned"
"""The result URLs (redacted) whose page text came with the search result (Tavily ``raw_content``, Exa
contents, Jina): each is stored as a document of the run and counts as read for ``cited_not_fetched``. On a
fetch of several URLs in one call (Tavily ``extract``, Exa ``get_contents``): every URL of the call, each its own
document with its own status, fetched as a one-URL fetch's ``url.full`` is (not a page from search). On a fetch
the server redirected: its final URL (``URL_FINAL``)."""
URL_FINAL: Final = "citetrace.url.final"
"""Fetch: the final URL (redacted) of a request the server redirected (``url.full`` -301-> this). It is read
(also in ``citetrace.pages_returned``), and counts as returned by a search when ``url.full`` was."""
URLS_RETURNED_TRUNCATED: Final = "citetrace.urls_returned.truncated"
"""True when ``citetrace.urls_returned`` was cut at the cap."""
QUERY_HASH: Final = "citetrace.query.hash"
"""Stable digest of the query after folding case and whitespace. Always on."""
QUERY_TEXT: Final = "citetrace.query.text"
"""Opt-in content: the query text."""
STORE_REF: Final = "citetrace.store.ref"
"""Fetch: reference to the stored text in the run store, ``citetrace-store:<run id>/<sha256>`` (``store.make_ref``)."""
CONTENT_HASH: Final = "citetrace.content.hash"
"""Fetch: sha256 of the text returned. Always on."""
RUN_ID: Final = "citetrace.run.id"
"""The run id, on the root span and on every tool span inside a run."""
RUN_REPLAY_OF: Final = "citetrace.run.replay_of"
"""On the root of a run made while replaying another: the replayed run's id."""
RUN_QUESTION: Final = "citetrace.run.question"
"""Opt-in content: the question the run answers."""
CITATIONS: Final = "citetrace.citations"
"""Root span: the URLs cited by the recorded answer, in order of first citation. Always on."""
ANSWER_TEXT: Final = "citetrace.answer.text"
"""Opt-in content: the recorded answer."""
ANSWER_HASH: Final = "citetrace.answer.hash"
"""Root span: sha256 of the recorded answer. Always on."""
SUMMARY_SPAN_NAME: Final = "citetrace.run.summary"
"""Name of the span citetrace adds, as the last child of a trace whose root another instrumentation (or the
application) made, to carry ``citetrace.run.id`` and the ``citetrace.summary.*`` attributes for a collector's
tail sampler: a span citetrace did not create cannot be written on before it is exported."""
FOREIGN_AGENT_SUFFIXES: Final = (".run", ".workflow", ".agent", ".kickoff", ".task")
"""Trailing parts of a foreign root's span name (``ToolCallingAgent.run``, ``crewai.workflow``) dropped to name
the run's agent when the root carries no ``gen_ai.agent.name``."""
# Where a foreign root carries its input: read (content capture only) as the question of the run it makes
OI_INPUT_VALUE: Final = "input.value"
"""OpenInference: the span's input (text, or JSON when ``input.mime_type`` says so)."""
OI_INPUT_MIME_TYPE: Final = "input.mime_type"
GEN_AI_INPUT_MESSAGES: Final = "gen_ai.input.messages"
"""OpenTelemetry GenAI: the input messages as JSON (``[{"role": "user", "parts": [...]}]``)."""
GEN_AI_PROMPT: Final = "gen_ai.prompt"
"""OpenTelemetry GenAI (deprecated, still emitted): the prompt text."""
TRACELOOP_ENTITY_INPUT: Final = "traceloop.entity.input"
"""OpenLLMetry: a workflow/task span's input as JSON."""
LANGFUSE_TRACE_INPUT: Final = "langfuse.trace.input"
LANGFUSE_OBSERVATION_INPUT: Final = "langfuse.observation.input"
"""Langfuse's OpenTelemetry SDK: the trace's and the observation's input."""
INSTRUMENTATION_SCOPE: Final = "citetrace"
"""Instrumentation scope (tracer name) of every span citetrace creates."""
SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.44.0"
"""Semantic-conventions schema of citetrace's spans (set on its tracer, as contrib instrumentors do)."""
CAPTURE_ERRORS: Final = "citetrace.capture.errors"
"""Count of telemetry errors swallowed while building this span (normally absent)."""
CONTENT_UNREADABLE: Final = "citetrace.content.unreadable"
"""Why a fetch's content gave no text (``UNREADABLE_REASONS``); the read is ``empty`` (docs/store.md)."""
CONTENT_PAGES_SKIPPED: Final = "citetrace.content.pages_skipped"
"""PDF pages past the extraction bound (``capture._pdf.MAX_PAGES``) whose text was not read (normally absent)."""
PDF_NO_EXTRACTOR: Final = "pdf_no_extractor"
"""A PDF, and pypdf (the ``[pdf]`` extra) is not installed."""
PDF_NO_TEXT: Final = "pdf_no_text"
"""A PDF without a text layer (a scan): nothing to extract."""
PDF_DAMAGED: Final = "pdf_damaged"
"""A PDF pypdf cannot read (broken, encrypted), or one already decoded to text with its bytes lost."""
CONSENT_WALL: Final = "consent_wall"
"""The page's visible text is a cookie/consent notice with little else (``capture._consent``)."""
BINARY_CONTENT: Final = "binary"
"""Non-text content (an image, audio, video, an archive, an office file, bytes with NULs): no text to read."""
UNREADABLE_REASONS: Final = (PDF_NO_EXTRACTOR, PDF_NO_TEXT, PDF_DAMAGED, CONSENT_WALL, BINARY_CONTENT)
"""Closed set of ``citetrace.content.unreadable`` values."""

TOOL_KIND_SEARCH: Final = "search"
TOOL_KIND_FETCH: Final = "fetch"
TOOL_KINDS: Final = (TOOL_KIND_SEARCH, TOOL_KIND_FETCH)
"""Closed set of ``citetrace.tool.kind`` values."""

MODEL_CITATION_NUMBERED: Final = "numbered_citation"
"""The record type of a model citation made with a bare ``[n]`` marker (Perplexity's ``citations[n-1]``): its
cited text is the marker, which evaluation resolves to the URL (``Store.model_citations``)."""

STATUS_OK: Final = "ok"
STATUS_EMPTY: Final = "empty"
STATUS_ERROR: Final = "error"
STATUS_RATE_LIMITED: Final = "rate_limited"
TOOL_STATUSES: Final = (STATUS_OK, STATUS_EMPTY, STATUS_ERROR, STATUS_RATE_LIMITED)
"""Closed set of ``citetrace.tool.status`` values."""

# Summary attributes written on the root span before it ends.
SUMMARY_PREFIX: Final = "citetrace.summary."
"""Prefix of every summary attribute on the root span: ``citetrace.summary.<field>``."""
SUMMARY_FIELDS: Final = (
    "searches",
    "reads",
    "repeat_queries",
    "empty_searches",
    "failed_reads",
    "rate_limited",
    "distinct_urls_seen",
    "citations",
    "uncited_from_retrieval",
    "cited_not_fetched",
    "pages_from_search",
    "unreported_searches",
    "slowest_ms",
    "total_ms",
)
"""Numeric summary fields, each written as ``citetrace.summary.<field>``. ``pages_from_search`` counts the
distinct pages whose text arrived with a search result (``citetrace.pages_returned``), which count as read.
``unreported_searches`` counts provider-side searches whose sources the provider did not report
(``citetrace.search.sources_reported=false``): with any, the citations cannot be checked against the searches."""
SUMMARY_FAILURE_REASONS: Final = "citetrace.summary.failure_reasons"
"""Root span: string array of the failure reasons that apply."""
SUMMARY_KEEP: Final = "citetrace.summary.keep"
"""Root span: whether the full trace is kept (failure, or the stable sample)."""
SUMMARY_FAILED: Final = "citetrace.summary.failed"
"""Root span: whether any failure reason applies."""


def summary_attr(field: str) -> str:
    """The root-span attribute name of a summary field."""
    if field not in SUMMARY_FIELDS:
        raise ValueError(f"unknown summary field {field!r}; expected one of {SUMMARY_FIELDS}")
    return SUMMARY_PREFIX + field


# Failure reasons (closed set; also the ``reason`` metric label).
REASON_UNCITED_URL: Final = "uncited_url"
REASON_CITED_NOT_FETCHED: Final = "cited_not_fetched"
REASON_EMPTY_SEARCH: Final = "empty_search"
REASON_FAILED_READS: Final = "failed_reads"
REASON_TOO_MANY_SEARCHES: Final = "too_many_searches"
REASON_RATE_LIMITED: Final = "rate_limited"
REASON_AGENT_ERROR: Final = "agent_error"
FAILURE_REASONS: Final = (
    REASON_UNCITED_URL,
    REASON_CITED_NOT_FETCHED,
    REASON_EMPTY_SEARCH,
    REASON_FAILED_READS,
    REASON_TOO_MANY_SEARCHES,
    REASON_RATE_LIMITED,
    REASON_AGENT_ERROR,
)
"""Closed set of failure reasons."""

OUTCOME_OK: Final = "ok"
OUTCOME_FAILED: Final = "failed"
OUTCOMES: Final = (OUTCOME_OK, OUTCOME_FAILED)
"""Closed set of the ``outcome`` label."""

TOOL_OVERFLOW: Final = "other"
"""``tool`` label value once more distinct tool names than the cap have appeared."""
AGENT_UNKNOWN: Final = "unknown"
"""``agent`` label value when neither an agent name nor a service name is known."""

# ---------------------------------------------------------------------------------------------------------
# Metrics (Prometheus names, base units, counters end in _total in the exposition).
# prometheus_client appends ``_total`` to counters itself, so counter constants are given WITH the suffix
# as exposed, and ``counter_base`` strips it for the client.
# ---------------------------------------------------------------------------------------------------------
LABEL_AGENT: Final = "agent"
LABEL_OUTCOME: Final = "outcome"
LABEL_REASON: Final = "reason"
LABEL_TOOL: Final = "tool"
LABEL_KIND: Final = "kind"
LABEL_STATUS: Final = "status"

METRIC_RUNS_TOTAL: Final = "citetrace_runs_total"
"""Counter {agent, outcome}: finished runs."""
METRIC_RUN_FAILURES_TOTAL: Final = "citetrace_run_failures_total"
"""Counter {agent, reason}: failed runs by each reason that applied (a run may count under several)."""
METRIC_TOOL_CALLS_TOTAL: Final = "citetrace_tool_calls_total"
"""Counter {agent, tool, kind, status}: tool calls."""
METRIC_TOOL_CALL_DURATION_SECONDS: Final = "citetrace_tool_call_duration_seconds"
"""Histogram {agent, tool, kind}: tool-call latency, with trace-id exemplars."""
METRIC_RUN_SEARCHES: Final = "citetrace_run_searches"
"""Histogram {agent}: searches per run."""
METRIC_RUN_READS: Final = "citetrace_run_reads"
"""Histogram {agent}: reads (fetches) per run."""
METRIC_RUN_REPEAT_QUERIES: Final = "citetrace_run_repeat_queries"
"""Histogram {agent}: repeated queries per run."""
METRIC_RUN_DISTINCT_URLS: Final = "citetrace_run_distinct_urls"
"""Histogram {agent}: distinct URLs seen in search results per run."""
METRIC_RUN_CITATIONS: Final = "citetrace_run_citations"
"""Histogram {agent}: citations per run."""
METRIC_RUN_SLOWEST_CALL_SECONDS: Final = "citetrace_run_slowest_call_seconds"
"""Histogram {agent}: the slowest tool call of each run."""
METRIC_RUN_DURATION_SECONDS: Final = "citetrace_run_duration_seconds"
"""Histogram {agent}: run duration."""
METRIC_UNCITED_CITATIONS_TOTAL: Final = "citetrace_uncited_citations_total"
"""Counter {agent}: cited URLs that no search returned."""
METRIC_UNFETCHED_CITATIONS_TOTAL: Final = "citetrace_unfetched_citations_total"
"""Counter {agent}: cited URLs the run never fetched."""
METRIC_UNREADABLE_READS_TOTAL: Final = "citetrace_unreadable_reads_total"
"""Counter {agent, reason}: fetches whose content gave no text, by ``UNREADABLE_REASONS`` (also empty reads)."""

# Self-metrics.
METRIC_TRACES_IN_FLIGHT: Final = "citetrace_traces_in_flight"
"""Gauge: traces with state held by the summarizer."""
METRIC_TRACES_EVICTED_TOTAL: Final = "citetrace_traces_evicted_total"
"""Counter {reason}: evicted trace states, and runs left unsummarised as only partly received (``EVICT_REASONS``)."""
METRIC_SPANS_DROPPED_TOTAL: Final = "citetrace_spans_dropped_total"
"""Counter {reason}: spans dropped by bounds (``spans_per_trace``, ``buffer``)."""
METRIC_SPAN_PROCESSING_ERRORS_TOTAL: Final = "citetrace_span_processing_errors_total"
"""Counter: internal errors while processing spans (caught, logged once)."""
METRIC_STORE_WRITE_ERRORS_TOTAL: Final = "citetrace_store_write_errors_total"
"""Counter: run-store writes that failed (caught, logged once)."""
METRIC_STORE_WRITES_QUEUED_TOTAL: Final = "citetrace_store_writes_queued_total"
"""Counter: run-store writes that met a locked store and went to the background write queue."""
METRIC_STORE_WRITES_LOST_TOTAL: Final = "citetrace_store_writes_lost_total"
"""Counter {reason}: run-store writes given up for good (``STORE_LOST_REASONS``)."""
METRIC_STORE_QUEUE_DEPTH: Final = "citetrace_store_write_queue_depth"
"""Gauge: run-store writes waiting in the background queue for a locked store."""
METRIC_CAPTURE_ERRORS_TOTAL: Final = "citetrace_capture_errors_total"
"""Counter: telemetry errors swallowed inside the tool wrapper."""
METRIC_TRACES_SAMPLED_TOTAL: Final = "citetrace_traces_sampled_total"
"""Counter {decision}: keep/drop decisions of the in-process sampler (``keep``/``drop``/``early``)."""
METRIC_SERVE_REQUESTS_TOTAL: Final = "citetrace_serve_requests_total"
"""Counter {code}: OTLP requests answered by ``citetrace serve``, by HTTP status code."""
METRIC_SERVE_SPANS_RECEIVED_TOTAL: Final = "citetrace_serve_spans_received_total"
"""Counter: spans accepted by ``citetrace serve``."""
METRIC_SERVE_REJECTED_TOTAL: Final = "citetrace_serve_rejected_total"
"""Counter {reason}: requests rejected (``malformed``, ``too_large``, ``content_type``, ``unauthorized``), and spans
refused inside accepted requests (``invalid_span``); the closed set is ``REJECT_REASONS``."""
METRIC_SERVE_STARTED_SECONDS: Final = "citetrace_serve_start_time_seconds"
"""Gauge: unix time the service started (restarts show as a step)."""
METRIC_SERVE_HELD_BYTES: Final = "citetrace_serve_held_bytes"
"""Gauge: bytes ``citetrace serve`` estimates all traces in flight hold (bounded by ``--max-held-bytes``)."""
METRIC_SERVE_SPANS_LATE_TOTAL: Final = "citetrace_serve_late_spans_total"
"""Counter: spans of a trace ``citetrace serve`` had already finalised (ignored; the summary is not redone)."""

LABEL_CODE: Final = "code"
"""Label of ``citetrace_serve_requests_total``: the HTTP status code answered."""
REJECT_MALFORMED: Final = "malformed"
"""``citetrace serve`` rejection: a body that is not valid OTLP protobuf/JSON, or bad gzip (400)."""
REJECT_TOO_LARGE: Final = "too_large"
"""``citetrace serve`` rejection: body over the size limit, before or after decompression (413)."""
REJECT_CONTENT_TYPE: Final = "content_type"
"""``citetrace serve`` rejection: not ``application/x-protobuf`` or ``application/json`` (415)."""
REJECT_UNAUTHORIZED: Final = "unauthorized"
"""``citetrace serve`` rejection: missing or wrong bearer token (401)."""
REJECT_INVALID_SPAN: Final = "invalid_span"
"""``citetrace serve``: spans refused inside an accepted request (bad ids); reported as partial success."""
REJECT_ATTRIBUTE_TYPE: Final = "attribute_type"
"""``citetrace serve``: spans refused because a summary attribute has the wrong OTLP type (a ``kvlistValue``
where a string belongs, an array mixing strings and maps); reported as partial success."""
REJECT_METHOD: Final = "method"
"""``citetrace serve`` rejection: a method other than POST on ``/v1/traces`` (405)."""
REJECT_TIMEOUT: Final = "timeout"
"""``citetrace serve`` rejection: the whole request (headers and body) did not arrive within
``--request-timeout`` of its first byte (408, connection closed)."""
REJECT_EVICTED: Final = "evicted"
"""``citetrace serve``: a connection closed to make room at ``--max-connections`` (the one waiting longest
without a complete request; 408 when a request was under way)."""
REJECT_INFLIGHT_BUDGET: Final = "inflight_budget"
"""``citetrace serve`` rejection: the body would take the bytes held over all connections past
``--max-inflight-bytes`` (503 + ``Retry-After``)."""
REJECT_DECODE_BUDGET: Final = "decode_budget"
"""``citetrace serve`` rejection: decoding the body would take the bytes being decoded at once past
``--max-decode-bytes`` (503 + ``Retry-After``)."""
REJECT_REASONS: Final = (
    REJECT_MALFORMED, REJECT_TOO_LARGE, REJECT_CONTENT_TYPE, REJECT_UNAUTHORIZED, REJECT_INVALID_SPAN,
    REJECT_ATTRIBUTE_TYPE, REJECT_METHOD, REJECT_TIMEOUT, REJECT_EVICTED, REJECT_INFLIGHT_BUDGET,
    REJECT_DECODE_BUDGET,
)
"""Closed set of the ``reason`` label of ``citetrace_serve_rejected_total``."""

LABEL_EVICT_REASON: Final = "reason"
EVICT_CAPACITY: Final = "capacity"
EVICT_TTL: Final = "ttl"
EVICT_SHUTDOWN: Final = "shutdown"
EVICT_MEMORY: Final = "memory"
"""``citetrace serve``: evicted (least recently active first) because the bytes held by all traces passed
``--max-held-bytes``; a trace whose root had arrived is still summarised."""
EVICT_INCOMPLETE: Final = "incomplete"
"""A run whose root carries the agent's own summary with more searches or reads than the summarizer received (its
trace was split between two summarizers by a restart or a resize, or spans were refused by a cap): not summarised
there, since its citation checks would rest on evidence that went elsewhere."""
EVICT_REASONS: Final = (EVICT_CAPACITY, EVICT_TTL, EVICT_SHUTDOWN, EVICT_MEMORY, EVICT_INCOMPLETE)
"""Closed set of eviction reasons."""

LABEL_DECISION: Final = "decision"
"""Label of ``citetrace_traces_sampled_total``."""
DECISION_KEEP: Final = "keep"
"""The trace's summary kept it (a failure, or the stable sample)."""
DECISION_DROP: Final = "drop"
"""Healthy and outside the sample: only the root span (with the summary) was exported."""
DECISION_EARLY: Final = "early"
"""Decided before its root ended (buffer bound, eviction, shutdown): exported in full."""
DECISIONS: Final = (DECISION_KEEP, DECISION_DROP, DECISION_EARLY)
"""Closed set of the ``decision`` label."""

LABEL_DROP_REASON: Final = "reason"
"""Label of ``citetrace_spans_dropped_total``."""
DROP_SPANS_PER_TRACE: Final = "spans_per_trace"
"""``citetrace serve``: a tool span refused because its trace holds ``--max-spans-per-trace`` (in-process, the
processor decides early instead)."""
DROP_BUFFER: Final = "buffer"
"""A span the export queue (the SDK batch processor's, ``OTEL_BSP_MAX_QUEUE_SIZE``) had no room for."""
DROP_ROOTS_PER_TRACE: Final = "roots_per_trace"
"""``citetrace serve``: an ``invoke_agent`` root refused because its trace already holds ``--max-roots-per-trace``."""
DROP_URLS_PER_TRACE: Final = "urls_per_trace"
"""``citetrace serve``: a span refused because its URLs (results, ``url.full``, citations) would take its trace
past ``--max-urls-per-trace``."""
DROP_SHUTDOWN: Final = "shutdown"
"""Still queued for export when shutdown's bound (the OTLP timeout plus a margin) ran out."""
DROP_REASONS: Final = (DROP_SPANS_PER_TRACE, DROP_BUFFER, DROP_ROOTS_PER_TRACE, DROP_URLS_PER_TRACE, DROP_SHUTDOWN)
"""Closed set of span-drop reasons."""

STORE_LOST_QUEUE_FULL: Final = "queue_full"
"""A write met a locked store while the background write queue was full (count or bytes)."""
STORE_LOST_ERROR: Final = "error"
"""A queued write failed for another reason than the lock when it was retried."""
STORE_LOST_EXIT: Final = "exit"
"""A queued write was still waiting for the lock when the process exited (after the exit wait)."""
STORE_LOST_REASONS: Final = (STORE_LOST_QUEUE_FULL, STORE_LOST_ERROR, STORE_LOST_EXIT)
"""Closed set of the ``reason`` label of ``citetrace_store_writes_lost_total``."""


# ---------------------------------------------------------------------------------------------------------
# The claim ledger (citetrace.ledger): statuses, source classes, triggers, stop reasons, iteration spans,
# metrics. Closed sets on purpose: they are label values and the state contract of docs/ledger.md.
# ---------------------------------------------------------------------------------------------------------
Q_OPEN: Final = "open"
Q_ANSWERED: Final = "answered"
Q_BLOCKED: Final = "blocked"
Q_ABANDONED: Final = "abandoned"
QUESTION_STATUSES: Final = (Q_OPEN, Q_ANSWERED, Q_BLOCKED, Q_ABANDONED)
"""Closed set of sub-question statuses (``abandoned`` needs a reason)."""

CLAIM_INSUFFICIENT: Final = "insufficient"
CLAIM_VERIFIED: Final = "verified"
CLAIM_CONTRADICTED: Final = "contradicted"
CLAIM_UNVERIFIABLE: Final = "unverifiable"
CLAIM_CONTESTED: Final = "contested"
CLAIM_STATUSES: Final = (CLAIM_INSUFFICIENT, CLAIM_VERIFIED, CLAIM_CONTRADICTED, CLAIM_UNVERIFIABLE,
                         CLAIM_CONTESTED)
"""Closed set of claim statuses; ``insufficient`` opens every pass, ``contested`` ends the claim."""
CLAIM_VERDICTS: Final = (CLAIM_VERIFIED, CLAIM_CONTRADICTED, CLAIM_UNVERIFIABLE)
"""What ``ledger.verify(cid, verdict)`` accepts."""

ENTAIL_SUPPORTED: Final = "supported"
ENTAIL_CONTRADICTED: Final = "contradicted"
ENTAIL_INSUFFICIENT: Final = "insufficient"
ENTAILMENT_LABELS: Final = (ENTAIL_SUPPORTED, ENTAIL_CONTRADICTED, ENTAIL_INSUFFICIENT)
"""The three answers of the ledger's entailment check."""

SOURCE_CLASSES: Final = ("vendor_docs", "filing", "paper", "news", "analysis", "internal", "government",
                         "forum", "other")
"""Known evidence source classes; independence between sources is counted over these tags."""

WEAK_NUMERIC: Final = "numeric"
WEAK_DOMAIN: Final = "domain_expertise"
WEAK_POST_CUTOFF: Final = "post_cutoff"
WEAK_CATEGORIES: Final = (WEAK_NUMERIC, WEAK_DOMAIN, WEAK_POST_CUTOFF)
"""Claim categories where an entailment check can be confidently wrong (flagged, routed)."""
ROUTE_NONE: Final = "none"
ROUTE_SECOND_CHECK: Final = "second_check"
ROUTE_HUMAN_REVIEW: Final = "human_review"
ROUTES: Final = (ROUTE_NONE, ROUTE_SECOND_CHECK, ROUTE_HUMAN_REVIEW)
"""Where a high-impact, low-confidence claim is sent."""

TRIGGER_CONTRADICTED: Final = "contradicted"
TRIGGER_STALE: Final = "stale_evidence"
TRIGGER_INSUFFICIENT: Final = "insufficient_evidence"
TRIGGER_OPEN_QUESTION: Final = "open_question"
TRIGGERS: Final = (TRIGGER_CONTRADICTED, TRIGGER_STALE, TRIGGER_INSUFFICIENT, TRIGGER_OPEN_QUESTION)
"""Closed set of revision triggers, in the order the controller picks them."""
REPAIR_ADJUDICATE: Final = "adjudicating_search"
REPAIR_OTHER_CLASS: Final = "search_other_source_class"
REPAIR_REFETCH: Final = "refetch"
REPAIR_SEARCH: Final = "search"
REPAIRS: Final = {
    TRIGGER_CONTRADICTED: REPAIR_ADJUDICATE,
    TRIGGER_STALE: REPAIR_REFETCH,
    TRIGGER_INSUFFICIENT: REPAIR_OTHER_CLASS,
    TRIGGER_OPEN_QUESTION: REPAIR_SEARCH,
}
"""Typed trigger -> the repair the controller asks for (a claim is repaired, never the report)."""

STOP_GOAL_SATISFIED: Final = "goal_satisfied"
STOP_BUDGET_PREFIX: Final = "budget_exhausted:"
STOP_NO_PROGRESS: Final = "no_progress"
STOP_HARD_ERROR: Final = "hard_error"
BUDGET_DIMENSIONS: Final = ("tool_calls", "wall_clock_s", "tokens", "iterations")
"""The four capped budgets, in the order they are checked."""
STOP_REASONS: Final = (STOP_GOAL_SATISFIED, *(STOP_BUDGET_PREFIX + d for d in BUDGET_DIMENSIONS),
                       STOP_NO_PROGRESS, STOP_HARD_ERROR)
"""Closed set of stop reasons, in priority order."""

LEDGER_ITERATION_SPAN: Final = "ledger_iteration"
"""Name prefix of the span each revision iteration opens inside the run (``ledger_iteration {n}``)."""
LEDGER_ITERATION: Final = "citetrace.ledger.iteration"
"""Iteration number (1-based) on an iteration span."""
LEDGER_TRIGGER: Final = "citetrace.ledger.trigger"
"""The iteration's trigger (one of ``TRIGGERS``)."""
LEDGER_REPAIR: Final = "citetrace.ledger.repair"
"""The repair asked for (one of ``REPAIRS``' values)."""
LEDGER_CLAIM_ID: Final = "citetrace.ledger.claim_id"
"""The claim the iteration repairs, when it has one."""
LEDGER_OPEN_QUESTIONS: Final = "citetrace.ledger.open_questions"
"""Vital sign: open sub-questions after the iteration."""
LEDGER_UNRESOLVED: Final = "citetrace.ledger.unresolved_claims"
"""Vital sign: unresolved claims after the iteration."""
LEDGER_UNRESOLVED_DELTA: Final = "citetrace.ledger.unresolved_delta"
"""Vital sign: change of the unresolved count during the iteration (negative is progress)."""
LEDGER_TOOL_CALLS: Final = "citetrace.ledger.tool_calls"
"""Vital sign: tool calls spent during the iteration."""
LEDGER_NEW_EVIDENCE: Final = "citetrace.ledger.new_evidence"
"""Vital sign: evidence records added during the iteration."""
LEDGER_FLIPS: Final = "citetrace.ledger.status_flips"
"""Vital sign: claim verdicts that flipped between verified and contradicted during the iteration."""
LEDGER_STOP_REASON: Final = "citetrace.ledger.stop_reason"
"""On the last iteration span (or the run's root span): why the controller stopped."""

LABEL_TRIGGER: Final = "trigger"
LABEL_STOP_REASON: Final = "reason"
METRIC_LEDGER_ITERATIONS_TOTAL: Final = "citetrace_ledger_iterations_total"
"""Counter {agent, trigger}: revision iterations run."""
METRIC_LEDGER_FLAT_ITERATIONS_TOTAL: Final = "citetrace_ledger_flat_iterations_total"
"""Counter {agent}: iterations after which the unresolved-claim count had not moved (with claims unresolved)."""
METRIC_LEDGER_TOOL_CALLS_TOTAL: Final = "citetrace_ledger_tool_calls_total"
"""Counter {agent}: tool calls spent inside revision iterations."""
METRIC_LEDGER_NEW_EVIDENCE_TOTAL: Final = "citetrace_ledger_new_evidence_total"
"""Counter {agent}: evidence records added inside revision iterations."""
METRIC_LEDGER_STATUS_FLIPS_TOTAL: Final = "citetrace_ledger_status_flips_total"
"""Counter {agent}: claims whose verdict flipped between verified and contradicted across passes."""
METRIC_LEDGER_UNRESOLVED: Final = "citetrace_ledger_unresolved_claims"
"""Gauge {agent}: unresolved claims after the latest iteration."""
METRIC_LEDGER_STOPS_TOTAL: Final = "citetrace_ledger_stops_total"
"""Counter {agent, reason}: controller stops by stop reason (``STOP_REASONS``)."""


def counter_base(name: str) -> str:
    """The name prometheus_client wants for a counter exposed as ``name`` (it adds ``_total`` itself)."""
    return name[: -len("_total")] if name.endswith("_total") else name


# ---------------------------------------------------------------------------------------------------------
# Environment variables.
# ---------------------------------------------------------------------------------------------------------
ENV_CAPTURE_CONTENT: Final = "CITETRACE_CAPTURE_CONTENT"
"""``true`` records query text, arguments and answer text on spans. Default off."""
ENV_GENAI_CAPTURE_CONTENT: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The util-genai switch, honoured as a fallback for ``CITETRACE_CAPTURE_CONTENT``."""
ENV_RECORD_RESPONSES: Final = "CITETRACE_RECORD_RESPONSES"
"""``true``: record what each tool call inside a run returned or raised (redacted), for replay. Off by default:
encoding every result costs about what content capture does."""
ENV_REPLAY: Final = "CITETRACE_REPLAY"
"""A run id: every traced tool returns that run's recorded responses instead of calling out (see ``replay``)."""
ENV_REPLAY_MISS: Final = "CITETRACE_REPLAY_MISS"
"""What a replayed call with no recorded response does: ``error`` (default, raises ``ReplayMiss``),
``passthrough`` (calls the real tool) or ``empty`` (an empty result)."""
ENV_STORE: Final = "CITETRACE_STORE"
"""Run-store URI: ``sqlite:///path/store.db`` (default ``sqlite:///./.citetrace/store.db``) or ``memory://``."""
ENV_STORE_LOCK_WAIT_MS: Final = "CITETRACE_STORE_LOCK_WAIT_MS"
"""How long an agent's store write waits on a locked store before it is queued (default 100 ms)."""
ENV_STORE_QUEUE_MAX: Final = "CITETRACE_STORE_QUEUE_MAX"
"""Writes the background queue holds for a locked store before new ones are lost, counted (default 10000)."""
ENV_STORE_EXIT_WAIT_SECONDS: Final = "CITETRACE_STORE_EXIT_WAIT_SECONDS"
"""How long exit waits for queued writes to reach a locked store before they are counted lost (default 5)."""
ENV_TOOLS: Final = "CITETRACE_TOOLS"
"""User functions to wrap: ``pkg.mod:func=search,pkg.mod:Class.method=fetch``."""
ENV_MCP_TOOLS: Final = "CITETRACE_MCP_TOOLS"
"""MCP tool-name rules, tried before the defaults: ``my_lookup=search,internal_*=none,get_page=fetch``."""
ENV_FETCH_RULES: Final = "CITETRACE_FETCH_RULES"
"""Opt-in URL rules for fetches over plain HTTP: ``jina_reader,my_reader=https://reader.internal/{url}``."""
ENV_RUNBOOK_URL: Final = "CITETRACE_RUNBOOK_URL"
"""Where the generated alert rules' ``runbook_url`` annotations point (the runbook page; ``#alert-...`` is
appended per alert). Read by ``python -m citetrace._dashboards``."""
ENV_AUTO_INSTRUMENT: Final = "CITETRACE_AUTO_INSTRUMENT"
"""``true`` configures and instruments at interpreter start (startup hook)."""
ENV_METRICS: Final = "CITETRACE_METRICS"
"""``embedded`` (default: this process exports metrics) or ``off`` (leave them to ``citetrace serve``)."""
ENV_SAMPLING: Final = "CITETRACE_SAMPLING"
"""``collector`` (default): export every span; the decision is only recorded (``citetrace.summary.keep`` /
``failed``) for a collector's tail sampler. ``embedded`` (opt-in): keep-on-failure sampling in this process,
before citetrace's own exporter (it has no effect on an application's provider and exporters)."""
ENV_SAMPLING_SCOPE: Final = "CITETRACE_SAMPLING_SCOPE"
"""With ``CITETRACE_SAMPLING=embedded``: ``citetrace`` (default) samples only the spans citetrace created and
exports every other span at once; ``trace`` samples whole traces, other instrumentations' spans included."""
SAMPLING_COLLECTOR: Final = "collector"
SAMPLING_EMBEDDED: Final = "embedded"
SAMPLING_MODES: Final = (SAMPLING_COLLECTOR, SAMPLING_EMBEDDED)
"""Closed set of ``CITETRACE_SAMPLING`` values."""
SCOPE_CITETRACE: Final = "citetrace"
SCOPE_TRACE: Final = "trace"
SAMPLING_SCOPES: Final = (SCOPE_CITETRACE, SCOPE_TRACE)
"""Closed set of ``CITETRACE_SAMPLING_SCOPE`` values."""
ENV_METRICS_PORT: Final = "CITETRACE_METRICS_PORT"
"""If set, ``configure()`` serves metrics on this port on 127.0.0.1."""
ENV_EMPTY_FETCH_CHARS: Final = "CITETRACE_EMPTY_FETCH_CHARS"
"""A fetch returning fewer characters than this is ``empty``. Default 200."""
ENV_MAX_URLS: Final = "CITETRACE_MAX_URLS"
"""Cap on ``citetrace.urls_returned``. Default 50."""
ENV_SAMPLE_PERCENT: Final = "CITETRACE_SAMPLE_PERCENT"
"""Percent of healthy traces kept. Default 2."""
ENV_SAMPLE_SALT: Final = "CITETRACE_SAMPLE_SALT"
"""Salt of the FNV-1a sample hash; must equal the collector's ``hash_salt``. Default ``citetrace``."""
ENV_MAX_SEARCHES: Final = "CITETRACE_MAX_SEARCHES"
"""More searches than this in one run is a failure (``too_many_searches``). Default 10."""
ENV_MAX_FAILED_READS: Final = "CITETRACE_MAX_FAILED_READS"
"""More failed reads than this is a failure (``failed_reads``). Default 1."""
ENV_MAX_TRACES: Final = "CITETRACE_MAX_TRACES"
"""Traces held in flight by the summarizer. Default 10000."""
ENV_MAX_SPANS_PER_TRACE: Final = "CITETRACE_MAX_SPANS_PER_TRACE"
"""Spans buffered per trace before an early decision. Default 1000."""
ENV_TRACE_TTL_SECONDS: Final = "CITETRACE_TRACE_TTL_SECONDS"
"""Seconds a trace without a finished root is kept. Default 600."""
ENV_MAX_TOOL_NAMES: Final = "CITETRACE_MAX_TOOL_NAMES"
"""Distinct ``tool`` label values before overflow to ``other``. Default 50."""
ENV_SERVE_HOST: Final = "CITETRACE_SERVE_HOST"
"""``citetrace serve`` bind address. Default 127.0.0.1."""
ENV_SERVE_PORT: Final = "CITETRACE_SERVE_PORT"
"""``citetrace serve`` OTLP/HTTP port. Default 4319."""
ENV_SERVE_METRICS_PORT: Final = "CITETRACE_SERVE_METRICS_PORT"
"""``citetrace serve`` metrics port. Default 9464."""
ENV_SERVE_TOKEN: Final = "CITETRACE_SERVE_TOKEN"
"""Optional bearer token required on ``POST /v1/traces``."""
ENV_SERVE_GRACE_SECONDS: Final = "CITETRACE_SERVE_GRACE_SECONDS"
"""Seconds after a root arrives before its trace is finalised. Default 2."""
ENV_SERVE_MAX_BODY_BYTES: Final = "CITETRACE_SERVE_MAX_BODY_BYTES"
"""Largest accepted request body (after decompression). Default 16 MiB."""
ENV_SERVE_STORE: Final = "CITETRACE_SERVE_STORE"
"""Run store ``citetrace serve`` writes summaries to (falls back to ``CITETRACE_STORE``)."""
ENV_SERVE_DRAIN_SECONDS: Final = "CITETRACE_SERVE_DRAIN_SECONDS"
"""Seconds ``citetrace serve`` keeps ``/metrics`` up after SIGTERM so a last scrape sees its final counts. Default 0."""
ENV_SERVE_MAX_ROOTS_PER_TRACE: Final = "CITETRACE_SERVE_MAX_ROOTS_PER_TRACE"
"""``invoke_agent`` roots (runs) held per trace by ``citetrace serve``; more are refused. Default 16."""
ENV_SERVE_MAX_URLS_PER_TRACE: Final = "CITETRACE_SERVE_MAX_URLS_PER_TRACE"
"""URLs (results, ``url.full``, citations) held per trace by ``citetrace serve``. Default 20000."""
ENV_SERVE_MAX_HELD_BYTES: Final = "CITETRACE_SERVE_MAX_HELD_BYTES"
"""Bytes all traces in flight may hold together (estimated); above it the least recent is evicted. Default 256 MiB."""
ENV_SERVE_REQUEST_TIMEOUT: Final = "CITETRACE_SERVE_REQUEST_TIMEOUT"
"""Seconds a client has to send one whole request (headers and body), from its first byte. Default 30."""
ENV_SERVE_MAX_CONNECTIONS: Final = "CITETRACE_SERVE_MAX_CONNECTIONS"
"""Connections ``citetrace serve`` holds open at once; past it the longest-waiting incomplete one is closed. Default 1024."""
ENV_SERVE_MAX_INFLIGHT_BYTES: Final = "CITETRACE_SERVE_MAX_INFLIGHT_BYTES"
"""Request-body bytes held at once over all connections (received, not yet answered); above it 503. Default 64 MiB."""
ENV_SERVE_MAX_DECODE_BYTES: Final = "CITETRACE_SERVE_MAX_DECODE_BYTES"
"""Decompressed body bytes being decoded at once; above it 503 + Retry-After. Default 32 MiB."""

# Variables read by the shipped collector configs (collector/otelcol.yaml, collector/otelcol-gateway.yaml).
ENV_OTELCOL_GRPC_ENDPOINT: Final = "CITETRACE_OTELCOL_GRPC_ENDPOINT"
"""Collector OTLP/gRPC receiver address. Default ``0.0.0.0:4317`` (inside a container)."""
ENV_OTELCOL_HTTP_ENDPOINT: Final = "CITETRACE_OTELCOL_HTTP_ENDPOINT"
"""Collector OTLP/HTTP receiver address. Default ``0.0.0.0:4318``."""
ENV_OTELCOL_HEALTH_ENDPOINT: Final = "CITETRACE_OTELCOL_HEALTH_ENDPOINT"
"""Collector ``health_check`` extension address. Default ``0.0.0.0:13133``."""
ENV_OTELCOL_TELEMETRY_HOST: Final = "CITETRACE_OTELCOL_TELEMETRY_HOST"
"""Host of the collector's own Prometheus self-metrics. Default ``0.0.0.0``."""
ENV_OTELCOL_TELEMETRY_PORT: Final = "CITETRACE_OTELCOL_TELEMETRY_PORT"
"""Port of the collector's own Prometheus self-metrics. Default 8888."""
ENV_OTELCOL_LOG_LEVEL: Final = "CITETRACE_OTELCOL_LOG_LEVEL"
"""Collector log level. Default ``info``."""
ENV_OTELCOL_SERVE_ENDPOINT: Final = "CITETRACE_OTELCOL_SERVE_ENDPOINT"
"""Base URL of ``citetrace serve`` for the collector's ``otlp_http`` exporter. Default ``http://citetrace-serve:4319``."""
ENV_OTELCOL_BACKEND_ENDPOINT: Final = "CITETRACE_OTELCOL_BACKEND_ENDPOINT"
"""OTLP/gRPC address of the trace backend (Jaeger or Tempo) for kept traces. Default ``jaeger:4317``."""
ENV_OTELCOL_KEPT_EXPORTER: Final = "CITETRACE_OTELCOL_KEPT_EXPORTER"
"""Exporter of the kept-traces pipeline: ``otlp_grpc/backend`` (default) or ``file/kept`` (tests)."""
ENV_OTELCOL_KEPT_FILE: Final = "CITETRACE_OTELCOL_KEPT_FILE"
"""Path the ``file/kept`` exporter writes (OTLP/JSON lines)."""
ENV_OTELCOL_TIER2: Final = "CITETRACE_OTELCOL_TIER2"
"""Gateway: YAML list of tier-2 collector OTLP/gRPC addresses, e.g. ``[tier2-a:4317, tier2-b:4317]``."""
ENV_OTELCOL_REMOTE_WRITE_ENDPOINT: Final = "CITETRACE_OTELCOL_REMOTE_WRITE_ENDPOINT"
"""otelcol-summary.yaml: Prometheus remote-write URL the connector's metrics go to. Default
``http://prometheus:9090/api/v1/write``."""
ENV_OTELCOL_METRICS_FLUSH_INTERVAL: Final = "CITETRACE_OTELCOL_METRICS_FLUSH_INTERVAL"
"""otelcol-summary.yaml: how often the connector sends its cumulative metrics (a duration). Default ``15s``."""
ENV_OTELCOL_INSTANCE_ID: Final = "CITETRACE_OTELCOL_INSTANCE_ID"
"""otelcol-summary.yaml: the ``instance`` label of the connector's metrics, stable across restarts and unique per
collector (the pod or host name). Default: the collector's ``service.instance.id``, a new random id per start,
which makes every restart a new set of series whose first sample ``increase()`` cannot count."""

# Variables of the repository's scripts (scripts/setup, scripts/test, scripts/demo, scripts/build-collector),
# not of the package.
# Documented in docs/install.md; tests/test_extras.py checks that the scripts read each one.
ENV_SKIP_APT: Final = "CITETRACE_SKIP_APT"
"""``1``: scripts/setup installs no Debian package (promtool, Chromium, PostgreSQL must already be there)."""
ENV_SKIP_COLLECTOR: Final = "CITETRACE_SKIP_COLLECTOR"
"""``1``: scripts/setup does not build the OpenTelemetry Collector (the collector tests build it on first use)."""
ENV_SKIP_CREWAI: Final = "CITETRACE_SKIP_CREWAI"
"""``1``: scripts/setup does not build ``.venv-crewai`` (CrewAI's own venv for its tests)."""
ENV_SKIP_GPTR: Final = "CITETRACE_SKIP_GPTR"
"""``1``: scripts/setup does not build ``.venv-gptr`` (gpt-researcher's own venv for its tests)."""
ENV_SKIP_STORM: Final = "CITETRACE_SKIP_STORM"
"""``1``: scripts/setup does not build ``.venv-storm`` (knowledge-storm's own venv for its tests)."""
ENV_SKIP_PINNED: Final = "CITETRACE_SKIP_PINNED"
"""``1``: scripts/setup does not build ``.venv-pinned`` (crawl4ai, LlamaIndex's DuckDuckGo spec)."""
ENV_SETUP_EXTRAS: Final = "CITETRACE_EXTRAS"
"""The extras scripts/setup installs into ``.venv`` (default ``test``: everything the tests need)."""
ENV_OTELCOL_CACHE: Final = "CITETRACE_OTELCOL_CACHE"
"""Where scripts/build-collector caches the built collector (default ``${XDG_CACHE_HOME:-~/.cache}/citetrace``)."""
ENV_PG_PASSWORD: Final = "CITETRACE_PG_PASSWORD"
"""docker-compose.fleet.yml: the run store's PostgreSQL password (compose refuses to start without it)."""
ENV_TEST_ARTIFACTS: Final = "CITETRACE_TEST_ARTIFACTS"
"""tests/view: the folder the browser tests keep their screenshots in (default: a temporary folder)."""
SCRIPT_ENV: Final = (ENV_SKIP_APT, ENV_SKIP_COLLECTOR, ENV_SKIP_CREWAI, ENV_SKIP_GPTR, ENV_SKIP_STORM,
                     ENV_SKIP_PINNED, ENV_SETUP_EXTRAS, ENV_OTELCOL_CACHE)
"""Every variable the repository's scripts read."""

# Standard OpenTelemetry variables we read.
ENV_OTEL_SDK_DISABLED: Final = "OTEL_SDK_DISABLED"
ENV_OTEL_TRACES_EXPORTER: Final = "OTEL_TRACES_EXPORTER"
ENV_OTEL_EXPORTER_OTLP_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_ENDPOINT"
ENV_OTEL_EXPORTER_OTLP_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_PROTOCOL"
ENV_OTEL_EXPORTER_OTLP_TIMEOUT: Final = "OTEL_EXPORTER_OTLP_TIMEOUT"
"""The OTLP exporters' timeout per export, in seconds (the SDK's reading; default 10): also bounds exit."""
ENV_OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: Final = "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"
"""The span exporter's own timeout, in seconds; wins over ``OTEL_EXPORTER_OTLP_TIMEOUT``."""
ENV_OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Final = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
ENV_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Final = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
ENV_OTEL_SERVICE_NAME: Final = "OTEL_SERVICE_NAME"

STORE_DEFAULT_URI: Final = "sqlite:///.citetrace/store.db"
"""The embedded default store (relative to the working directory)."""

# ---------------------------------------------------------------------------------------------------------
# eval: citation evaluation (owned by src/citetrace/eval/).
# ---------------------------------------------------------------------------------------------------------
EVALUATION_NAME_CITATION_SUPPORT: Final = "citation_support"
"""``gen_ai.evaluation.name`` of one (claim, cited URL) verdict."""
EVAL_SPAN_NAME: Final = "evaluate_citations"
"""Name of the span that carries a run's ``gen_ai.evaluation.result`` events."""
EVAL_PAIR_URL: Final = "citetrace.eval.url"
"""Evaluation event attribute: the cited URL, redacted (an event attribute, never a metric label)."""
EVAL_PAIR_SENTENCE: Final = "citetrace.eval.sentence_index"
"""Evaluation event attribute: index of the report sentence the verdict is about."""
EVAL_JUDGE: Final = "citetrace.eval.judge"
"""Evaluation event/span attribute: the judge (``deterministic``, ``llm``, ``nli``)."""
EVAL_JUDGE_VERSION: Final = "citetrace.eval.judge.version"
"""Evaluation event/span attribute: the judge's prompt or rule version."""
EVAL_FLAGS: Final = "citetrace.eval.flags"
"""Evaluation event attribute: string array of check flags (``unfetched``, ``dead``, ``stale``, ...)."""
EVAL_RATE_PREFIX: Final = "citetrace.eval."
"""Prefix of the per-run rate attributes on the evaluation span: ``citetrace.eval.<rate name>``."""

LABEL_JUDGE: Final = "judge"
LABEL_LABEL: Final = "label"
LABEL_RATE: Final = "rate"
EVAL_JUDGES: Final = ("deterministic", "llm", "nli")
"""Closed set of the ``judge`` label."""
METRIC_EVAL_RUNS_TOTAL: Final = "citetrace_eval_runs_total"
"""Counter {agent, judge}: runs evaluated."""
METRIC_EVAL_PAIRS_TOTAL: Final = "citetrace_eval_pairs_total"
"""Counter {agent, judge, label}: judged citations by final label (SUPPORTED ... JUDGE_ERROR, UNFETCHED)."""
METRIC_EVAL_RATE: Final = "citetrace_eval_rate_ratio"
"""Gauge {agent, rate}: the latest evaluated run's rates (citation_coverage, support_rate, ...), 0..1."""
METRIC_EVAL_GATE_FAILURES_TOTAL: Final = "citetrace_eval_gate_failures_total"
"""Counter {agent, reason}: gate failures (``unfetched_citation`` or ``out_of_band``)."""
GATE_UNFETCHED: Final = "unfetched_citation"
"""Hard gate rule: a cited URL the run never fetched."""
GATE_UNCITED_URL: Final = "uncited_url"
"""Hard gate rule: the run's own summary failed on ``uncited_url`` (a cited URL no search returned)."""
GATE_NO_CITATIONS: Final = "no_citations"
"""Hard gate rule: the report has claims that need citations but carries no citation at all."""
GATE_UNCITED_CLAIM: Final = "uncited_claim"
"""Hard gate rule, off by default: any sentence that needs a citation and has none."""
GATE_OUT_OF_BAND: Final = "out_of_band"
GATE_HARD_RULES: Final = (GATE_UNFETCHED, GATE_UNCITED_URL, GATE_NO_CITATIONS, GATE_UNCITED_CLAIM)
"""The gate's hard rules (no baseline needed); ``--hard-rules`` picks a subset."""
GATE_DEFAULT_RULES: Final = (GATE_UNFETCHED, GATE_UNCITED_URL, GATE_NO_CITATIONS)
"""The hard rules on by default (``uncited_claim`` is opt-in: coverage has a baseline band already)."""
GATE_REASONS: Final = (GATE_UNFETCHED, GATE_UNCITED_URL, GATE_NO_CITATIONS, GATE_UNCITED_CLAIM, GATE_OUT_OF_BAND)
"""Closed set of gate failure reasons."""

METRIC_JUDGE_AGREEMENT: Final = "citetrace_judge_agreement_ratio"
"""Gauge {judge, set}: a judge's agreement (accuracy) with a labelled set, written by ``judge-eval
--metrics-file`` (the canary metric; the file name of the labels is the ``set`` label)."""
LABEL_LABEL_SET: Final = "set"
TEXTFILE_METRICS: Final = (METRIC_JUDGE_AGREEMENT, METRIC_EVAL_RUNS_TOTAL, METRIC_EVAL_PAIRS_TOTAL, METRIC_EVAL_RATE,
                           METRIC_EVAL_GATE_FAILURES_TOTAL)
"""Metrics written by CLI commands to ``--metrics-file`` for a textfile collector (never by ``citetrace serve``)."""

ENV_OPENAI_BASE_URL: Final = "OPENAI_BASE_URL"
"""The LLM judge's OpenAI-compatible endpoint, up to ``/v1`` (``/chat/completions`` is appended)."""
ENV_OPENAI_API_KEY: Final = "OPENAI_API_KEY"
"""Bearer token for the LLM judge's endpoint (optional for local servers)."""
ENV_JUDGE_MODEL: Final = "CITETRACE_JUDGE_MODEL"
"""Model name for the LLM judge when ``--judge-model`` is not given."""
# end of eval block
