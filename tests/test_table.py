"""The referee's table without sockets: stale moves and players back from a stand-in."""

from __future__ import annotations

import random
from typing import Any

import pytest

from host import dispatch
from host.snapshots import Snapshots, table_info
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, FrameDecoder, Hello, Ready
from pitchnet.rules import Phase, RulesError
from pitchnet.views import seat_view
from tests.table_doubles import hello_at, match_of, play_out_hand, state_for


def _table(players: int = 2) -> tuple[Table, list[str]]:
    table = Table(
        "t1", "Test", TableOptions(players=players), lambda key: shuffled_deck(random.Random(key))
    )
    tokens = []
    for i in range(players):
        seat = dispatch.join(table, Hello(PROTOCOL_VERSION, f"P{i}"))
        tokens.append(table.token_of(seat))
    return table, tokens


def test_two_tables_are_never_equal() -> None:
    """Tables are compared by identity: a registry must never mistake one for another,
    even two built alike (it was a dataclass once, and all tables compared equal)."""
    first, second = _table()[0], _table()[0]
    assert first != second and first == first
    assert len({first, second}) == 2


def test_stale_moves_change_nothing_and_current_ones_apply() -> None:
    table, _ = _table()
    match = table.match
    assert match is not None and match.hand is not None
    seat = match.turn
    assert seat is not None
    before = seat_view(match, seat).to_wire()
    for hand_number, step in ((match.hand_number - 1, 0), (match.hand_number, 1)):
        with pytest.raises(RulesError) as refused:
            dispatch.act(table, seat, BidMsg(id=1, bid=None, hand=hand_number, step=step))
        assert refused.value.code == "stale"
    assert seat_view(match, seat).to_wire() == before
    assert table.seats[seat].last_id == 0
    assert dispatch.act(table, seat, BidMsg(id=1, bid=None, hand=match.hand_number, step=0))
    assert match.hand.step == 1


def test_a_player_back_from_a_stand_in_is_waited_for_after_the_hand() -> None:
    table, tokens = _table()
    table.disconnected(0)
    assert table.substitute_absent(0)
    play_out_hand(table, bid_high=True)
    dispatch.act(table, 1, Ready(id=table.seats[1].last_id + 1))  # seat 0 is away: deal on
    assert match_of(table).phase is Phase.BIDDING
    assert table.seats[0].ready  # dealt while a bot stood in, which is always ready
    dispatch.join(table, hello_at(table, "back", token=tokens[0]))
    assert not table.seats[0].ready  # back: the player decides when to deal on
    play_out_hand(table, bid_high=True)
    if table.match.phase is Phase.MATCH_OVER:
        return  # hand 2 ended the match: the same wait applies, checked in the LAN tests
    dispatch.act(table, 1, Ready(id=table.seats[1].last_id + 1))
    assert table.match.phase is Phase.HAND_OVER  # still waiting for seat 0
    dispatch.act(table, 0, Ready(id=table.seats[0].last_id + 1))
    assert table.match.phase is Phase.BIDDING  # both ready: the next hand is dealt


@pytest.mark.parametrize(
    ("players", "partnership", "bots"), [(2, False, 1), (4, False, 3), (4, True, 3), (7, False, 6)]
)
def test_broadcast_frames_decode_to_each_seats_own_snapshot(
    players: int, partnership: bool, bots: int
) -> None:
    """The broadcast packs the shared parts once; every seat must still get exactly the
    snapshot `state_for` builds seat by seat, from the lobby through a whole match."""
    options = TableOptions(players=players, partnership=partnership, target=7, bots=bots)
    deal = lambda key: shuffled_deck(random.Random(key))  # noqa: E731
    table = Table("t1", "Test", options, deal)
    snapshots = Snapshots(table)  # one per table, as the referee keeps it
    checked = 0

    def check() -> None:
        nonlocal checked
        events = table.take_events()
        frames = snapshots.frames(events)
        assert len(frames) == players + 1  # and the spectators'
        for seat, data in enumerate(frames):
            [got] = FrameDecoder().feed(data)
            [want] = FrameDecoder().feed(
                state_for(table, seat if seat < players else None, events).encode()
            )
            assert got == want
            checked += 1

    check()  # the lobby: no view yet
    human = dispatch.join(table, Hello(PROTOCOL_VERSION, "Human"))
    table.seats[human].substitute = True  # a bot plays the human's seat as well
    while table.state != "over":
        check()
        if not table.act_for_bot():  # a hand is over: the human says ready
            dispatch.act(table, human, Ready(id=table.seats[human].last_id + 1))
    check()
    assert table.match is not None and table.match.winner is not None
    assert checked > 20 * players


def test_broadcast_table_part_follows_every_seat_change() -> None:
    """The table part of the snapshot is reused between broadcasts; a seat that leaves,
    comes back or gets a stand-in must still show in the very next one."""
    table, tokens = _table(players=2)
    snapshots = Snapshots(table)

    def table_part() -> dict[str, Any]:
        [payload, _, _] = [next(FrameDecoder().feed(f)) for f in snapshots.frames([])]
        part: dict[str, Any] = payload["table"]
        assert part == state_for(table, 0, []).table.to_wire()
        return part

    assert table_part()["seats"][1]["connected"] is True
    table.disconnected(1)
    assert table_part()["seats"][1]["connected"] is False
    assert table.substitute_absent(1)
    assert table_part()["seats"][1]["substitute"] is True
    dispatch.join(table, hello_at(table, "P1", token=tokens[1]))
    seat = table_part()["seats"][1]
    assert (seat["connected"], seat["substitute"]) == (True, False)


def test_the_table_remembers_who_pitched_each_hand_by_the_name_they_had() -> None:
    """A seat can change hands mid-match (its player leaves, a bot or a late-comer takes
    it): the match end must still name whoever was set back, not the seat's new holder
    (the second game night's chart said "hand 2 Eve" of a hand Bob had pitched)."""
    table, _ = _table()
    play_out_hand(table, bid_high=True)
    result = match_of(table).last_result
    assert result is not None
    pitcher = result.pitcher
    first = [table.seats[pitcher].name if pitcher is not None else ""]
    assert table.pitchers == first and first[0] in ("", "P0", "P1")
    table.leave(0)  # seat 0 is a bot's now, with another name
    assert table.seats[0].name != "P0"
    assert table.pitchers == first
    assert table_info(table).pitchers == first
    dispatch.act(table, 1, Ready(id=table.seats[1].last_id + 1))
    if match_of(table).phase is Phase.BIDDING:
        play_out_hand(table, bid_high=True)
        second = match_of(table).last_result
        assert second is not None and len(table.pitchers) == 2
        expected = table.seats[second.pitcher].name if second.pitcher is not None else ""
        assert table.pitchers == [*first, expected]
