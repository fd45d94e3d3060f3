"""One source for versions: the ``[libraries]`` extra in pyproject.toml is derived from ``package.SUPPORTED``."""

from __future__ import annotations

import sys
from pathlib import Path

from packaging.requirements import Requirement

from citetrace.instrumentation.package import LIBRARIES, SUPPORTED, libraries_extra

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_libraries_extra_equals_the_supported_table() -> None:
    """pyproject's [libraries] is exactly LIBRARIES with their SUPPORTED ranges (plus the helpers)."""
    extra = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]["libraries"]
    expected = libraries_extra()
    assert extra == expected, "paste into pyproject.toml:\nlibraries = [\n" + "".join(
        f'  "{r}",\n' for r in expected) + "]"


def test_every_library_of_the_extra_has_a_supported_range() -> None:
    """Each library of the extra is a distribution the instrumentor checks, with a valid PEP 440 range."""
    for dist in LIBRARIES:
        requirement = Requirement(f"{dist}{SUPPORTED[dist]}")
        assert requirement.specifier, dist
    assert len(set(LIBRARIES)) == len(LIBRARIES)
