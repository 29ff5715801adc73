"""Game-night seat rules of the table, without sockets (issue 12): lobby seat moves and
sides, a newcomer taking a bot-played seat at the hand boundary with its score, a
player who left taking their seat back, an away seat not being free, the ready limit,
and the spectators' frame."""

from __future__ import annotations

import random
from typing import Any

import pytest

from host import dispatch
from host.entries import Entry
from host.snapshots import Snapshots, table_info
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    BidMsg,
    FrameDecoder,
    Hello,
    Leave,
    ProtocolError,
    Ready,
    Sit,
    Start,
)
from pitchnet.rules import Phase, RulesError
from tests.table_doubles import match_of, play_out_hand


class Journal:
    """Keeps the typed entries, and their JSON form for the asserts."""

    def __init__(self) -> None:
        self.typed: list[Entry] = []
        self.json: list[dict[str, Any]] = []

    def record_all(self, entries: list[Entry]) -> None:
        """One change's entries (host/table.py `one_change`)."""
        self.typed.extend(entries)
        self.json.extend(entry.to_json() for entry in entries)

    def entries(self) -> list[Entry]:
        """What a roll-back replays (host/table.py reads it as any journal's)."""
        return list(self.typed)

    def set_meta(self, **values: object) -> None:
        pass


def make(players: int = 4, **options: object) -> tuple[Table, Journal]:
    """A table opened at 1000.0 on its host's clock (a test moves `table.now` on, as
    the referee does)."""
    journal = Journal()
    table = Table(
        "t1",
        "Test",
        TableOptions(players=players, **options),  # type: ignore[arg-type]
        lambda key: shuffled_deck(random.Random(key)),
        journal=journal,
    )
    table.open(1000.0)
    return table, journal


def hello(name: str, **fields: object) -> Hello:
    return Hello(PROTOCOL_VERSION, name, **fields)  # type: ignore[arg-type]


def test_a_player_moves_to_an_open_seat_and_keeps_starting_rights() -> None:
    table, journal = make(4)
    ann = dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))
    assert (ann, bob) == (0, 1)
    assert dispatch.act(table, ann, Sit(id=1, seat=3))
    assert table.seats[3].name == "Ann" and table.seats[0].kind == "empty"
    assert table.starter == 3  # the creator starts, wherever they sit
    with pytest.raises(RulesError):
        dispatch.act(table, bob, Sit(id=1, seat=3))  # taken
    with pytest.raises(RulesError) as refused:
        dispatch.act(table, bob, Start(id=2))  # only the creator
    assert refused.value.code == "not_starter"
    assert {"op": "move", "seat": 0, "to": 3} in journal.json


def test_partnership_sides_are_chosen_by_seat() -> None:
    table, _ = make(4, partnership=True)
    dispatch.join(table, hello("Ann"))  # seat 1, team A
    bob = dispatch.join(table, hello("Bob"))  # seat 2, team B
    dispatch.act(table, bob, Sit(id=1, seat=2))  # Bob goes to team A, beside Ann
    assert [s.name for s in table.seats][:3] == ["Ann", "", "Bob"]
    assert {i % 2 for i, s in enumerate(table.seats) if s.kind == "human"} == {0}


def test_a_newcomer_takes_a_bot_seat_at_the_next_hand_with_its_score() -> None:
    table, _ = make(3, target=21)
    ann = dispatch.join(table, hello("Ann"))
    dispatch.act(table, ann, Start(id=1))
    assert table.match is not None and table.match.hand is not None
    seat = dispatch.join(table, hello("Dee"))  # mid-hand
    assert table.seats[seat].kind == "bot" and table.claimed(seat)
    assert table_info(table).seats[seat].claimed_by == "Dee"
    assert table.open_seats() == 1  # one of the two bot seats is still free to take
    # The newcomer is a spectator until the hand is over: no hand in its frame.
    frame = next(FrameDecoder().feed(Snapshots(table).frames([])[seat]))
    assert frame["view"]["hand"] == [] and frame["view"]["spectator"] is True
    with pytest.raises(RulesError):
        dispatch.act(table, seat, BidMsg(id=1, bid=None))
    play_out_hand(table)
    assert table.match.phase in (Phase.HAND_OVER, Phase.MATCH_OVER)
    score_before = table.match.scores[seat]
    table.take_events()
    dispatch.act(table, ann, Ready(id=table.seats[ann].last_id + 1))
    events = [event.to_wire() for event in table.take_events()]
    took = [e for e in events if e["kind"] == "takeover"]
    assert took == [{"kind": "takeover", "seat": seat, "name": "Dee", "was": "Bot 1"}]
    assert table.seats[seat].kind == "human" and table.seats[seat].name == "Dee"
    assert table.match.scores[seat] == score_before  # the seat's score, not a fresh one
    assert table.match.hand is not None and len(table.match.hand.hands[seat]) == 6


def test_between_hands_a_newcomer_sits_at_once() -> None:
    table, _ = make(2, target=21)
    ann = dispatch.join(table, hello("Ann"))
    dispatch.act(table, ann, Start(id=1))
    play_out_hand(table)
    seat = dispatch.join(table, hello("Dee"))
    assert table.seats[seat].kind == "human" and not table.claimed(seat)
    assert table.waiting_for() == sorted([ann, seat])


def test_a_player_who_left_takes_their_own_seat_back() -> None:
    table, _ = make(3, target=21)
    ann = dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))
    dispatch.act(table, ann, Start(id=1))
    dispatch.act(table, bob, Leave())
    assert table.seats[bob].name == "Bob (bot)" and table.seats[bob].takeable
    again = dispatch.join(table, hello("Bob"))
    assert again == bob  # their own seat, though seat 3's bot is free too
    assert table.seats[bob].claim_name == "Bob"


def test_an_away_seat_is_not_free_and_a_full_table_says_watch() -> None:
    table, _ = make(2)
    dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))  # full: the match starts
    table.disconnected(bob)
    assert table.open_seats() == 0
    with pytest.raises(ProtocolError) as refused:
        dispatch.join(table, hello("Cat"))
    assert refused.value.code == "table_full" and "watch" in refused.value.message
    assert table.substitute_absent(bob)  # past the grace period a bot stands in...
    with pytest.raises(ProtocolError):
        dispatch.join(table, hello("Cat"))  # ...and still only Bob's token gets the seat back


def test_a_claimant_who_goes_frees_the_seat() -> None:
    table, journal = make(3)
    ann = dispatch.join(table, hello("Ann"))
    dispatch.act(table, ann, Start(id=1))
    seat = dispatch.join(table, hello("Dee"))
    table.disconnected(seat)
    assert table.seats[seat].takeable and not table.claimed(seat)
    assert journal.json[-1] == {"op": "unclaim", "seat": seat}


def test_the_ready_limit_deals_on_and_says_whom_it_waits_for() -> None:
    table, _ = make(2, ready_limit=20.0, target=21)
    ann = dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))
    play_out_hand(table)
    assert table.match is not None and table.match.phase is Phase.HAND_OVER
    dispatch.act(table, ann, Ready(id=table.seats[ann].last_id + 1))
    assert table.waiting_for() == [bob]
    info = table_info(table)
    assert info.waiting_for == [bob] and info.ready_left == 20.0
    table.now += 19.0
    assert not table.ready_expired() and table.match.phase is Phase.HAND_OVER
    assert table_info(table).ready_left == 1.0 and table_info(table).waiting == 19.0
    table.now += 1.0
    assert table.ready_expired()
    assert match_of(table).phase is Phase.BIDDING  # dealt: Bob simply sees the new hand
    assert table.ready_deadline() is None


def test_no_ready_limit_waits_for_ever() -> None:
    table, _ = make(2, ready_limit=0.0, target=21)
    dispatch.join(table, hello("Ann"))
    dispatch.join(table, hello("Bob"))
    play_out_hand(table)
    table.now += 10_000
    assert table.ready_deadline() is None and not table.ready_expired()


def test_a_resumed_table_replays_claims_and_moves() -> None:
    table, journal = make(3, target=21)
    ann = dispatch.join(table, hello("Ann"))
    dispatch.act(table, ann, Sit(id=1, seat=2))
    dispatch.act(table, 2, Start(id=2))
    dee = dispatch.join(table, hello("Dee"))
    play_out_hand(table)
    dispatch.act(table, 2, Ready(id=table.seats[2].last_id + 1))
    again, _ = make(3, target=21)
    again.replay(journal.typed)
    assert [(s.name, s.kind) for s in again.seats] == [(s.name, s.kind) for s in table.seats]
    assert again.seats[dee].token == table.seats[dee].token


def test_spectators_are_refused_when_the_table_says_so() -> None:
    table, _ = make(2, spectators=False)
    with pytest.raises(ProtocolError) as refused:
        dispatch.check_watcher(table, hello("Eve", watch=True))
    assert refused.value.code == "no_spectators"
    open_table, _ = make(2)
    dispatch.check_watcher(open_table, hello("Eve", watch=True))  # no error


def test_the_ready_limit_never_starts_a_new_match() -> None:
    """Issue 25: after a match the table waits for the people to say "play again"; the
    ready limit paces hands between hands, and a match end is not one of them."""
    table, _ = make(3, bots=1, ready_limit=20.0, target=7)  # the bot bids: it ends
    ann = dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))
    assert table.match is not None
    for _ in range(200):
        if table.match.phase is Phase.MATCH_OVER:
            break
        play_out_hand(table)
        if table.match.phase is Phase.HAND_OVER:
            table.now += 20.0  # nobody says ready: the limit deals the next hand
            assert table.ready_expired()
    assert table.waiting_for() == [ann, bob]
    assert table.ready_deadline() is None and table_info(table).ready_left is None
    table.now += 10_000
    assert not table.ready_expired() and table.match.phase is Phase.MATCH_OVER
    dispatch.act(table, ann, Ready(id=table.seats[ann].last_id + 1))
    table.now += 10_000
    assert not table.ready_expired() and table.match.phase is Phase.MATCH_OVER
    dispatch.act(table, bob, Ready(id=table.seats[bob].last_id + 1))
    assert match_of(table).phase is Phase.BIDDING and match_of(table).hand_number == 1  # asked for
