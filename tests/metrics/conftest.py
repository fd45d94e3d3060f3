"""The metrics tests drive the same wired pipeline as the processor's (``processor.conftest``)."""

from __future__ import annotations

from processor.conftest import ChosenIds, Rig, make_rig

__all__ = ["ChosenIds", "Rig", "make_rig"]
