"""Hypothesis fuzzing of the host's message handling.

Most cases drive the real referee (host/referee.py) without sockets, through the pair of
tests/pair.py: bytes -> the connection's FrameDecoder -> parse_client_message (the
adapter's `read_frames`) -> `Referee.handle` -> the table's command, and the frames it answers
with, decoded as a client decodes them. That is fast enough for tens of thousands of
messages. Every message must end as an ack (applied or duplicate), an error (a rules
error or a strike), a pong, or a close (fatal); nothing else may escape, and a refused
or duplicate message must leave the table exactly as it was (every seat's snapshot, the
seats, the journal, the events). A connection the referee closes comes back with its
token, as a real client would.

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
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from host.limits import Limits
from host.server import HostConfig, HostServer
from host.snapshots import Snapshots, table_info
from host.strikes import STRIKES
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
    Challenge,
    FrameDecoder,
    Hello,
    Message,
    Ping,
    PlayMsg,
    Ready,
    Start,
    TableInfo,
    answer,
    frame,
    parse_client_message,
    parse_host_message,
)
from pitchnet.rules import Phase
from pitchnet.views import SeatView, seat_view
from tests.netclient import RawClient, play_as_bot
from tests.pair import PairClient, RefereePair
from tests.profiles import examples
from tests.table_doubles import RecordingJournal, state_for

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# ---- strategies: anything msgpack can carry, and messages that are nearly right --------------

from pitchnet.reactions import Reaction  # noqa: E402

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
    "version": st.sampled_from([PROTOCOL_VERSION, 0, 1, 2]),
    "name": st.text(max_size=30),
    "seat_proof": st.one_of(st.none(), st.text(max_size=64)),
    "table_id": st.one_of(st.none(), st.text(max_size=12)),
    "password_proof": st.one_of(st.none(), st.text(max_size=64)),
    "challenge": st.one_of(st.none(), st.text(max_size=32)),
    "hand": st.one_of(st.none(), st.integers(min_value=-1, max_value=4)),
    "step": st.one_of(st.none(), st.integers(min_value=-1, max_value=30)),
    "seat": st.integers(min_value=-1, max_value=8),
    "watch": st.booleans(),
    "seen": st.one_of(
        st.none(), st.lists(st.integers(min_value=-1, max_value=40), min_size=3, max_size=5)
    ),
    "rotate": st.booleans(),
    "yes": st.booleans(),  # vouch
    "reaction": st.one_of(st.sampled_from([str(r) for r in Reaction]), st.text(max_size=16)),
    "seat_key": st.one_of(st.none(), st.text(max_size=40)),
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
    return not (isinstance(payload, dict) and payload.get("type") in ("leave", "away"))


socket_payloads = payloads.filter(_not_leave)
"""Over the socket the seats must stay human (their tokens are reused across cases) and
connected, so `leave` and `away` (each a goodbye on purpose, closing the connection
without an error) are left to the table-level tests."""

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


# ---- a table behind the real referee ------------------------------------------------------

FUZZ_LIMITS = Limits(
    messages_per_second=1e9,
    burst=10**9,
    decode_per_second=1e12,
    decode_burst=10**12,
    connect_burst=10**9,
)
"""The pair's clock stands still during a case, so the rate limits (tested in
test_referee.py) are lifted here; every other rule is the referee's own."""


class FuzzTable:
    """A table with four human seats, each with a live connection through the real
    referee (tests/pair.py): the match is on, hand 1 dealt. A seat whose connection the
    referee closed (struck out, or a fatal frame) takes its seat back on a new one with
    its token, as a real client would."""

    def __init__(self, seed: int, players: int = 4, password: str | None = None) -> None:
        table = Table(
            "fuzz1",
            "Fuzz",
            TableOptions(players=players, password=password),
            deal_deck=deck_source(seed),
            journal=RecordingJournal(),
        )
        self.table = table
        self.pair = RefereePair(table, limits=FUZZ_LIMITS)
        self.clients = [
            self.pair.join(f"P{seat}", f"10.0.0.{seat}:1", password=password)
            for seat in range(players)
        ]
        self.tokens = [c.of_type("welcome")[0]["token"] for c in self.clients]
        self.applied: dict[int, Message] = {}

    def connection(self, seat: int, fresh: bool = False) -> PairClient | None:
        """The seat's connection: a new one (taking the seat over by token) when asked,
        or when the last was closed or holds half a frame; None once the seat has been
        given up with `leave` (its token is void)."""
        client = self.clients[seat]
        if self.table.seats[seat].kind != "human":
            return None
        if fresh or client.closed is not None or client.host_decoder.pending:
            client = self.pair.join(f"P{seat}", f"10.0.0.{seat}:2", token=self.tokens[seat])
            self.clients[seat] = client
        return client


def snapshot(table: Table) -> Any:
    """Everything a refused message must leave alone: what each seat sees, the public
    table, the seats (tokens, ids, ready flags), the journal, pending events."""
    journal = table.journal
    assert isinstance(journal, RecordingJournal)
    views = [seat_view(table.match, s) if table.match else None for s in range(len(table.seats))]
    return {
        "views": views,
        "table": table_info(table),
        "seats": [vars(seat).copy() for seat in table.seats],
        "journal": len(journal.written),
        "events": list(table.events),
        "state": (table.state, table.seq, table.matches_started),
    }


def check_frames(fuzz: FuzzTable) -> None:
    """Every seat's next snapshot still fits a frame and reads back as a client reads it,
    and so did every state the referee sent."""
    table = fuzz.table
    assert table.state in TABLE_STATES
    events = list(table.events)
    frames = Snapshots(table).frames(events)
    for seat in range(len(table.seats)):
        data = frames[seat]
        assert _decoded(data) == _decoded(state_for(table, seat, events).encode())
        assert len(data) <= MAX_FRAME + HEADER.size
    for client in fuzz.pair.clients.values():
        for payload in client.of_type("state")[-3:]:
            TableInfo.from_wire(payload["table"])
            if payload["view"] is not None:
                SeatView.from_wire(payload["view"])


def _decoded(data: bytes) -> dict[str, Any]:
    [payload] = list(FrameDecoder().feed(data))
    return payload


Outcome = str  # "ack", "duplicate", "error", "close", "pong"


def deliver(
    fuzz: FuzzTable, seat: int, data: bytes, fresh: bool = False, legal: bool = False
) -> list[Outcome]:
    """Send `data` from the seat's connection (a new one if `fresh`, as for bytes that
    may leave half a frame) through the real referee, and name each answer. A refused
    or duplicate message must leave the table exactly as it was (not checked for a
    `legal` move, which the caller asserts is applied)."""
    client = fuzz.connection(seat, fresh)
    if client is None:
        return []
    before = None if legal else snapshot(fuzz.table)
    outcomes: list[Outcome] = []
    for payload in fuzz.pair.send_bytes(client, data):
        kind = payload["type"]
        if kind == "ack":
            outcomes.append("duplicate" if payload["duplicate"] else "ack")
        elif kind == "error":
            assert payload["code"] and payload["message"]
            assert payload["fatal"] or payload["code"] in STRIKES, payload  # one table decides
            outcomes.append("close" if payload["fatal"] else "error")
        elif kind == "pong":
            outcomes.append("pong")
        elif kind == "bye":
            assert payload["code"] in ("left", "away")
    if outcomes.count("close"):
        assert outcomes[-1] == "close"
        assert client.closed is not None and client.closed[0] == "close"
    if client.closed is not None:
        assert "close" in outcomes or client.closed[1] in ("left", "away")
    if before is not None and "ack" not in outcomes and client.closed is None:
        assert snapshot(fuzz.table) == before, f"a refused {data!r} changed the table"
    return outcomes


def deliver_message(fuzz: FuzzTable, seat: int, message: Message, legal: bool = False) -> Outcome:
    [outcome] = deliver(fuzz, seat, message.encode(), legal=legal)
    return outcome


def advance(fuzz: FuzzTable, moves: int) -> None:
    """Play `moves` legal steps through the referee: the seat on turn bids or plays (a
    heuristic bot decides for it), after a hand every human says ready, bots act when
    the referee wakes them."""
    table, bot = fuzz.table, make_bot("heuristic")
    for _ in range(moves):
        match = table.match
        assert match is not None
        if table.bot_to_act() is not None:
            changes = len(fuzz.pair.changes)
            fuzz.pair.advance(0.0)  # bots have no delay here: they act at once
            assert len(fuzz.pair.changes) > changes
            continue
        if match.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            waiting = [i for i, s in enumerate(table.seats) if s.kind == "human" and not s.ready]
            if not waiting:
                return  # nobody left to say ready (every seat given up)
            for seat in waiting:
                now = table.match
                if now is None or now.phase not in (Phase.HAND_OVER, Phase.MATCH_OVER):
                    break  # dealt on already: the seats still waiting were away
                ready = Ready(id=table.seats[seat].last_id + 1)
                assert deliver_message(fuzz, seat, ready, legal=True) == "ack"
                fuzz.applied[seat] = ready
            continue
        turn = match.turn
        assert turn is not None
        decision = bot.decide(seat_view(match, turn))
        next_id = table.seats[turn].last_id + 1
        msg: Message
        if decision.kind == "bid":
            msg = BidMsg(id=next_id, bid=decision.bid)
        else:
            msg = PlayMsg(id=next_id, card=str(decision.card))
        assert deliver_message(fuzz, turn, msg, legal=True) == "ack"
        fuzz.applied[turn] = msg


def out_of_turn(table: Table, seat: int, pick: int) -> Message | None:
    """A well-formed bid or play (a card of the seat's own hand) from a seat whose turn
    it is not, with a fresh id; None when `seat` is on turn or is no longer a person's."""
    match = table.match
    assert match is not None
    if match.turn == seat or table.seats[seat].kind != "human":
        return None
    next_id = table.seats[seat].last_id + 1
    hand = seat_view(match, seat).hand
    if pick % 2 and hand:
        return PlayMsg(id=next_id, card=str(hand[pick % len(hand)]))
    return BidMsg(id=next_id, bid=[None, 1, 2, 3, 4][pick % 5])


@settings(FUZZ, max_examples=examples(700))
@given(seed=st.integers(0, 2**16), script=steps)
def test_the_referee_survives_any_message_and_refusals_change_nothing(
    seed: int, script: list[tuple[Any, ...]]
) -> None:
    fuzz = FuzzTable(seed)
    for step in script:
        kind = step[0]
        if kind == "advance":
            advance(fuzz, step[1])
        elif kind == "payload":
            _, seat, payload = step
            data = HEADER.pack(0)
            with contextlib.suppress(ValueError):  # a value too big for one frame
                data = frame(payload) if isinstance(payload, dict) else _frame_any(payload)
            deliver(fuzz, seat, data, fresh=True)
        elif kind == "bytes":
            _, seat, data = step
            deliver(fuzz, seat, data, fresh=True)
        elif kind == "replay":
            message = fuzz.applied.get(step[1])
            if message is not None and fuzz.table.seats[step[1]].kind == "human":
                assert deliver_message(fuzz, step[1], message) == "duplicate"
        elif kind == "out_of_turn":
            message = out_of_turn(fuzz.table, step[1], step[2])
            if message is not None:
                assert deliver_message(fuzz, step[1], message) == "error"
    check_frames(fuzz)


def test_a_seat_that_left_and_a_hand_that_ended_do_not_stop_the_clock() -> None:
    """The shrunk example of a fuzz case that once looped for ever: after a seat leaves
    (a bot takes it) and a hand ends, the ready deadline falls due for the referee and
    the table at the same moment, because they read one clock (the pair's)."""
    fuzz = FuzzTable(0)
    advance(fuzz, 12)
    assert deliver(fuzz, 2, frame({"type": "leave"}), fresh=True) == []
    assert fuzz.table.seats[2].kind == "bot"
    advance(fuzz, 15)  # the bot in seat 2 plays the hand's last card
    table = fuzz.table
    assert table.match is not None and table.match.phase is Phase.HAND_OVER
    assert table.ready_deadline() == fuzz.pair.now + table.options.ready_limit
    advance(fuzz, 11)  # the people say ready; the next hand is dealt and played on
    assert table.match.hand_number == 2
    check_frames(fuzz)


def test_a_deadline_waking_never_clears_fails_the_test_instead_of_hanging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pair's `advance` is bounded: were the table ever to disagree with the referee
    on the time again (here: it refuses to deal on when the ready limit passes), the
    test fails with a sentence rather than running until it is killed."""
    fuzz = FuzzTable(0)
    advance(fuzz, 12)
    deliver(fuzz, 2, frame({"type": "leave"}), fresh=True)
    advance(fuzz, 15)  # the hand is over; the ready limit runs
    monkeypatch.setattr(fuzz.table, "ready_expired", lambda: False)
    with pytest.raises(AssertionError, match="waking does not clear it"):
        fuzz.pair.advance(fuzz.table.options.ready_limit + 1)


def _frame_any(value: Any) -> bytes:
    body: bytes = msgpack.packb(value, use_bin_type=True)
    return HEADER.pack(len(body)) + body


@pytest.mark.timeout(600)  # 700 matches played up to 150 moves deep, through the referee
@settings(FUZZ, max_examples=examples(700))
@given(seed=st.integers(0, 2**16), moves=st.integers(0, 150), payload=near_messages())
def test_a_nearly_right_message_at_any_point_of_a_match(
    seed: int, moves: int, payload: dict[str, Any]
) -> None:
    """Deeper into a match than the scripts above reach: play `moves` legal steps, then
    send one message of a real type with one field possibly wrong, from every seat."""
    fuzz = FuzzTable(seed)
    advance(fuzz, moves)
    for seat in range(4):
        outcomes = deliver(fuzz, seat, frame(payload), fresh=True)
        if fuzz.table.seats[seat].kind != "human":
            continue
        answers = [o for o in outcomes if o != "pong"] or outcomes
        # No id, so no ack: leave, away, pong, and a reaction (relayed as `reacted`).
        silent = not answers and payload.get("type") in ("leave", "away", "pong", "react")
        assert len(answers) == 1 or silent, outcomes
        kind = payload.get("type")
        known = isinstance(kind, str) and kind in CLIENT_MESSAGES
        event(f"{kind if known else 'bad type'}: {answers[0] if answers else 'none'}")
    check_frames(fuzz)


# ---- joining: every hello a stranger could send ----------------------------------------------

hellos: st.SearchStrategy[dict[str, Any]] = st.builds(
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


@settings(FUZZ, max_examples=examples(600))
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
    )
    pair = RefereePair(table, limits=FUZZ_LIMITS)
    seated = [pair.join(f"P{seat}", f"10.0.0.{seat}:1", password="sesame") for seat in range(taken)]
    if go and taken:
        assert [p["type"] for p in pair.send(seated[0], Start(id=1))][:1] == ["ack"]  # bots fill
    if fields_["token"] == "VALID":
        fields_["token"] = table.seats[seat_of_token].token or "stale-token"
    before = snapshot(table)
    stranger = pair.open("10.0.0.9:1")
    secrets = {k: fields_[k] for k in ("token", "password", "table_id")}
    proven = pair.hello(stranger, fields_["name"], **secrets)
    proven = replace(proven, version=fields_["version"])
    payload = {k: v for k, v in proven.to_wire().items() if v is not None}
    answer = [p for p in pair.send(stranger, payload) if p["type"] != "ping"]
    if answer[0]["type"] == "error":
        code = answer[0]["code"]
        event(code)
        assert [p["type"] for p in answer] == ["error"] and answer[0]["fatal"]
        assert code in FATAL_JOIN_CODES or code == "bad_message", code
        assert answer[0]["message"]
        assert stranger.closed == ("close", code)
        assert snapshot(table) == before
        return
    hello = parse_client_message(payload)
    assert isinstance(hello, Hello)
    assert [p["type"] for p in answer] == ["welcome", "state"]
    seat = answer[0]["seat"]
    s = table.seats[seat]
    if table.claimed(seat):  # a match is on: the newcomer takes a bot's seat next hand
        event("claimed")
        assert s.kind == "bot" and _printable_name(s.claim_name), repr(s.claim_name)
        assert not fields_["token"]
        return
    event("rejoined" if fields_["token"] else "seated")
    assert s.kind == "human" and s.connected
    assert pair.referee.seated()[seat] == stranger.conn
    assert _printable_name(s.name), repr(s.name)
    assert answer[1]["table"]["seats"][seat]["name"] == s.name
    assert hello.version == PROTOCOL_VERSION
    assert hello.table_id in (None, "", table.id)
    if fields_["token"]:
        assert before["seats"][seat]["token"] == fields_["token"]  # only that seat's own token
        assert seated[seat].closed == ("close", "replaced")
    else:
        assert fields_["password"] == "sesame"
        assert len(s.token) >= 32  # 24 random bytes, url-safe


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

    def hello(self, name: str, **secrets: Any) -> dict[str, Any]:
        first = self.next()
        assert first is not None and first["type"] == "challenge", first
        challenge = parse_host_message(first)
        assert isinstance(challenge, Challenge)
        self.send(answer(challenge, name, **secrets).encode())
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


@settings(FUZZ, max_examples=examples(300), suppress_health_check=list(HealthCheck))
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


@settings(FUZZ, max_examples=examples(300), suppress_health_check=list(HealthCheck))
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
