"""A real host advertises itself: a HostServer with advertise=True on 127.0.0.1 is found by
client.discovery with its TXT values, its seat count and state follow the table, and it is
gone after close().

Everything is bound to 127.0.0.1 (never all interfaces), so nothing leaves this machine.
Other test processes may advertise on the same loopback at once, so tables are picked out
by their table id. Waiting is on the browser's change notifications with a deadline.
Skipped (with the reason) where loopback multicast is impossible, unless
PITCHNET_REQUIRE_LAN=1 makes that a failure, as in tests/test_zeroconf.py.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from client.discovery import FoundTable, TableBrowser, find_table
from host.server import HostConfig, HostServer
from pitchnet.protocol import PROTOCOL_VERSION, SERVICE_TYPE, Start
from pitchnet.rules import PRESETS
from tests.multicast import LOOPBACK
from tests.netclient import RawClient

DEADLINE = 15.0
"""mDNS probing and announcing take a second or two; a slow box may take longer."""


def _config(**changes: Any) -> HostConfig:
    options: dict[str, Any] = {
        "name": f"Advert {secrets.token_hex(3)}",
        "port": 0,
        "interface": LOOPBACK,
        "advertise": True,
        "bot_delay": 60.0,  # the bots must not race the seat-count checks
        "seed": 1,
    }
    return HostConfig(**(options | changes))


@pytest.fixture
async def hosting() -> AsyncIterator[Callable[[HostConfig], Any]]:
    """Start hosts through this; whatever happens they are closed after the test."""
    servers: list[HostServer] = []

    async def start(config: HostConfig) -> HostServer:
        server = HostServer(config)
        servers.append(server)
        await server.start()
        return server

    try:
        yield start
    finally:
        for server in servers:
            await server.close()


def _the(tables: list[FoundTable], table_id: str) -> FoundTable | None:
    return next((t for t in tables if t.table_id == table_id), None)


def _shows(table_id: str, **want: Any) -> Callable[[list[FoundTable]], bool]:
    def check(tables: list[FoundTable]) -> bool:
        found = _the(tables, table_id)
        return found is not None and all(getattr(found, k) == v for k, v in want.items())

    return check


async def test_a_hosted_table_is_browsed_with_its_txt_and_follows_the_seats(
    multicast: None, hosting: Any
) -> None:
    server = await hosting(_config(players=4))
    clients: list[RawClient] = []
    async with TableBrowser(LOOPBACK) as browser:
        try:
            assert await browser.wait_until(_shows(server.table_id), DEADLINE)
            assert _the(browser.tables, server.table_id) == FoundTable(
                name=server.name,
                table_id=server.table_id,
                host=LOOPBACK,
                port=server.port,
                version=PROTOCOL_VERSION,  # every table speaks this pitchnet's version
                taken=0,
                seats=4,
                state="lobby",
                password=False,
                open=4,
                born=server.born,
                bot_level="normal",
            )
            for taken in (1, 2):
                client = await RawClient.connect(server)
                clients.append(client)
                await client.hello(f"P{taken}")
                assert await browser.wait_until(
                    _shows(server.table_id, taken=taken, state="lobby"), DEADLINE
                ), f"the advert never said {taken} seats taken"
            clients[0].send(Start(id=clients[0].new_id()))
            assert await browser.wait_until(
                _shows(server.table_id, taken=4, state="playing"), DEADLINE
            ), "starting with bots should fill the advert's seats and say playing"
        finally:
            for client in clients:
                await client.close()
        await server.close()
        assert await browser.wait_until(lambda ts: _the(ts, server.table_id) is None, DEADLINE)


async def test_the_raw_txt_record_has_every_documented_key(multicast: None, hosting: Any) -> None:
    """PROTOCOL.md lists the TXT keys; a client in another language reads exactly these."""
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

    server = await hosting(_config(players=3, password="secret"))
    assert await find_table(LOOPBACK, server.table_id, DEADLINE) is not None
    zc = AsyncZeroconf(interfaces=[LOOPBACK])
    try:
        info = AsyncServiceInfo(SERVICE_TYPE, f"{server.name}.{SERVICE_TYPE}")
        assert await info.async_request(zc.zeroconf, int(DEADLINE * 1000))
        assert info.port == server.port
        assert info.parsed_addresses() == [LOOPBACK]
        assert info.properties == {
            b"v": b"3",  # the one version every table speaks: see PROTOCOL.md, Versions
            b"id": server.table_id.encode(),
            b"name": server.name.encode(),
            b"taken": b"0",
            b"seats": b"3",
            b"state": b"lobby",
            b"pw": b"1",
            b"open": b"3",
            b"born": str(server.born).encode(),
            b"target": b"7",
            b"rules": b"",
            b"bots": b"normal",
            b"timer": b"0",
        }
    finally:
        await zc.async_close()


async def test_find_table_sees_a_password_table(multicast: None, hosting: Any) -> None:
    server = await hosting(_config(players=2, password="pw"))
    found = await find_table(LOOPBACK, server.table_id, DEADLINE)
    assert found is not None
    assert (found.port, found.seats, found.password, found.state) == (server.port, 2, True, "lobby")


async def test_a_joker_table_advertises_its_rules_and_version_3(
    multicast: None, hosting: Any
) -> None:
    """A finder shows "joker, to 10"; an older finder sees v=3 and skips the table."""
    server = await hosting(_config(rules=PRESETS["joker"].rules, target=10))
    found = await find_table(LOOPBACK, server.table_id, DEADLINE)
    assert found is not None
    assert found.version == PROTOCOL_VERSION == 3
    assert (found.rules, found.target, found.rules_label) == ("joker=on", 10, "joker, to 10")
