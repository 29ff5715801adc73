"""The turn timer (`pitchnet host --turn-timer`): a person whose time runs out has one move
made for them by a bot of the table's level; the seat stays theirs. By injected time."""

from __future__ import annotations

import pytest

from host.referee import Pacing
from host.snapshots import table_info
from host.table import Table, TableOptions
from host.tables import deck_source
from pitchnet.protocol import BidMsg, SeatKind
from tests.pair import PairClient, RefereePair
from tests.table_doubles import RecordingJournal


def timed_pair(timer: float, level: str = "normal") -> tuple[RefereePair, list[PairClient]]:
    """Two people at a two-seat table with a turn timer: the match is on."""
    options = TableOptions(players=2, turn_timer=timer, bot_level=level)
    table = Table("timed", "Timed", options, deck_source(4), RecordingJournal())
    pair = RefereePair(table, pacing=Pacing(0.0, 0.0))
    clients = [pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")]
    assert table.state == "playing"
    return pair, clients


def moves(pair: RefereePair) -> int:
    match = pair.table.match
    assert match is not None and match.hand is not None
    return match.hand.step


def test_a_person_out_of_time_gets_exactly_one_move_made_and_keeps_the_seat() -> None:
    pair, clients = timed_pair(15.0)
    match = pair.table.match
    assert match is not None and match.turn is not None
    slow = match.turn
    before = moves(pair)
    pair.advance(14.9)
    assert moves(pair) == before  # not yet
    pair.advance(0.2)
    assert moves(pair) == before + 1  # one move, made at 15.0
    assert match.turn != slow  # ...for the slow seat, whose turn it was
    seat = pair.table.seats[slow]
    assert seat.kind == SeatKind.HUMAN and not seat.substitute and seat.connected
    told = [e for c in clients for e in c.last_state["events"] if e["kind"] == "timed_out"]
    assert told == [{"kind": "timed_out", "seat": slow}] * 2  # everyone hears it
    # The other person's own timer started when their turn did: one move 15 s later.
    pair.advance(14.8)
    assert moves(pair) == before + 1
    pair.advance(0.3)
    assert moves(pair) == before + 2


def test_a_move_in_time_starts_the_next_turns_timer_afresh() -> None:
    pair, clients = timed_pair(15.0)
    match = pair.table.match
    assert match is not None and match.turn is not None
    pair.advance(10.0)
    seat = match.turn
    pair.send(clients[seat], BidMsg(id=1, bid=match.legal_bids(seat)[0]))
    after = moves(pair)
    pair.advance(14.9)  # 24.9 s in: the first timer would have run out at 15
    assert moves(pair) == after
    pair.advance(0.2)
    assert moves(pair) == after + 1


def test_without_a_timer_nobody_is_hurried() -> None:
    pair, _ = timed_pair(0.0)
    before = moves(pair)
    pair.advance(120.0)
    assert moves(pair) == before and pair.referee.next_deadline is not None  # pings only


@pytest.mark.parametrize("level", ["easy", "hard"])
def test_the_move_is_the_tables_level_and_legal(level: str) -> None:
    pair, clients = timed_pair(30.0, level)
    match = pair.table.match
    assert match is not None and match.hand is not None
    before = moves(pair)
    pair.advance(30.01)  # the hard bot thinks off the loop (Think), as for its own turn
    assert moves(pair) == before + 1
    assert not [e for c in clients for e in c.errors()]
    assert table_info(pair.table).turn_timer == 30.0


def test_an_away_person_is_not_timed_until_they_are_back() -> None:
    """The grace period is an away player's; the timer starts when they come back (after
    a `--resume` every player is away until they reconnect)."""
    pair, clients = timed_pair(15.0)
    match = pair.table.match
    assert match is not None and match.turn is not None
    slow = match.turn
    token = clients[slow].of_type("welcome")[0]["token"]
    pair.lose(clients[slow])
    before = moves(pair)
    pair.advance(40.0)  # within the 60 s grace: nobody moves for them
    assert moves(pair) == before
    pair.join("Back", f"10.0.0.{slow + 1}:9", token=token)
    pair.advance(14.9)
    assert moves(pair) == before
    pair.advance(0.2)
    assert moves(pair) == before + 1


async def test_the_player_whose_time_ran_out_is_told_on_screen() -> None:
    import dataclasses

    from client.app import ClientOptions
    from client.demo import scene_with_events
    from pitchnet.events import TimedOut
    from tests.pilot import at_the_table
    from tests.pilot_app import PilotApp

    table, view, events = scene_with_events("bidding", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        assert view is not None
        app.apply_state(2, dataclasses.replace(table), view, [TimedOut(0)])
        await pilot.pause()
        notices = [str(n.message) for n in app._notifications]
        assert "Your time ran out: a bot made this one move for you." in notices
        app.apply_state(3, table, view, [TimedOut(1)])  # someone else's: the log says it
        await pilot.pause()
        assert len([n for n in app._notifications if "time ran out" in str(n.message)]) == 1
