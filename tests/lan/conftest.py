"""Fixtures for the namespace LAN. Without root or `ip netns` the LAN tests skip, saying why,
unless PITCHNET_REQUIRE_LAN=1 (CI sets it), which turns that skip into a failure so the fault
tests can never silently stop running.

Fixtures:
- `lan`: a `Lan` with a host and 2 players, up for the test; `@pytest.mark.lan(players=N)`
  changes the player count.
- `lan_factory`: `lan_factory(players=N) -> Lan`, for tests that want several or a custom one.
- `lan_ready`: only the availability check, for tests that build a `Lan` themselves.
When a test fails, the tail of every process log on its LANs is added to the report.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from pathlib import Path

import pytest

from .harness import Lan, sweep_stale, unavailable_reason

REQUIRE_ENV = "PITCHNET_REQUIRE_LAN"
_LANS = pytest.StashKey[list[Lan]]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder is slow: `pytest -m "not slow"` leaves them out."""
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def _lan_support() -> str | None:
    """Checked once per session; when usable, first clear namespaces left by crashed runs."""
    reason = unavailable_reason()
    if reason is None:
        sweep_stale()
    return reason


@pytest.fixture
def lan_ready(_lan_support: str | None) -> None:
    if _lan_support is None:
        return
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(
            f"{REQUIRE_ENV}=1 but the LAN harness cannot run: {_lan_support}", pytrace=False
        )
    pytest.skip(f"LAN harness unavailable: {_lan_support} (set {REQUIRE_ENV}=1 to fail instead)")


@pytest.fixture
def lan_factory(
    lan_ready: None, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Lan]]:
    made = request.node.stash.setdefault(_LANS, [])

    def make(players: int = 2) -> Lan:
        lan = Lan(tmp_path_factory.mktemp("lan"), players=players)
        made.append(lan)
        return lan.up()

    try:
        yield make
    finally:
        for lan in made:
            lan.down()


@pytest.fixture
def lan(lan_factory: Callable[..., Lan], request: pytest.FixtureRequest) -> Lan:
    marker = request.node.get_closest_marker("lan")
    return lan_factory(players=marker.kwargs.get("players", 2) if marker else 2)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Attach process logs while the LAN still exists (before fixture teardown)."""
    report = yield
    if report.failed and report.when in ("setup", "call"):
        for lan in item.stash.get(_LANS, []):
            report.sections.append((f"LAN {lan.tag} process logs", lan.logs()))
    return report
