"""A connection the host closes must really go, even when its peer never reads.

`transport.close()` waits for what is queued to be sent; a peer that does not read
would keep such a connection (and, after a strike-out, its seat) forever. These tests
drive a host `Connection` through a transport that never finishes closing, as a
socket with a full send queue would not, and check the host cuts it after
`Limits.close_grace`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from host.limits import Limits
from host.server import Connection, HostConfig, HostServer
from pitchnet.protocol import PROTOCOL_VERSION, Hello, Leave, frame
from tests.netclient import until_true
from tests.table_doubles import hello_at

GRACE = 0.05


class StuckTransport(asyncio.Transport):
    """Accepts every write and never drains: `close()` leaves it closing for ever, only
    `abort()` ends the connection (as the event loop's socket transport would)."""

    def __init__(self, protocol: Connection) -> None:
        super().__init__()
        self.protocol = protocol
        self.closing = False
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 40000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        pass

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True  # what is queued never goes, so connection_lost never comes

    def abort(self) -> None:
        if not self.aborted:
            self.closing = self.aborted = True
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)


@pytest.mark.parametrize("how", ["strikes", "leave", "takeover"])
async def test_a_closed_connection_that_never_drains_is_cut_and_its_seat_let_go(
    how: str,
) -> None:
    config = HostConfig(
        interface="127.0.0.1",
        port=0,
        players=2,
        advertise=False,
        journal=False,
        limits=Limits(close_grace=GRACE),
    )
    server = HostServer(config)
    conn = server.new_connection()
    transport = StuckTransport(conn)
    conn.connection_made(transport)
    conn.data_received(Hello(version=PROTOCOL_VERSION, name="Ann").encode())
    assert server.connections == {0: conn}
    if how == "strikes":
        for _ in range(server.limits.max_strikes):
            conn.data_received(frame({"type": "no_such_type"}))
    elif how == "leave":
        conn.data_received(Leave().encode())
    else:  # the same player comes back on a new connection with the seat's token
        newer = server.new_connection()
        newer.connection_made(StuckTransport(newer))
        token = server.table.token_of(0)
        nonce = next(p.nonce for p in server.referee.peers.values() if not p.welcomed)
        newer.data_received(hello_at(server.table, "Ann", nonce, token=token).encode())
    await until_true(lambda: conn.closed and transport.closing, "the host to close it")
    await until_true(lambda: transport.aborted, "the host to cut it")
    if how == "takeover":
        assert server.connections[0] is not conn  # the new connection keeps the seat
    else:  # the cut's connection_lost comes a loop turn after the abort
        await until_true(lambda: server.connections == {}, "the seat to be let go")
        assert server.table.seats[0].kind == "empty"  # in the lobby the seat is free again
    await server.close()


async def test_a_connection_reset_is_logged_as_a_sentence_not_an_errno(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The person running the host reads its log: a peer that resets its connection is
    'dropped the connection', never Python's '[Errno 104] Connection reset by peer'."""
    config = HostConfig(interface="127.0.0.1", port=0, players=2, advertise=False, journal=False)
    server = HostServer(config)
    conn = server.new_connection()
    conn.connection_made(StuckTransport(conn))
    with caplog.at_level("INFO", logger="pitchnet.host"):
        conn.connection_lost(ConnectionResetError(104, "Connection reset by peer"))
    gone = [r.getMessage() for r in caplog.records if "is gone" in r.getMessage()]
    assert gone == ["127.0.0.1:40000 is gone: its computer dropped the connection."]
    assert "Errno" not in caplog.text


async def test_waiting_for_the_host_to_close_waits_for_its_whole_shutdown() -> None:
    """`pitchnet host` returns once `wait_closed` does: it returned as closing began,
    while `close` still waited for a client to go, so the rest of the shutdown (the
    advert, the journal, the "closed" line) was cut short when the process ended (a
    whole-match test under load in CI found no "closed" in the host's log)."""
    from tests.netclient import running_host

    async with running_host(players=2) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)  # stays
        await until_true(lambda: bool(server.links), "the connection taken")
        closing = asyncio.ensure_future(server.close(on_purpose=True))
        await server.wait_closed()
        assert closing.done()  # the shutdown ran to its end: advert, journal, log line
        assert reader.at_eof() or not server.links  # the lingering client was cut
        writer.close()
        await closing
