"""The settings reference (docs/settings.md), made from the one table of settings (``citetrace._settings``).

``python -m citetrace._settingsdoc > docs/settings.md`` regenerates it; a test keeps the two equal.
"""

from __future__ import annotations

from typing import Any

from citetrace._settings import AGENT, GENERATOR, MIB, SERVE, SERVE_CLI, SETTINGS

__all__ = ["reference"]


def _cell(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value >= MIB and value % MIB == 0:
        return f"{value // MIB} MiB"
    return f"`{value}`"


def reference() -> str:
    """The settings reference (docs/settings.md), made from the table."""
    lines = ["# Settings reference", "",
             "Generated from `citetrace/_settings.py` by `python -m citetrace._settingsdoc > docs/settings.md` (a "
             "test keeps them equal). Do not edit by hand.", "",
             "Agent settings: a `configure()` keyword beats the variable, which beats the default. A bad variable "
             "logs one line naming it and what it accepts, and the default is used; a bad keyword raises. "
             "`citetrace serve` settings: a flag beats the variable; a bad value of either exits with status 2 "
             "and one line. Where several variables are listed, the first one set wins.", ""]
    for title, owners in (("Agent (`configure()`, the start-up hook, `@traced_tool`)", (AGENT,)),
                          ("`citetrace serve`", (SERVE, SERVE_CLI)),
                          ("`python -m citetrace._dashboards` (the generated rule files; a bad value stops it, "
                           "exit 2, nothing written)", (GENERATOR,))):
        lines += [f"## {title}", "", "| variable | setting | accepts | default | meaning |", "|---|---|---|---|---|"]
        for s in SETTINGS:
            if s.owner in owners or (owners[0] == SERVE and s.flag is not None and s.owner == AGENT):
                where = f"`{s.flag}`" if owners[0] == SERVE else (
                    f"`{s.field}=`" if owners[0] == AGENT else f"`{s.field}`")
                lines.append(f"| {', '.join(f'`{v}`' for v in s.env)} | {where} | {s.kind.accepts} | "
                             f"{_cell(s.default)} | {s.doc} |")
        lines.append("")
    lines += ["`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`: citetrace writes content only as span "
              "attributes, so `SPAN_ONLY` and `SPAN_AND_EVENT` turn it on and `NO_CONTENT` and `EVENT_ONLY` leave "
              "it off; `true`/`false` (what the non-experimental GenAI instrumentations read) mean on/off.", "",
              "`CITETRACE_MAX_TRACES` and `CITETRACE_MAX_SPANS_PER_TRACE` must be at least 1 and "
              "`CITETRACE_TRACE_TTL_SECONDS` above 0 in agents and in `serve` alike (one parser each): an agent "
              "used to accept 0 and treat it as 1, `serve` used to accept a TTL of 0.", "",
              "`OTEL_SDK_DISABLED`: only `true` disables, exactly as the OpenTelemetry SDK reads it; any other "
              "value (`1`, `yes`) leaves both the SDK and citetrace on, and citetrace says so in one line.", ""]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - its output is checked by the docs test
    print(reference(), end="")
