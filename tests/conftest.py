"""Shared test set-up. Every test runs with PITCHNET_INTERFACE=127.0.0.1 so that nothing
a test starts binds or advertises beyond this machine, with its own state and config
folders so that journals, seat tokens and settings never touch the real ones, and with
the cards' motion off (PITCHNET_MOTION=off) unless it asks for it, and in English
(LANGUAGE=en whatever the machine's locale; the language in use is English again after
every test) unless it chooses another.
Hypothesis runs under the profile tests/profiles.py chooses (quick `dev`, or `ci`)."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from tests.profiles import PROFILE
from tests.pseudo import pseudo  # noqa: F401  (a fixture: the pseudo-translations)

settings.load_profile(PROFILE)  # `dev` unless CI=true (tests/profiles.py)


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PITCHNET_INTERFACE", "127.0.0.1")
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path / "config"))
    # Cards do not move in tests (client/widgets/motion.py) unless a test asks for it.
    monkeypatch.setenv("PITCHNET_MOTION", "off")
    monkeypatch.setenv("LANGUAGE", "en")


@pytest.fixture(autouse=True)
def _english_after() -> Iterator[None]:
    from pitchnet.i18n import use

    yield
    use("en")


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


ADVERTISING_MODULES = {"test_cli_sentences.py", "test_host.py", "test_web.py"}
"""Test modules that start `pitchnet host` processes, which advertise on loopback."""


@pytest.hookimpl(trylast=True)  # after tests/lan/conftest.py has marked its tests slow
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`-n ... --dist loadgroup`) some tests must not run beside
    others of their kind, so each kind runs on one worker, one test at a time:
    - the `slow` ones (the LAN tests, which build network namespaces and run real
      processes in them, and the browser tests, which drive chromium) and the `serial`
      ones (the tmux tests, real clients on wall-clock deadlines): run side by side they
      starve each other's timers (the tmux tests at 40x15 timed out under `-n 2` on a
      loaded two-core machine, and passed serially); CI runs them in a serial pass of
      their own, after the rest in parallel;
    - every test that uses real multicast on loopback, or starts a host process that
      advertises there: two at once would each find the other's adverts."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        advertises = item.path.name in ADVERTISING_MODULES
        if item.get_closest_marker("slow") or item.get_closest_marker("serial"):
            item.add_marker(pytest.mark.xdist_group("serial"))
        elif advertises or "multicast" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("multicast"))
