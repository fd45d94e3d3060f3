"""The side venvs ``scripts/setup`` builds for frameworks whose pins the shared venv cannot hold
(docs/frameworks.md): where each one's Python is, and which distributions only it holds."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["SIDE_VENVS", "side_python"]

_ROOT = Path(__file__).parents[2]

SIDE_VENVS = {
    "crewai": (".venv-crewai", "CREWAI_PYTHON", ("crewai", "crewai-tools")),
    "gptr": (".venv-gptr", "GPTR_PYTHON", ("gpt-researcher",)),
    "storm": (".venv-storm", "STORM_PYTHON", ("knowledge-storm",)),
    "pinned": (".venv-pinned", "PINNED_PYTHON", ("crawl4ai", "llama-index-tools-duckduckgo")),
}
"""name -> (venv directory under the repository, the variable that points elsewhere, its distributions)."""


def side_python(name: str) -> str:
    """The Python of side venv ``name``: its variable if set, else ``<repo>/<dir>/bin/python``."""
    directory, variable, _dists = SIDE_VENVS[name]
    return os.environ.get(variable) or str(_ROOT / directory / "bin" / "python")
