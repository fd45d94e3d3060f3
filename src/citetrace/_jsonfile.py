"""Reading a JSON file a user named (a baseline, a bench, an evaluation): one way, with one-line errors.

Library callers get ``ValueError``; the CLI turns it into its one-line ``CommandError``. The message names
what the file was meant to be and the path, and never carries a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["read_json"]


def read_json(path: str, what: str) -> Any:
    """The JSON in ``path``; ``ValueError`` naming ``what`` and the path when it cannot be read or parsed."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:  # JSONDecodeError, and text that is not UTF-8
        raise ValueError(f"{what} {path!r} is not JSON: {exc}") from None
