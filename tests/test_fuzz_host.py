"""Hypothesis fuzzing of the host's message handling.

Most cases drive `host.table.Table` directly, through the same path the server takes
(frame -> FrameDecoder -> parse_client_message -> Table.handle), because that is fast
enough for tens of thousands of messages. Every message must end as an ack (applied or
duplicate), an error (RulesError / non-fatal ProtocolError) or a close (fatal
ProtocolError); nothing else may escape, and a refused or duplicate message must leave
the table exactly as it was (every seat's snapshot, the seats, the journal, the events).

A smaller number of cases go over a real socket to a HostServer running in its own
thread, to show that the server path answers every such input with well-formed frames
and keeps serving: at the end four clients take their seats back by token and play the
match to its end.

Every test is derandomized (a fixed seed per test), so CI sees the same cases each run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import threading
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from host.limits import Limits
from host.server import HostConfig, HostServer
from host.table import Table, TableOptions
from host.tables import deck_source
from pitchnet.bots import make_bot
from pitchnet.cards import FULL_DECK
from pitchnet.protocol import (
    CLIENT_MESSAGES,
    HEADER,
    MAX_FRAME,
    MAX_NAME,
    PROTOCOL_VERSION,
    TABLE_STATES,
    BidMsg,
    FrameDecoder,
    Hello,
    Message,
    Ping,
    PlayMsg,
    Pong,
    ProtocolError,
    Ready,
    TableInfo,
    frame,
    parse_client_message,
    parse_host_message,
)
from pitchnet.rules import Phase, RulesError
from pitchnet.views import SeatView, seat_view
from tests.netclient import RawClient, play_as_bot
from tests.table_doubles import RecordingJournal, state_for

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ---- strategies: anything msgpack can carry, and messages that are nearly right --------------

CARD_TEXTS = [str(card) for card in FULL_DECK]
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.integers(min_value=-3, max_value=300),
    st.floats(),
    st.text(max_size=40),
    st.sampled_from(CARD_TEXTS),
    st.binary(max_size=16),
)
msgpack_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(st.one_of(st.text(max_size=10), st.integers(-5, 5)), children, max_size=6),
    ),
    max_leaves=24,
)
"""Every kind of value a msgpack peer can send (bin and int keys included, which the
codec must refuse)."""

PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "id": st.integers(min_value=-2, max_value=400),
    "bid": st.one_of(st.none(), st.integers(min_value=-1, max_value=6)),
    "card": st.one_of(st.sampled_from(CARD_TEXTS), st.text(max_size=2)),
    "t": st.floats(allow_nan=False),
    "version": st.sampled_from([PROTOCOL_VERSION, 0, 2]),
    "name": st.text(max_size=30),
    "token": st.one_of(st.none(), st.text(max_size=64)),
    "table_id": st.one_of(st.none(), st.text(max_size=12)),
    "password": st.one_of(st.none(), st.text(max_size=8)),
    "hand": st.one_of(st.none(), st.integers(min_value=-1, max_value=4)),
    "step": st.one_of(st.none(), st.integers(min_value=-1, max_value=30)),
}


@st.composite
def near_messages(draw: st.DrawFn) -> dict[str, Any]:
    """A client message of a real type with plausible fields, then often one field made
    wrong: another type, a random value, or missing."""
    kind = draw(st.sampled_from(sorted(CLIENT_MESSAGES)))
    payload: dict[str, Any] = {"type": kind}
    names = [f.name for f in fields(CLIENT_MESSAGES[kind])]
    for name in names:
        payload[name] = draw(PLAUSIBLE[name])
    mutation = draw(st.sampled_from(["none", "value", "drop", "extra"]))
    target = draw(st.sampled_from([*names, "type"]))
    if mutation == "value":
        payload[target] = draw(msgpack_values)
    elif mutation == "drop":
        payload.pop(target, None)
    elif mutation == "extra":
        payload[draw(st.text(max_size=8))] = draw(msgpack_values)
    return payload


payloads = st.one_of(
    near_messages(),
    st.dictionaries(st.text(max_size=8), msgpack_values, max_size=6),
    msgpack_values,
)
"""Maps that look like messages, random maps and random values (most not maps)."""


def _not_leave(payload: Any) -> bool:
    return not (isinstance(payload, dict) and payload.get("type") == "leave")


socket_payloads = payloads.filter(_not_leave)
"""Over the socket the seats must stay human (their tokens are reused across cases), so
`leave` is left to the table-level tests."""

seats = st.integers(min_value=0, max_value=3)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.integers(1, 12)),
        st.tuples(st.just("payload"), seats, payloads),
        st.tuples(st.just("bytes"), seats, st.binary(max_size=80)),
        st.tuples(st.just("replay"), seats),
        st.tuples(st.just("out_of_turn"), seats, st.integers(0, 12)),
    ),
    min_size=1,
    max_size=25,
)


# ---- a table driven the way the server drives it ---------------------------------------------


def seated_table(seed: int, players: int = 4, password: str | None = None) -> Table:
    """A table whose seats are all taken by humans: the match is on, hand 1 dealt."""
    table = Table(
        "fuzz1",
        "Fuzz",
        TableOptions(players=players, password=password),
        deal_deck=deck_source(seed),
        journal=RecordingJournal(),
        clock=lambda: 100.0,
    )
    for seat in range(players):
        table.join(Hello(version=PROTOCOL_VERSION, name=f"P{seat}", password=password))
    table.take_events()
    return table


def snapshot(table: Table) -> Any:
    """Everything a refused message must leave alone: what each seat sees, the public
    table, the seats (tokens, ids, ready flags), the journal, pending events."""
    journal = table.journal
    assert isinstance(journal, RecordingJournal)
    views = [seat_view(table.match, s) if table.match else None for s in range(len(table.seats))]
    return {
        "views": views,
        "table": table.info(),
        "seats": [vars(seat).copy() for seat in table.seats],
        "journal": len(journal.entries),
        "events": list(table.events),
        "state": (table.state, table.seq, table.matches_started),
    }


def check_frames(table: Table) -> None:
    """Every seat's next snapshot still fits a frame and reads back as a client reads it."""
    assert table.state in TABLE_STATES
    events = list(table.events)
    frames = table.state_frames(events)
    for seat in range(len(table.seats)):
        data = frames[seat]
        assert _decoded(data) == _decoded(state_for(table, seat, events).encode())
        assert len(data) <= MAX_FRAME + HEADER.size
        [payload] = list(FrameDecoder().feed(data))
        state = parse_host_message(payload)
        TableInfo.from_wire(state.table)  # type: ignore[attr-defined]
        if state.view is not None:  # type: ignore[attr-defined]
            SeatView.from_wire(state.view)  # type: ignore[attr-defined]


def _decoded(data: bytes) -> dict:
    [payload] = list(FrameDecoder().feed(data))
    return payload


Outcome = str  # "ack", "duplicate", "error", "close"


def deliver(table: Table, seat: int, message: Message) -> Outcome:
    """What the server's per-message path does with one parsed message."""
    if isinstance(message, Ping | Pong):
        return "ack"  # answered (ping) or ignored (pong) without touching the table
    before = snapshot(table)
    try:
        applied = table.handle(seat, message)
    except RulesError as exc:
        assert exc.code and exc.message
        outcome = "error"
    except ProtocolError as exc:
        assert exc.code and exc.message
        outcome = "close" if exc.fatal else "error"
    else:
        if applied:
            return "ack"
        outcome = "duplicate"
    assert snapshot(table) == before, f"a refused {message!r} changed the table ({outcome})"
    return outcome


def deliver_bytes(table: Table, seat: int, data: bytes) -> list[Outcome]:
    """Feed raw bytes through a fresh decoder, as a new connection's reader would."""
    outcomes: list[Outcome] = []
    before = snapshot(table)
    try:
        for payload in FrameDecoder().feed(data):
            try:
                message = parse_client_message(payload)
            except ProtocolError as exc:
                outcomes.append("close" if exc.fatal else "error")
                continue
            outcomes.append(deliver(table, seat, message))
            if outcomes[-1] == "close":
                break
    except ProtocolError as exc:
        assert exc.fatal, "framing errors always close the connection"
        outcomes.append("close")
    if "ack" not in outcomes:
        assert snapshot(table) == before
    return outcomes


def advance(table: Table, moves: int, applied: dict[int, Message]) -> None:
    """Play `moves` legal steps: the seat on turn bids or plays (a heuristic bot decides),
    after a hand every human says ready, bots act for bot seats."""
    bot = make_bot("heuristic")
    for _ in range(moves):
        match = table.match
        assert match is not None
        if table.bot_to_act() is not None:
            assert table.act_for_bot()
            continue
        if match.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            waiting = [i for i, s in enumerate(table.seats) if s.kind == "human" and not s.ready]
            if not waiting:
                return  # nobody left to say ready (every seat given up)
            for seat in waiting:
                msg = Ready(id=table.seats[seat].last_id + 1)
                assert table.handle(seat, msg) is True
                applied[seat] = msg
            continue
        seat = match.turn
        assert seat is not None
        decision = bot.decide(seat_view(match, seat))
        next_id = table.seats[seat].last_id + 1
        msg: Message
        if decision.kind == "bid":
            msg = BidMsg(id=next_id, bid=decision.bid)
        else:
            msg = PlayMsg(id=next_id, card=str(decision.card))
        assert table.handle(seat, msg) is True
        applied[seat] = msg


def out_of_turn(table: Table, seat: int, pick: int) -> Message | None:
    """A well-formed bid or play (a card of the seat's own hand) from a seat whose turn
    it is not, with a fresh id; None when `seat` is on turn."""
    match = table.match
    assert match is not None
    if match.turn == seat:
        return None
    next_id = table.seats[seat].last_id + 1
    hand = seat_view(match, seat).hand
    if pick % 2 and hand:
        return PlayMsg(id=next_id, card=str(hand[pick % len(hand)]))
    return BidMsg(id=next_id, bid=[None, 1, 2, 3, 4][pick % 5])


@settings(FUZZ, max_examples=700)
@given(seed=st.integers(0, 2**16), script=steps)
def test_the_table_survives_any_message_and_refusals_change_nothing(
    seed: int, script: list[tuple[Any, ...]]
) -> None:
    table = seated_table(seed)
    applied: dict[int, Message] = {}
    for step in script:
        kind = step[0]
        if kind == "advance":
            advance(table, step[1], applied)
        elif kind == "payload":
            _, seat, payload = step
            data = HEADER.pack(0)
            with contextlib.suppress(ValueError):  # a value too big for one frame
                data = frame(payload) if isinstance(payload, dict) else _frame_any(payload)
            deliver_bytes(table, seat, data)
        elif kind == "bytes":
            _, seat, data = step
            deliver_bytes(table, seat, data)
        elif kind == "replay":
            message = applied.get(step[1])
            if message is not None:
                assert deliver(table, step[1], message) == "duplicate"
        elif kind == "out_of_turn":
            message = out_of_turn(table, step[1], step[2])
            if message is not None:
                assert deliver(table, step[1], message) == "error"
    check_frames(table)


def _frame_any(value: Any) -> bytes:
    body = msgpack.packb(value, use_bin_type=True)
    return HEADER.pack(len(body)) + body


@settings(FUZZ, max_examples=700)
@given(seed=st.integers(0, 2**16), moves=st.integers(0, 150), payload=near_messages())
def test_a_nearly_right_message_at_any_point_of_a_match(
    seed: int, moves: int, payload: dict[str, Any]
) -> None:
    """Deeper into a match than the scripts above reach: play `moves` legal steps, then
    send one message of a real type with one field possibly wrong, from every seat."""
    table = seated_table(seed)
    advance(table, moves, {})
    for seat in range(4):
        outcomes = deliver_bytes(table, seat, frame(payload))
        assert len(outcomes) == 1
        kind = payload.get("type")
        known = isinstance(kind, str) and kind in CLIENT_MESSAGES
        event(f"{kind if known else 'bad type'}: {outcomes[0]}")
    check_frames(table)


# ---- joining: every hello a stranger could send ----------------------------------------------

hellos = st.builds(
    dict,
    version=st.sampled_from([PROTOCOL_VERSION] * 10 + [0, 2, -1]),
    name=st.one_of(
        st.text(max_size=MAX_NAME),
        st.text(st.characters(codec="utf-8"), max_size=MAX_NAME),
        st.text(st.sampled_from("\x00\x07\x1b[]31m\u200b\u202e\u0085 \t\nab"), max_size=MAX_NAME),
    ),
    token=st.one_of(st.none(), st.none(), st.just("VALID"), st.text(max_size=64)),
    table_id=st.one_of(st.none(), st.none(), st.just("fuzz1"), st.text(max_size=10)),
    password=st.one_of(st.just("sesame"), st.just("sesame"), st.none(), st.text(max_size=10)),
)
FATAL_JOIN_CODES = {"version", "wrong_table", "bad_token", "bad_password", "table_full"}


def _printable_name(name: str) -> bool:
    return (
        0 < len(name) <= MAX_NAME
        and name == name.strip()
        and "  " not in name
        and all(
            ch == " " or not (ch.isspace() or unicodedata.category(ch)[0] == "C") for ch in name
        )
    )


@settings(FUZZ, max_examples=600)
@given(
    taken=st.integers(0, 3),
    fields_=hellos,
    seat_of_token=st.integers(0, 3),
    go=st.booleans(),
)
def test_any_hello_seats_cleanly_or_is_refused_with_a_code(
    taken: int, fields_: dict[str, Any], seat_of_token: int, go: bool
) -> None:
    table = Table(
        "fuzz1",
        "Fuzz",
        TableOptions(players=4, password="sesame"),
        deal_deck=deck_source(1),
        journal=RecordingJournal(),
        clock=lambda: 100.0,
    )
    for seat in range(taken):
        table.join(Hello(version=PROTOCOL_VERSION, name=f"P{seat}", password="sesame"))
    if go and taken:
        table.handle(0, parse_client_message({"type": "start", "id": 1}))  # bots fill the rest
    table.take_events()
    if fields_["token"] == "VALID":
        fields_["token"] = table.seats[seat_of_token].token or "stale-token"
    payload = {"type": "hello", **{k: v for k, v in fields_.items() if v is not None}}
    try:
        hello = parse_client_message(payload)
    except ProtocolError as exc:
        assert exc.code == "bad_message"  # e.g. a name over MAX_NAME (never generated here)
        return
    assert isinstance(hello, Hello)
    before = snapshot(table)
    try:
        seat = table.join(hello)
    except ProtocolError as exc:
        event(exc.code)
        assert exc.fatal and exc.code in FATAL_JOIN_CODES, exc.code
        assert exc.message
        assert snapshot(table) == before
        return
    event("rejoined" if hello.token else "seated")
    s = table.seats[seat]
    assert s.kind == "human" and s.connected
    assert _printable_name(s.name), repr(s.name)
    assert hello.version == PROTOCOL_VERSION
    assert hello.table_id in (None, "", table.id)
    if hello.token:
        assert before["seats"][seat]["token"] == hello.token  # only the seat's own token gets it
    else:
        assert hello.password == "sesame"
        assert len(s.token) >= 32  # 24 random bytes, url-safe
    check_frames(table)


# ---- the same inputs over a real socket ------------------------------------------------------


class ThreadedHost:
    """A HostServer on its own event loop thread, so that synchronous hypothesis tests can
    talk to it with plain sockets; `call` runs a function on the host's loop."""

    def __init__(self, config: HostConfig) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server: HostServer = self.call(lambda: HostServer(config))
        self.submit(self.server.start())

    def submit(self, coro: Any, timeout: float = 20.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable[[], Any], timeout: float = 20.0) -> Any:
        async def run() -> Any:
            return fn()

        return self.submit(run(), timeout)

    def close(self) -> None:
        self.submit(self.server.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class Problems(logging.Handler):
    """Collects the host's log records of unexpected exceptions (its crash-equivalent)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class FuzzHost:
    host: ThreadedHost
    tokens: list[str]
    problems: Problems

    @property
    def server(self) -> HostServer:
        return self.host.server


@pytest.fixture(scope="module")
def fuzz_host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FuzzHost]:
    limits = Limits(
        handshake_seconds=2.0,
        partial_frame_seconds=0.3,
        max_connections=512,
        max_per_address=512,
        dead_after=30.0,
        connect_burst=10**9,  # every example connects anew from 127.0.0.1
    )
    config = HostConfig(
        interface="127.0.0.1",
        port=0,
        advertise=False,
        bot_delay=0.0,
        seed=31,
        grace=3600.0,
        limits=limits,
        state_dir=tmp_path_factory.mktemp("fuzz-state"),
    )
    problems = Problems()
    logging.getLogger("pitchnet.host").addHandler(problems)
    host = ThreadedHost(config)
    tokens = []
    try:
        with contextlib.ExitStack() as stack:  # all four sit before any leaves the lobby
            for seat in range(4):
                client = stack.enter_context(_Client(host.server.port))
                welcome = client.hello(f"F{seat}")
                assert welcome["seat"] == seat
                tokens.append(welcome["token"])
        assert host.call(lambda: host.server.table.state) == "playing"
        yield FuzzHost(host, tokens, problems)
    finally:
        host.close()
        logging.getLogger("pitchnet.host").removeHandler(problems)


class _Client:
    """A blocking protocol client for the threaded host."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.decoder = FrameDecoder()
        self.frames: list[dict[str, Any]] = []
        self._pending: list[dict[str, Any]] = []
        self.closed = False

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        with contextlib.suppress(OSError):  # the host may already have hung up
            self.sock.sendall(data)

    def next(self) -> dict[str, Any] | None:
        """The next frame (checked to be a well-formed host message), None once closed."""
        while not self._pending:
            try:
                data = self.sock.recv(65536)
            except ConnectionResetError:
                data = b""
            if not data:
                self.closed = True
                return None
            self._pending.extend(self.decoder.feed(data))
        payload = self._pending.pop(0)
        parse_host_message(payload)  # the host only ever sends well-formed messages
        self.frames.append(payload)
        return payload

    def hello(self, name: str, **extra: Any) -> dict[str, Any]:
        self.send(Hello(version=PROTOCOL_VERSION, name=name, **extra).encode())
        while (payload := self.next()) is not None:
            if payload["type"] == "welcome":
                return payload
        raise AssertionError(f"no welcome: {self.frames}")

    def sync(self, marker: float) -> bool:
        """Send a ping and read up to its pong: True if the host still serves us, False if
        it closed the connection first."""
        self.send(Ping(t=marker).encode())
        while (payload := self.next()) is not None:
            if payload["type"] == "pong" and payload["t"] == marker:
                return True
        return False


def _table_facts(server: HostServer) -> Any:
    """What a refused message must not change (connection flags aside)."""
    table = server.table
    seats = [(s.name, s.kind, s.token, s.last_id, s.ready) for s in table.seats]
    views = [seat_view(table.match, i).to_wire() if table.match else None for i in range(4)]
    journal = server.journal.entries() if server.journal else []
    return seats, views, len(journal), table.state


def _check_exchange(client: _Client, alive: bool) -> None:
    errors = [f for f in client.frames if f["type"] == "error"]
    for error in errors:
        assert error["code"] and error["message"]
    if not alive:
        assert client.closed
        assert errors and errors[-1]["fatal"], f"closed without a fatal error: {client.frames}"


_markers = iter(range(1, 10**9))


@st.composite
def corrupted_streams(draw: st.DrawFn) -> bytes:
    """Real frames back to back, then cut short and with a few bytes overwritten: headers
    that lie about lengths, bodies broken in the middle."""
    messages = draw(st.lists(near_messages().filter(_not_leave), max_size=4))
    stream = bytearray(b"".join(frame(p) for p in messages))
    for _ in range(draw(st.integers(0, 3))):
        if stream:
            at = draw(st.integers(0, len(stream) - 1))
            stream[at] = draw(st.integers(0, 255))
    return bytes(stream[: draw(st.integers(0, len(stream)))])


@settings(FUZZ, max_examples=300, suppress_health_check=list(HealthCheck))
@given(seat=seats, frames_=st.lists(socket_payloads, min_size=1, max_size=4))
def test_the_server_answers_hostile_frames_from_a_seat_and_keeps_serving(
    fuzz_host: FuzzHost, seat: int, frames_: list[Any]
) -> None:
    host, tokens, server = fuzz_host.host, fuzz_host.tokens, fuzz_host.server
    with _Client(server.port) as client:
        client.hello("Fuzzer", token=tokens[seat])
        before = host.call(lambda: _table_facts(server))
        for payload in frames_:
            data = _frame_any(payload)
            if len(data) > MAX_FRAME + HEADER.size:
                continue
            client.send(data)
        alive = client.sync(float(next(_markers)))
        _check_exchange(client, alive)
        event("still served" if alive else "closed by the host")
        for f in client.frames:
            if f["type"] in ("error", "ack"):
                event(f"{f['type']} {f.get('code', f.get('duplicate'))}")
        applied = [f for f in client.frames if f["type"] == "ack" and not f["duplicate"]]
        if not applied:
            assert host.call(lambda: _table_facts(server)) == before


@settings(FUZZ, max_examples=300, suppress_health_check=list(HealthCheck))
@given(
    data=st.one_of(st.binary(max_size=200), corrupted_streams()),
    hello_first=st.booleans(),
    seat=seats,
)
def test_the_server_survives_random_bytes_before_and_after_hello(
    fuzz_host: FuzzHost, data: bytes, hello_first: bool, seat: int
) -> None:
    tokens, server = fuzz_host.tokens, fuzz_host.server
    with _Client(server.port) as client:
        if hello_first:
            client.hello("Fuzzer", token=tokens[seat])
        client.send(data)
        client.sock.shutdown(socket.SHUT_WR)  # no more bytes: an unfinished frame ends here
        while client.next() is not None:
            pass
        _check_exchange(client, alive=True)
        for f in client.frames:
            if f["type"] in ("error", "ack", "pong"):
                event(f"{f['type']} {f.get('code', '')}")


async def test_after_the_fuzzing_the_seats_come_back_and_the_match_ends(
    fuzz_host: FuzzHost,
) -> None:
    """Runs after the socket fuzz tests (same module host): the host still serves, each
    token still takes its seat back, and the match is played to its end; nothing the
    fuzzing sent made the host log an unexpected exception."""
    host, tokens, server = fuzz_host.host, fuzz_host.tokens, fuzz_host.server

    async def seat_back(seat: int) -> SeatView:
        client = await RawClient.connect(server)
        welcome = await client.hello(f"Back{seat}", token=tokens[seat])
        assert welcome["seat"] == seat
        try:
            return await play_as_bot(client)
        finally:
            await client.close()

    finals = await asyncio.wait_for(asyncio.gather(*(seat_back(s) for s in range(4))), 120)
    assert all(f.phase == "match_over" and f.winner is not None for f in finals)
    assert len({tuple(f.scores) for f in finals}) == 1
    assert host.call(lambda: server.table.state) == "over"
    assert not fuzz_host.problems.records, [r.getMessage() for r in fuzz_host.problems.records]
    journal = server.journal
    assert journal is not None
    assert Path(journal.path).stat().st_mode & 0o077 == 0  # deck orders and tokens: owner only
