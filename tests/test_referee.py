"""The referee on its own, at the level of h11's tests: every phase, every refusal with
its code and fatal flag, and every timer, by injected time (tests/pair.py).

No sockets and no event loop: each test feeds the real `Referee` frames and times and
reads back the frames it sends and the connections it closes.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import replace
from typing import Any

import pytest

from host.entries import Entry
from host.journal import JournalError
from host.limits import Limits
from host.referee import HEARTBEAT, Pacing, Phase, Referee, read_frames
from host.table import Journal
from pitchnet.events import Bid, Played, TrickWon
from pitchnet.protocol import (
    HEADER,
    MAX_FRAME,
    PROTOCOL_VERSION,
    Ack,
    Away,
    BidMsg,
    FrameDecoder,
    Hello,
    Leave,
    Message,
    Ping,
    PlayMsg,
    Pong,
    ProtocolError,
    Ready,
    Start,
    frame,
)
from tests.pair import PairClient, RefereePair
from tests.table_doubles import dealt_hand

LIMITS = Limits()


def hello(name: str = "P", **fields: Any) -> Hello:
    return Hello(version=PROTOCOL_VERSION, name=name, **fields)


def types(payloads: list[dict[str, Any]]) -> list[str]:
    return [p["type"] for p in payloads]


def playing_pair(**options: Any) -> tuple[RefereePair, list[PairClient]]:
    """Two humans seated: the match is on, seat 1 bids first."""
    pair = RefereePair(**options)
    clients = [pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")]
    assert pair.table.state == "playing"
    return pair, clients


def on_turn(pair: RefereePair, clients: list[PairClient]) -> tuple[int, PairClient]:
    match = pair.table.match
    assert match is not None and match.turn is not None
    return match.turn, clients[match.turn]


def a_legal_move(pair: RefereePair, seat: int, action_id: int) -> BidMsg | PlayMsg:
    match = pair.table.match
    assert match is not None
    bids = match.legal_bids(seat)
    if bids:
        return BidMsg(id=action_id, bid=bids[0])
    return PlayMsg(id=action_id, card=str(sorted(match.legal_plays(seat))[0]))


# ---- opening and the handshake ---------------------------------------------------------------


def test_a_new_connection_is_pinged_at_once_and_waits_for_hello() -> None:
    pair = RefereePair()
    client = pair.open()
    assert types(client.received) == ["challenge", "ping"]
    assert pair.referee.peers[client.conn].phase is Phase.HANDSHAKE
    assert pair.referee.unseated() == [client.conn]
    assert pair.referee.seated() == {}


def test_hello_gets_welcome_then_the_state_in_that_order() -> None:
    pair = RefereePair()
    client = pair.open()
    answer = pair.send(client, hello("Ann"))
    assert types(answer) == ["welcome", "state"]
    welcome = answer[0]
    assert welcome["seat"] == 0 and welcome["version"] == PROTOCOL_VERSION
    assert welcome["table_id"] == "pair1" and welcome["table_name"] == "Pair"
    assert welcome["token"] == pair.table.token_of(0) and len(welcome["token"]) >= 32
    assert welcome["heartbeat"] == HEARTBEAT and welcome["last_id"] == 0
    assert answer[1]["table"]["seats"][0]["name"] == "Ann"
    assert pair.referee.peers[client.conn].phase is Phase.SEATED
    assert pair.referee.seated() == {0: client.conn}
    assert pair.referee.unseated() == []


def test_ping_before_hello_is_answered_and_pong_is_ignored() -> None:
    pair = RefereePair()
    client = pair.open()
    assert pair.send(client, Ping(t=12.5)) == [{"type": "pong", "t": 12.5}]
    assert pair.send(client, Pong(t=1.0)) == []
    assert client.closed is None
    assert types(pair.send(client, hello())) == ["welcome", "state"]


@pytest.mark.parametrize(
    "message", [Start(id=1), BidMsg(id=1, bid=2), PlayMsg(id=1, card="AS"), Ready(id=1), Leave()]
)
def test_any_other_message_before_hello_is_a_fatal_handshake_error(message: Any) -> None:
    pair = RefereePair()
    client = pair.open()
    answer = pair.send(client, message)
    assert [(p["code"], p["fatal"]) for p in answer] == [("handshake", True)]
    assert answer[0]["message"]
    assert client.closed == ("close", "handshake")
    assert client.gone and not pair.referee.peers
    assert all(seat.kind == "empty" for seat in pair.table.seats)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (HEADER.pack(3) + b"\xc1\x00\x00", "bad_frame"),
        (HEADER.pack(MAX_FRAME + 1), "too_big"),
        ({"type": "no_such_type"}, "unknown_type"),
        ({"type": "hello", "version": 1}, "bad_message"),
        ({"type": "hello", "version": 1, "name": "N" * 25}, "bad_message"),
        ({"type": "bid", "id": 2**53, "bid": 2}, "bad_message"),
    ],
)
def test_before_hello_every_error_is_fatal_with_its_own_code(data: Any, code: str) -> None:
    pair = RefereePair()
    client = pair.open()
    answer = pair.send(client, data)
    assert [(p["code"], p["fatal"]) for p in answer] == [(code, True)]
    assert client.closed == ("close", code)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"version": PROTOCOL_VERSION + 1}, "version"),
        ({"table_id": "another"}, "wrong_table"),
        ({"token": "x" * 43}, "bad_token"),
        ({"password": "wrong"}, "bad_password"),
        ({}, "bad_password"),
    ],
)
def test_each_refused_hello_is_fatal_with_its_code(fields: dict[str, Any], code: str) -> None:
    pair = RefereePair(password="sesame")
    client = pair.open()
    version = fields.pop("version", PROTOCOL_VERSION)
    answer = pair.send(client, replace(pair.hello(client, "Eve", **fields), version=version))
    assert [(p["code"], p["fatal"]) for p in answer] == [(code, True)]
    assert client.closed == ("close", code)
    assert all(seat.kind == "empty" for seat in pair.table.seats)


def test_a_hello_to_a_full_table_is_table_full() -> None:
    pair, _ = playing_pair()
    late = pair.open("10.0.0.9:1")
    assert pair.send(late, hello("Late"))[-1]["code"] == "table_full"
    assert late.closed == ("close", "table_full")


def test_before_hello_the_rate_limit_is_fatal() -> None:
    pair = RefereePair(limits=Limits(burst=5, messages_per_second=1.0))
    client = pair.open()
    answer = pair.send(client, *[Ping(t=1.0)] * 8)
    assert types(answer) == ["pong"] * 5 + ["error"]
    assert (answer[-1]["code"], answer[-1]["fatal"]) == ("rate_limited", True)
    assert client.closed == ("close", "rate_limited")


def test_frames_after_a_fatal_error_in_the_same_read_are_dropped() -> None:
    pair = RefereePair()
    client = pair.open()
    answer = pair.send(client, {"type": "nope"}, hello(), Ping(t=1.0))
    assert types(answer) == ["error"]
    assert pair.table.seats[0].kind == "empty"


# ---- seated: actions, acks, duplicates, strikes ----------------------------------------------


def test_an_applied_action_is_acked_in_the_same_write_as_the_new_state() -> None:
    pair, clients = playing_pair()
    seat, mover = on_turn(pair, clients)
    other = clients[1 - seat]
    before = len(other.writes)
    answer = pair.send(mover, a_legal_move(pair, seat, 1))
    assert types(answer) == ["ack", "state"]
    assert answer[0] == {"type": "ack", "id": 1, "duplicate": False}
    assert mover.writes[-1].startswith(Ack(id=1).encode())  # one write: ack, then state
    assert len(other.writes) == before + 1 and types(other.received[-1:]) == ["state"]
    assert other.last_state["seq"] == mover.last_state["seq"]


def test_a_repeated_id_is_a_duplicate_ack_and_nothing_else() -> None:
    pair, clients = playing_pair()
    seat, mover = on_turn(pair, clients)
    move = a_legal_move(pair, seat, 7)
    pair.send(mover, move)
    seq = pair.table.seq
    for stale_id in (7, 3, 0, -5):
        again = pair.send(mover, dataclasses.replace(move, id=stale_id))
        assert again == [{"type": "ack", "id": stale_id, "duplicate": True}]
    assert pair.table.seq == seq


def test_a_rules_error_names_the_id_and_is_no_strike() -> None:
    pair, clients = playing_pair()
    seat, _ = on_turn(pair, clients)
    idle = clients[1 - seat]
    for n in range(LIMITS.max_strikes + 2):
        answer = pair.send(idle, BidMsg(id=100 + n, bid=2))
        assert [(p["code"], p["fatal"], p["id"]) for p in answer] == [
            ("not_your_turn", False, 100 + n)
        ]
    assert pair.referee.peers[idle.conn].strikes == 0 and idle.closed is None


def test_protocol_errors_after_hello_are_strikes_and_the_last_one_is_fatal() -> None:
    pair, clients = playing_pair()
    client = clients[0]
    bad: list[Message | dict[str, Any]] = [
        {"type": "no_such_type"},
        {"type": "bid"},
        hello(),
        Ready(id=50),  # mid-hand: not due (a `start` once the match is on is only acked)
    ]
    codes = []
    for n in range(LIMITS.max_strikes):
        answer = pair.send(client, bad[n % len(bad)])
        codes.append((answer[0]["code"], answer[0]["fatal"], answer[0]["id"]))
    assert codes[:4] == [
        ("unknown_type", False, None),
        ("bad_message", False, None),
        ("unexpected", False, None),
        ("not_now", False, 50),
    ]
    assert [fatal for _, fatal, _ in codes] == [False] * (LIMITS.max_strikes - 1) + [True]
    assert client.closed == ("close", codes[-1][0])
    assert pair.table.seats[0].connected is False  # its seat waits for it


def test_a_framing_error_after_hello_is_fatal_at_once() -> None:
    pair, clients = playing_pair()
    answer = pair.send_bytes(clients[0], HEADER.pack(MAX_FRAME + 1))
    assert [(p["code"], p["fatal"]) for p in answer] == [("too_big", True)]
    assert clients[0].closed == ("close", "too_big")


def test_seated_rate_limit_is_a_strike_per_dropped_message() -> None:
    limits = Limits(burst=4, messages_per_second=1.0, max_strikes=3)
    pair, clients = playing_pair(limits=limits)
    client = clients[0]  # its hello took one of the four
    answer = pair.send(client, *[Ping(t=2.0)] * 10)
    assert types(answer) == ["pong"] * 3 + ["error"] * 3
    assert [p["fatal"] for p in answer[3:]] == [False, False, True]
    assert {p["code"] for p in answer[3:]} == {"rate_limited"}
    assert client.closed == ("close", "rate_limited")


def test_the_rate_limit_refills_with_time() -> None:
    pair, clients = playing_pair(limits=Limits(burst=2, messages_per_second=1.0))
    client = clients[0]
    client.answer_pings = False
    pair.advance(2.0)
    assert types(pair.send(client, Ping(t=1), Ping(t=2))) == ["pong", "pong"]
    assert types(pair.send(client, Ping(t=3))) == ["error"]
    pair.now += 1.0
    assert types(pair.send(client, Ping(t=4))) == ["pong"]


def test_an_id_beyond_2_53_is_a_bad_message_strike() -> None:
    pair, clients = playing_pair()
    _, mover = on_turn(pair, clients)
    answer = pair.send(mover, {"type": "bid", "id": 2**53, "bid": None})
    assert [(p["code"], p["fatal"]) for p in answer] == [("bad_message", False)]
    assert "2^53" in answer[0]["message"] or "9007199254740991" in answer[0]["message"]


# ---- leave and takeover ----------------------------------------------------------------------


def test_leave_during_a_match_gives_the_seat_to_a_bot_and_closes_with_left() -> None:
    pair, clients = playing_pair()
    leaver, other = clients
    answer = pair.send(leaver, Leave(), BidMsg(id=9, bid=2))
    assert types(answer) == ["bye"] and answer[0]["code"] == "left"
    assert leaver.closed == ("close", "left")
    assert pair.table.seats[0].kind == "bot"
    assert pair.referee.seated() == {1: other.conn}
    events = other.last_state["events"]
    assert {"kind": "leave", "seat": 0} in events


def test_leave_in_the_lobby_frees_the_seat() -> None:
    pair = RefereePair(players=3)
    client = pair.join("Ann")
    pair.send(client, Leave())
    assert pair.table.seats[0].kind == "empty"
    assert client.closed == ("close", "left")


def test_a_token_takes_the_seat_over_and_the_old_connection_hears_replaced() -> None:
    pair, clients = playing_pair()
    old = clients[0]
    token = old.of_type("welcome")[0]["token"]
    new = pair.open("10.0.0.3:1")
    answer = pair.send(new, pair.hello(new, "Ann again", token=token))
    assert types(answer) == ["welcome", "state"] and answer[0]["seat"] == 0
    assert types(old.received[-1:]) == ["bye"] and old.received[-1]["code"] == "replaced"
    assert old.closed == ("close", "replaced")
    assert pair.referee.seated() == {0: new.conn, 1: clients[1].conn}
    assert pair.table.seats[0].name == "Ann" and pair.table.seats[0].connected
    # The old connection going does not take the seat from the new one.
    assert pair.send(new, Ping(t=4.0)) == [{"type": "pong", "t": 4.0}]


def test_a_lost_seated_connection_disconnects_the_seat_and_the_others_hear() -> None:
    pair, clients = playing_pair()
    pair.lose(clients[0], "reset")
    assert not pair.table.seats[0].connected
    assert {"kind": "disconnected", "seat": 0} in clients[1].last_state["events"]
    assert pair.referee.seated() == {1: clients[1].conn}


def test_in_the_lobby_a_lost_connection_frees_its_seat() -> None:
    pair = RefereePair(players=3)
    client = pair.join("Ann")
    pair.lose(client)
    assert pair.table.seats[0].kind == "empty"


# ---- timers, by injected time ----------------------------------------------------------------


def test_no_hello_within_the_handshake_deadline_is_fatal_exactly_then() -> None:
    pair = RefereePair()
    client = pair.open()
    client.answer_pings = False
    pair.advance(LIMITS.handshake_seconds - 0.01)
    assert client.closed is None
    pair.advance(0.01)
    assert client.errors() == [("handshake", True)]
    assert client.closed == ("close", "handshake")


def test_pings_before_hello_do_not_extend_the_handshake_deadline() -> None:
    pair = RefereePair()
    client = pair.open()
    for _ in range(int(LIMITS.handshake_seconds)):
        pair.send(client, Ping(t=0.0))
        pair.advance(1.0)
    assert client.closed == ("close", "handshake")


def test_the_host_pings_every_heartbeat() -> None:
    pair, clients = playing_pair()
    start = len(clients[0].of_type("ping"))
    pair.advance(5 * HEARTBEAT)
    assert len(clients[0].of_type("ping")) - start == 5


def test_a_seated_connection_silent_for_dead_after_is_cut_without_a_frame() -> None:
    pair, clients = playing_pair()
    quiet, talker = clients
    quiet.answer_pings = False
    pair.advance(LIMITS.dead_after - 0.01)
    assert quiet.closed is None
    frames = len(quiet.received)
    pair.advance(0.02)
    assert quiet.closed == ("abort", "silent")
    assert types(quiet.received[frames:]) in ([], ["ping"])
    assert talker.closed is None  # its pongs keep it alive
    assert not pair.table.seats[0].connected


def test_a_started_frame_must_finish_within_the_partial_frame_deadline() -> None:
    limits = Limits(partial_frame_seconds=2.0)  # sooner than the silence limit
    pair, clients = playing_pair(limits=limits)
    client = clients[0]
    client.answer_pings = False  # a pong must not land in the middle of the frame
    ping = Ping(t=1.0).encode()
    pair.send_bytes(client, ping[:3])
    pair.advance(limits.partial_frame_seconds - 0.01)
    assert client.closed is None
    pair.advance(0.02)
    assert client.errors() == [("slow_frame", True)]


def test_frames_that_keep_arriving_split_are_not_slow() -> None:
    pair, clients = playing_pair()
    client = clients[0]
    client.answer_pings = False  # a pong must not land in the middle of a frame
    ping = Ping(t=3.0).encode()
    half = len(ping) // 2
    pair.send_bytes(client, ping[:half])
    pongs = 0
    for _ in range(4 * int(LIMITS.partial_frame_seconds)):
        pair.advance(0.9)
        answer = pair.send_bytes(client, ping[half:] + ping[:half])  # finish one, start one
        pongs += types(answer).count("pong")
    assert client.closed is None and pongs == 4 * int(LIMITS.partial_frame_seconds)


def test_a_half_frame_before_hello_is_slow_frame_before_the_handshake_deadline() -> None:
    pair = RefereePair(limits=Limits(handshake_seconds=10.0, partial_frame_seconds=2.0))
    client = pair.open()
    pair.send_bytes(client, HEADER.pack(100) + b"\x85")
    pair.advance(2.0)
    assert client.errors() == [("slow_frame", True)]


def test_a_closed_connection_that_does_not_drain_is_cut_after_close_grace() -> None:
    pair, clients = playing_pair()
    client = clients[0]
    client.drains = False
    pair.send(client, Leave())
    assert client.closed == ("close", "left") and not client.gone
    pair.advance(LIMITS.close_grace - 0.01)
    assert client.closed == ("close", "left")
    pair.advance(0.02)
    assert client.closed[0] == "abort" and client.gone


def test_the_grace_period_ends_with_a_stand_in_that_then_plays() -> None:
    pair, clients = playing_pair(grace=30.0, pacing=Pacing(bot_delay=0.5, trick_pause=1.0))
    seat, mover = on_turn(pair, clients)
    pair.lose(mover)
    pair.advance(29.9)
    assert not pair.table.seats[seat].substitute
    pair.advance(0.2)
    assert pair.table.seats[seat].substitute
    assert {"kind": "substitute", "seat": seat} in clients[1 - seat].last_state["events"]
    bids = len(dealt_hand(pair.table).bids)
    pair.advance(0.39)  # the grace ran out at 30.0: the stand-in bids at 30.5
    assert len(dealt_hand(pair.table).bids) == bids
    pair.advance(0.02)
    assert len(dealt_hand(pair.table).bids) == bids + 1


def test_coming_back_within_grace_cancels_the_stand_in() -> None:
    pair, clients = playing_pair(grace=30.0)
    token = clients[0].of_type("welcome")[0]["token"]
    pair.lose(clients[0])
    pair.advance(20.0)
    pair.join("Ann", "10.0.0.1:2", token=token)
    pair.advance(60.0)
    assert not pair.table.seats[0].substitute and pair.table.seats[0].connected
    assert pair.referee.grace_until == {}


def test_away_mid_match_hands_the_seat_to_a_bot_at_once_and_the_token_brings_it_back() -> None:
    """A closed browser tab (`away`): no grace period, unlike a lost connection; unlike
    `leave`, the seat and its token stay the player's. The clock never moves here."""
    pair, clients = playing_pair(grace=30.0, pacing=Pacing(bot_delay=0.5, trick_pause=1.0))
    seat, mover = on_turn(pair, clients)
    token = mover.of_type("welcome")[0]["token"]
    answer = pair.send(mover, Away(), BidMsg(id=9, bid=2))
    assert types(answer) == ["bye"] and answer[0]["code"] == "away"
    assert mover.closed == ("close", "away")
    gone = pair.table.seats[seat]
    assert gone.kind == "human" and gone.substitute and not gone.connected
    assert pair.referee.grace_until == {}
    assert {"kind": "substitute", "seat": seat} in clients[1 - seat].last_state["events"]
    bids = len(pair.table.match.hand.bids)  # type: ignore[union-attr]
    pair.advance(0.51)  # the stand-in bids after the bot's delay, not after 30 s
    assert len(pair.table.match.hand.bids) == bids + 1  # type: ignore[union-attr]
    back = pair.join("Ann again", "10.0.0.9:1", token=token)
    assert back.of_type("welcome")[-1]["seat"] == seat
    assert not pair.table.seats[seat].substitute and pair.table.seats[seat].connected


def test_a_lost_connection_keeps_the_seat_for_its_grace_period_not_away() -> None:
    pair, clients = playing_pair(grace=30.0)
    pair.lose(clients[0])
    assert not pair.table.seats[0].substitute and 0 in pair.referee.grace_until


def test_away_in_the_lobby_frees_the_seat_like_any_goodbye_there() -> None:
    pair = RefereePair(players=3)
    client = pair.join("Ann")
    pair.send(client, Away())
    assert pair.table.seats[0].kind == "empty"
    assert client.closed == ("close", "away")


def test_bots_wait_bot_delay_and_a_longer_trick_pause_before_leading() -> None:
    """A two-seat table, one human, one bot: every bot move waits `bot_delay` after the
    change that made it due, except a lead after a finished trick, which waits
    `trick_pause` so that the trick can be seen."""
    pacing = Pacing(bot_delay=0.5, trick_pause=2.0)
    pair = RefereePair(players=2, bots=1, seed=3, pacing=pacing)
    human = pair.join("Ann")
    bot_seat = 1 - human.of_type("welcome")[0]["seat"]
    waits: dict[str, list[float]] = {"after_trick": [], "otherwise": []}
    next_id = 1
    for _ in range(400):
        if pair.table.state != "playing":
            break
        match = pair.table.match
        assert match is not None
        if match.turn is None:  # the hand is over: say ready
            pair.send(human, Ready(id=next_id))
            next_id += 1
            continue
        if match.turn != bot_seat:
            pair.send(human, a_legal_move(pair, match.turn, next_id))
            next_id += 1
            continue
        due_since, events = pair.changes[-1]
        after_trick = any(isinstance(e, TrickWon) for e in events)
        wait = pacing.trick_pause if after_trick else pacing.bot_delay
        changes = len(pair.changes)
        pair.advance(due_since + wait - 0.01 - pair.now)
        assert len(pair.changes) == changes, "the bot acted early"
        pair.advance(0.02)
        acted, events = pair.changes[changes]
        assert acted == due_since + wait
        assert any(isinstance(e, Bid | Played) and e.seat == bot_seat for e in events)
        waits["after_trick" if after_trick else "otherwise"].append(acted - due_since)
    assert waits["after_trick"] and waits["otherwise"]


# ---- connection caps -------------------------------------------------------------------------


def test_at_the_connection_caps_the_oldest_stranger_makes_room_until_all_are_seated() -> None:
    """Issue 11 item 6: at a cap the oldest connection that has not said hello is cut
    (without a frame) for the new one; once every place is seated, the door is shut."""
    pair = RefereePair(players=4, limits=Limits(max_connections=3, max_per_address=2))
    a1, a2 = pair.open("10.0.0.1:1"), pair.open("10.0.0.1:2")
    a3 = pair.open("10.0.0.1:3")  # this address's cap: its own oldest goes
    assert a1.closed == ("abort", "made room") and a3.closed is None and a2.closed is None
    b1 = pair.open("10.0.0.2:1")
    b2 = pair.open("10.0.0.2:2")  # the host's cap: the oldest of all goes
    assert a2.closed == ("abort", "made room") and b1.closed is None and b2.closed is None
    for client in (a3, b1, b2):
        assert pair.send(client, hello("P"))[0]["type"] == "welcome"
    c1 = pair.open("10.0.0.3:1")
    assert c1.closed == ("abort", "too many connections") and not c1.received
    assert pair.refused_at_door == ["made room", "made room", "too many connections"]
    assert all(client.closed is None for client in (a3, b1, b2))


# ---- shutdown --------------------------------------------------------------------------------


def test_shutdown_says_bye_to_everyone_and_then_lets_no_one_in() -> None:
    pair, clients = playing_pair()
    waiting = pair.open("10.0.0.5:1")
    pair._apply(pair.referee.shutdown(pair.now))
    for client in (*clients, waiting):
        assert client.received[-1] == {
            "type": "bye",
            "reason": "The host is restarting the table; it will be back.",
            "code": "shutdown",
            "address": None,
            "table_id": None,
        }
        assert client.closed == ("close", "shutdown")
    late = pair.open("10.0.0.6:1")
    assert late.closed == ("abort", "the host is shutting down") and not late.received


def test_after_shutdown_no_bot_acts_and_no_grace_runs_out() -> None:
    pair = RefereePair(players=2, bots=1, pacing=Pacing(bot_delay=1.0, trick_pause=1.0))
    human = pair.join("Ann")
    match = pair.table.match
    assert match is not None and match.turn is not None
    if match.turn == human.of_type("welcome")[0]["seat"]:
        pair.send(human, a_legal_move(pair, match.turn, 1))
    assert pair.referee.bot_at is not None  # the bot is due...
    moves = len(dealt_hand(pair.table).bids)
    pair._apply(pair.referee.shutdown(pair.now))
    pair.advance(120.0)
    assert len(dealt_hand(pair.table).bids) == moves
    assert pair.referee.next_deadline is None


# ---- the journal and the unexpected ----------------------------------------------------------


class FailingJournal:
    """Takes over from the pair's journal (keeping what it wrote, for a roll-back) and
    fails every write once told to."""

    def __init__(self, before: Journal) -> None:
        self.fail = False
        self.written: list[Entry] = before.entries()

    def record_all(self, entries: list[Entry]) -> None:
        if self.fail:
            raise JournalError("disk full")
        self.written.extend(entries)

    def entries(self) -> list[Entry]:
        return list(self.written)

    def set_meta(self, **values: Any) -> None:
        pass


def test_a_journal_failure_refuses_a_hello_and_an_action_is_an_error_to_resend() -> None:
    pair = RefereePair(players=3)
    pair.join("Ann")
    journal = FailingJournal(pair.table.journal)
    pair.table.journal = journal
    journal.fail = True
    late = pair.open("10.0.0.4:1")
    answer = pair.send(late, hello("Cy"))
    assert [(p["code"], p["fatal"]) for p in answer] == [("journal", True)]


def test_a_journal_failure_on_an_action_is_not_fatal_and_keeps_the_id() -> None:
    pair, clients = playing_pair()
    seat, mover = on_turn(pair, clients)
    journal = FailingJournal(pair.table.journal)
    pair.table.journal = journal
    journal.fail = True
    move = a_legal_move(pair, seat, 5)
    answer = pair.send(mover, move)
    assert [(p["code"], p["fatal"], p["id"]) for p in answer] == [("journal", False, 5)]
    journal.fail = False
    assert types(pair.send(mover, move)) == ["ack", "state"]


def test_an_unexpected_error_cuts_only_that_connection(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    pair, clients = playing_pair()

    def broken(*args: Any) -> bool:
        raise RuntimeError("a bug")

    seat, mover = on_turn(pair, clients)
    for command in ("bid", "play"):  # whichever the legal move is
        monkeypatch.setattr(pair.table, command, broken)
    with caplog.at_level(logging.ERROR, logger="pitchnet.host"):
        pair.send(mover, a_legal_move(pair, seat, 1))
    assert mover.closed == ("abort", "unexpected error")
    assert "unexpected error" in caplog.text
    assert clients[1 - seat].closed is None


# ---- the deadline the adapter keeps ----------------------------------------------------------


def test_next_deadline_is_never_later_than_what_is_due() -> None:
    """Whatever happens, waking at `next_deadline` finds everything that is due by
    then: checked by stepping the clock just short of it and seeing nothing happen."""
    pair, _ = playing_pair(pacing=Pacing(bot_delay=0.7, trick_pause=1.3))
    extra = pair.open("10.0.0.7:1")
    pair.send_bytes(extra, Ping(t=0).encode()[:2])
    referee: Referee = pair.referee
    for _ in range(30):
        deadline = referee.next_deadline
        assert deadline is not None and deadline >= pair.now
        frames = sum(len(c.received) for c in pair.clients.values())
        # Nothing is due before the deadline: a wake just short of it changes nothing.
        pair._apply(referee.wake(deadline - 1e-6))
        assert sum(len(c.received) for c in pair.clients.values()) == frames
        pair.now = deadline
        pair._apply(referee.wake(deadline))
        pair.pong()


def test_read_frames_reports_what_the_decoder_still_holds_and_never_raises() -> None:
    decoder = FrameDecoder()
    ping = Ping(t=1).encode()
    half = read_frames(decoder, ping[:5])
    assert half.items == [] and half.pending == 5
    whole = read_frames(decoder, ping[5:] + frame({"type": "nope"}) + HEADER.pack(MAX_FRAME + 1))
    assert whole.items[0] == Ping(t=1)
    refused = [e for e in whole.items[1:] if isinstance(e, ProtocolError)]
    assert len(refused) == len(whole.items) - 1
    assert [(e.code, e.fatal) for e in refused] == [
        ("unknown_type", False),
        ("too_big", True),
    ]
    assert whole.pending == 0


def test_a_table_ended_on_purpose_says_the_host_closed_it() -> None:
    pair, clients = playing_pair()
    pair._apply(pair.referee.shutdown(pair.now, on_purpose=True))
    for client in clients:
        assert client.received[-1]["code"] == "closed"
        assert client.received[-1]["reason"] == "The host closed the table."
        assert client.closed == ("close", "closed")


def test_a_spectator_pinging_often_keeps_a_players_decode_budget() -> None:
    """Once welcomed, a spectator may send what a player may: 90 pings a second for 10 s
    is far inside the message rate and a player's decode budget, though it would long
    have spent the 4 KiB a connection may have decoded before its hello."""
    pair = RefereePair()
    watcher = pair.open("10.0.0.9:1")
    welcome = pair.send(watcher, replace(pair.hello(watcher, "Eve"), watch=True))
    assert welcome[0]["type"] == "welcome" and welcome[0]["spectator"]
    for n in range(900):
        pair.advance(1 / 90)
        answer = pair.send(watcher, Ping(t=float(n)))
        assert ("pong", float(n)) in [(p["type"], p.get("t")) for p in answer], answer
    assert watcher.closed is None and not watcher.errors()
