"""Hypothesis profiles, loaded by tests/conftest.py before any test module is read.

- `dev`, the default: quick, for a developer's edit-and-run loop (20 examples where a
  test names no count, a tenth of a thorough test's count).
- `ci`, chosen by CI=true (CI's own environment; .ci/run) or HYPOTHESIS_PROFILE=ci:
  every test's full count, derandomized and without the example database, so every CI
  run tries the same cases and a failure can be run again as it was.

A test that wants many examples asks `examples(full)` rather than naming `full`, since a
count written in `@settings` would override either profile.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=20)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)


def _chosen() -> str:
    named = os.environ.get("HYPOTHESIS_PROFILE")
    if named:
        return named
    return "ci" if os.environ.get("CI", "").lower() in ("true", "1") else "dev"


PROFILE = _chosen()
"""The profile this run loads."""


def examples(full: int) -> int:
    """How many examples a thorough test runs under this run's profile: `full` in CI, a
    tenth of it (at least 10) in development."""
    return full if PROFILE == "ci" else max(10, full // 10)
