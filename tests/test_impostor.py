"""Secrets are proven, never sent (issue 11, item 1): a `hello` recorded on one connection,
or collected by an impostor host with its own nonce, gets nobody a seat at the real table;
and an impostor's "I do not know your seat" (`bad_token`) costs nobody theirs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from client.app import ClientOptions
from client.connection import Connection
from client.messages import Disconnected, StateReceived, Welcomed
from client.screens.lobby import LobbyScreen
from client.screens.table import TableScreen
from client.session import (
    AS_A_NEWCOMER,
    BACK_TO_OUR_TABLE,
    LOBBY_SEAT_FREED,
    STILL_TRYING,
    UNKNOWN_SEAT,
)
from client.tokens import SavedSeat, TokenStore
from host.server import HostConfig, HostServer
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    Bye,
    Challenge,
    ErrorMsg,
    FrameDecoder,
    Pong,
    Start,
    State,
    TableInfo,
    Welcome,
    frame,
)
from pitchnet.views import seat_view
from tests.netclient import RawClient, running_host, until_true
from tests.pilot import NoTables, dealt, my_seat, screen_text, until
from tests.pilot_app import PilotApp
from tests.test_client_connection import (
    Frames,
    Inbox,
    fake_host,
    table_that_drops,
    welcome,
)
from tests.test_client_connection import running as running_connection
from tests.test_client_play import SIZE, join_app, news_into
from tests.test_password import carries, refused

PASSWORD = "Corn-Flakes 42"


HelloAnswer = Callable[[dict[str, Any], asyncio.StreamWriter], Awaitable[bool]]
"""What a claiming host does with one `hello`; True hangs up."""


@contextlib.asynccontextmanager
async def claiming_host(
    table_id: str, on_hello: HelloAnswer, *, answer_pings: bool = False
) -> AsyncIterator[int]:
    """A host on 127.0.0.1 claiming `table_id` (as a copy of its advert does) with its
    own nonce: each `hello` goes to `on_hello`, pings are answered only with
    `answer_pings`, and nothing else is. Yields its port."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(Challenge(PROTOCOL_VERSION, "f" * 32, table_id).encode())
        decoder = FrameDecoder()
        with contextlib.suppress(ConnectionError):
            while chunk := await reader.read(65536):
                for payload in decoder.feed(chunk):
                    kind = payload.get("type")
                    if kind == "ping" and answer_pings:
                        writer.write(Pong(t=payload["t"]).encode())
                    elif kind == "hello" and await on_hello(payload, writer):
                        writer.close()
                        return
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()


@contextlib.asynccontextmanager
async def impostor(table_id: str) -> AsyncIterator[tuple[int, list[bytes]]]:
    """A host claiming `table_id` that records the raw frame of every `hello` it
    receives, and answers nothing."""
    hellos: list[bytes] = []

    async def record(payload: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        hellos.append(frame(payload))
        return False

    async with claiming_host(table_id, record) as port:
        yield port, hellos


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
                await until_true(longer_than(hellos, count), "the victim's hello")
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


# ---- an impostor that answers "I do not know your seat" -------------------------------------

IMPOSTORS_TOKEN = "i" * 32
"""The token the impostor gives whoever it seats as a newcomer."""


@contextlib.asynccontextmanager
async def refusing_impostor(table_id: str) -> AsyncIterator[tuple[int, list[dict[str, Any]]]]:
    """A host on 127.0.0.1 claiming `table_id` (as a copy of its advert does). It knows no
    seat, so it answers a returning player `bad_token`, word for word as a table that
    lost the seat would; a newcomer it seats at a lobby of its own, with its own token.
    It records every `hello`."""
    hellos: list[dict[str, Any]] = []
    lobby = TableInfo.from_wire(
        {
            "id": table_id,
            "name": "Kitchen Table",
            "state": "lobby",
            "players": 2,
            "partnership": False,
            "target": 7,
            "seats": [
                {"name": "Ann", "kind": "human", "connected": True},
                {"name": "", "kind": "empty", "connected": False},
            ],
            "starter": 0,
        }
    )

    async def answer(payload: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        hellos.append(payload)
        if payload.get("seat_proof"):
            message = "That seat token is not valid at this table."
            writer.write(ErrorMsg("bad_token", message, fatal=True).encode())
            await writer.drain()
            return True
        welcome = Welcome(PROTOCOL_VERSION, table_id, "Kitchen Table", 0, 1.0, IMPOSTORS_TOKEN)
        writer.write(welcome.encode() + State(seq=1, table=lobby, view=None).encode())
        return False

    async with claiming_host(table_id, answer, answer_pings=True) as port:
        yield port, hellos


def finds(address: tuple[str, int]) -> Any:
    """The advert lookup by table id (zeroconf's `locate`), finding only `address`."""

    async def locate(table_id: str, *, avoid: Any = ()) -> tuple[str, int] | None:
        return None if address in avoid else address

    return locate


def longer_than(seen: list[Any], count: int) -> Callable[[], bool]:
    """A condition: `seen` has grown past `count` (bound now, not when it is asked)."""
    return lambda: len(seen) > count


def table_config(**fields: Any) -> HostConfig:
    """A loopback table that does not advertise, its bots instant, dealt from seed 5."""
    return HostConfig(interface="127.0.0.1", advertise=False, bot_delay=0.0, seed=5, **fields)


def kept(name: str, table_id: str) -> SavedSeat:
    """What the token store keeps for `name` at `table_id` (the test fails if nothing)."""
    found = TokenStore().find(name, table_id=table_id)
    assert found is not None, f"no seat kept for {name} at {table_id}"
    return found


async def test_an_impostor_saying_bad_token_while_the_table_is_down_costs_no_seat() -> None:
    """The table's host goes down mid-hand. Looking for it by its id the client finds an
    impostor with the same advert, which answers `bad_token`. That proves nothing: the
    client says so, keeps its token and keeps trying, and when the real table comes back
    it sits in its own seat with its own cards, the token on disk still the real one."""
    server = HostServer(table_config(port=0, players=2, bots=1))
    await server.start()
    port, table_id = server.port, server.table_id
    resumed: HostServer | None = None
    seen: list[Any] = []
    app = join_app(port)
    try:
        async with refusing_impostor(table_id) as (impostor_port, hellos):
            vars(app)["_locate"] = finds(("127.0.0.1", impostor_port))
            async with app.run_test(size=SIZE, message_hook=news_into(seen)) as pilot:
                await until(pilot, lambda: app.game.table is not None, "the table")
                if app.game.view is None:
                    await pilot.press("s")  # a lobby: start the match
                await until(pilot, lambda: app.game.view is not None, "the first deal")
                seat, hand = my_seat(app), list(dealt(app).hand)
                assert app.connection is not None
                token = app.connection.token
                assert token and kept("Ann", table_id).token == token
                await server.close()  # down, not ended: the client keeps trying

                def doubted() -> bool:
                    return any(
                        isinstance(m, Disconnected) and m.reason.startswith(UNKNOWN_SEAT)
                        for m in seen
                    )

                await until(pilot, doubted, "the impostor's refusal, told", timeout=20)
                assert hellos and hellos[0]["seat_proof"]  # it was asked for the seat
                told = next(m for m in seen if isinstance(m, Disconnected) and doubted())
                assert all(m.retrying for m in seen if isinstance(m, Disconnected))
                assert told.reason.endswith(".")
                resumed = HostServer(table_config(port=port, resume=table_id))
                await resumed.start()
                welcomes = [m for m in seen if isinstance(m, Welcomed)]
                await until(
                    pilot,
                    lambda: sum(isinstance(m, Welcomed) for m in seen) == 2,
                    "the seat back at the real table",
                    timeout=20,
                )
                welcomes = [m for m in seen if isinstance(m, Welcomed)]
                assert welcomes[-1].welcome.proof is not None  # the real table, proven
                await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
                assert app.game.seat == seat and list(dealt(app).hand) == hand
                assert app.connection.token == token
                assert kept("Ann", table_id).token == token
                assert resumed.table.seats[seat].connected
    finally:
        await server.close()
        if resumed is not None:
            await resumed.close()


async def test_a_fresh_start_at_an_impostor_keeps_the_real_token_for_the_real_table() -> None:
    """A player whose token is remembered on disk picks the impostor's copy of the table:
    it says `bad_token`, so the client sits there as a newcomer and tells the player why,
    but remembers the real token beside the impostor's, and leaving the impostor's table
    forgets only the impostor's; joining the real table then gives the player their seat
    and cards back."""
    async with running_host(players=2, bots=1, seed=5) as server:
        ann = await RawClient.connect(server)
        welcome = await ann.hello("Ann")
        ann.send(Start(id=ann.new_id()))
        await ann.expect("ack")
        assert server.table.match is not None
        seat, token = welcome["seat"], welcome["token"]
        hand = list(seat_view(server.table.match, seat).hand)
        await ann.close()
        await until_true(lambda: not server.table.seats[seat].connected, "Ann to be away")
        table_id = server.table_id
        TokenStore().remember(SavedSeat(table_id, "Ann", "127.0.0.1", server.port, token))
        app = PilotApp(ClientOptions(name="Ann", mode="find"), browser_factory=NoTables)
        async with (
            refusing_impostor(table_id) as (impostor_port, hellos),
            app.run_test(size=SIZE) as pilot,
        ):
            app.join("127.0.0.1", impostor_port, table_id=table_id, label="Kitchen Table")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "its lobby")
            await until(pilot, lambda: "Kitchen Table" in screen_text(app), "the lobby drawn")
            assert [bool(h["seat_proof"]) for h in hellos] == [True, False]
            assert app.notices[-1] == f"{UNKNOWN_SEAT} {AS_A_NEWCOMER}"
            saved = TokenStore().find("Ann", table_id=table_id)
            assert saved is not None and saved.tokens == (IMPOSTORS_TOKEN, token)
            app.leave_table()  # the player gives up the seat there, not the real one
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            assert TokenStore().find("Ann", table_id=table_id) is None
            saved = TokenStore().find("Ann", table_id=table_id, given_up=True)
            assert saved is not None and saved.tokens == (token,)
            app.join("127.0.0.1", server.port, table_id=table_id, label="Kitchen Table")
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "our own table")
            assert app.game.seat == seat and list(dealt(app).hand) == hand
            assert server.table.seats[seat].connected
            saved = TokenStore().find("Ann", table_id=table_id)
            assert saved is not None and saved.token == token


async def test_a_lobby_that_freed_the_seat_of_a_dropped_player_seats_them_again_at_once() -> None:
    """The legitimate case the lobby makes every day: it frees the seat of whoever drops
    off, so its own address answering "bad_token" is believed there, and only there. The
    client sits down again as a newcomer at once, and says why."""
    async with running_host(players=2) as server:
        inbox = Inbox()
        connection = Connection("127.0.0.1", server.port, "Ann", inbox.post, give_up_after=60)
        async with running_connection(connection):
            first = await inbox.expect(Welcomed)
            await inbox.expect(StateReceived)  # the lobby, as the client saw it
            token = connection.token
            server.connections[first.welcome.seat].abort()  # the lobby frees the seat
            back = await inbox.expect(Welcomed)
            await until_true(lambda: server.table.seats[back.welcome.seat].connected, "seated")
            assert server.table.seats[back.welcome.seat].name == "Ann"
        assert back.note == LOBBY_SEAT_FREED
        assert back.welcome.token and back.welcome.token != token
        told = [m for m in inbox.seen if isinstance(m, Disconnected)]
        assert not any(UNKNOWN_SEAT in m.reason for m in told)  # never "not your table"


async def test_a_table_that_really_lost_the_seat_ends_in_a_sentence_then_seats_a_newcomer() -> None:
    """Mid-match, the table's own address no longer knows the seat (its record lost). A
    reconnect does not believe it and keeps trying, saying why, until the give-up time
    ends it with a sentence; joining again seats the player as a newcomer, the old token
    still kept."""

    async def table(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        hello = await Frames(reader).next_of("hello")
        if n == 1:
            writer.write(welcome("tok", hello) + playing_state(1))
            await writer.drain()
            return  # the link drops mid-match
        if hello.seat_proof:
            writer.write(
                ErrorMsg("bad_token", "That seat token is not valid.", fatal=True).encode()
            )
        else:
            writer.write(welcome("new", hello) + playing_state(1))
        await writer.drain()
        await reader.read()

    async with fake_host(table) as port:
        inbox = Inbox()
        connection = Connection(
            "127.0.0.1", port, "Ann", inbox.post, token="tok", table_id="t1", give_up_after=3.0
        )
        async with running_connection(connection) as task:
            await inbox.expect(Welcomed)
            reasons = []
            while (lost := await inbox.expect(Disconnected)).retrying:
                reasons.append(lost.reason)
            await asyncio.wait_for(task, 10)
        assert f"{UNKNOWN_SEAT} {STILL_TRYING}" in reasons
        assert lost.reason.startswith("Stopped trying after 1 minute")
        assert connection.token == "tok"
        assert sum(isinstance(m, Welcomed) for m in inbox.seen) == 1  # never seated again
        again = Connection(
            "127.0.0.1",
            port,
            "Ann",
            inbox.post,
            table_id="t1",
            remembered=SavedSeat("t1", "Ann", "127.0.0.1", port, "tok"),
        )
        async with running_connection(again):
            newcomer = await inbox.expect(Welcomed)
        assert newcomer.note == f"{UNKNOWN_SEAT} {AS_A_NEWCOMER}"
        assert newcomer.welcome.token == "new"
        assert again.kept_tokens == ("tok",)  # remembered beside the new one


def playing_state(seq: int) -> bytes:
    """A fake host's snapshot of a match under way (no view: what the client needs here
    is only that the table is past its lobby)."""
    table = TableInfo.from_wire(
        {
            "id": "t1",
            "name": "Fake",
            "state": "playing",
            "players": 2,
            "partnership": False,
            "target": 7,
            "seats": [{"name": "Ann", "kind": "human", "connected": True}] * 2,
            "starter": 0,
        }
    )
    return State(seq=seq, table=table, view=None).encode()


@pytest.mark.parametrize(
    "answer",
    [ErrorMsg("bad_token", "That seat token is not valid at this table.", fatal=True)],
    ids=lambda answer: getattr(answer, "code", "?"),
)
async def test_a_reconnect_believes_no_refusal_from_a_host_that_proved_nothing(
    answer: ErrorMsg | Bye,
) -> None:
    """Our table drops; looking for it by its id the client finds another host, which
    answers our returning `hello` with a refusal (or "closed", or "moved") before proving
    anything. Anyone can send that: the client keeps its token, says so, never asks that
    host again and keeps trying its table's own address, which comes back. Over sockets
    for one refusal; every other refusal goes through the same decision, tested against
    the referee in tests/test_client_session.py."""
    refused: list[Any] = []

    table = table_that_drops(down_for=3)  # until it has been looked for by its id

    async def other(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        refused.append(await Frames(reader).next_of("hello"))
        writer.write(answer.encode())
        await writer.drain()

    async with fake_host(table) as table_port, fake_host(other) as other_port:
        inbox = Inbox()
        connection = Connection(
            "127.0.0.1",
            table_port,
            "Ann",
            inbox.post,
            token="tok",
            table_id="t1",
            locate=finds(("127.0.0.1", other_port)),
        )
        async with running_connection(connection):
            await inbox.expect(Welcomed)
            back = await inbox.expect(Welcomed)
    told = [m for m in inbox.seen if isinstance(m, Disconnected)]
    assert all(m.retrying for m in told)
    said = UNKNOWN_SEAT
    assert f"{said} {BACK_TO_OUR_TABLE}" in [m.reason for m in told]
    assert back.welcome.proof is not None and connection.port == table_port
    assert len(refused) == 1 and refused[0].seat_proof  # asked once, never again
    assert connection.token == "tok"


async def test_a_headless_bot_refused_by_an_impostor_keeps_its_real_token() -> None:
    """`pitchnet bot` with a token remembered for an address an impostor now answers at:
    refused, it sits there as a newcomer (and logs why), remembering the real token
    beside the impostor's."""
    from client.headless import HeadlessPlayer

    async with refusing_impostor("t-real") as (port, hellos):
        TokenStore().remember(SavedSeat("t-real", "Bot", "127.0.0.1", port, "real-token"))
        player = HeadlessPlayer("127.0.0.1", port, "Bot", "random", None)
        playing = asyncio.create_task(player.play())
        try:

            def saved() -> SavedSeat | None:
                return TokenStore().find("Bot", table_id="t-real")

            await until_true(
                lambda: (seat := saved()) is not None and seat.token == IMPOSTORS_TOKEN,
                "the newcomer's seat",
            )
            assert kept("Bot", "t-real").tokens == (IMPOSTORS_TOKEN, "real-token")
            assert [bool(h["seat_proof"]) for h in hellos] == [True, False]
        finally:
            await player.connection.close()
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
