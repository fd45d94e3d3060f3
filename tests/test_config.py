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
        # an infinite TTL keeps every unfinished trace, an infinite exit wait can hang exit: not numbers here
        (names.ENV_TRACE_TTL_SECONDS, "inf", "trace_ttl_seconds", 600.0),
        (names.ENV_STORE_EXIT_WAIT_SECONDS, "Infinity", "store_exit_wait_seconds", 5.0),
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
    with pytest.raises(ValueError, match="trace_ttl_seconds"):
        load_settings(environ={}, trace_ttl_seconds=float("inf"))


def test_env_flag() -> None:
    """env_flag reads true/false and treats garbage as false."""
    assert env_flag("X", {"X": "TRUE"}) is True
    assert env_flag("X", {"X": "0"}) is False
    assert env_flag("X", {}) is False
    assert env_flag("X", {"X": "perhaps"}) is False


@pytest.mark.parametrize(("raw", "disabled"), [("true", True), ("TRUE", True), (" True ", True), ("false", False),
                                               ("", False)])
def test_otel_sdk_disabled_is_read_as_the_sdk_reads_it(raw: str, disabled: bool) -> None:
    """OTEL_SDK_DISABLED: only ``true`` (any case) disables, as in the OpenTelemetry SDK."""
    assert load_settings(environ={names.ENV_OTEL_SDK_DISABLED: raw}).sdk_disabled is disabled


@pytest.mark.parametrize("raw", ["1", "yes", "on"])
def test_otel_sdk_disabled_other_values_leave_it_on_with_one_line(raw: str, caplog: pytest.LogCaptureFixture) -> None:
    """``1``/``yes`` do not disable the SDK, so they do not disable citetrace either; one line says so."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        assert load_settings(environ={names.ENV_OTEL_SDK_DISABLED: raw}).sdk_disabled is False
    lines = [r.getMessage() for r in caplog.records if names.ENV_OTEL_SDK_DISABLED in r.getMessage()]
    assert len(lines) == 1 and repr(raw) in lines[0] and "only true counts" in lines[0]


@pytest.mark.parametrize(("raw", "on"), [("SPAN_ONLY", True), ("span_and_event", True), ("true", True),
                                         ("NO_CONTENT", False), ("EVENT_ONLY", False), ("False", False)])
def test_genai_capture_content_takes_util_genai_values(raw: str, on: bool) -> None:
    """OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: util-genai's modes (content on spans or not) and true/false."""
    assert load_settings(environ={names.ENV_GENAI_CAPTURE_CONTENT: raw}).capture_content is on


def test_a_bad_genai_value_names_the_variable_and_the_accepted_values(caplog: pytest.LogCaptureFixture) -> None:
    """A value util-genai does not know is one warning line with the variable and every accepted value; off."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        assert load_settings(environ={names.ENV_GENAI_CAPTURE_CONTENT: "ALWAYS"}).capture_content is False
    (line,) = [r.getMessage() for r in caplog.records if names.ENV_GENAI_CAPTURE_CONTENT in r.getMessage()]
    assert "\n" not in line and "'ALWAYS'" in line
    assert all(mode in line for mode in ("SPAN_ONLY", "SPAN_AND_EVENT", "NO_CONTENT", "EVENT_ONLY"))


def test_every_setting_is_one_row_of_the_table() -> None:
    """Settings, Thresholds and ServeOptions have exactly the table's fields, with the table's defaults, and
    every variable is a name from names.py."""
    import dataclasses

    from citetrace import _settings
    from citetrace.serve._service import ServeOptions
    from citetrace.summary import Thresholds

    agent = {s.field for s in _settings.SETTINGS if s.owner == _settings.AGENT}
    assert {f.name for f in dataclasses.fields(Settings)} == agent
    serve = {s.field: s.default for s in _settings.SETTINGS if s.owner == _settings.SERVE}
    assert {f.name: f.default for f in dataclasses.fields(ServeOptions)} == serve
    for f in dataclasses.fields(Thresholds):
        assert f.default == _settings.by_name(f.name).default
    env_names = {v for k, v in vars(names).items() if k.startswith("ENV_")}
    assert {v for s in _settings.SETTINGS for v in s.env} <= env_names
    assert len({s.name for s in _settings.SETTINGS}) == len(_settings.SETTINGS)


def test_the_settings_reference_is_generated_from_the_table() -> None:
    """docs/settings.md is exactly what ``python -m citetrace._settingsdoc`` prints (regenerate it after a change)."""
    from pathlib import Path

    from citetrace import _settings, _settingsdoc

    doc = Path(__file__).resolve().parents[1] / "docs" / "settings.md"
    assert doc.read_text() == _settingsdoc.reference()
    for row in _settings.SETTINGS:
        assert all(f"`{var}`" in doc.read_text() for var in row.env)


def test_a_bad_value_is_one_line_naming_what_is_accepted(caplog: pytest.LogCaptureFixture) -> None:
    """Every kind of bad value warns in one line naming the variable and the accepted values."""
    with caplog.at_level(logging.WARNING, logger="citetrace"):
        load_settings(environ={names.ENV_SAMPLING: "sometimes", names.ENV_MAX_TRACES: "0"})
    lines = [r.getMessage() for r in caplog.records]
    assert any(names.ENV_SAMPLING in x and "one of collector, embedded" in x for x in lines)
    assert any(names.ENV_MAX_TRACES in x and "a whole number > 0" in x for x in lines)
    assert all("\n" not in x for x in lines)
