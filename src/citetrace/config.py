"""One frozen settings object, resolved argument > environment variable > default, from the one table of
settings (``citetrace._settings``).

A bad environment value must never stop an agent from starting, so it warns once and falls back to the
default; a bad *argument* is a programmer error at setup and raises, naming the problem.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any, Mapping

from citetrace import _settings

__all__ = ["Settings", "load_settings", "env_flag"]

_log = logging.getLogger("citetrace")
_d = _settings.default


@dataclass(frozen=True)
class Settings:
    """Everything an agent can be told; each default and meaning is the ``_settings`` row of the same name."""

    capture_content: bool = _d("capture_content")
    store_uri: str = _d("store_uri")
    store_lock_wait_ms: int = _d("store_lock_wait_ms")
    store_queue_max: int = _d("store_queue_max")
    store_exit_wait_seconds: float = _d("store_exit_wait_seconds")
    metrics: str = _d("metrics")
    sampling: str = _d("sampling")
    sampling_scope: str = _d("sampling_scope")
    metrics_port: int | None = _d("metrics_port")
    empty_fetch_chars: int = _d("empty_fetch_chars")
    max_urls: int = _d("max_urls")
    sample_percent: float = _d("sample_percent")
    sample_salt: str = _d("sample_salt")
    max_searches: int = _d("max_searches")
    max_failed_reads: int = _d("max_failed_reads")
    max_traces: int = _d("max_traces")
    max_spans_per_trace: int = _d("max_spans_per_trace")
    trace_ttl_seconds: float = _d("trace_ttl_seconds")
    max_tool_names: int = _d("max_tool_names")
    service_name: str | None = _d("service_name")
    sdk_disabled: bool = _d("sdk_disabled")
    record_responses: bool = _d("record_responses")
    replay: str | None = _d("replay")
    replay_miss: str = _d("replay_miss")
    mcp_tools: str | None = _d("mcp_tools")
    fetch_rules: str | None = _d("fetch_rules")

    @property
    def sampling_mode(self) -> str:
        """Where spans are dropped: ``collector`` (default: export all) or ``embedded`` (see ``CITETRACE_SAMPLING``)."""
        return self.sampling


_ROWS: dict[str, tuple[_settings.Setting, ...]] = {}
for _row in _settings.SETTINGS:
    if _row.owner == _settings.AGENT:
        _ROWS[_row.field] = (*_ROWS.get(_row.field, ()), _row)
"""Settings field -> its rows, in order: the first variable that is set (to a good value) wins."""

_warned: set[tuple[str, str]] = set()


def _warn_once(var: str, raw: str, problem: str) -> None:
    if (var, raw) in _warned:
        return
    _warned.add((var, raw))
    _log.warning("citetrace: ignoring %s=%r (%s); using the default", var, raw, problem)


def env_flag(var: str, environ: Mapping[str, str] | None = None) -> bool:
    """True when ``var`` is set to a true value (``_settings.BOOL``); a bad value warns once and counts as false."""
    env = os.environ if environ is None else environ
    raw = env.get(var)
    if raw is None:
        return False
    try:
        return bool(_settings.BOOL.parse(raw))
    except ValueError as exc:
        _warn_once(var, raw, str(exc))
        return False


def _from_env(rows: tuple[_settings.Setting, ...], env: Mapping[str, str]) -> tuple[bool, Any]:
    """(found, value) from the first of the rows' variables that is set to a value its row accepts."""
    for row in rows:
        for var in row.env:
            raw = env.get(var)
            if raw is None:
                continue
            try:
                return True, row.kind.parse(raw)
            except ValueError as exc:
                _warn_once(var, raw, str(exc))
    return False, None


def load_settings(environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
    """Resolve settings: keyword argument, then environment variable, then default.

    Unknown keyword names raise ``TypeError``; values of the wrong kind raise ``ValueError`` naming the
    setting and what it accepts.
    """
    env = os.environ if environ is None else environ
    unknown = set(overrides) - set(_ROWS)
    if unknown:
        raise TypeError(f"unknown citetrace setting(s): {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for field_name, rows in _ROWS.items():
        value = overrides.get(field_name)
        if value is not None:
            _check_override(rows[0], value)
            values[field_name] = value
            continue
        found, value = _from_env(rows, env)
        if found:
            values[field_name] = value
    return Settings(**values)


def _check_override(row: _settings.Setting, value: Any) -> None:
    try:
        ok = row.kind.check(value)
    except ValueError as exc:
        raise ValueError(f"citetrace setting {row.field}: {exc}") from None
    if not ok:
        raise ValueError(f"citetrace setting {row.field}={value!r}: expected {row.kind.accepts}")
