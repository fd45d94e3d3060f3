"""`citetrace ...`: a thin dispatcher. Each area registers its own subcommands from a private ``_cli`` module.

Logic lives in the library; a command only parses arguments, calls it, and prints. Bad input exits with
status 2 and one line naming the problem, never a traceback: ``main`` is the one place that turns a
``CommandError``, a store problem (``StoreError``: missing, corrupted, ambiguous run id) or a missing extra
(``MissingExtra``: ``pip install 'citetrace[eval]'``) into that line, and
a reader that closes the pipe early (``citetrace show RUN | head``) into a quiet exit. Commands find their
store through ``store_uri`` (checked, naming where it came from) and ``open_store_for_reading`` (never
creates anything).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import math
import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

from citetrace import names
from citetrace._extras import MissingExtra
from citetrace._version import version

if TYPE_CHECKING:
    from citetrace.store import Store

__all__ = ["main", "build_parser", "CommandError", "fraction", "non_negative_int", "non_negative_number",
           "open_store_for_reading", "positive_int", "positive_number", "store_uri", "tcp_port"]

# Modules that define ``register(subparsers) -> None``; each adds parsers whose ``func(args) -> int`` runs.
_COMMAND_MODULES = (
    "citetrace.store._cli",
    "citetrace.demo._cli",
    "citetrace.serve._cli",
    "citetrace.eval._cli",
    "citetrace.ledger._cli",
    "citetrace.view._cli",
    "citetrace.bench._cli",
)


class CommandError(Exception):
    """A problem with the user's input: printed as one line, exit status 2."""


_MAX_WHOLE = 2**63 - 1  # SQLite's and PostgreSQL's largest integer: a larger --limit was an OverflowError traceback


def _whole(raw: str, minimum: int) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {raw!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum}, got {raw!r}")
    if value > _MAX_WHOLE:
        raise argparse.ArgumentTypeError(f"expected a whole number >= {minimum} and below 2**63, got {raw!r}")
    return value


def positive_int(raw: str) -> int:
    """argparse type: a whole number >= 1 (``--limit -5`` is an argument error, not "every run")."""
    return _whole(raw, 1)


def non_negative_int(raw: str) -> int:
    """argparse type: a whole number >= 0."""
    return _whole(raw, 0)


def _finite(raw: str, what: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {raw!r}") from None
    if not math.isfinite(value):  # float() takes "nan" and "inf": a nan band half-width passes every run
        raise argparse.ArgumentTypeError(f"expected {what}, got {raw!r}")
    return value


def positive_number(raw: str) -> float:
    """argparse type: a finite number > 0 (seconds, intervals)."""
    value = _finite(raw, "a finite number > 0")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {raw!r}")
    return value


def non_negative_number(raw: str) -> float:
    """argparse type: a finite number >= 0 (a band's half-width in standard deviations, a tolerance)."""
    value = _finite(raw, "a finite number >= 0")
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {raw!r}")
    return value


def fraction(raw: str) -> float:
    """argparse type: a rate from 0 to 1."""
    value = _finite(raw, "a number from 0 to 1")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {raw!r}")
    return value


def tcp_port(raw: str) -> int:
    """argparse type: a TCP port, 0 (any free one) to 65535."""
    if not (raw.isascii() and raw.isdigit()) or not 0 <= int(raw) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a TCP port 0..65535, got {raw!r}")
    return int(raw)


def store_uri(arg: str | None) -> str:
    """The store a command uses (``--store``, else ``CITETRACE_STORE``, else the default), checked.

    A bad URI is a ``CommandError`` naming where it came from, so ``CITETRACE_STORE=ftp://x`` fails every
    command the same way instead of being ignored.
    """
    from citetrace.store import parse_store_uri

    if arg is not None:
        source, raw = "--store", arg
    elif os.environ.get(names.ENV_STORE) is not None:
        source, raw = names.ENV_STORE, os.environ[names.ENV_STORE]
    else:
        source, raw = "default store", names.STORE_DEFAULT_URI
    try:
        return parse_store_uri(raw).uri
    except ValueError as exc:
        raise CommandError(f"{source}: {exc}") from None


def open_store_for_reading(arg: str | None) -> "Store":
    """Open the command's store read-only: a missing file is "no store at ...", never a new empty one."""
    from citetrace.store import open_existing_store

    return open_existing_store(store_uri(arg))


class _Formatter(argparse.HelpFormatter):
    """Shows an option's default when its help does not already say it (``--k``: "(default: 3.0)")."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if (action.option_strings and "default" not in text and action.default not in (None, False, "", [])
                and action.default is not argparse.SUPPRESS and not isinstance(action, argparse._VersionAction)):
            text += " (default: %(default)s)"
        return text


class _RawFormatter(_Formatter, argparse.RawDescriptionHelpFormatter):
    """``_Formatter`` for commands whose description and epilog keep their line breaks."""


class _Parser(argparse.ArgumentParser):
    """Every ``citetrace`` parser, subcommands included (argparse makes them of the parent's class), shows
    defaults the same way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        chosen = kwargs.get("formatter_class", argparse.HelpFormatter)
        kwargs["formatter_class"] = {argparse.HelpFormatter: _Formatter,
                                     argparse.RawDescriptionHelpFormatter: _RawFormatter}.get(chosen, chosen)
        super().__init__(*args, **kwargs)


def _describe(parser: argparse.ArgumentParser) -> None:
    """A subcommand without a description of its own gets its one-line help, so ``citetrace X --help`` always
    says what X does."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                text = helps.get(name)
                if not sub.description and text:
                    sub.description = f"{text[0].upper()}{text[1:]}."
                _describe(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="citetrace", description="Trace, summarize and check the citations of research-agent runs.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug output to stderr")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help="print citetrace's version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    _describe(parser)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    """``citetrace review drift``: the command and, for a group (``review``, ``ledger``), the action that ran."""
    action = getattr(args, f"{args.command.replace('-', '_')}_command", None)
    return f"citetrace {args.command}" + (f" {action}" if isinstance(action, str) else "")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    from citetrace.store import StoreError

    try:
        status = int(func(args) or 0)
        sys.stdout.flush()  # here, so that a closed pipe is met inside the try rather than at exit
        return status
    except (CommandError, StoreError, MissingExtra) as exc:
        print(f"{_command_name(args)}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader stopped early (`| head`): point stdout at devnull so the exit flush stays quiet, as the
        # Python documentation advises for SIGPIPE
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover - `python -m citetrace.cli`: use the importable module's classes
    from citetrace.cli import main as _main

    sys.exit(_main())
