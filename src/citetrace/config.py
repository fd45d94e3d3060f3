"""One frozen settings object, resolved argument > environment variable > default.

A bad environment value must never stop an agent from starting, so it warns once and falls back to the
default; a bad *argument* is a programmer error at setup and raises, naming the problem.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

from citetrace import _fetchrules, _toolrules, names

__all__ = ["Settings", "load_settings", "env_flag"]

_log = logging.getLogger("citetrace")
_T = TypeVar("_T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclass(frozen=True)
class Settings:
    """Everything citetrace can be told, with its default."""

    capture_content: bool = False
    store_uri: str = names.STORE_DEFAULT_URI
    store_lock_wait_ms: int = 100
    store_queue_max: int = 10_000
    store_exit_wait_seconds: float = 5.0
    metrics: str = "embedded"
    sampling: str = names.SAMPLING_COLLECTOR
    sampling_scope: str = names.SCOPE_CITETRACE
    metrics_port: int | None = None
    empty_fetch_chars: int = 200
    max_urls: int = 50
    sample_percent: float = 2.0
    sample_salt: str = "citetrace"
    max_searches: int = 10
    max_failed_reads: int = 1
    max_traces: int = 10_000
    max_spans_per_trace: int = 1_000
    trace_ttl_seconds: float = 600.0
    max_tool_names: int = 50
    service_name: str | None = None
    sdk_disabled: bool = False
    record_responses: bool = False
    replay: str | None = None
    replay_miss: str = "error"
    mcp_tools: str | None = None
    fetch_rules: str | None = None

    @property
    def sampling_mode(self) -> str:
        """Where spans are dropped: ``collector`` (default: export all) or ``embedded`` (see ``CITETRACE_SAMPLING``)."""
        return self.sampling


def _parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"expected true or false, got {raw!r}")


def _parse_positive_int(raw: str) -> int:
    value = int(raw.strip())
    if value < 0:
        raise ValueError(f"expected a non-negative integer, got {raw!r}")
    return value


def _parse_percent(raw: str) -> float:
    value = float(raw.strip())
    if not 0.0 <= value <= 100.0:
        raise ValueError(f"expected a percentage between 0 and 100, got {raw!r}")
    return value


def _parse_positive_float(raw: str) -> float:
    value = float(raw.strip())
    if value <= 0:
        raise ValueError(f"expected a positive number, got {raw!r}")
    return value


def _parse_metrics(raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("embedded", "off"):
        raise ValueError(f"expected 'embedded' or 'off', got {raw!r}")
    return value


def _one_of(*allowed: str) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {raw!r}")
        return value

    return parse


def _parse_miss(raw: str) -> str:
    value = raw.strip().lower()
    if value not in ("error", "passthrough", "empty"):
        raise ValueError(f"expected 'error', 'passthrough' or 'empty', got {raw!r}")
    return value


def _parse_port(raw: str) -> int:
    value = int(raw.strip())
    if not 0 <= value <= 65535:
        raise ValueError(f"expected a TCP port, got {raw!r}")
    return value


def _parse_nonnegative_float(raw: str) -> float:
    value = float(raw.strip())
    if value < 0:
        raise ValueError(f"expected a number >= 0, got {raw!r}")
    return value


def _nonempty(raw: str) -> str:
    if not raw.strip():
        raise ValueError("expected a non-empty value")
    return raw.strip()


# field -> (env var(s), parser). The first variable that is set wins.
_ENV: dict[str, tuple[tuple[str, ...], Callable[[str], Any]]] = {
    "capture_content": ((names.ENV_CAPTURE_CONTENT, names.ENV_GENAI_CAPTURE_CONTENT), _parse_bool),
    "store_uri": ((names.ENV_STORE,), _nonempty),  # its form is checked where it is used (agent_store, CLI)
    "store_lock_wait_ms": ((names.ENV_STORE_LOCK_WAIT_MS,), _parse_positive_int),
    "store_queue_max": ((names.ENV_STORE_QUEUE_MAX,), _parse_positive_int),
    "store_exit_wait_seconds": ((names.ENV_STORE_EXIT_WAIT_SECONDS,), _parse_nonnegative_float),
    "metrics": ((names.ENV_METRICS,), _parse_metrics),
    "sampling": ((names.ENV_SAMPLING,), _one_of(*names.SAMPLING_MODES)),
    "sampling_scope": ((names.ENV_SAMPLING_SCOPE,), _one_of(*names.SAMPLING_SCOPES)),
    "metrics_port": ((names.ENV_METRICS_PORT,), _parse_port),
    "empty_fetch_chars": ((names.ENV_EMPTY_FETCH_CHARS,), _parse_positive_int),
    "max_urls": ((names.ENV_MAX_URLS,), _parse_positive_int),
    "sample_percent": ((names.ENV_SAMPLE_PERCENT,), _parse_percent),
    "sample_salt": ((names.ENV_SAMPLE_SALT,), _nonempty),
    "max_searches": ((names.ENV_MAX_SEARCHES,), _parse_positive_int),
    "max_failed_reads": ((names.ENV_MAX_FAILED_READS,), _parse_positive_int),
    "max_traces": ((names.ENV_MAX_TRACES,), _parse_positive_int),
    "max_spans_per_trace": ((names.ENV_MAX_SPANS_PER_TRACE,), _parse_positive_int),
    "trace_ttl_seconds": ((names.ENV_TRACE_TTL_SECONDS,), _parse_positive_float),
    "max_tool_names": ((names.ENV_MAX_TOOL_NAMES,), _parse_positive_int),
    "service_name": ((names.ENV_OTEL_SERVICE_NAME,), _nonempty),
    "sdk_disabled": ((names.ENV_OTEL_SDK_DISABLED,), _parse_bool),
    "record_responses": ((names.ENV_RECORD_RESPONSES,), _parse_bool),
    "replay": ((names.ENV_REPLAY,), _nonempty),
    "replay_miss": ((names.ENV_REPLAY_MISS,), _parse_miss),
    "mcp_tools": ((names.ENV_MCP_TOOLS,), _toolrules.normalise),
    "fetch_rules": ((names.ENV_FETCH_RULES,), _fetchrules.normalise),
}

_warned: set[tuple[str, str]] = set()


def _warn_once(var: str, raw: str, problem: str) -> None:
    if (var, raw) in _warned:
        return
    _warned.add((var, raw))
    _log.warning("citetrace: ignoring %s=%r (%s); using the default", var, raw, problem)


def env_flag(var: str, environ: Mapping[str, str] | None = None) -> bool:
    """True when ``var`` is set to a true value; a bad value warns once and counts as false."""
    env = os.environ if environ is None else environ
    raw = env.get(var)
    if raw is None:
        return False
    try:
        return _parse_bool(raw)
    except ValueError as exc:
        _warn_once(var, raw, str(exc))
        return False


def load_settings(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Resolve settings: keyword argument, then environment variable, then default.

    Unknown keyword names raise ``TypeError``; values of the wrong kind raise ``ValueError``.
    """
    env = os.environ if environ is None else environ
    known = {f.name: f for f in dataclasses.fields(Settings)}
    unknown = set(overrides) - set(known)
    if unknown:
        raise TypeError(f"unknown citetrace setting(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for field_name, (variables, parser) in _ENV.items():
        if field_name in overrides and overrides[field_name] is not None:
            continue
        for var in variables:
            raw = env.get(var)
            if raw is None:
                continue
            try:
                values[field_name] = parser(raw)
            except ValueError as exc:
                _warn_once(var, raw, str(exc))
                continue
            break
    for field_name, value in overrides.items():
        if value is None:
            continue
        _check_override(field_name, value)
        values[field_name] = value
    return Settings(**values)


def _check_override(field_name: str, value: Any) -> None:
    default = getattr(Settings(), field_name)
    expected: type | tuple[type, ...]
    if isinstance(default, bool):
        expected = bool
    elif isinstance(default, float):
        expected = (int, float)
    elif isinstance(default, int) or field_name == "metrics_port":
        expected = int
    else:
        expected = str
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise ValueError(f"citetrace setting {field_name}={value!r}: expected {expected}")
    if field_name == "sampling" and value not in names.SAMPLING_MODES:
        raise ValueError(f"citetrace setting sampling={value!r}: expected one of {names.SAMPLING_MODES}")
    if field_name == "sampling_scope" and value not in names.SAMPLING_SCOPES:
        raise ValueError(f"citetrace setting sampling_scope={value!r}: expected one of {names.SAMPLING_SCOPES}")
    if field_name == "mcp_tools" and isinstance(value, str):
        try:
            _toolrules.parse_rules(value)
        except ValueError as exc:
            raise ValueError(f"citetrace setting mcp_tools: {exc}") from None
    if field_name == "fetch_rules" and isinstance(value, str):
        try:
            _fetchrules.parse_rules(value.strip())
        except ValueError as exc:
            raise ValueError(f"citetrace setting fetch_rules: {exc}") from None
    if field_name == "metrics" and value not in ("embedded", "off"):
        raise ValueError(f"citetrace setting metrics={value!r}: expected 'embedded' or 'off'")
    if field_name == "sample_percent" and not 0 <= float(value) <= 100:
        raise ValueError(f"citetrace setting sample_percent={value!r}: expected 0..100")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value < 0:
        raise ValueError(f"citetrace setting {field_name}={value!r}: must not be negative")
