"""Help text: every ``citetrace`` subcommand has a description and every option and argument has help that
states its default when it has one."""

from __future__ import annotations

import argparse
from typing import Iterator

import pytest

from citetrace.cli import build_parser


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every (command path, parser), nested subcommands included."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _commands(sub, (*path, name))


COMMANDS = list(_commands(build_parser()))


def test_every_command_is_found() -> None:
    """The walk sees the commands the issue names, nested ones included."""
    found = {" ".join(path) for path, _ in COMMANDS}
    assert {"eval", "gate", "baseline", "judge-eval", "serve", "demo", "review sample", "ledger audit"} <= found


@pytest.mark.parametrize(("path", "parser"), COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_command_has_description_and_every_option_help(path: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
    """`citetrace X --help` says what X does, what each option is, and each option's default."""
    assert parser.description and len(parser.description) > 10, path
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), (path, name)
        shown = formatter._get_help_string(action) or ""
        if action.option_strings and action.default not in (None, False, "", []) \
                and action.default is not argparse.SUPPRESS:
            assert "default" in shown, (path, name, action.default)


def test_defaults_appear_in_the_rendered_help() -> None:
    """The numbers the issue named show up in `baseline --help` and `gate --help` as rendered."""
    parsers = dict((" ".join(p), sub) for p, sub in COMMANDS)
    baseline = parsers["baseline"].format_help()
    assert "(default 3)" in baseline and "(default 0.02)" in baseline and "(default: 365)" in baseline
    gate = parsers["gate"].format_help()
    assert "--report FILE" in gate and "instead of the recorded answer" in gate


@pytest.mark.parametrize("group", sorted({path[0] for path, _ in COMMANDS if len(path) > 1}))
def test_a_group_without_its_action_names_the_actions_not_a_variable(group: str) -> None:
    """`citetrace review` with no action says ACTION and lists the actions; it never shows an internal
    destination name such as `review_command`."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "citetrace", group], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "_command" not in out.stdout + out.stderr and "ACTION" in out.stdout + out.stderr
