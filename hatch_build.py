"""Build hook: install citetrace's start-up ``.pth`` file into site-packages, for wheels and for
editable (``pip install -e .``) installs alike (hatchling's ``force-include`` alone skips editable ones).

The file is inert unless ``CITETRACE_AUTO_INSTRUMENT`` is set; see ``citetrace.instrumentation._autostart``.
"""

from __future__ import annotations

from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PTH_SOURCE = "src/citetrace/instrumentation/citetrace_autoinstrument.pth"
PTH_TARGET = "citetrace_autoinstrument.pth"


class CiteTraceBuildHook(BuildHookInterface):  # type: ignore[misc]
    """Add the ``.pth`` file at the root of the wheel."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        key = "force_include_editable" if version == "editable" else "force_include"
        build_data.setdefault(key, {})[PTH_SOURCE] = PTH_TARGET
