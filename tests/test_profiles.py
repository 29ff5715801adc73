"""The Hypothesis profile a run loads (tests/profiles.py): CI's thorough one when CI says
so, the quick one otherwise, and a name given outright wins."""

from __future__ import annotations

import pytest

from tests import profiles


@pytest.mark.parametrize(
    ("environment", "chosen"),
    [
        ({}, "dev"),
        ({"CI": "true"}, "ci"),
        ({"CI": "1"}, "ci"),
        ({"CI": "false"}, "dev"),
        ({"CI": "true", "HYPOTHESIS_PROFILE": "dev"}, "dev"),
        ({"HYPOTHESIS_PROFILE": "ci"}, "ci"),
    ],
)
def test_the_profile_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, environment: dict[str, str], chosen: str
) -> None:
    for name in ("CI", "HYPOTHESIS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert profiles._chosen() == chosen


def test_a_thorough_test_runs_its_full_count_only_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(profiles, "PROFILE", "ci")
    assert profiles.examples(700) == 700
    monkeypatch.setattr(profiles, "PROFILE", "dev")
    assert profiles.examples(700) == 70 and profiles.examples(50) == 10
