"""Shared test set-up. Every test runs with PITCHNET_INTERFACE=127.0.0.1 so that nothing
a test starts binds or advertises beyond this machine, and with its own state and
config folders so that journals, seat tokens and settings never touch the real ones."""

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PITCHNET_INTERFACE", "127.0.0.1")
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path / "config"))
