"""A player who is away when a match ends must not freeze the next one: the new match's
deal starts her grace period, and a bot plays her seat when it runs out (the game night
of issue 25: Bob's link dropped on the match-end screen, everyone else said "play
again", and the table waited on his bid for six minutes)."""

from __future__ import annotations

import pytest

from host import dispatch
from host.limits import Limits
from host.referee import Pacing, Referee
from pitchnet.protocol import Ready
from pitchnet.rules import Phase
from tests.pair import RefereePair
from tests.table_doubles import play_out_hand


def _to_match_end(pair: RefereePair) -> None:
    """Play the match out on the table itself, every person ready after each hand."""
    table = pair.table
    for _ in range(200):
        match = table.match
        assert match is not None
        if match.phase is Phase.MATCH_OVER:
            return
        play_out_hand(table)
        if match.phase is Phase.HAND_OVER:
            for seat, info in enumerate(table.seats):
                if not info.played_by_bot:
                    dispatch.act(table, seat, Ready(id=info.last_id + 1))
    raise AssertionError("the match never ended")


def test_a_seat_away_at_the_match_end_gets_its_grace_in_the_next_match() -> None:
    pair = RefereePair(players=3, bots=1, grace=30.0)
    ann, bob = pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")
    assert pair.table.state == "playing"
    _to_match_end(pair)
    pair.lose(bob, "reset")  # on the match-end screen
    pair.advance(5.0)
    names = [s.name for s in pair.table.seats]
    ann_seat, bob_seat = names.index("Ann"), names.index("Bob")
    pair.send(ann, Ready(id=pair.table.seats[ann_seat].last_id + 1))  # "play again"
    match = pair.table.match
    assert match is not None and match.phase is Phase.BIDDING and match.hand_number == 1
    assert not pair.table.seats[bob_seat].played_by_bot  # his grace period runs first
    pair.advance(31.0)
    assert pair.table.seats[bob_seat].substitute  # a bot plays for him now
    assert ann.closed is None


@pytest.mark.parametrize("went_on_purpose", [True, False])
def test_a_resumed_table_has_a_bot_play_at_once_only_the_seat_that_went_on_purpose(
    went_on_purpose: bool,
) -> None:
    """ "Keep it running": the window's player goes on purpose, so the background host
    (`--resume ID --stand-in SEAT`) has a bot play her seat at once; anyone else away
    keeps the grace period, as after any resume."""
    pair = RefereePair(players=2, grace=60.0)
    pair.join("Ann", "10.0.0.1:1")
    pair.join("Bob", "10.0.0.2:1")
    table = pair.table
    for seat in range(2):  # the host goes: nobody is connected when it resumes
        table.seats[seat].connected = False
        table.seats[seat].away_since = pair.now
    ann = [s.name for s in table.seats].index("Ann")
    referee = Referee(table, Limits(), Pacing(0.0, 0.0), pair.journal)
    referee.start(pair.now + 1.0, stand_in={ann} if went_on_purpose else ())
    assert table.seats[ann].substitute is went_on_purpose
    assert not table.seats[1 - ann].substitute  # Bob keeps his grace period
    assert (ann in referee.grace_until) is not went_on_purpose and 1 - ann in referee.grace_until
