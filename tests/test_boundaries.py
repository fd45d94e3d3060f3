"""Package boundaries: no package imports another package's private module, except its explicit ``_internal``.

Read from the source with ``ast`` (every ``import``/``from ... import``, top level or inside a function), so a
new cross-package import of a private module fails here, naming the file and line.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Iterator

SRC = Path(__file__).resolve().parents[1] / "src" / "citetrace"
INTERNAL = "_internal"
LIBRARY_ONLY = ("capture", "claims", "eval", "instrumentation", "ledger", "replay", "serve", "store", "summary", "view")
"""Packages that are the library: they never import the demo (the demo is built on them, not the reverse)."""


def _imports(path: Path) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, module, names) of every import of a ``citetrace`` module in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("citetrace.") and not node.level:
            yield node.lineno, node.module, tuple(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("citetrace."):
                    yield node.lineno, alias.name, ()


def _package_of(path: Path) -> str | None:
    parts = path.relative_to(SRC).parts
    return parts[0] if len(parts) > 1 else None


def _violations() -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        own = _package_of(path)
        for line, module, _names in _imports(path):
            parts = module.split(".")
            if len(parts) < 3 or parts[1] == own:
                continue
            private = [p for p in parts[2:] if p.startswith("_")]
            if private and parts[2:] != [INTERNAL]:
                found.append(f"{path.relative_to(SRC)}:{line}: imports {module}")
    return found


def test_no_package_imports_another_packages_private_module() -> None:
    """Every import across packages goes through a public module or the package's ``_internal``."""
    assert _violations() == []


def test_names_taken_from_an_internal_module_are_in_its_all() -> None:
    """What a sibling takes from ``pkg._internal`` is declared there, in ``__all__``."""
    for path in sorted(SRC.rglob("*.py")):
        for line, module, names in _imports(path):
            if module.endswith("." + INTERNAL):
                declared = set(importlib.import_module(module).__all__)
                missing = set(names) - declared
                assert not missing, f"{path.relative_to(SRC)}:{line}: {sorted(missing)} not in {module}.__all__"


def test_shared_internal_modules_declare_their_names() -> None:
    """Each top-level shared module (``citetrace/_x.py``) and each ``_internal`` has its own ``__all__``."""
    shared = [p for p in SRC.glob("_*.py") if p.name not in ("__init__.py", "__main__.py")]
    shared += list(SRC.glob(f"*/{INTERNAL}.py"))
    assert shared
    for path in shared:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                 for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}
        assert "__all__" in names, f"{path.relative_to(SRC)} has no __all__"


def test_the_library_does_not_import_the_demo() -> None:
    """capture, eval, store, summary ... never import ``citetrace.demo``: data flows from the library to the demo."""
    for path in sorted(SRC.rglob("*.py")):
        if _package_of(path) in LIBRARY_ONLY:
            for line, module, _names in _imports(path):
                assert not module.startswith("citetrace.demo"), f"{path.relative_to(SRC)}:{line}: imports {module}"


def test_the_check_catches_a_private_import(tmp_path: Path) -> None:
    """The scanner sees an import inside a function body (so the rule cannot be dodged by a late import)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from citetrace.metrics._metrics import SummaryMetrics\n")
    assert list(_imports(sample)) == [(2, "citetrace.metrics._metrics", ("SummaryMetrics",))]
