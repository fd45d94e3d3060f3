"""Suite-wide settings: under CI, property tests draw a fixed (derandomized) sample so a run is reproducible.

Locally they keep searching with fresh random draws and the example database, which is how new failures
are found; a failure found that way becomes an ``@example`` in the test.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

from _pgserver import pg_server, pg_uri  # noqa: E402,F401  (a real PostgreSQL, started on first use)
