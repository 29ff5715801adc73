"""A table with a password: who gets in, what the LAN hears, and the client's
lock and prompt.

Everything binds and advertises on 127.0.0.1 only. The zeroconf tests need multicast on
loopback and are skipped (with the reason) where it is impossible, unless
PITCHNET_REQUIRE_LAN=1 makes that a failure, as in tests/test_zeroconf.py.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import msgpack
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

import pitchnet.network
from client.app import ClientOptions
from client.discovery import FoundTable, find_table
from client.screens.finder import FinderScreen
from client.screens.lobby import LobbyScreen
from client.screens.prompts import PasswordPrompt
from host.main import config_from_args
from host.main import main as host_main
from host.server import HostConfig, HostServer
from pitchnet.cli import build_parser
from pitchnet.protocol import MAX_PASSWORD, PROTOCOL_VERSION, SERVICE_TYPE, TableInfo
from tests.fakes_zeroconf import FakeFactory
from tests.multicast import LOOPBACK
from tests.netclient import RawClient, running_host
from tests.pilot import screen_text, tables_seen, until
from tests.pilot_app import PilotApp

PASSWORD = "Corn-Flakes 42"
SIZE = (80, 24)
DEADLINE = 15.0


async def refused(client: RawClient) -> dict[str, Any]:
    """The fatal error that ended `client`'s connection."""
    assert await asyncio.wait_for(client.closed_by_host(), DEADLINE)
    errors = [p for p in client.received if p["type"] == "error"]
    assert errors and errors[-1]["fatal"] is True, client.received
    await client.close()
    return errors[-1]


def carries(payloads: list[dict[str, Any]], secret: str) -> bool:
    """True if the secret appears anywhere in these frames, packed or as text."""
    packed = b"".join(msgpack.packb(p, use_bin_type=True) for p in payloads)
    return secret.encode() in packed or secret in repr(payloads)


# ---- joining -------------------------------------------------------------------------------------


async def test_the_right_password_seats_you() -> None:
    async with running_host(players=2, password=PASSWORD) as server:
        client = await RawClient.connect(server)
        welcome = await client.hello("Ann", password=PASSWORD)
        state = await client.expect("state")
        assert server.table.seats[welcome["seat"]].name == "Ann"
        info = TableInfo.from_wire(state["table"])
        assert info.password is True
        assert not carries(client.received, PASSWORD)  # the host never says it back
        await client.close()


WRONG = {
    "missing": None,
    "empty": "",
    "wrong": "corn flakes",
    "other case": PASSWORD.upper(),
    "trailing space": PASSWORD + " ",
    "a prefix": PASSWORD[:-1],
}


@pytest.mark.parametrize("case", list(WRONG))
async def test_a_wrong_or_missing_password_is_refused_with_a_sentence(case: str) -> None:
    async with running_host(players=2, password=PASSWORD) as server:
        client = await RawClient.connect(server)
        fields = {} if WRONG[case] is None else {"password": WRONG[case]}
        client.send(await client.answer("Mallory", **fields))
        error = await refused(client)
        assert error["code"] == "bad_password"
        assert "password" in error["message"].lower()
        assert not [p for p in client.received if p["type"] in ("welcome", "state")]
        assert all(seat.kind == "empty" for seat in server.table.seats)
        assert not carries(client.received, PASSWORD)
        # The refusal costs nothing: the right password still gets in afterwards.
        again = await RawClient.connect(server)
        assert (await again.hello("Ann", password=PASSWORD))["seat"] == 0
        await again.close()


async def test_a_table_without_a_password_ignores_one_given() -> None:
    async with running_host(players=2) as server:
        client = await RawClient.connect(server)
        assert (await client.hello("Ann", password="anything"))["seat"] == 0
        state = await client.expect("state")
        assert state["table"]["password"] is False
        await client.close()


async def test_a_seat_token_comes_back_without_the_password() -> None:
    async with running_host(players=2, password=PASSWORD) as server:
        ann, bob = await RawClient.connect(server), await RawClient.connect(server)
        welcome = await ann.hello("Ann", password=PASSWORD)
        await bob.hello("Bob", password=PASSWORD)
        assert server.table.state == "playing"  # so Ann's seat waits for her while away
        await ann.close()
        for password in (None, "wrong"):
            back = await RawClient.connect(server)
            fields = {} if password is None else {"password": password}
            again = await back.hello("Ann", token=welcome["token"], **fields)
            assert again["seat"] == welcome["seat"]
            await back.close()
        # A stale token is refused as such, even with the right password beside it.
        stale = await RawClient.connect(server)
        stale.send(await stale.answer("Eve", token="x" * 32, password=PASSWORD))
        assert (await refused(stale))["code"] == "bad_token"
        await bob.close()


async def test_every_password_the_host_accepts_can_be_sent_by_a_client() -> None:
    long_password = "p" * (MAX_PASSWORD + 1)
    try:
        config = config_from_args(
            build_parser().parse_args(["host", "--port", "0", "--password", long_password])
        )
    except (ValueError, SystemExit):
        return  # refused at start-up: fine
    assert config.password == long_password
    async with running_host(players=2, password=config.password) as server:
        client = await RawClient.connect(server)
        assert (await client.hello("Ann", password=long_password))["seat"] == 0
        await client.close()


# ---- the command line ----------------------------------------------------------------------


def test_password_file_is_read_and_its_line_end_dropped(tmp_path: Path) -> None:
    secret = tmp_path / "table.pw"
    secret.write_text(PASSWORD + "\n", encoding="utf-8")
    args = build_parser().parse_args(["host", "--port", "0", "--password-file", str(secret)])
    config = config_from_args(args)
    assert config.password == PASSWORD
    direct = config_from_args(build_parser().parse_args(["host", "--password", PASSWORD]))
    assert direct.password == PASSWORD
    assert config_from_args(build_parser().parse_args(["host"])).password is None


def test_a_missing_password_file_stops_the_host_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.pw"
    args = build_parser().parse_args(["host", "--port", "0", "--password-file", str(missing)])
    assert host_main(args) == 2
    assert "password file" in capsys.readouterr().err


async def test_a_host_from_the_password_file_admits_only_that_password(tmp_path: Path) -> None:
    secret = tmp_path / "table.pw"
    secret.write_text(f"{PASSWORD}\r\n", encoding="utf-8")
    args = build_parser().parse_args(["host", "--password-file", str(secret)])
    config = config_from_args(args)
    async with running_host(players=2, password=config.password) as server:
        wrong = await RawClient.connect(server)
        wrong.send(await wrong.answer("Eve", password=f"{PASSWORD}\r\n"))
        assert (await refused(wrong))["code"] == "bad_password"
        right = await RawClient.connect(server)
        assert (await right.hello("Ann", password=PASSWORD))["seat"] == 0
        await right.close()


# ---- the advert ------------------------------------------------------------------------------


async def test_the_advert_asks_for_a_password_and_never_holds_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without the network: what the host hands zeroconf to publish."""
    fake = FakeFactory()
    monkeypatch.setattr(pitchnet.network, "default_zeroconf", fake)
    config = HostConfig(
        name="Locked", port=0, interface=LOOPBACK, password=PASSWORD, bot_delay=0, advertise=True
    )
    async with HostServer(config) as server:
        client = await RawClient.connect(server)
        await client.hello("Ann", password=PASSWORD)
        await client.expect("state")
        await client.close()
    [zc] = fake.made
    published = [info for method, info in zc.calls if method in ("register", "update")]
    assert published
    for info in published:
        assert info.properties[b"pw"] == b"1"
        assert PASSWORD.encode() not in info.text
        assert PASSWORD not in info.name and PASSWORD not in info.server


async def test_the_raw_txt_record_on_the_lan_says_pw_1_and_nothing_more(multicast: None) -> None:
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    name = f"Locked {secrets.token_hex(3)}"
    config = HostConfig(
        name=name, port=0, interface=LOOPBACK, password=PASSWORD, bot_delay=0, advertise=True
    )
    async with HostServer(config) as server:
        found = await find_table(LOOPBACK, server.table_id, DEADLINE)
        assert found is not None and found.password is True
        zc = AsyncZeroconf(interfaces=[LOOPBACK])
        try:
            info = AsyncServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}")
            assert await info.async_request(zc.zeroconf, int(DEADLINE * 1000))
            raw = info.text
            assert raw is not None and b"\x04pw=1" in raw  # length-prefixed TXT string
            assert PASSWORD.encode() not in raw
            assert PASSWORD.lower().encode() not in raw.lower()
            assert set(info.properties) == {b"v", b"id", b"name", b"taken", b"seats"} | {
                b"state",
                b"pw",
                b"open",
                b"born",
                b"target",
                b"rules",
                b"bots",
                b"timer",
            }
        finally:
            await zc.async_close()


# ---- the client's finder: a lock, then the prompt ----------------------------------------------


async def join_through_the_prompt(
    pilot: Pilot[Any], app: PilotApp, server: HostServer, lock: str
) -> None:
    """From the finder: the row shows a lock; Enter asks for the password; a wrong one
    asks again saying so; the right one seats us in the lobby."""
    finder = app.screen
    assert isinstance(finder, FinderScreen)

    def row_key() -> str | None:
        return next((k for k, t in finder.found.items() if t.table_id == server.table_id), None)

    await until(pilot, row_key, "the locked table to be listed", timeout=DEADLINE)
    rows = finder.query_one("#tables", DataTable)
    key = row_key()
    assert key is not None
    lock_cell = rows.get_row(key)[0]
    assert str(lock_cell) == lock
    assert lock in screen_text(app)
    rows.move_cursor(row=list(finder.found).index(key))
    rows.focus()
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, PasswordPrompt), "the password prompt")
    prompt = app.screen
    assert isinstance(prompt, PasswordPrompt) and not prompt.wrong
    assert "Password for" in screen_text(app)
    await pilot.press(*"corn flakes", "enter")
    await until(
        pilot,
        lambda: isinstance(app.screen, PasswordPrompt) and app.screen.wrong,
        "the prompt again, saying the password was wrong",
    )
    assert "wrong" in screen_text(app)
    assert all(seat.kind == "empty" for seat in server.table.seats)
    await pilot.press(*PASSWORD, "enter")
    await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
    assert server.table.seats[0].name == "Ann"
    assert app.game.table_id == server.table_id


async def test_the_finder_shows_a_lock_and_asks_for_the_password() -> None:
    config = HostConfig(port=0, interface=LOOPBACK, password=PASSWORD, advertise=False)
    async with HostServer(config) as server:
        found = FoundTable(
            server.name,
            server.table_id,
            LOOPBACK,
            server.port,
            PROTOCOL_VERSION,
            0,
            4,
            "lobby",
            True,
        )
        options = ClientOptions(name="Ann", mode="find", ascii_only=True)
        app = PilotApp(options, browser_factory=tables_seen([found]))
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.screen, FinderScreen), "the finder")
                await join_through_the_prompt(pilot, app, server, lock="pw")
        finally:
            await app.close_network()


async def test_the_finder_shows_a_real_advertised_locked_table_and_joins_it(
    multicast: None,
) -> None:
    name = f"Locked {secrets.token_hex(3)}"
    config = HostConfig(
        name=name, port=0, interface=LOOPBACK, password=PASSWORD, bot_delay=0, advertise=True
    )
    async with HostServer(config) as server:
        app = PilotApp(ClientOptions(name="Ann", mode="find", interface=LOOPBACK))
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.screen, FinderScreen), "the finder")
                await join_through_the_prompt(pilot, app, server, lock="🔒")
        finally:
            await app.close_network()
