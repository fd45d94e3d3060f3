"""Where the shipped labelled set lives (package data, readable from a wheel or a checkout)."""

from __future__ import annotations

from importlib import resources

__all__ = ["labels_path"]


def labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/labels.jsonl``."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("labels.jsonl"))
