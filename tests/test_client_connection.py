"""The client connection against a real host and against a scripted fake one.

The fake host lets a test do what a real one never does on purpose: fall silent,
drop the link right after an action, or send garbage. Every wait has a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from client.connection import IMPOSTOR, Connection
from client.messages import Disconnected, HostError, StateReceived, Welcomed
from host.server import HostConfig, HostServer
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    Challenge,
    ErrorMsg,
    FrameDecoder,
    Hello,
    Purpose,
    State,
    TableInfo,
    Welcome,
    frame,
    parse_client_message,
    prove,
)

DEADLINE = 10.0


class Inbox:
    """Collects what a connection posts; `expect` waits (with a deadline) for a kind."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.seen: list[Any] = []

    def post(self, message: Any) -> None:
        self.queue.put_nowait(message)

    async def expect(self, kind: type, timeout: float = DEADLINE) -> Any:
        async with asyncio.timeout(timeout):
            while True:
                message = await self.queue.get()
                self.seen.append(message)
                if isinstance(message, kind):
                    return message


@contextlib.asynccontextmanager
async def running(connection: Connection) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(connection.run())
    try:
        yield task
    finally:
        await connection.close()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


Session = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


@contextlib.asynccontextmanager
async def fake_host(session: Session) -> AsyncIterator[int]:
    """A TCP server on 127.0.0.1 running `session(reader, writer, n)` for the n-th client."""
    count = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal count
        count += 1
        writer.write(Challenge(PROTOCOL_VERSION, NONCE, "t1").encode())
        try:
            await session(reader, writer, count)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 2)


def table_that_drops(down_for: int) -> Session:
    """A fake table that welcomes the first client with token "tok" and goes down at
    once; the next `down_for` connections are dropped (the table is away); after that it
    welcomes the returning client again and stays."""

    async def table(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        if 2 <= n <= 1 + down_for:
            return  # down for a while: the link drops at once
        hello = await Frames(reader).next_of("hello")
        writer.write(welcome("tok", hello) + lobby_state(n))
        if n == 1:
            await writer.drain()
            return  # the table goes down
        await reader.read()

    return table


class Frames:
    """The client's messages, in order, from one fake-host session."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader, self.decoder, self.queue = reader, FrameDecoder(), deque[Any]()

    async def next_of(self, kind: str) -> Any:
        while True:
            while self.queue:
                message = self.queue.popleft()
                if kind == message.TYPE:
                    return message
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionResetError
            self.queue.extend(parse_client_message(p) for p in self.decoder.feed(data))


NONCE = "n" * 32
"""The fake host's challenge to every connection."""


def welcome(token: str = "tok", hello: Hello | None = None, **fields: Any) -> bytes:
    """The fake host's welcome; to a `hello` that proved `token`, with the host's proof."""
    proof = None
    if hello is not None and hello.challenge:
        proof = prove(token, hello.challenge, "t1", Purpose.HOST)
    message = Welcome(
        PROTOCOL_VERSION, "t1", "Fake", 0, heartbeat=1.0, token=token, proof=proof, **fields
    )
    return message.encode()


def lobby_state(seq: int) -> bytes:
    table = {
        "id": "t1",
        "name": "Fake",
        "state": "lobby",
        "players": 2,
        "partnership": False,
        "target": 7,
        "seats": [{"name": "Ann", "kind": "human", "connected": True}] * 2,
        "starter": 0,
    }
    return State(seq=seq, table=TableInfo.from_wire(table), view=None).encode()


# ---- against the real host ----------------------------------------------------------------


@pytest.fixture
async def host() -> AsyncIterator[HostServer]:
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=11, advertise=False)
    async with HostServer(config) as server:
        yield server


async def test_join_start_and_get_a_hand(host: HostServer) -> None:
    inbox = Inbox()
    connection = Connection("127.0.0.1", host.port, "Ann", inbox.post)
    async with running(connection):
        welcomed = await inbox.expect(Welcomed)
        assert welcomed.welcome.seat == 0
        lobby = await inbox.expect(StateReceived)
        assert lobby.table.state == "lobby" and lobby.view is None
        connection.start()
        while True:
            state = await inbox.expect(StateReceived)
            if state.view is not None:
                break
        assert len(state.view.hand) == 6
        assert state.table.state == "playing"
        assert connection.pending == []  # the start was acknowledged


async def test_a_refused_action_comes_back_as_a_host_error(host: HostServer) -> None:
    inbox = Inbox()
    connection = Connection("127.0.0.1", host.port, "Ann", inbox.post)
    async with running(connection):
        await inbox.expect(Welcomed)
        connection.play("AS")  # in the lobby: there is no hand to play in
        error = await inbox.expect(HostError)
        assert not error.fatal
        assert error.message
        assert connection.pending == []


async def test_a_dropped_link_reconnects_to_the_same_seat(host: HostServer) -> None:
    """Mid-match (a lobby seat is not held), the seat, token and cards come back."""
    inbox = Inbox()
    connection = Connection("127.0.0.1", host.port, "Ann", inbox.post)
    async with running(connection):
        first = await inbox.expect(Welcomed)
        connection.start()
        while (state := await inbox.expect(StateReceived)).view is None:
            pass
        host.connections[first.welcome.seat].abort()  # the host side vanishes
        lost = await inbox.expect(Disconnected)
        assert lost.retrying
        assert lost.delay <= 1.1
        again = await inbox.expect(Welcomed)
        assert again.welcome.seat == first.welcome.seat
        assert again.welcome.token is None  # it was proven, not sent back
        assert connection.token == first.welcome.token
        back = await inbox.expect(StateReceived)
        assert back.view is not None and back.view.hand == state.view.hand


async def test_a_table_full_refusal_is_final() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", bots=4, advertise=False, bot_delay=0)
    async with HostServer(config) as server:
        inbox = Inbox()
        connection = Connection("127.0.0.1", server.port, "Ann", inbox.post)
        async with running(connection) as task:
            error = await inbox.expect(HostError)
            assert error.fatal
            gone = await inbox.expect(Disconnected)
            assert not gone.retrying
            async with asyncio.timeout(DEADLINE):
                await task  # run() ends by itself: no retry after a refusal


async def test_nobody_listening_is_said_plainly() -> None:
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    inbox = Inbox()
    async with running(Connection("127.0.0.1", port, "Ann", inbox.post)):
        gone = await inbox.expect(Disconnected)
    assert not gone.retrying
    assert "Nobody is hosting a table at" in gone.reason


# ---- against a scripted fake host -------------------------------------------------------------


async def test_a_silent_host_is_noticed_within_the_deadline() -> None:
    """The host seats us, then says nothing (no pings, no FIN): a dead peer."""
    silent = asyncio.Event()

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        writer.write(welcome() + lobby_state(1))
        await silent.wait()  # hold the socket open and never answer

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post, dead_after=0.5)
        async with running(connection):
            await inbox.expect(Welcomed)
            lost = await inbox.expect(Disconnected, timeout=3.0)
            assert "No word from the host" in lost.reason
            assert lost.retrying
        silent.set()


async def test_an_unacknowledged_action_is_resent_after_reconnect() -> None:
    """An action sent just before a drop is sent again, with the same id."""
    seen: list[tuple[int, Any]] = []
    resent = asyncio.Event()

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        frames = Frames(reader)
        hello = await frames.next_of("hello")
        seen.append((n, hello))
        writer.write(welcome("secret", hello) + lobby_state(1))
        if n == 1:
            seen.append((n, await frames.next_of("bid")))
            return  # drop the link without acknowledging the bid
        seen.append((n, await frames.next_of("bid")))
        resent.set()
        await reader.read()  # until the client goes

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post)
        async with running(connection):
            await inbox.expect(Welcomed)
            sent = connection.bid(2)
            await inbox.expect(Disconnected)
            await inbox.expect(Welcomed)
            await asyncio.wait_for(resent.wait(), DEADLINE)
    (_, hello1), (_, bid1), (_, hello2), (_, bid2) = seen
    assert hello1.seat_proof is None
    assert hello2.seat_proof == prove("secret", NONCE, "t1", Purpose.SEAT)
    assert bid1.id == bid2.id == sent
    assert bid2.bid == 2


async def test_garbage_from_the_host_is_a_message_not_a_crash() -> None:
    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        writer.write(welcome())
        writer.write(frame({"type": "state", "seq": 2, "table": {"seats": 5}, "view": None}))
        writer.write(frame({"type": "no-such-thing"}))
        writer.write(b"\xff\xff\xff\xff")  # a length far past the limit: the stream is broken
        await reader.read()

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post, reconnect=False)
        async with running(connection):
            await inbox.expect(Welcomed)
            bad_table = await inbox.expect(HostError)
            unknown = await inbox.expect(HostError)
            gone = await inbox.expect(Disconnected)
    assert "bad table" in bad_table.message
    assert "bad message" in unknown.message
    assert "unreadable" in gone.reason
    assert not any(isinstance(m, StateReceived) for m in inbox.seen)


async def test_old_snapshots_are_ignored() -> None:
    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        writer.write(welcome() + lobby_state(5) + lobby_state(4) + lobby_state(6))
        await reader.read()

    async with fake_host(session) as port:
        inbox = Inbox()
        async with running(Connection("127.0.0.1", port, "Ann", inbox.post)):
            first = await inbox.expect(StateReceived)
            second = await inbox.expect(StateReceived)
    assert (first.seq, second.seq) == (5, 6)


async def test_ids_continue_after_the_last_one_the_host_applied() -> None:
    """A restarted client must not reuse ids the host already applied for its seat."""
    applied = 10**15
    got: list[Any] = []
    done = asyncio.Event()

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        frames = Frames(reader)
        hello = await frames.next_of("hello")
        writer.write(welcome("tok", hello, last_id=applied))
        writer.write(lobby_state(1))
        got.append(await frames.next_of("ready"))
        done.set()
        await reader.read()

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post)
        async with running(connection):
            await inbox.expect(StateReceived)
            sent = connection.ready()
            await asyncio.wait_for(done.wait(), DEADLINE)
    assert got[0].id == sent > applied


async def test_a_host_that_moved_is_found_again_by_table_id() -> None:
    """The table came back on another address; `locate` (zeroconf in the app)
    finds it by id and the connection carries on there with its token."""
    asked: list[str] = []

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        frames = Frames(reader)
        hello = await frames.next_of("hello")
        assert hello.seat_proof == prove("tok", NONCE, "t1", Purpose.SEAT)
        assert hello.table_id == "t1"
        writer.write(welcome("tok", hello) + lobby_state(1))
        await reader.read()

    gone = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    old_port = gone.sockets[0].getsockname()[1]
    gone.close()
    await gone.wait_closed()
    async with fake_host(session) as new_port:

        async def locate(table_id: str, avoid: Any = ()) -> tuple[str, int] | None:
            asked.append(table_id)
            return ("127.0.0.1", new_port)

        inbox = Inbox()
        connection = Connection(
            "127.0.0.1", old_port, "Ann", inbox.post, token="tok", table_id="t1", locate=locate
        )
        async with running(connection):
            welcomed = await inbox.expect(Welcomed)
    assert asked and asked[0] == "t1"
    assert welcomed.welcome.token == "tok"
    assert connection.port == new_port


async def test_a_table_closed_on_purpose_says_so_and_keeps_the_token() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", advertise=False, bot_delay=0)
    server = HostServer(config)
    await server.start()
    inbox = Inbox()
    connection = Connection("127.0.0.1", server.port, "Ann", inbox.post)
    async with running(connection) as task:
        welcomed = await inbox.expect(Welcomed)
        await server.close(on_purpose=True)
        gone = await inbox.expect(Disconnected)
        assert gone.closed and not gone.retrying
        assert gone.reason == "The host closed the table."
        assert connection.token == welcomed.welcome.token  # kept, for a resumed table
        async with asyncio.timeout(DEADLINE):
            await task  # no reconnect loop after a table closed on purpose


async def test_the_reconnect_loop_gives_up_after_its_limit_with_a_sentence() -> None:
    async def welcome_then_vanish(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int
    ) -> None:
        if n == 1:
            writer.write(welcome() + lobby_state(1))
            await writer.drain()
        # then, and on every retry, the link drops at once

    async with fake_host(welcome_then_vanish) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post, give_up_after=1.0)
        async with running(connection) as task:
            await inbox.expect(Welcomed)
            tries = []
            while (lost := await inbox.expect(Disconnected)).retrying:
                tries.append(lost.trying_for)
            assert tries and tries == sorted(tries)  # it says how long it has been trying
            assert lost.trying_for >= 1.0
            assert lost.reason.startswith("Stopped trying after 1 minute")
            assert lost.reason.endswith(".")
            async with asyncio.timeout(DEADLINE):
                await task


async def test_a_host_that_cannot_prove_our_seat_is_left_and_never_retried() -> None:
    """An impostor answering at the table's address takes our hello but, not knowing the
    token, cannot prove it: the client says so and stops there, with no second try."""
    hellos: list[Any] = []

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        hellos.append(await Frames(reader).next_of("hello"))
        writer.write(welcome("made-up") + lobby_state(1))  # no proof it could make
        await reader.read()

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post, token="tok", table_id="t1")
        async with running(connection) as task:
            gone = await inbox.expect(Disconnected)
            await asyncio.wait_for(task, DEADLINE)  # the client stops: no retry loop
    assert gone.reason == IMPOSTOR and not gone.retrying
    assert len(hellos) == 1
    assert not any(isinstance(m, Welcomed) for m in inbox.seen)
    assert hellos[0].seat_proof == prove("tok", NONCE, "t1", Purpose.SEAT)
    assert connection.token == "tok"  # our real seat is kept, for the real table


async def test_a_reconnect_that_finds_an_impostor_says_so_and_goes_back_to_its_table() -> None:
    """Our table drops; zeroconf (`locate`) then finds an impostor under its id. It takes
    our hello and cannot prove our seat: the client says so, never goes there again,
    and keeps trying the address where its table welcomed it, which comes back."""
    impostor_hellos: list[Any] = []
    avoided: list[set[Any]] = []

    table = table_that_drops(down_for=5)

    async def impostor(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        impostor_hellos.append(await Frames(reader).next_of("hello"))
        writer.write(welcome("made-up") + lobby_state(1))
        await reader.read()

    async with fake_host(table) as table_port, fake_host(impostor) as impostor_port:

        async def locate(table_id: str, avoid: Any = ()) -> tuple[str, int] | None:
            avoided.append(set(avoid))
            return ("127.0.0.1", impostor_port)

        inbox = Inbox()
        connection = Connection(
            "127.0.0.1", table_port, "Ann", inbox.post, token="tok", table_id="t1", locate=locate
        )
        async with running(connection):
            await inbox.expect(Welcomed)
            while not (lost := await inbox.expect(Disconnected)).reason.startswith(IMPOSTOR):
                assert lost.retrying
            assert lost.retrying and lost.reason.endswith("Trying the table's own address again.")
            back = await inbox.expect(Welcomed)
    assert back.welcome.proof is not None and connection.port == table_port
    assert len(impostor_hellos) == 1  # found again by `locate`, never tried twice
    assert len(avoided) >= 2 and ("127.0.0.1", impostor_port) in avoided[-1]  # told to skip it
    assert connection.token == "tok"


async def test_a_host_of_an_older_protocol_gets_no_hello_and_is_refused_with_a_sentence() -> None:
    """An older host sends no challenge (its first frame is a ping) and waits for a hello
    with the secrets in clear: the client sends none, says why, and stops."""
    received: list[bytes] = []

    async def old_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(frame({"type": "ping", "t": 1.0}))
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                received.append(data)
        writer.close()

    server = await asyncio.start_server(old_host, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        inbox = Inbox()
        connection = Connection(
            "127.0.0.1", port, "Ann", inbox.post, token="tok", table_id="t1", password="pw"
        )
        async with running(connection) as task:
            gone = await inbox.expect(Disconnected)
            await asyncio.wait_for(task, DEADLINE)
    finally:
        server.close()
    assert gone.reason.startswith("That host runs an older pitchnet") and not gone.retrying
    assert connection.refusal == "version"
    assert b"hello" not in b"".join(received)


async def test_a_newcomer_whose_host_died_before_its_welcome_proves_the_key_it_offered() -> None:
    """Issue 27: a host that journals a new seat and dies before its welcome reaches the
    player. The newcomer offered its own seat token (`seat_key`); its next hello proves
    that key, so the resumed host seats it again instead of leaving a seat nobody holds."""
    hellos: list[Hello] = []

    async def table(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        hello = await Frames(reader).next_of("hello")
        hellos.append(hello)
        if n == 1:
            return  # the host dies: the seat is journaled, the welcome never sent
        writer.write(welcome(hellos[0].seat_key or "", hello) + lobby_state(n))
        await reader.read()

    async with fake_host(table) as port:
        inbox = Inbox()
        async with running(Connection("127.0.0.1", port, "Ann", inbox.post)):
            welcomed = await inbox.expect(Welcomed)
    first, second = hellos
    assert first.seat_key and len(first.seat_key) == 32 and first.seat_proof is None
    assert second.seat_key is None  # the second hello proves the key instead
    assert second.seat_proof == prove(first.seat_key, NONCE, "t1", Purpose.SEAT)
    assert welcomed.connection.token == first.seat_key


async def test_a_key_the_host_never_took_makes_the_newcomer_a_newcomer_again() -> None:
    """The host died before it journaled the seat: it refuses the key as unknown, and the
    client says hello again as a newcomer, with a new key."""
    hellos: list[Hello] = []

    async def table(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        hello = await Frames(reader).next_of("hello")
        hellos.append(hello)
        if n == 1:
            return
        if hello.seat_proof:
            writer.write(ErrorMsg("bad_token", "That seat is not known here.", fatal=True).encode())
            await writer.drain()
            return
        writer.write(welcome(hello.seat_key or "", hello) + lobby_state(n))
        await reader.read()

    async with fake_host(table) as port:
        inbox = Inbox()
        async with running(Connection("127.0.0.1", port, "Ann", inbox.post)):
            welcomed = await inbox.expect(Welcomed)
    assert [bool(h.seat_proof) for h in hellos] == [False, True, False]
    assert hellos[2].seat_key not in (None, hellos[0].seat_key)
    assert welcomed.connection.token == hellos[2].seat_key
