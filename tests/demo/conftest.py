"""Shared fixtures for the demo tests: one set of real demo servers per module."""

from __future__ import annotations

from typing import Iterator

import pytest

from citetrace.demo import DemoServers


@pytest.fixture(scope="module")
def servers() -> Iterator[DemoServers]:
    """The demo's search endpoint and site on free loopback ports, every fault enabled, a short slow page."""
    with DemoServers(slow_seconds=1.0) as srv:
        yield srv
