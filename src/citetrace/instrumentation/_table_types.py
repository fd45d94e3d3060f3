"""The row types of the declarative wrap table (kept apart so library modules import nothing heavy)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol

from citetrace.capture import ToolSpec

__all__ = ["Patch", "Probe", "Switch", "Wrap"]


@dataclass(frozen=True)
class Patch:
    """Wrap ``module:target`` so each call becomes one tool span described by ``spec``.

    ``dist`` is the distribution whose version decides whether the row applies (see ``package.SUPPORTED``).
    ``is_async`` picks ``ainvoke`` (None: decided from the target when it is wrapped). ``pass_instance`` hands the bound instance to the spec's hooks as
    ``args[0]`` (the spec then sets ``skip_self=True``) for libraries that keep the query on the object.
    """

    dist: str
    module: str
    target: str
    spec: ToolSpec
    is_async: bool | None = False
    pass_instance: bool = False
    own_span: bool = False
    """A span of its own even inside another citetrace tool call, with its own status probe: for page reads a
    search tool makes itself (knowledge-storm's retrievers reading their results), which are other operations
    than the search, not the same call seen twice (the rule that nests everything else into the outer span)."""

    @property
    def key(self) -> str:
        """``module:target``, unique in the table."""
        return f"{self.module}:{self.target}"


@dataclass(frozen=True)
class Probe:
    """Record the HTTP status that ``module:target`` saw, without a span (see ``_probe``)."""

    dist: str
    module: str
    target: str
    status_of: Callable[[tuple[Any, ...], dict[str, Any], Any], Any]
    before: bool = False
    """Read the status from the arguments before calling (for functions that raise on the status)."""

    @property
    def key(self) -> str:
        """``module:target``, unique in the table."""
        return f"{self.module}:{self.target}"


class Switch(Protocol):
    """What a ready-made wrapper reads on every call: whether its instrumentor is still on."""

    active: bool


@dataclass(frozen=True)
class Wrap:
    """Wrap ``module:target`` with the wrapt wrapper ``factory(switch)`` builds (agent boundaries, executors).

    The wrapper must call straight through when ``switch.active`` is False (a bound method captured while
    instrumented outlives the patch). ``dist`` empty: no version check (the standard library).
    """

    dist: str
    module: str
    target: str
    factory: Callable[[Switch], Callable[..., Any]]

    @property
    def key(self) -> str:
        """``module:target``, unique in the table."""
        return f"{self.module}:{self.target}"
