"""Where the shipped labelled set lives (package data, readable from a wheel or a checkout)."""

from __future__ import annotations

from importlib import resources

__all__ = ["labels_path", "hard_labels_path", "heldout_labels_path", "heldout2_labels_path", "heldout3_labels_path",
           "heldout4_labels_path", "heldout5_labels_path", "LABEL_SETS"]


def labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/labels.jsonl``."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("labels.jsonl"))


def hard_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/hard.jsonl`` (the harder, non-templated set)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("hard.jsonl"))


def heldout_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/heldout.jsonl`` (whole pages, held out while tuning)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("heldout.jsonl"))


def heldout2_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/heldout2.jsonl`` (whole pages, held out from det-4, tuned on
    since det-5)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("heldout2.jsonl"))


def heldout3_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/heldout3.jsonl`` (whole pages, written blind, measured once
    with det-5, tuned on since det-6)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("heldout3.jsonl"))


def heldout4_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/heldout4.jsonl`` (whole pages, written blind, measured once
    with det-6, tuned on since det-7)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("heldout4.jsonl"))


def heldout5_labels_path() -> str:
    """Filesystem path of ``citetrace/eval/data/heldout5.jsonl`` (whole pages, written blind, frozen before the
    checker revision under way was measured on it)."""
    return str(resources.files("citetrace.eval").joinpath("data").joinpath("heldout5.jsonl"))


LABEL_SETS = {"shipped": labels_path, "hard": hard_labels_path, "heldout": heldout_labels_path,
              "heldout2": heldout2_labels_path, "heldout3": heldout3_labels_path,
              "heldout4": heldout4_labels_path, "heldout5": heldout5_labels_path}
"""``citetrace judge-eval --set NAME``: the labelled sets that ship with citetrace."""
