"""README.md and docs/ as a new user follows them: every relative link and #anchor leads somewhere, every
`citetrace COMMAND --flag` they show is a flag of that command, and every choice list they give for an option
is the command's own."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Iterator

from test_cli_help import COMMANDS

from citetrace import names

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").rglob("*.md")),
         ROOT / "collector" / "README.md", ROOT / "benchmarks" / "README.md"]
SHOWN = [*PAGES, *sorted((ROOT / "examples").rglob("*.yml")), ROOT / "Dockerfile", ROOT / "docker-compose.yml",
         ROOT / "docker-compose.fleet.yml"]
_FENCE = re.compile(r"```.*?```", re.S)
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the page's headings (lower case, punctuation dropped, spaces to hyphens)."""
    out = set()
    for line in _FENCE.sub("", page.read_text(encoding="utf-8")).splitlines():
        heading = re.match(r"#+\s+(.*)", line)
        if heading:
            out.add(re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-"))
    return out


def _links() -> Iterator[tuple[Path, str]]:
    for page in PAGES:
        text = re.sub(r"`[^`\n]*`", "", _FENCE.sub("", page.read_text(encoding="utf-8")))  # code is not a link
        for link in _LINK.findall(text):
            if not re.match(r"[a-z][a-z0-9+.-]*:", link) and link != "...":  # https: is not checked offline;
                # "..." is the placeholder of an example citation ("[BLS, 2024](...)")
                yield page, link


def test_every_relative_link_and_anchor_exists() -> None:
    """Each `[text](path#anchor)` in the README and docs names a file of the repository and, for a page,
    one of its headings."""
    broken = []
    for page, link in _links():
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists():
            broken.append(f"{page.relative_to(ROOT)}: {link} (no such file)")
        elif anchor and target.suffix == ".md" and anchor.lower() not in _anchors(target):
            broken.append(f"{page.relative_to(ROOT)}: {link} (no such heading)")
    assert broken == []


PARSERS = {" ".join(path): parser for path, parser in COMMANDS}
"""``"review sample"`` -> its parser, for every command and nested action."""
_COMMAND = re.compile(r"citetrace ((?:[a-z][a-z-]*)(?: [a-z][a-z-]*)?)"
                      r"((?: +(?: \| (?=--)|[^`|;#&)\n]|\|(?=[a-z0-9]))*)?)")
"""``citetrace COMMAND[ ACTION] ...`` up to the end of its code span, a comment, a table cell, a pipe or
``;``/``&&``; a ``|`` before a word is a choice list (``--set shipped|hard``), `` | --`` a usage alternative."""


def _shown_commands() -> Iterator[tuple[Path, str, str]]:
    """(page, command, the rest of the line) for every ``citetrace COMMAND ...`` the pages show."""
    for page in SHOWN:
        for line in page.read_text(encoding="utf-8").splitlines():
            for match in _COMMAND.finditer(line):
                words, rest = match.group(1).split(), match.group(2)
                command = " ".join(words) if " ".join(words) in PARSERS else words[0]
                if command in PARSERS:
                    yield page, command, (rest if command != words[0] else " ".join(words[1:]) + rest)


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {flag: action for action in parser._actions for flag in action.option_strings}


def test_every_flag_the_docs_show_is_known_to_its_command() -> None:
    """A `--flag` after `citetrace COMMAND` in the README, docs, examples and compose files is an option of
    that command (a renamed or dropped flag fails here, not for the user who pastes it)."""
    shown = list(_shown_commands())
    assert len(shown) > 50  # the walk reads the pages: eval, gate, bench, demo, view ... are all shown
    unknown = sorted({f"{page.relative_to(ROOT)}: citetrace {command} {flag}" for page, command, rest in shown
                      for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", rest)
                      if flag not in _options(PARSERS[command])})
    assert unknown == []


def test_the_choices_a_usage_line_lists_are_the_commands_own() -> None:
    """A usage synopsis that lists an option's values in brackets (`[--set shipped|hard|...]`,
    `[--judge auto|deterministic|llm|nli]`), its default among them, lists exactly the option's choices. Prose
    names subsets on purpose (`--set shipped|hard|heldout|heldout2`, `[--set hard|heldout]`: the sets a figure is
    about), so only a bracketed list with the default counts."""
    checked, wrong = 0, []
    for page, command, rest in _shown_commands():
        options = _options(PARSERS[command])
        for flag, values in re.findall(r"\[(?:[^\]\[]*\| )?(--[a-z-]+) ([a-z0-9-]+(?:\|[a-z0-9-]+)+)\]", rest):
            action = options.get(flag)
            if action is None or not action.choices or action.default not in values.split("|"):
                continue  # a bracketed subset without the default: the sets a figure is about
            checked += 1
            if set(values.split("|")) != set(action.choices):
                wrong.append(f"{page.relative_to(ROOT)}: citetrace {command} [{flag} {values}] "
                             f"(choices: {'|'.join(sorted(action.choices))})")
    assert checked >= 3 and wrong == []


def test_every_variable_the_docs_name_is_in_names_and_every_one_there_is_documented() -> None:
    """The CITETRACE_ variables the README, docs, examples and compose files name are names.py's (a
    misspelt or retired one fails here), and every variable names.py defines is explained in some page."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in SHOWN)
    documented = set(re.findall(r"\b(CITETRACE_[A-Z0-9_]*[A-Z0-9])\b", text))
    defined = {v for k, v in vars(names).items() if k.startswith("ENV_") and isinstance(v, str)}
    assert documented - defined == set()
    assert {v for v in defined if v.startswith("CITETRACE_")} - documented == set()
    assert {v for v in defined if v.startswith("OTEL_")} - set(re.findall(r"\b(OTEL_[A-Z0-9_]*[A-Z0-9])\b", text)) \
        == set()
