"""Settings: argument beats environment beats default; bad env values warn and fall back; bad arguments raise."""

from __future__ import annotations

import logging

import pytest

from citetrace import names
from citetrace.config import Settings, env_flag, load_settings


def test_defaults() -> None:
    """With nothing set, the documented defaults apply."""
    s = load_settings(environ={})
    assert s == Settings()
    assert (s.capture_content, s.empty_fetch_chars, s.max_urls, s.sample_percent) == (False, 200, 50, 2.0)


def test_precedence() -> None:
    """An argument beats the environment, which beats the default."""
    env = {names.ENV_MAX_URLS: "7", names.ENV_CAPTURE_CONTENT: "true"}
    assert load_settings(environ=env).max_urls == 7
    assert load_settings(environ=env, max_urls=3).max_urls == 3
    assert load_settings(environ=env).capture_content is True
    assert load_settings(environ=env, capture_content=False).capture_content is False


def test_citetrace_switch_beats_genai_switch() -> None:
    """CITETRACE_CAPTURE_CONTENT wins over the util-genai variable; the latter is the fallback."""
    assert load_settings(environ={names.ENV_GENAI_CAPTURE_CONTENT: "true"}).capture_content is True
    both = {names.ENV_CAPTURE_CONTENT: "false", names.ENV_GENAI_CAPTURE_CONTENT: "true"}
    assert load_settings(environ=both).capture_content is False


@pytest.mark.parametrize(
    ("var", "raw", "field", "default"),
    [
        (names.ENV_MAX_URLS, "lots", "max_urls", 50),
        (names.ENV_SAMPLE_PERCENT, "250", "sample_percent", 2.0),
        (names.ENV_CAPTURE_CONTENT, "maybe", "capture_content", False),
        (names.ENV_METRICS, "prometheus", "metrics", "embedded"),
        (names.ENV_TRACE_TTL_SECONDS, "-1", "trace_ttl_seconds", 600.0),
    ],
)
def test_bad_env_warns_and_falls_back(
    var: str, raw: str, field: str, default: object, caplog: pytest.LogCaptureFixture
) -> None:
    """A bad environment value logs a warning naming the variable and keeps the default."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        s = load_settings(environ={var: raw})
    assert getattr(s, field) == default
    assert var in caplog.text and repr(raw) in caplog.text


def test_bad_arguments_raise() -> None:
    """Unknown or ill-typed arguments are programmer errors and raise, naming the setting."""
    with pytest.raises(TypeError, match="colour"):
        load_settings(environ={}, colour="red")
    with pytest.raises(ValueError, match="max_urls"):
        load_settings(environ={}, max_urls="ten")
    with pytest.raises(ValueError, match="sample_percent"):
        load_settings(environ={}, sample_percent=101)
    with pytest.raises(ValueError, match="metrics"):
        load_settings(environ={}, metrics="both")


def test_env_flag() -> None:
    """env_flag reads true/false and treats garbage as false."""
    assert env_flag("X", {"X": "TRUE"}) is True
    assert env_flag("X", {"X": "0"}) is False
    assert env_flag("X", {}) is False
    assert env_flag("X", {"X": "perhaps"}) is False
