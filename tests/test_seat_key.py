"""A host killed at the 4th `join` (issue 27, item 8): the seat it journaled must belong
to someone. The newcomer offers its own seat token (`hello.seat_key`); the host seats it
with that key, so after a resume the player proves it and sits again. A key that is not
a token's shape, or is another seat's, is never taken."""

from __future__ import annotations

import secrets

from host import dispatch
from host.server import HostConfig, HostServer
from pitchnet.protocol import PROTOCOL_VERSION, Hello
from tests.netclient import RawClient, until_true


async def test_a_host_killed_at_the_fourth_join_seats_that_player_again_after_a_resume() -> None:
    first = HostServer(HostConfig(interface="127.0.0.1", port=0, advertise=False, bot_delay=0))
    await first.start()
    seated = [await RawClient.connect(first) for _ in range(3)]
    for number, client in enumerate(seated):
        await client.hello(f"P{number}")
    key = secrets.token_urlsafe(24)
    fourth = await RawClient.connect(first)
    fourth.send(await fourth.answer("Dee", seat_key=key))  # the welcome is never read
    await until_true(lambda: first.table.seats[3].name == "Dee", "Dee's seat journaled")
    table_id = first.table_id
    await first.close()  # killed: the journal is all that survives
    for client in [*seated, fourth]:
        await client.close()

    resumed = HostServer(HostConfig(interface="127.0.0.1", port=0, advertise=False, resume=""))
    await resumed.start()
    try:
        assert resumed.table_id == table_id
        back = await RawClient.connect(resumed)
        welcome = await back.hello("ignored", token=key, table_id=table_id)
        assert welcome["seat"] == 3 and resumed.table.seats[3].name == "Dee"
        await back.close()
    finally:
        await resumed.close()


async def test_a_key_of_the_wrong_shape_or_another_seats_is_not_taken() -> None:
    server = HostServer(HostConfig(interface="127.0.0.1", port=0, advertise=False))
    await server.start()
    try:
        table = server.table
        ann_key = secrets.token_urlsafe(24)
        for name, key in (("Ann", ann_key), ("Bob", ann_key), ("Cat", "short"), ("Dee", "!" * 32)):
            seat = dispatch.join(table, Hello(PROTOCOL_VERSION, name, seat_key=key))
            token = table.seats[seat].token
            assert len(token) == 32
            assert (token == key) == (name == "Ann"), name  # only Ann's was a fresh token's
    finally:
        await server.close()
