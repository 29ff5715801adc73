"""Secrets are proven, never sent (issue 11, item 1): a `hello` recorded on one connection,
or collected by an impostor host with its own nonce, gets nobody a seat at the real table."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from client.connection import Connection
from host.server import HostServer
from pitchnet.protocol import PROTOCOL_VERSION, Challenge, FrameDecoder, frame
from tests.netclient import RawClient, running_host, until_true
from tests.test_password import carries, refused

PASSWORD = "Corn-Flakes 42"


@contextlib.asynccontextmanager
async def impostor(table_id: str) -> AsyncIterator[tuple[int, list[bytes]]]:
    """A host on 127.0.0.1 claiming `table_id` with its own nonce: it records the raw
    frame of every `hello` it receives, and answers nothing else."""
    hellos: list[bytes] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(Challenge(PROTOCOL_VERSION, "f" * 32, table_id).encode())
        decoder = FrameDecoder()
        with contextlib.suppress(ConnectionError):
            while chunk := await reader.read(65536):
                for payload in decoder.feed(chunk):
                    if payload.get("type") == "hello":
                        hellos.append(frame(payload))
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1], hellos
    finally:
        server.close()


async def replay(server: HostServer, recorded: bytes) -> dict[str, Any]:
    """Send a recorded hello on a new connection to the real host: its fatal answer."""
    thief = await RawClient.connect(server)
    thief.send_raw(recorded)
    return await refused(thief)


async def test_a_recorded_hello_replayed_on_a_new_connection_is_refused() -> None:
    async with running_host(players=2, password=PASSWORD) as server:
        ann, bob = await RawClient.connect(server), await RawClient.connect(server)
        welcome = await ann.hello("Ann", password=PASSWORD)
        await bob.hello("Bob", password=PASSWORD)
        await ann.close()
        await until_true(lambda: not server.table.seats[0].connected, "Ann to be away")
        back = await RawClient.connect(server)
        proven = await back.answer("Ann", token=welcome["token"], password=PASSWORD)
        back.send(proven)
        again = await back.expect("welcome")
        assert again["seat"] == 0 and again["token"] is None  # proven, not sent back
        await back.close()
        await until_true(lambda: not server.table.seats[0].connected, "Ann to be away again")
        recorded = proven.encode()
        assert welcome["token"].encode() not in recorded and PASSWORD.encode() not in recorded
        assert (await replay(server, recorded))["code"] == "bad_token"
        eve = await RawClient.connect(server)
        password_only = await eve.answer("Eve", password=PASSWORD)
        await eve.close()
        assert (await replay(server, password_only.encode()))["code"] == "bad_password"
        assert not server.table.seats[0].connected
        await bob.close()


async def test_an_impostor_gets_nothing_it_can_replay_at_the_real_host() -> None:
    async with running_host(players=2, password=PASSWORD) as server:
        ann, bob = await RawClient.connect(server), await RawClient.connect(server)
        welcome = await ann.hello("Ann", password=PASSWORD)
        await bob.hello("Bob", password=PASSWORD)
        await ann.close()
        await until_true(lambda: not server.table.seats[0].connected, "Ann to be away")
        table_id, token = server.table.id, welcome["token"]
        async with impostor(table_id) as (port, hellos):
            # The terminal and headless clients' connection, sent to the impostor: once
            # with the seat token (a player coming back), once with only the password.
            for secrets in ({"token": token}, {}):
                victim = Connection(
                    "127.0.0.1",
                    port,
                    "Ann",
                    lambda news: None,
                    password=PASSWORD,
                    table_id=table_id,
                    reconnect=False,
                    **secrets,
                )
                runner = asyncio.create_task(victim.run())
                count = len(hellos)
                await until_true(lambda count=count: len(hellos) > count, "the victim's hello")
                await victim.close()
                runner.cancel()
                await asyncio.gather(runner, return_exceptions=True)
        assert len(hellos) == 2
        for received in hellos:
            assert not carries([{"raw": received}], token)
            assert not carries([{"raw": received}], PASSWORD)
        assert (await replay(server, hellos[0]))["code"] == "bad_token"
        assert (await replay(server, hellos[1]))["code"] == "bad_password"
        assert not server.table.seats[0].connected  # nobody sits in Ann's seat
        await bob.close()
