"""Cases for libraries that live in the pinned venv (run by tests/instrumentation/test_pinned.py)."""
