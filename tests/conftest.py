"""Shared test set-up. Every test runs with PITCHNET_INTERFACE=127.0.0.1 so that nothing
a test starts binds or advertises beyond this machine."""

import pytest


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITCHNET_INTERFACE", "127.0.0.1")
