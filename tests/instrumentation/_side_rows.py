"""Run inside a side venv (``.venv-crewai``, ``.venv-gptr``, ``.venv-storm``): the same row checks as
``test_instrumentor`` for the rows of the distributions named on the command line, whose libraries only that
venv holds. Prints one JSON line: the keys checked, or the first problem.

Usage: ``python _side_rows.py DIST [DIST...]``. ``tests/instrumentation/agents/scripted`` goes first on
``sys.path`` (the scripted embedding model knowledge-storm imports, see there).
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "agents" / "scripted"))

from citetrace.instrumentation import CiteTraceInstrumentor  # noqa: E402
from citetrace.instrumentation._patcher import version_supported  # noqa: E402
from citetrace.instrumentation._table import ROWS  # noqa: E402
from citetrace.instrumentation.package import SUPPORTED  # noqa: E402


def _raw(row_module: str, target: str) -> object:
    parent: object = importlib.import_module(row_module)
    *path, attr = target.split(".")
    for part in path:
        parent = getattr(parent, part)
    return vars(parent)[attr]


def main(dists: set[str]) -> dict[str, object]:
    rows = [row for row in ROWS if row.dist in dists]
    problems = [d for d in dists if not version_supported(d, SUPPORTED)]
    originals = {row.key: _raw(row.module, row.target) for row in rows}
    problems += [key for key, raw in originals.items() if not callable(raw)]
    instrumentor = CiteTraceInstrumentor()
    instrumentor.instrument(tools="")
    try:
        for row in rows:
            current = _raw(row.module, row.target)
            if current is originals[row.key] or getattr(current, "__wrapped__", None) is not originals[row.key]:
                problems.append(f"{row.key} not wrapped exactly once")
    finally:
        instrumentor.uninstrument()
    problems += [key for key, raw in originals.items() if _raw(*key.split(":")) is not raw]
    return {"checked": sorted(originals), "problems": problems}


if __name__ == "__main__":
    print(json.dumps(main(set(sys.argv[1:]))))
