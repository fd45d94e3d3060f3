"""docs/coverage.md: generated from the wrap table and the HTTP endpoint rules, and equal to what is committed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citetrace.instrumentation import _coverage
from citetrace.instrumentation._http._endpoints import ENDPOINTS, RequestInfo
from citetrace.instrumentation._table import ROWS
from citetrace.instrumentation._table_types import Patch
from citetrace.instrumentation.package import SUPPORTED

ROOT = Path(__file__).resolve().parents[2]


def _line_of(text: str, needle: str) -> str:
    lines = [line for line in text.splitlines() if needle in line]
    assert lines, f"{needle} is not in docs/coverage.md"
    return lines[0]


def test_committed_file_equals_generator_output() -> None:
    """The committed docs/coverage.md is exactly what the tables generate (regenerate after adding a row)."""
    assert (ROOT / _coverage.PATH).read_text(encoding="utf-8") == _coverage.render()
    assert _coverage.main(["--check", "--root", str(ROOT)]) == 0


def test_check_reports_a_hand_edited_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A copy with one edited cell fails ``--check`` and the message names the file and the fix."""
    (tmp_path / "docs").mkdir()
    (tmp_path / _coverage.PATH).write_text(_coverage.render().replace("| search |", "| fetch |", 1), encoding="utf-8")
    assert _coverage.main(["--check", "--root", str(tmp_path)]) == 1
    assert "stale: docs/coverage.md" in capsys.readouterr().err
    assert not _coverage.check(tmp_path / "missing")


def test_check_outside_the_repository_says_where_it_looked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--check with no docs/coverage.md under the root is exit 2 naming the root, not a false "stale"."""
    assert _coverage.main(["--check", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"no docs/coverage.md under {tmp_path}") and "stale" not in err


def test_every_row_is_listed_with_its_versions_and_kind() -> None:
    """Each wrap-table method appears on a line with its library's version range, and tool rows with their kind."""
    text = _coverage.render()
    for row in ROWS:
        line = _line_of(text, f"`{row.module}.{row.target}`")
        assert (SUPPORTED[row.dist] if row.dist else "standard library") in line
        if isinstance(row, Patch):
            assert f"| {row.spec.kind} |" in line


def test_what_is_read_follows_each_tool_row() -> None:
    """Page text in results and instance state are claimed exactly for the rows whose hooks provide them."""
    text = _coverage.render()
    for row in (r for r in ROWS if isinstance(r, Patch)):
        line = _line_of(text, f"`{row.module}.{row.target}`")
        assert ("page text that comes with the results" in line) == (row.spec.result_pages is not None)
        assert ("(from the instance)" in line) == row.pass_instance


def test_every_endpoint_is_listed_with_a_query_source_that_works() -> None:
    """Each endpoint has a line, and each query field it names really yields the query through the rule."""
    text = _coverage.render()
    for e in ENDPOINTS:
        line = _line_of(text, f"`{e.host}{e.path}` | {e.method} |")  # one host and path may answer two methods
        assert (e.reads or "result URLs") in line
        params = re.findall(r"`(\w+)` URL parameter", line)
        body = re.findall(r"`(\w+)` in the JSON body", line)
        assert params or body
        for key in params:
            assert e.query(RequestInfo(e.method, e.host, e.path, {key: "probe q"}, {})) == "probe q"
        for key in body:
            assert e.query(RequestInfo(e.method, e.host, e.path, {}, {key: "probe q"})) == "probe q"
