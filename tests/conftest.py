"""Shared test set-up. Every test runs with PITCHNET_INTERFACE=127.0.0.1 so that nothing
a test starts binds or advertises beyond this machine, and with its own state and
config folders so that journals, seat tokens and settings never touch the real ones."""

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PITCHNET_INTERFACE", "127.0.0.1")
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture(scope="module")
def multicast() -> None:
    """For tests that need zeroconf on loopback: skip where multicast there is impossible,
    with the reason; with PITCHNET_REQUIRE_LAN=1 that is a failure instead."""
    from tests.multicast import multicast_problem

    reason = multicast_problem()
    if reason is None:
        return
    if os.environ.get("PITCHNET_REQUIRE_LAN") == "1":
        pytest.fail(f"PITCHNET_REQUIRE_LAN=1 but {reason}")
    pytest.skip(reason)
