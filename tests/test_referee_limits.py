"""Referee rules against floods, cheap repeats and password guessing, by injected time
(issue 11, items 2, 6 and 7)."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import pytest

from host import dispatch
from host.limits import Limits
from host.referee import (
    Abort,
    Changed,
    Close,
    Closed,
    Effect,
    Opened,
    Received,
    Referee,
    Seated,
    Send,
)
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, Ack, BidMsg, Hello, PlayMsg, Ready, Start
from pitchnet.rules import Phase
from pitchnet.views import seat_view
from tests.table_doubles import RecordingJournal, hello_at


def referee(bots: int = 0, **limits: float) -> Referee:
    options = TableOptions(players=2, bots=bots)
    table = Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())
    return Referee(table, Limits(**limits))  # type: ignore[arg-type]


def test_an_address_that_connects_past_its_burst_is_aborted_and_refills_with_time() -> None:
    ref = referee(connect_burst=3, connects_per_second=1.0)
    effects = [ref.handle(n, Opened(f"10.0.0.1:{5000 + n}"), 0.0) for n in range(4)]
    assert [any(isinstance(e, Abort) for e in batch) for batch in effects] == [
        False,
        False,
        False,
        True,
    ]
    assert not any(isinstance(e, Abort) for e in ref.handle(9, Opened("10.0.0.2:1"), 0.0))
    assert not any(isinstance(e, Abort) for e in ref.handle(10, Opened("10.0.0.1:9"), 1.0))


def test_ipv6_connections_count_per_64() -> None:
    ref = referee(max_per_address=2, connect_burst=100)
    a = ref.handle(1, Opened("2001:db8:0:1::1:40000"), 0.0)
    b = ref.handle(2, Opened("2001:db8:0:1::2:40000"), 0.0)
    c = ref.handle(3, Opened("2001:db8:0:1:ffff::3:40000"), 0.0)
    d = ref.handle(4, Opened("2001:db8:0:2::1:40000"), 0.0)
    aborted = [any(isinstance(e, Abort) for e in batch) for batch in (a, b, c, d)]
    assert aborted == [False, False, True, False]


def test_a_flood_of_refusals_logs_one_line_per_address_per_interval(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ref = referee(connect_burst=1, connects_per_second=0.001)
    with caplog.at_level(logging.WARNING, logger="pitchnet.host"):
        for n in range(1000):
            ref.handle(n, Opened(f"10.0.0.7:{n}"), n / 1000)  # one second of refusals
        ref.handle(5000, Opened("10.0.0.7:1"), 10.5)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[1].endswith("(and 998 more refused from 10.0.0.7 since the last line)")


def test_the_welcome_tells_the_adapter_the_connection_is_seated() -> None:
    ref = referee()
    ref.handle(1, Opened("10.0.0.1:1"), 0.0)
    effects = ref.handle(1, Received([Hello(version=PROTOCOL_VERSION, name="Ann")]), 0.1)
    assert [e for e in effects if isinstance(e, Seated)] == [Seated(1)]


def hello_to(ref: Referee, conn: int, name: str, **secrets: Any) -> Hello:
    """The `hello` answering the challenge the referee sent connection `conn`."""
    return hello_at(ref.table, name, ref.peers[conn].nonce, **secrets)


def seat_token(ref: Referee, conn: int, name: str, now: float, **hello: Any) -> list[Effect]:
    ref.handle(conn, Opened(f"10.0.1.{conn}:1"), now)
    return ref.handle(conn, Received([hello_to(ref, conn, name, **hello)]), now)


def test_a_returning_player_gets_in_past_a_full_house_of_strangers() -> None:
    """Item 6: at the connection cap the oldest connection that has not said hello makes
    room, so a seated player's reconnect always gets in."""
    ref = referee(bots=1, max_connections=8, max_per_address=4, connect_burst=100)
    seat_token(ref, 1, "Ann", 0.0)  # the table is full: the match is on
    token = ref.table.seats[1].token  # seat 0 is the bot's
    strangers = [100 + n for n in range(20)]
    for n, conn in enumerate(strangers):  # 5 addresses, 4 each: the house fills, and churns
        ref.handle(conn, Opened(f"10.0.9.{n % 5}:{conn}"), 0.1 + n / 100)
    assert len(ref.peers) <= 8
    ref.handle(1, Closed(), 1.0)  # Ann's Wi-Fi drops, and strangers take her place
    ref.handle(200, Opened("10.0.9.4:200"), 1.05)
    assert len(ref.peers) == 8
    back = ref.handle(2, Opened("10.0.1.1:2"), 1.1)
    assert not any(isinstance(e, Abort) and e.conn == 2 for e in back)
    assert any(isinstance(e, Abort) for e in back)  # a stranger made room
    ref.handle(2, Received([hello_to(ref, 2, "Ann", token=token)]), 1.2)
    assert ref.seated() == {1: 2}


def test_the_same_address_cap_evicts_its_own_oldest_stranger_first() -> None:
    ref = referee(max_per_address=2, connect_burst=100)
    ref.handle(1, Opened("10.0.0.5:1"), 0.0)
    ref.handle(2, Opened("10.0.0.5:2"), 0.1)
    effects = ref.handle(3, Opened("10.0.0.5:3"), 0.2)
    assert [e for e in effects if isinstance(e, Abort)] == [Abort(1, "made room")]
    assert set(ref.peers) == {2, 3}


def test_seated_connections_are_never_evicted_and_a_full_seated_house_refuses() -> None:
    ref = referee(max_connections=2, connect_burst=100)
    seat_token(ref, 1, "Ann", 0.0)
    seat_token(ref, 2, "Ben", 0.0)
    effects = ref.handle(3, Opened("10.0.2.1:3"), 0.5)
    assert [e.conn for e in effects if isinstance(e, Abort)] == [3]
    assert set(ref.seated().values()) == {1, 2}


def hand_over_with_two_humans() -> tuple[Referee, RecordingJournal]:
    """Ann and Ben (conns 1 and 2) and a bot, the first hand played out."""
    journal = RecordingJournal()
    options = TableOptions(players=3, bots=1)
    table = Table("t1", "Test", options, deal_deck=lambda k: shuffled_deck(), journal=journal)
    ref = Referee(table, Limits())
    seat_token(ref, 1, "Ann", 0.0)
    seat_token(ref, 2, "Ben", 0.0)
    match = table.match
    assert match is not None
    while match.phase is not Phase.HAND_OVER:
        turn = match.turn
        assert turn is not None
        if table.seats[turn].kind == "bot":
            table.act_for_bot()
            continue
        view = seat_view(match, turn)
        next_id = table.seats[turn].last_id + 1
        if view.legal_bids:
            dispatch.act(table, turn, BidMsg(id=next_id, bid=view.legal_bids[0]))
        else:
            dispatch.act(table, turn, PlayMsg(id=next_id, card=str(view.legal_plays[0])))
    table.take_events()
    return ref, journal


def test_a_repeated_ready_is_acked_but_neither_journaled_nor_broadcast() -> None:
    """Item 7: a `ready` from a seat that is ready already changes nothing."""
    ref, journal = hand_over_with_two_humans()
    first = ref.handle(1, Received([Ready(id=100)]), 5.0)
    assert any(isinstance(e, Changed) for e in first)
    written = len(journal.written)
    for n in range(1, 50):
        again = ref.handle(1, Received([Ready(id=100 + n)]), 5.0 + n / 100)
        assert not any(isinstance(e, Changed) for e in again)
        assert [Ack(id=100 + n, duplicate=True).encode()] == [
            e.data for e in again if isinstance(e, Send)
        ]
    assert len(journal.written) == written


def test_a_repeated_start_once_the_match_is_on_is_acked_not_struck() -> None:
    ref, journal = hand_over_with_two_humans()
    written = len(journal.written)
    effects = ref.handle(1, Received([Start(id=200), Start(id=201)]), 5.0)
    sent = [e.data for e in effects if isinstance(e, Send)]
    assert sent == [Ack(id=200, duplicate=True).encode(), Ack(id=201, duplicate=True).encode()]
    assert len(journal.written) == written


def test_password_guessing_is_slowed_per_address_but_not_the_right_password_elsewhere() -> None:
    """Item 7: after 3 wrong passwords each one more doubles the wait; a hello with a
    password from that address is refused unread until then; other addresses are not
    slowed."""
    options = TableOptions(players=4, password="s3cret")
    table = Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())
    ref = Referee(table, Limits(connect_burst=10**6))
    codes = []
    now = 0.0
    for n in range(8):
        conn = 10 + n
        ref.handle(conn, Opened(f"10.6.6.6:{conn}"), now)
        effects = ref.handle(conn, Received([hello_to(ref, conn, "Eve", password="guess")]), now)
        codes.append(next(e for e in effects if isinstance(e, Close)).code)
        now += 0.01
    assert codes[:4] == ["bad_password"] * 4  # 3 free, the 4th wrong one arms a 1 s wait
    assert codes[4:] == ["rate_limited"] * 4  # not even compared
    # The right password from the guessing address waits too...
    ref.handle(50, Opened("10.6.6.6:50"), now)
    right = hello_to(ref, 50, "Eve", password="s3cret")
    effects = ref.handle(50, Received([right]), now)
    assert [e.code for e in effects if isinstance(e, Close)] == ["rate_limited"]
    # ...but not from another address, at once.
    ref.handle(51, Opened("10.0.0.2:51"), now)
    effects = ref.handle(51, Received([hello_to(ref, 51, "Ann", password="s3cret")]), now)
    assert not any(isinstance(e, Close) for e in effects) and 0 in ref.seated()
    # Each further wrong one doubles the wait: 1 s, then 2 s, then 4 s.
    waits = []
    for n in range(3):
        now += 1000.0
        ref.handle(60 + n, Opened(f"10.6.6.6:{60 + n}"), now)
        ref.handle(60 + n, Received([hello_to(ref, 60 + n, "Eve", password="x")]), now)
        waits.append(ref.guesses.wait("10.6.6.6", now))
    assert waits == [2.0, 4.0, 8.0]


def test_password_guesses_as_a_spectator_are_slowed_alike() -> None:
    """A spectator proves the password too, so watching is no way around the back-off:
    its wrong guesses count with the address's others, and are refused unread alike."""
    options = TableOptions(players=4, password="s3cret")
    table = Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())
    ref = Referee(table, Limits(connect_burst=10**6))
    codes = []
    for n in range(6):
        conn = 10 + n
        ref.handle(conn, Opened(f"10.6.6.6:{conn}"), 0.0)
        guess = replace(hello_to(ref, conn, "Eve", password="guess"), watch=n % 2 == 0)
        effects = ref.handle(conn, Received([guess]), 0.0)
        codes.append(next(e for e in effects if isinstance(e, Close)).code)
    assert codes == ["bad_password"] * 4 + ["rate_limited"] * 2
    ref.handle(30, Opened("10.6.6.6:30"), 0.0)
    watch = replace(hello_to(ref, 30, "Eve", password="s3cret"), watch=True)
    effects = ref.handle(30, Received([watch]), 0.0)
    assert [e.code for e in effects if isinstance(e, Close)] == ["rate_limited"]


def guessing_codes(ref: Referee, addresses: list[str], tries: int, **hello: Any) -> list[str]:
    """`tries` wrong-password hellos from each of `addresses` in turn, 0.01 s apart: the
    code each was closed with."""
    codes, conn, now = [], 1000, 0.0
    for _ in range(tries):
        for source in addresses:
            conn += 1
            ref.handle(conn, Opened(f"{source}:{conn}"), now)
            wrong = hello_to(ref, conn, "Eve", password="guess", **hello)
            effects = ref.handle(conn, Received([wrong]), now)
            codes.append(next(e for e in effects if isinstance(e, Close)).code)
            now += 0.01
    return codes


def test_a_watchers_hello_goes_through_the_same_password_limiter() -> None:
    """Issue 27 item 3: a `watch` hello no longer skips the wrong-password counter."""
    options = TableOptions(players=4, password="s3cret")
    table = Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())
    ref = Referee(table, Limits(connect_burst=10**6))
    codes = guessing_codes(ref, ["10.6.6.6"], 8, watch=True)
    assert codes[:4] == ["bad_password"] * 4
    assert codes[4:] == ["rate_limited"] * 4


def test_many_addresses_guess_no_faster_than_the_tables_own_limit() -> None:
    """Eight addresses together: past the table's burst of wrong passwords, an address
    that guessed already waits for the table's bucket; a fresh address is compared."""
    options = TableOptions(players=4, password="s3cret")
    table = Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())
    ref = Referee(table, Limits(connect_burst=10**6))
    guessers = [f"10.6.6.{n}" for n in range(8)]
    codes = guessing_codes(ref, guessers, 6)
    burst = ref.guesses.table_burst
    assert codes.count("bad_password") == burst  # 8 addresses x 3 free would be 24
    assert set(codes[burst:]) == {"rate_limited"}
    ref.handle(5, Opened("10.0.0.2:5"), 1.0)
    effects = ref.handle(5, Received([hello_to(ref, 5, "Ann", password="s3cret")]), 1.0)
    assert not any(isinstance(e, Close) for e in effects) and 0 in ref.seated()


def test_64_watchers_from_4_addresses_leave_a_seated_player_room_to_come_back() -> None:
    """Issue 27 item 4: watchers fill at most their own share of the connections, so 20
    of 20 reconnects of a seated player get in past 64 would-be watchers."""
    ref = referee(bots=1, connect_burst=10**6)
    seat_token(ref, 1, "Ann", 0.0)
    token = ref.table.seats[1].token
    for n in range(64):
        conn = 100 + n
        ref.handle(conn, Opened(f"10.0.9.{n % 4}:{conn}"), 0.1)
        if conn not in ref.peers:
            continue  # refused at the door
        effects = ref.handle(conn, Received([hello_to(ref, conn, "Eve", watch=True)]), 0.1)
        if any(isinstance(e, Close) for e in effects):
            ref.handle(conn, Closed(), 0.1)  # the refused watcher's connection goes
    watching = sum(p.spectator for p in ref.peers.values())
    assert watching == ref.limits.max_watchers
    back = 0
    for n in range(20):
        conn, now = 300 + n, 1.0 + n
        ref.handle(conn, Opened(f"10.0.1.1:{conn}"), now)
        if conn in ref.peers:
            hello = hello_to(ref, conn, "Ann", token=token)
            for effect in ref.handle(conn, Received([hello]), now):
                if isinstance(effect, Close):  # the connection it replaced goes
                    ref.handle(effect.conn, Closed(), now)
            back += ref.seated().get(1) == conn
    assert back == 20
