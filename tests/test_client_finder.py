"""The table finder with real zeroconf on 127.0.0.1: a hosted table appears in the list
and Enter joins it. Skipped (with the reason) where loopback multicast is impossible,
unless PITCHNET_REQUIRE_LAN=1 makes that a failure, as in tests/test_zeroconf.py."""

from __future__ import annotations

import os
import secrets
import socket
import struct

import pytest
from textual.widgets import DataTable

from client.app import ClientOptions, PitchApp
from client.screens.finder import FinderScreen
from client.screens.lobby import LobbyScreen
from host.server import HostConfig, HostServer
from tests.pilot import screen_text, until

LOOPBACK = "127.0.0.1"
SIZE = (80, 24)


def _loopback_multicast_problem() -> str | None:
    group = "224.0.0.251"
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx,
    ):
        try:
            rx.bind(("", 0))
            mreq = socket.inet_aton(group) + socket.inet_aton(LOOPBACK)
            rx.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(LOOPBACK))
            tx.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, struct.pack("B", 1))
            rx.settimeout(2.0)  # a receive deadline, not a sleep
            tx.sendto(b"pitchnet-probe", (group, rx.getsockname()[1]))
            data = rx.recv(64)
        except OSError as exc:
            return f"multicast on {LOOPBACK} failed: {exc}"
    return None if data == b"pitchnet-probe" else "multicast probe came back altered"


@pytest.fixture
def lan() -> None:
    problem = _loopback_multicast_problem()
    if problem is None:
        return
    if os.environ.get("PITCHNET_REQUIRE_LAN") == "1":
        pytest.fail(f"PITCHNET_REQUIRE_LAN=1 but {problem}")
    pytest.skip(problem)


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))


async def test_the_finder_shows_an_advertised_table_and_joins_it(lan: None) -> None:
    name = f"Finder {secrets.token_hex(3)}"
    config = HostConfig(name=name, port=0, interface=LOOPBACK, bot_delay=0, advertise=True)
    async with HostServer(config) as server:
        app = PitchApp(ClientOptions(name="Ann", mode="find", interface=LOOPBACK))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, FinderScreen), "the finder")
            finder = app.screen
            assert isinstance(finder, FinderScreen)

            def row_key() -> str | None:
                return next(
                    (k for k, t in finder.found.items() if t.table_id == server.table_id), None
                )

            await until(pilot, row_key, "the advert to be listed", timeout=15)
            assert name in screen_text(app)
            rows = finder.query_one("#tables", DataTable)
            rows.move_cursor(row=list(finder.found).index(row_key()))
            rows.focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert app.game.table_id == server.table_id
            assert app.game.table_name == name
            assert server.table.seats[0].name == "Ann"
