"""The one table of settings: every knob citetrace reads from the environment, with its variable (from
``names``), the values it accepts, its default and what it means.

``config.Settings`` (what an agent is configured with), ``summary.Thresholds`` and ``serve.ServeOptions`` take
their defaults from here; ``load_settings`` and ``citetrace serve`` parse every value through the row's
``Kind``, so a variable means the same wherever it is read and a bad value is one line naming the variable and
what it accepts. ``OTEL_*`` values are read as the OpenTelemetry SDK and util-genai read them.
``python -m citetrace._settingsdoc`` prints the reference in docs/settings.md (a test keeps them equal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping
from urllib.parse import urlsplit

from citetrace import _fetchrules, _toolrules, names

__all__ = ["AGENT", "GENERATOR", "SERVE", "SERVE_CLI", "Kind", "Setting", "SETTINGS", "by_name", "default", "from_env"]

AGENT = "agent"
"""A ``config.Settings`` field: ``configure(name=...)`` > variable > default."""
SERVE = "serve"
"""A ``ServeOptions`` field of ``citetrace serve``: ``--flag`` > variable > default."""
SERVE_CLI = "serve-cli"
"""Read by ``citetrace serve`` itself (its store)."""
GENERATOR = "generator"
"""Read by ``python -m citetrace._dashboards`` as it writes the rule files (``from_env``): a bad value stops it."""


@dataclass(frozen=True)
class Kind:
    """How a value is read: ``parse`` turns the text of a variable or flag into a value or raises
    ``ValueError``; ``accepts`` says what is accepted (in errors and in the reference); ``check`` vets a
    value passed in Python (``configure(max_urls=...)``) the same way."""

    accepts: str
    parse: Callable[[str], Any]
    check: Callable[[Any], bool]


def _expect(kind: Kind, raw: str) -> ValueError:
    return ValueError(f"expected {kind.accepts}, got {raw!r}")


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})


def _bool() -> Kind:
    """citetrace's own switches: true/false, 1/0, yes/no, on/off (any case)."""
    def parse(raw: str) -> bool:
        value = raw.strip().lower()
        if value in _TRUE or value in _FALSE:
            return value in _TRUE
        raise _expect(kind, raw)

    kind = Kind("true or false (also 1/0, yes/no, on/off)", parse, lambda v: isinstance(v, bool))
    return kind


def _otel_bool() -> Kind:
    """As the OpenTelemetry SDK reads ``OTEL_SDK_DISABLED``: only ``true`` (any case) is true. Another value
    is false there and here; here it also warns, since ``1`` or ``yes`` usually meant true."""
    def parse(raw: str) -> bool:
        value = raw.strip().lower()
        if value in ("true", "false", ""):
            return value == "true"
        raise _expect(kind, raw)

    kind = Kind("true or false (only true counts, as the OpenTelemetry SDK reads it)", parse,
                lambda v: isinstance(v, bool))
    return kind


GENAI_CONTENT_ON = ("SPAN_ONLY", "SPAN_AND_EVENT", "TRUE")
"""``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` values that put content on citetrace's spans."""
GENAI_CONTENT_OFF = ("NO_CONTENT", "EVENT_ONLY", "FALSE")
"""Values that keep it off: citetrace writes content only to span attributes, so ``EVENT_ONLY`` is off."""


def _genai_content() -> Kind:
    """util-genai's content-capturing modes, and the plain true/false the stable GenAI instrumentations read."""
    def parse(raw: str) -> bool:
        value = raw.strip().upper()
        if value in GENAI_CONTENT_ON or value in GENAI_CONTENT_OFF:
            return value in GENAI_CONTENT_ON
        raise _expect(kind, raw)

    kind = Kind("SPAN_ONLY or SPAN_AND_EVENT (on), NO_CONTENT or EVENT_ONLY (off), or true/false", parse,
                lambda v: isinstance(v, bool))
    return kind


def _number(cast: type, low: float, *, strict: bool = False, high: float | None = None) -> Kind:
    """A finite int or float ``>= low`` (``> low`` when strict), at most ``high``.

    Finite: ``float("inf")`` would be a TTL that keeps every unfinished trace or an exit wait that never ends.
    """
    def ok(value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float) if cast is float else int):
            return False
        if isinstance(value, float) and not math.isfinite(value):
            return False
        return (value > low if strict else value >= low) and (high is None or value <= high)

    def parse(raw: str) -> Any:
        try:
            value = cast(raw.strip())
        except ValueError:
            raise _expect(kind, raw) from None
        if not ok(value):
            raise _expect(kind, raw)
        return value

    noun = "a whole number" if cast is int else "a number"
    bound = f"> {low:g}" if strict else f">= {low:g}"
    kind = Kind(f"{noun} {bound}" + (f" and <= {high:g}" if high is not None else ""), parse, ok)
    return kind


def _one_of(*allowed: str) -> Kind:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in allowed:
            raise _expect(kind, raw)
        return value

    kind = Kind("one of " + ", ".join(allowed), parse, lambda v: v in allowed)
    return kind


def _text(accepts: str = "a non-empty value") -> Kind:
    def parse(raw: str) -> str:
        if not raw.strip():
            raise ValueError(f"expected {accepts}")
        return raw.strip()

    return Kind(accepts, parse, lambda v: isinstance(v, str) and bool(v.strip()))


def _rules(module: Any, accepts: str) -> Kind:
    """A rules string (``_toolrules``, ``_fetchrules``): a bad entry raises, naming it."""
    def check(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        module.parse_rules(value.strip())
        return True

    return Kind(accepts, module.normalise, check)


def _url() -> Kind:
    """An absolute http(s) URL without a fragment (a runbook page: each alert appends its ``#anchor``)."""
    def ok(value: Any) -> bool:
        if not isinstance(value, str):
            return False
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.netloc) and not parts.fragment and "#" not in value

    def parse(raw: str) -> str:
        value = raw.strip()
        if not ok(value):
            raise _expect(kind, raw)
        return value

    kind = Kind("an absolute http(s) URL without a #fragment", parse, ok)
    return kind


BOOL, OTEL_BOOL, GENAI_CONTENT = _bool(), _otel_bool(), _genai_content()
COUNT = _number(int, 0)
POSITIVE = _number(int, 0, strict=True)
SECONDS = _number(float, 0)
POSITIVE_SECONDS = _number(float, 0, strict=True)
PORT = _number(int, 0, high=65535)
PERCENT = _number(float, 0, high=100)
TEXT = _text()


@dataclass(frozen=True)
class Setting:
    """One row: ``name`` is unique; ``attr`` is the field it fills in its owner (``name`` unless said)."""

    name: str
    env: tuple[str, ...]
    kind: Kind
    default: Any
    doc: str
    owner: str = AGENT
    attr: str = ""

    @property
    def field(self) -> str:
        """The owner's field (``ServeOptions.port`` for the row ``serve_port``)."""
        return self.attr or self.name

    @property
    def flag(self) -> str | None:
        """The ``citetrace serve`` flag, for the rows serve reads."""
        if self.owner == GENERATOR or (self.owner == AGENT and self.name not in _SERVE_READS):
            return None
        return "--" + self.field.replace("_", "-")


MIB = 1024 * 1024
RUNBOOK_DEFAULT = "https://github.com/citetrace/citetrace/blob/main/docs/operations.md"
"""The project's published runbook page (``[project.urls] Homepage`` + the docs path)."""

SETTINGS: tuple[Setting, ...] = (
    # -- the agent: configure(), the start-up hook, @traced_tool ------------------------------------------
    Setting("capture_content", (names.ENV_CAPTURE_CONTENT,), BOOL, False,
            "Record query text, tool arguments, the question and the answer text on spans (content is off by "
            "default). When unset, `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT` decides."),
    Setting("genai_capture_content", (names.ENV_GENAI_CAPTURE_CONTENT,), GENAI_CONTENT, False,
            "The OpenTelemetry GenAI switch, read as util-genai reads it; the fallback for "
            "`CITETRACE_CAPTURE_CONTENT`.", attr="capture_content"),
    Setting("store_uri", (names.ENV_STORE,), _text("a store URI: sqlite:///path.db, a path, memory:// or "
                                                    "postgresql://user@host/db"),
            names.STORE_DEFAULT_URI, "The run store an agent writes to (checked where it is opened)."),
    Setting("store_lock_wait_ms", (names.ENV_STORE_LOCK_WAIT_MS,), COUNT, 100,
            "Milliseconds a store write waits on a locked store before it is queued."),
    Setting("store_queue_max", (names.ENV_STORE_QUEUE_MAX,), COUNT, 10_000,
            "Writes queued for a locked store before new ones are lost (counted)."),
    Setting("store_exit_wait_seconds", (names.ENV_STORE_EXIT_WAIT_SECONDS,), SECONDS, 5.0,
            "Seconds exit waits for queued writes to reach a locked store before they are counted lost."),
    Setting("metrics", (names.ENV_METRICS,), _one_of("embedded", "off"), "embedded",
            "`embedded`: this process keeps the Prometheus metrics; `off`: leave them to `citetrace serve`."),
    Setting("metrics_port", (names.ENV_METRICS_PORT,), PORT, None,
            "If set, `configure()` serves its metrics on this port on 127.0.0.1."),
    Setting("sampling", (names.ENV_SAMPLING,), _one_of(*names.SAMPLING_MODES), names.SAMPLING_COLLECTOR,
            "`collector`: export every span and record the keep decision on the run's root; `embedded`: "
            "export only kept traces (and every run's root) from the agent."),
    Setting("sampling_scope", (names.ENV_SAMPLING_SCOPE,), _one_of(*names.SAMPLING_SCOPES), names.SCOPE_CITETRACE,
            "With embedded sampling: hold only citetrace's spans (`citetrace`) or whole traces (`trace`)."),
    Setting("empty_fetch_chars", (names.ENV_EMPTY_FETCH_CHARS,), COUNT, 200,
            "A fetch returning fewer characters of text than this is `empty` (raw HTML counts by its visible text)."),
    Setting("max_urls", (names.ENV_MAX_URLS,), COUNT, 50, "Cap on `citetrace.urls_returned` per search."),
    Setting("sample_percent", (names.ENV_SAMPLE_PERCENT,), PERCENT, 2.0,
            "Percent of healthy traces kept by the stable FNV-1a sample (same as the collector's)."),
    Setting("sample_salt", (names.ENV_SAMPLE_SALT,), TEXT, "citetrace",
            "Salt of the sample hash; must equal the collector's `hash_salt`."),
    Setting("max_searches", (names.ENV_MAX_SEARCHES,), COUNT, 10,
            "More searches than this in one run is a failure (`too_many_searches`)."),
    Setting("max_failed_reads", (names.ENV_MAX_FAILED_READS,), COUNT, 1,
            "More failed reads than this in one run is a failure (`failed_reads`)."),
    Setting("max_traces", (names.ENV_MAX_TRACES,), POSITIVE, 10_000,
            "Traces the summarizer holds in flight; the least recently active is evicted above it."),
    Setting("max_spans_per_trace", (names.ENV_MAX_SPANS_PER_TRACE,), POSITIVE, 1_000,
            "Spans per trace: in an agent, buffered before an early decision; in `serve`, counted (more are "
            "refused, partial success)."),
    Setting("trace_ttl_seconds", (names.ENV_TRACE_TTL_SECONDS,), POSITIVE_SECONDS, 600.0,
            "Seconds a trace without a finished root is kept, then finalised from what arrived."),
    Setting("max_tool_names", (names.ENV_MAX_TOOL_NAMES,), COUNT, 50,
            "Distinct `tool` (and agent) label values before overflow to `other`."),
    Setting("service_name", (names.ENV_OTEL_SERVICE_NAME,), TEXT, None,
            "The service name of the provider `configure()` creates (else `research-agent`)."),
    Setting("sdk_disabled", (names.ENV_OTEL_SDK_DISABLED,), OTEL_BOOL, False,
            "`true` (any case; nothing else, as the SDK reads it): every wrapper is a straight call and "
            "nothing is set up or stored."),
    Setting("record_responses", (names.ENV_RECORD_RESPONSES,), BOOL, False,
            "Record what each tool call inside a run returned or raised (redacted), for replay."),
    Setting("replay", (names.ENV_REPLAY,), _text("a run id"), None,
            "A run id: traced tools return that run's recorded responses instead of calling out. A run that "
            "is not there or recorded no responses makes every traced call raise `ReplayMiss`, never live."),
    Setting("replay_miss", (names.ENV_REPLAY_MISS,), _one_of("error", "passthrough", "empty"), "error",
            "A replayed call with no recorded response: raise `ReplayMiss`, call through, or return nothing."),
    Setting("mcp_tools", (names.ENV_MCP_TOOLS,),
            _rules(_toolrules, "pattern=kind entries, comma-separated (kind: search, fetch or none)"), None,
            "MCP tool-name rules tried before the defaults, e.g. `my_lookup=search,internal_*=none`."),
    Setting("fetch_rules", (names.ENV_FETCH_RULES,),
            _rules(_fetchrules, "rule names or name=URL-template entries, comma-separated"), None,
            "Opt-in URL rules for fetches over plain HTTP, e.g. `jina_reader,my_reader=https://reader.internal/{url}`."),
    # -- python -m citetrace._dashboards: the generated rule files ---------------------------------------
    Setting("runbook_url", (names.ENV_RUNBOOK_URL,), _url(), RUNBOOK_DEFAULT,
            "The runbook page the alert rules' `runbook_url` annotations link to, each alert's `#alert-<name>` "
            "section appended (absolute, so a pager or Alertmanager receiver can open it). Set it to where "
            "your copy of docs/operations.md is published, then regenerate.", GENERATOR),
    # -- citetrace serve ----------------------------------------------------------------------------------
    Setting("serve_host", (names.ENV_SERVE_HOST,), TEXT, "127.0.0.1", "Address to bind (OTLP and metrics).",
            SERVE, "host"),
    Setting("serve_port", (names.ENV_SERVE_PORT,), PORT, 4319, "OTLP/HTTP port (POST /v1/traces, GET /healthz).",
            SERVE, "port"),
    Setting("serve_metrics_port", (names.ENV_SERVE_METRICS_PORT,), PORT, 9464, "Prometheus /metrics port.",
            SERVE, "metrics_port"),
    Setting("serve_token", (names.ENV_SERVE_TOKEN,), _text("a token"), None,
            "Bearer token required on POST /v1/traces (prefer the variable: flags show up in ps).", SERVE, "token"),
    Setting("serve_grace_seconds", (names.ENV_SERVE_GRACE_SECONDS,), SECONDS, 2.0,
            "Seconds after a run's root span arrives before its trace is finalised.", SERVE, "grace_seconds"),
    Setting("serve_max_body_bytes", (names.ENV_SERVE_MAX_BODY_BYTES,), POSITIVE, 16 * MIB,
            "Largest request body, before and after gzip decompression (413 above).", SERVE, "max_body_bytes"),
    Setting("serve_store", (names.ENV_SERVE_STORE, names.ENV_STORE), _text("a store URI"), names.STORE_DEFAULT_URI,
            "Run store that receives each run's summary (sqlite:///path.db, postgresql://user@host/db or "
            "memory://).", SERVE_CLI, "store"),
    Setting("serve_drain_seconds", (names.ENV_SERVE_DRAIN_SECONDS,), SECONDS, 0.0,
            "After SIGTERM, keep /metrics up this long so a last scrape sees the final counts.", SERVE,
            "drain_seconds"),
    Setting("serve_max_roots_per_trace", (names.ENV_SERVE_MAX_ROOTS_PER_TRACE,), POSITIVE, 16,
            "invoke_agent roots (runs) per trace; more are refused (partial success).", SERVE, "max_roots_per_trace"),
    Setting("serve_max_urls_per_trace", (names.ENV_SERVE_MAX_URLS_PER_TRACE,), POSITIVE, 20_000,
            "URLs per trace (results, url.full, citations); a span past it is refused.", SERVE, "max_urls_per_trace"),
    Setting("serve_max_held_bytes", (names.ENV_SERVE_MAX_HELD_BYTES,), POSITIVE, 256 * MIB,
            "Bytes all traces in flight hold together (estimate); the least recent is evicted above it.", SERVE,
            "max_held_bytes"),
    Setting("serve_request_timeout", (names.ENV_SERVE_REQUEST_TIMEOUT,), SECONDS, 30.0,
            "Seconds a client has for one whole request, headers and body (408 after).", SERVE, "request_timeout"),
    Setting("serve_max_connections", (names.ENV_SERVE_MAX_CONNECTIONS,), POSITIVE, 1024,
            "Open connections; past it the longest-waiting incomplete or idle one is closed.", SERVE,
            "max_connections"),
    Setting("serve_max_inflight_bytes", (names.ENV_SERVE_MAX_INFLIGHT_BYTES,), POSITIVE, 64 * MIB,
            "Request-body bytes held at once over all connections (503 + Retry-After above).", SERVE,
            "max_inflight_bytes"),
    Setting("serve_max_decode_bytes", (names.ENV_SERVE_MAX_DECODE_BYTES,), POSITIVE, 32 * MIB,
            "Decompressed bytes being decoded at once (503 + Retry-After above).", SERVE, "max_decode_bytes"),
)

_SERVE_READS = ("max_traces", "max_spans_per_trace", "trace_ttl_seconds")
"""Agent settings ``citetrace serve`` also takes as flags (the summary's bounds)."""

_BY_NAME = {s.name: s for s in SETTINGS}


def by_name(name: str) -> Setting:
    """The row called ``name`` (KeyError for an unknown one)."""
    return _BY_NAME[name]


def default(name: str) -> Any:
    """The default of the row called ``name``: how ``Settings``, ``Thresholds`` and ``ServeOptions`` get theirs."""
    return _BY_NAME[name].default


def from_env(name: str, environ: Mapping[str, str]) -> Any:
    """The value of the row called ``name`` for a command that writes files (``GENERATOR`` rows): its
    variable parsed by the row's kind, else the default. A bad value raises ``ValueError`` naming the
    variable and what it accepts: a file written with a guessed value would be worse than no file."""
    row = _BY_NAME[name]
    for var in row.env:
        raw = environ.get(var)
        if raw is not None:
            try:
                return row.kind.parse(raw)
            except ValueError as exc:
                raise ValueError(f"{var}: {exc}") from None
    return row.default
