"""Socket-level abuse of a running host.

The main test plays the same seeded four-bot match twice on 127.0.0.1: once in peace,
once while other connections send garbage, oversize lengths, half frames that never
finish, nothing at all, floods, wrong tokens and hellos the table must refuse, while a
stranger takes a seat over with a stolen token and floods it, and while one address
opens connections up to its limit. The match must end exactly as in peace (scores,
winner, every deal and every bid and card in the journal), every abuser must get the
error its abuse deserves, and what the host holds per connection must stay bounded.

The smaller tests pin single limits: seat takeover by token, names, the partial-frame
deadline, the connection caps. Every wait polls a condition or reads a socket with a
deadline; nothing sleeps in the hope that the host has acted.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import random
import tracemalloc
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
import pytest

from host.entries import BidMade
from host.limits import Limits
from host.server import HostServer
from pitchnet.events import Event
from pitchnet.protocol import (
    HEADER,
    MAX_CLIENT_FRAME,
    MAX_FRAME,
    MAX_HELLO_FRAME,
    MAX_NAME,
    PROTOCOL_VERSION,
    BidMsg,
    Hello,
    Leave,
    Ping,
    TableInfo,
)
from pitchnet.views import SeatView
from tests.netclient import RawClient, play_as_bot, running_host, until_true

PASSWORD = "kitchen"
"""The table has a password, so the abuse can include guessing it."""
SEED = 9
"""A seeded match of three hands (seat 0 is needed in hand 2, where it is taken over)."""
LIMITS = Limits(
    handshake_seconds=1.0,
    partial_frame_seconds=0.5,
    max_connections=64,
    max_per_address=32,
    connect_burst=10**6,
)
"""Short deadlines keep the test quick; every connection here comes from 127.0.0.1, so
the per-address cap is the one the saturation phase reaches (and the per-address
connection rate, tested on its own below, is lifted)."""
DEADLINE = 30.0


def frame_of(raw: bytes) -> bytes:
    return HEADER.pack(len(raw)) + raw


async def open_client(server: HostServer) -> RawClient:
    return await RawClient.connect(server)


async def abuser(server: HostServer) -> RawClient:
    """A bare raw connection (tests/netclient.py): no pongs, every frame kept and checked."""
    return await RawClient.connect(server, bare=True, deadline=DEADLINE)


async def refusal(client: RawClient) -> dict[str, Any]:
    return await client.refusal()


async def refused_code(client: RawClient) -> str:
    """The code of the fatal error the host closed `client` with."""
    code = (await client.refusal())["code"]
    assert isinstance(code, str)
    return code


# ---- what the host holds, sampled while the abuse goes on -----------------------------------


@dataclass
class Held:
    """Peak figures of what the host keeps per connection."""

    connections: int = 0
    pending: int = 0
    """Bytes in all FrameDecoders (started frames not yet complete)."""
    largest_pending: int = 0
    send_buffers: int = 0
    samples: int = 0

    def sample(self, server: HostServer) -> None:
        conns = [*server.connections.values(), *server.anonymous]
        pending = [c.decoder.pending for c in conns]
        buffers = sum(
            c.transport.get_write_buffer_size()
            for c in conns
            if c.transport is not None and not c.transport.is_closing()
        )
        self.connections = max(self.connections, len(conns))
        self.pending = max(self.pending, sum(pending))
        self.largest_pending = max([self.largest_pending, *pending])
        self.send_buffers = max(self.send_buffers, buffers)
        self.samples += 1


async def sampler(server: HostServer, held: Held, stop: asyncio.Event) -> None:
    while not stop.is_set():
        held.sample(server)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.01)


# ---- the match --------------------------------------------------------------------------------


@dataclass
class Outcome:
    finals: list[SeatView]
    moves: list[tuple[Any, ...]]
    """Every deal (deck), bid and play the journal holds, in order."""
    traced_peak: int
    held: Held
    bye_codes: list[str] = field(default_factory=list)


def journal_moves(server: HostServer) -> list[tuple[Any, ...]]:
    assert server.journal is not None
    moves: list[tuple[Any, ...]] = []
    for entry in (e.to_json() for e in server.journal.entries()):
        if entry["op"] == "deal":
            moves.append(("deal", entry["hand"], entry["dealer"], tuple(entry["deck"])))
        elif entry["op"] in ("bid", "play"):
            moves.append((entry["op"], entry["seat"], entry["value"]))
        elif entry["op"] in ("match", "join"):
            moves.append((entry["op"], entry.get("seat"), entry.get("dealer")))
    return moves


async def seat_four_bots(server: HostServer) -> tuple[list[RawClient], list[str]]:
    clients = [await open_client(server) for _ in range(4)]
    tokens = []
    for i, client in enumerate(clients):
        welcome = await client.hello(f"Bot{i}", password=PASSWORD)
        assert welcome["seat"] == i
        tokens.append(welcome["token"])
    return clients, tokens


async def peaceful_match() -> Outcome:
    held = Held()
    async with running_host(seed=SEED, players=4, limits=LIMITS, password=PASSWORD) as server:
        stop = asyncio.Event()
        watch = asyncio.create_task(sampler(server, held, stop))
        tracemalloc.reset_peak()
        clients, _ = await seat_four_bots(server)
        finals = await asyncio.wait_for(asyncio.gather(*(play_as_bot(c) for c in clients)), 60)
        peak = tracemalloc.get_traced_memory()[1]
        stop.set()
        await watch
        moves = journal_moves(server)
        for client in clients:
            await client.close()
    return Outcome(list(finals), moves, peak, held)


# ---- the abusers: each returns what it saw, checked by the test ------------------------------


async def send_and_get_refused(server: HostServer, data: bytes) -> str:
    client = await abuser(server)
    client.send_raw(data)
    return await refused_code(client)


async def garbage(server: HostServer, rng: random.Random) -> list[str]:
    codes = []
    for _ in range(12):
        body = bytes([0xC1]) + rng.randbytes(rng.randrange(0, 200))  # 0xc1: never msgpack
        codes.append(await send_and_get_refused(server, frame_of(body)))
        noise = bytes([0xFF]) + rng.randbytes(rng.randrange(3, 300))  # a length over 4 GiB
        codes.append(await send_and_get_refused(server, noise))
        not_a_map = frame_of(msgpack.packb([rng.random() for _ in range(5)]))
        codes.append(await send_and_get_refused(server, not_a_map))
    return codes


async def oversize(server: HostServer) -> list[str]:
    lengths = [MAX_FRAME + 1, MAX_FRAME * 2, 2**31, 2**32 - 1]
    return [await send_and_get_refused(server, HEADER.pack(n) + b"\x80" * 64) for n in lengths]


async def half_frames(server: HostServer, count: int) -> list[str]:
    """Frames that start and never finish: one nearly whole 1 KiB frame (the most a
    connection that has not said hello may make the host buffer), the rest a header and
    a few bytes."""

    async def one(size: int) -> str:
        client = await abuser(server)
        client.send_raw(HEADER.pack(MAX_HELLO_FRAME) + b"\x81" * size)
        return await refused_code(client)

    sizes = [MAX_HELLO_FRAME - 1] * 2 + [3] * (count - 2)
    return list(await asyncio.gather(*(one(size) for size in sizes)))


async def silent(server: HostServer, count: int) -> list[str]:
    async def one() -> str:
        client = await abuser(server)
        return await refused_code(client)

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def bad_hellos(server: HostServer, stale: str) -> list[tuple[str, str]]:
    """Hellos the table must refuse, each with its own code, all fatal."""
    cases: list[tuple[str, dict[str, Any]]] = [
        ("bad_token", {"token": "x" * 43}),
        ("bad_token", {"token": stale}),
        # an empty token asks for a fresh seat: the password is right, but none is free
        ("table_full", {"token": "", "password": PASSWORD}),
        ("wrong_table", {"table_id": "not-this-table"}),
        ("version", {"version": PROTOCOL_VERSION + 1}),
        ("table_full", {"password": PASSWORD}),
        ("bad_password", {}),
    ]
    seen = []
    for expected, extra in cases:
        client = await abuser(server)
        version = extra.pop("version", PROTOCOL_VERSION)
        client.send(replace(await client.answer("Intruder", **extra), version=version))
        seen.append((expected, (await refusal(client))["code"]))
    return seen


def nested_ping(size: int) -> bytes:
    """A valid `ping` frame of `size` payload bytes whose extra field holds arrays of
    empty arrays: the frame that costs a decoder the most per byte."""
    head: bytes = msgpack.packb({"type": "ping", "t": 1.0})
    row = b"\x9f" + (b"\x9f" + b"\x90" * 15) * 15  # 15 arrays of 15 empty arrays: 241 bytes
    key: bytes = msgpack.packb("x")
    prefix = b"\x83" + head[1:] + key
    rows = min(15, (size - len(prefix) - 1) // len(row))
    body = prefix + bytes([0x90 | rows]) + row * rows
    return HEADER.pack(len(body)) + body


async def nested_arrays_before_hello(server: HostServer) -> tuple[str, int]:
    """The costliest frames a connection that never says hello may send, as fast as it
    can: cut off by the decode budget once it has had 4 KiB decoded. Returns the code and
    how many of its pings were answered."""
    client = await abuser(server)
    client.send_raw(nested_ping(MAX_HELLO_FRAME) * 64)
    code = (await refusal(client))["code"]
    return code, sum(p["type"] == "pong" for p in client.received)


async def ping_flood_before_hello(server: HostServer) -> str:
    """Thousands of valid pings and never a hello: the rate limit applies before hello
    too, and there every error is fatal."""
    client = await abuser(server)
    client.send_raw(Ping(t=1.0).encode() * 3000)
    return await refused_code(client)


async def stolen_seat_flood(
    server: HostServer, token: str, last_action: BidMsg | None
) -> tuple[list[str], list[bool], int]:
    """A second connection with seat 0's token takes the seat over, replays seat 0's last
    action (acked as a duplicate, applied never), then floods the seat with pings: rate
    limited, struck out, closed. Returns the error codes, the acks' duplicate flags and
    the number of pongs."""
    client = await abuser(server)
    client.send(await client.answer("Thief", token=token))
    assert (await client.expect("welcome"))["seat"] == 0
    replays = last_action.encode() * 5 if last_action is not None else b""
    client.send_raw(replays + Ping(t=2.0).encode() * FLOOD)
    while await client.next_payload() is not None:
        pass
    errors = [p for p in client.received if p["type"] == "error"]
    assert errors[-1]["fatal"] is True and not any(e["fatal"] for e in errors[:-1])
    acks = [p["duplicate"] for p in client.received if p["type"] == "ack"]
    pongs = sum(p["type"] == "pong" and p["t"] == 2.0 for p in client.received)
    await client.close()
    return [e["code"] for e in errors], acks, pongs


FLOOD = LIMITS.burst + 10 * LIMITS.max_strikes
"""Pings in the thief's flood: at the default 100 a second the bucket would need a whole
second of processing to refill that many, so the flood always outruns it."""


EXTRA = 5
"""Connections the saturation phase opens past the per-address cap."""


async def saturate_address(
    server: HostServer, full: asyncio.Event, back: asyncio.Event
) -> tuple[int, list[bool]]:
    """Open connections from 127.0.0.1 (the players' address) that never say hello,
    EXTRA more than the cap lets the address hold: each one past the cap makes the
    host cut the oldest of them (item 6). Then, with the address full of strangers,
    let seat 0's rightful player reconnect (`full`), and hold on until it is back.
    Returns the most the host held from here and, per connection opened, whether the
    host cut it to make room (closed with no error frame: the others are refused at the
    hello deadline, with `handshake`)."""
    opened: list[RawClient] = []
    most = 0
    try:
        for _ in range(LIMITS.max_per_address - 3 + EXTRA):
            client = await abuser(server)
            assert (await client.next_payload()) is not None  # admitted: pinged at once
            opened.append(client)
            most = max(most, len(server.anonymous))
        full.set()
        await back.wait()
        most = max(most, len(server.anonymous))
        cut = []
        for client in opened:
            while (await client.next_payload()) is not None:
                pass
            cut.append(not any(p["type"] == "error" for p in client.received))
        return most, cut
    finally:
        for client in opened:
            await client.close()


async def guess_passwords(server: HostServer, password: str) -> list[str]:
    """Wrong passwords from another address (127.0.0.3), one connection each: slowed
    after the first few (item 7), answered `rate_limited` without being compared."""
    codes = []
    for n in range(8):
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=("127.0.0.3", 0)
        )
        guesser = RawClient(reader, writer, bare=True, deadline=DEADLINE)
        guesser.send(await guesser.answer("Guesser", password=f"{password}{n}"))
        codes.append((await guesser.refusal())["code"])
    return codes


# ---- the abused match ----------------------------------------------------------------------


async def abused_match() -> tuple[Outcome, dict[str, Any]]:
    held = Held()
    seen: dict[str, Any] = {}
    async with running_host(seed=SEED, players=4, limits=LIMITS, password=PASSWORD) as server:
        stop = asyncio.Event()
        watch = asyncio.create_task(sampler(server, held, stop))
        tracemalloc.reset_peak()
        clients, tokens = await seat_four_bots(server)
        match_started = asyncio.Event()
        hand_two = asyncio.Event()

        def on_broadcast(events: list[Event]) -> None:
            match = server.table.match
            if match is not None:
                match_started.set()
                if match.hand_number >= 2 and match.turn == 0:
                    hand_two.set()

        server.on_broadcast.append(on_broadcast)
        on_broadcast([])
        abuse_done = asyncio.Event()
        address_full, seat_zero_back = asyncio.Event(), asyncio.Event()
        rng = random.Random(SEED)

        async def seat_zero() -> SeatView:
            first = clients[0]
            with contextlib.suppress(ConnectionError):
                return await play_as_bot(first)
            seen["bye"] = [p.get("code") for p in first.received if p["type"] == "bye"]
            await first.close()
            await address_full.wait()  # back in while strangers fill the address
            again = await open_client(server)
            welcome = await again.hello("Bot0", token=tokens[0])
            assert welcome["seat"] == 0
            clients.append(again)
            seat_zero_back.set()
            return await play_as_bot(again)

        async def abuse() -> None:
            await match_started.wait()
            start = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            first_wave = asyncio.gather(
                garbage(server, rng),
                oversize(server),
                half_frames(server, 6),
                silent(server, 6),
                bad_hellos(server, stale="A" * 32),
                ping_flood_before_hello(server),
                nested_arrays_before_hello(server),
            )
            await hand_two.wait()
            last = next(
                (
                    e
                    for e in reversed(server.journal.entries() if server.journal else [])
                    if isinstance(e, BidMade) and e.seat == 0
                ),
                None,
            )
            replay = BidMsg(id=last.id, bid=last.value) if last and last.id is not None else None
            seen["thief"] = await stolen_seat_flood(server, tokens[0], replay)
            (
                seen["garbage"],
                seen["oversize"],
                seen["half"],
                seen["silent"],
                seen["hellos"],
                seen["preflood"],
                seen["nested"],
            ) = await first_wave
            # Only the three bots still playing may be left before the address fills up.
            await until_true(
                lambda: not server.anonymous and set(server.connections) == {1, 2, 3},
                "the abusers' connections to be gone",
            )
            seen["stalled_at"] = server.table.match.turn if server.table.match else None
            seen["guesses"] = await guess_passwords(server, PASSWORD)
            seen["saturation"] = await saturate_address(server, address_full, seat_zero_back)
            await until_true(lambda: not server.anonymous, "the saturating connections to be gone")
            seen["abuse_growth"] = tracemalloc.get_traced_memory()[1] - start
            abuse_done.set()

        abuser = asyncio.create_task(abuse())
        finals = await asyncio.wait_for(
            asyncio.gather(seat_zero(), *(play_as_bot(c) for c in clients[1:])), 90
        )
        await abuser
        peak = tracemalloc.get_traced_memory()[1]
        stop.set()
        await watch
        seen["after"] = (len(server.anonymous), sorted(server.connections))
        seen["pending_after"] = sum(c.decoder.pending for c in server.connections.values())
        moves = journal_moves(server)
        for client in clients:
            await client.close()
    return Outcome(list(finals), moves, peak, held), seen


ABUSE_GROWTH_BOUND = 8 * 1024 * 1024
"""Stated bound: while the abuse goes on, the process's traced memory (host, bots and
abusers together) may grow by at most 8 MiB over what it held when the abuse began.
The host's limits allow it far less: two connections holding a 1 KiB half frame, the
others a few bytes each, one 16 KiB read at a time per connection."""
LEAK_BOUND = 2 * 1024 * 1024
"""The abused run's peak may exceed the peaceful run's by at most 2 MiB: the abuse
leaves nothing behind (the peak of both runs is the bots' frame logs at the end)."""


async def test_a_match_under_abuse_ends_exactly_as_in_peace() -> None:
    tracemalloc.start()
    try:
        gc.collect()
        peace = await peaceful_match()
        gc.collect()
        abused, seen = await abused_match()
    finally:
        tracemalloc.stop()

    # The same match: every deal, bid and card, the same scores and winner.
    assert abused.moves == peace.moves
    assert len([m for m in peace.moves if m[0] == "deal"]) >= 2
    assert [f.scores for f in abused.finals] == [f.scores for f in peace.finals]
    assert {f.winner for f in abused.finals} == {peace.finals[0].winner} != {None}

    # Every abuser got what its abuse deserves.
    assert set(seen["garbage"]) == {"bad_frame", "too_big"}
    assert seen["garbage"].count("too_big") == 12
    assert seen["oversize"] == ["too_big"] * 4
    assert seen["half"] == ["slow_frame"] * 6
    assert seen["silent"] == ["handshake"] * 6
    assert [code for _, code in seen["hellos"]] == [want for want, _ in seen["hellos"]]
    assert seen["preflood"] == "rate_limited"
    nested_code, nested_pongs = seen["nested"]
    assert nested_code == "rate_limited"
    assert nested_pongs <= LIMITS.hello_decode_budget // (MAX_HELLO_FRAME - 16)
    thief_codes, thief_acks, thief_pongs = seen["thief"]
    assert thief_codes == ["rate_limited"] * LIMITS.max_strikes
    assert thief_acks == [True] * 5  # replays of an applied action: duplicates
    assert LIMITS.burst - 10 <= thief_pongs <= FLOOD - LIMITS.max_strikes
    assert seen["bye"] == ["replaced"]  # the rightful bot was told, then came back
    assert seen["stalled_at"] == 0  # the match waited for seat 0 during the saturation
    most, cut = seen["saturation"]
    assert most <= LIMITS.max_per_address - 3  # three bots hold the other places
    assert cut == [True] * (EXTRA + 1) + [False] * (len(cut) - EXTRA - 1)  # oldest first
    # (the EXTRA past the cap, and one more for seat 0's rightful player coming back)
    assert seen["guesses"] == ["bad_password"] * 4 + ["rate_limited"] * 4

    # What the host holds stayed bounded, and went back to nothing.
    held = abused.held
    assert held.samples > 10 and peace.held.samples > 0
    assert held.connections <= LIMITS.max_per_address
    assert held.largest_pending <= MAX_CLIENT_FRAME + HEADER.size
    assert held.pending <= 64 * (MAX_CLIENT_FRAME + HEADER.size)
    assert held.send_buffers <= LIMITS.max_send_buffer
    assert seen["after"] == (0, [0, 1, 2, 3])
    assert seen["pending_after"] == 0
    assert seen["abuse_growth"] < ABUSE_GROWTH_BOUND
    assert abused.traced_peak - peace.traced_peak < LEAK_BOUND


# ---- single limits -----------------------------------------------------------------------------


async def test_a_valid_token_takes_the_seat_over_and_the_first_connection_hears_replaced() -> None:
    async with running_host(players=2, limits=LIMITS) as server:
        first = await open_client(server)
        welcome = await first.hello("Ann")
        other = await open_client(server)
        await other.hello("Bob")
        await first.expect("state")
        second = await open_client(server)
        again = await second.hello("Ann again", token=welcome["token"])
        assert again["seat"] == welcome["seat"]
        assert again["token"] is None  # proven, so not sent back
        assert await asyncio.wait_for(first.closed_by_host(), DEADLINE)
        byes = [p for p in first.received if p["type"] == "bye"]
        assert [b["code"] for b in byes] == ["replaced"]
        assert byes[0]["reason"]
        # The new connection is the seat now: it is answered, and the name stays the first.
        state = await second.expect("state")
        assert state["table"]["seats"][welcome["seat"]]["name"] == "Ann"
        assert state["table"]["seats"][welcome["seat"]]["connected"] is True
        second.send(Ping(t=5.0))
        assert (await second.expect("pong"))["t"] == 5.0
        for client in (first, second, other):
            await client.close()


HOSTILE_NAMES = {
    "markup": ("[red]x[/red]", "[red]x[/red]"),
    "escape sequences": ("\x1b[31mred\x1b[0m\x1b]0;t\x07", "[31mred[0m]0;t"),
    "bidi and zero width": ("a\u202eb\u200bc\u2066d", "abcd"),
    "newlines and tabs": ("Ann\n\tB\r\x0b", "Ann B"),
    "only control characters": ("\x00\x01\x1b\x7f\x9b\u200b\u202e", "Player 1"),
    "only spaces": (" \u3000\u00a0 ", "Player 1"),
    "exactly 24": ("W" * MAX_NAME, "W" * MAX_NAME),
}


@pytest.mark.parametrize("case", list(HOSTILE_NAMES))
async def test_a_hostile_name_is_stored_clean(case: str) -> None:
    raw, stored = HOSTILE_NAMES[case]
    async with running_host(players=2, limits=LIMITS) as server:
        client = await open_client(server)
        welcome = await client.hello(raw)
        name = server.table.seats[welcome["seat"]].name
        assert name == stored
        assert 0 < len(name) <= MAX_NAME
        assert all(ch.isprintable() for ch in name)
        state = await client.expect("state")
        assert TableInfo.from_wire(state["table"]).seats[0].name == stored
        await client.close()


async def test_a_name_over_24_characters_is_refused_with_a_sentence() -> None:
    """The codec bounds `name` at 24 characters before the table sees it: a 200-character
    name is a bad message (fatal during the handshake), not silently cut."""
    async with running_host(players=2, limits=LIMITS) as server:
        client = await abuser(server)
        client.send(Hello(version=PROTOCOL_VERSION, name="N" * 200))
        error = await refusal(client)
        assert error["code"] == "bad_message"
        assert "24" in error["message"]
        assert all(seat.kind == "empty" for seat in server.table.seats)


async def test_a_long_or_hostile_table_name_still_reaches_clients_readable() -> None:
    async with running_host(players=2, name="The \x1b[5mvery long table name\x1b[0m of Ann") as s:
        client = await open_client(s)
        await client.hello("Ann")
        state = await client.expect("state")
        info = TableInfo.from_wire(state["table"])
        assert 0 < len(info.name) <= MAX_NAME and info.name.isprintable()
        await client.close()


async def test_half_frames_before_and_after_hello_are_closed_with_slow_frame() -> None:
    async with running_host(players=2, limits=LIMITS) as server:
        early = await abuser(server)
        early.send_raw(HEADER.pack(100) + b"\x85")
        seated = await abuser(server)
        seated.send(Hello(version=PROTOCOL_VERSION, name="Slow"))
        await seated.expect("welcome")
        seated.send_raw(HEADER.pack(100) + b"\x85\xa4type")
        for client in (early, seated):
            error = await refusal(client)
            assert error["code"] == "slow_frame"
        await until_true(lambda: not server.anonymous and not server.connections, "both gone")


async def test_frames_that_keep_arriving_split_are_not_mistaken_for_a_slow_frame() -> None:
    # Pings as fast as the loop answers them: lift the rate limit, which is not under test.
    fast = dataclasses.replace(
        LIMITS, messages_per_second=1e9, burst=10**9, decode_per_second=1e9, decode_burst=10**9
    )
    async with running_host(players=2, limits=fast) as server:
        client = await open_client(server)
        await client.hello("Chopper")
        client.answer_pings = False  # our own pings keep the link alive meanwhile
        ping = Ping(t=3.0).encode()
        half = len(ping) // 2
        client.send_raw(ping[:half])
        loop = asyncio.get_running_loop()
        end = loop.time() + 3 * LIMITS.partial_frame_seconds
        pongs = 0
        while loop.time() < end:
            client.send_raw(ping[half:] + ping[:half])  # finish one, start the next
            payload = await client.expect("pong", timeout=5.0)  # each ping is answered
            assert payload["t"] == 3.0
            pongs += 1
        assert pongs > 3
        client.send_raw(ping[half:])
        assert (await client.expect("pong", timeout=5.0))["t"] == 3.0
        await client.close()


async def test_pings_before_hello_are_rate_limited_too() -> None:
    async with running_host(players=2, limits=LIMITS) as server:
        client = await abuser(server)
        client.send_raw(Ping(t=1.0).encode() * (LIMITS.burst * 3))
        assert (await client.refusal())["code"] == "rate_limited"
        pongs = [p for p in client.received if p["type"] == "pong"]
        assert len(pongs) <= LIMITS.burst


async def test_after_leave_the_connection_no_longer_acts_for_the_seat() -> None:
    """The seat is a bot's after `leave`: the leaver hears bye "left" and is closed, and
    an action it sends anyway is never applied."""
    async with running_host(players=2, bot_delay=60.0, limits=LIMITS) as server:
        first, second = await open_client(server), await open_client(server)
        seats = {(await first.hello("A"))["seat"]: first, (await second.hello("B"))["seat"]: second}
        match = server.table.match
        assert match is not None and match.turn is not None
        leaver = seats[match.turn]
        seat = match.turn
        leaver.send(Leave())
        await until_true(
            lambda: server.table.seats[seat].kind == "bot", "the seat to pass to a bot"
        )
        assert match.hand is not None
        bids = list(match.hand.bids)
        leaver.send(BidMsg(id=leaver.new_id(), bid=None if seat != match.dealer else 2))
        assert await asyncio.wait_for(leaver.closed_by_host(), DEADLINE)
        assert [p["code"] for p in leaver.received if p["type"] == "bye"] == ["left"]
        assert not [p for p in leaver.received if p["type"] == "ack" and not p["duplicate"]]
        assert match.hand.bids == bids  # the bot's seat is the bot's: nothing applied
        assert server.connections.get(seat) is None
        for client in seats.values():
            await client.close()


async def test_a_seated_flood_is_rate_limited_then_struck_out_and_others_play_on() -> None:
    limits = Limits(messages_per_second=50, burst=20, max_strikes=5)
    async with running_host(players=2, limits=limits) as server:
        flooder, player = await open_client(server), await open_client(server)
        await flooder.hello("Flood")
        await player.hello("Calm")
        flooder.send_raw(Ping(t=8.0).encode() * 100)
        assert await asyncio.wait_for(flooder.closed_by_host(), DEADLINE)
        errors = [p for p in flooder.received if p["type"] == "error"]
        assert [e["code"] for e in errors] == ["rate_limited"] * limits.max_strikes
        assert [e["fatal"] for e in errors] == [False] * (limits.max_strikes - 1) + [True]
        pongs = [p for p in flooder.received if p["type"] == "pong" and p["t"] == 8.0]
        # The bucket starts full; the client's own pongs to the host's pings use it too.
        assert limits.burst - 3 <= len(pongs) <= 100 - limits.max_strikes
        player.send(Ping(t=9.0))
        assert (await player.expect("pong"))["t"] == 9.0
        await player.close()


async def test_at_the_connection_cap_the_oldest_stranger_makes_room_and_seats_are_kept() -> None:
    """Item 6: at the cap a new connection is let in and the oldest one that has not
    said hello is cut (with no frame); once every place is held by a seated player, a
    new connection is reset at once, with no frame."""
    limits = Limits(max_connections=3, max_per_address=16)
    async with running_host(players=4, limits=limits) as server:
        held = [await abuser(server) for _ in range(3)]
        for client in held:
            challenge, ping = await client.next_payload(), await client.next_payload()
            assert challenge is not None and challenge["type"] == "challenge"  # admitted
            assert ping is not None and ping["type"] == "ping"  # and pinged at once
        newcomer = await open_client(server)
        assert (await newcomer.hello("New"))["type"] == "welcome"
        assert await held[0].next_payload() is None  # the oldest stranger made room
        assert [p["type"] for p in held[0].received] == ["challenge", "ping"]
        players = [newcomer]
        for _ in range(2):  # the other strangers make room for two more players
            player = await open_client(server)
            assert (await player.hello("P"))["type"] == "welcome"
            players.append(player)
        refused = await abuser(server)
        assert await refused.next_payload() is None
        assert refused.received == []
        for client in (*held, refused, *players):
            await client.close()


async def test_a_seated_connection_may_not_send_a_64_kib_frame() -> None:
    """Client frames are capped far below the host's own (item 2): what a frame costs to
    decode grows with its length."""
    async with running_host(players=2, limits=LIMITS) as server:
        client = await abuser(server)
        client.send(Hello(version=PROTOCOL_VERSION, name="Big"))
        await client.expect("welcome")
        client.send_raw(HEADER.pack(MAX_FRAME - 64) + b"\x81" * 16)
        assert (await client.refusal())["code"] == "too_big"


async def test_a_frame_with_more_than_16_items_in_a_container_is_refused_while_decoding() -> None:
    async with running_host(players=2, limits=LIMITS) as server:
        client = await abuser(server)
        client.send_raw(frame_of(msgpack.packb({"type": "ping", "t": 1.0, "x": [0] * 17})))
        assert (await client.refusal())["code"] == "bad_frame"


async def test_a_seated_connection_that_outruns_its_decode_budget_is_cut_off() -> None:
    small = dataclasses.replace(LIMITS, decode_burst=8 * 1024, decode_per_second=1.0)
    async with running_host(players=2, limits=small) as server:
        client = await abuser(server)
        client.send(Hello(version=PROTOCOL_VERSION, name="Costly"))
        await client.expect("welcome")
        client.send_raw(nested_ping(MAX_CLIENT_FRAME - 16) * 4)
        assert (await client.refusal())["code"] == "rate_limited"
        pongs = sum(p["type"] == "pong" and p["t"] == 1.0 for p in client.received)
        assert pongs == 2  # 8 KiB of budget: two 4 KiB frames decoded, then cut


async def test_an_address_that_connects_too_often_is_refused_but_others_get_in() -> None:
    tight = dataclasses.replace(LIMITS, connect_burst=3, connects_per_second=0.01)
    async with running_host(players=2, limits=tight) as server:
        for _ in range(3):
            client = await abuser(server)
            assert (await client.expect("ping"))["type"] == "ping"
            await client.close()
        refused = await abuser(server)
        assert await refused.next_payload() is None  # reset before anything is sent
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=("127.0.0.2", 0)
        )
        other = RawClient(reader, writer, bare=True, deadline=DEADLINE)
        other.send(Hello(version=PROTOCOL_VERSION, name="Neighbour"))
        assert (await other.expect("welcome"))["seat"] == 0
        await other.close()
