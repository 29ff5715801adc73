"""Live play and replay go through one `Table.apply`: after every change a table makes
live, replaying its journal up to that change's last entry rebuilds exactly the same
table (seats, tokens, action ids, the match as every seat sees it, the events its
entries made), for every kind of journal entry. Only presence (who is connected, who is
stood in for) is not journaled, and is left out of the comparison."""

from __future__ import annotations

import random
from typing import Any

from host.entries import ENTRIES, Entry
from host.table import Table, TableOptions
from host.tables import deck_source
from pitchnet.events import Disconnected, Event, Joined, Reconnected, StoodIn, TimedOut
from pitchnet.rules import Phase
from pitchnet.views import seat_view
from tests.table_doubles import RecordingJournal, match_of

PRESENCE_EVENTS = (Disconnected, Reconnected, StoodIn, TimedOut)
"""Events about who is here, which no entry records (a bot filling a seat at `start` is
announced by the command too: `Joined` of a bot)."""


def facts(table: Table) -> dict[str, Any]:
    """What a replay must rebuild: everything but presence."""
    return {
        "seats": [
            (s.name, s.kind, s.token, s.ready, s.rotate, s.last_id, s.claim_name, s.claim_token)
            for s in table.seats
        ],
        "state": (table.state, table.matches_started, table.creator_token, tuple(table.pitchers)),
        "void": tuple(table.void_tokens),
        "views": [seat_view(table.match, s) for s in range(4)] if table.match else None,
    }


def entry_events(events: list[Event]) -> list[Event]:
    def from_an_entry(event: Event) -> bool:
        bot_joined = isinstance(event, Joined) and event.name.startswith("Bot ")
        return not isinstance(event, PRESENCE_EVENTS) and not bot_joined

    return [event for event in events if from_an_entry(event)]


class Live:
    """A partnership table played live at the table's commands, remembering its facts
    and events after every change, keyed by how many entries were journaled by then."""

    def __init__(self, seed: int) -> None:
        self.journal = RecordingJournal()
        options = TableOptions(players=4, partnership=True, target=7, bots=1)
        self.table = Table("t", "Live", options, deck_source(seed), self.journal)
        self.rng = random.Random(seed)
        self.events: list[Event] = []
        self.after: dict[int, tuple[dict[str, Any], list[Event]]] = {}
        self.note()

    def note(self) -> None:
        self.events += entry_events(self.table.take_events())
        self.after[len(self.journal.written)] = (facts(self.table), list(self.events))

    def next_id(self, seat: int) -> int:
        return self.table.seats[seat].last_id + 1

    def step(self) -> None:
        """One move of whoever is due: a person's (a random legal one), a bot's, or the
        people's `ready` between hands (asking for partners rotated at a match's end)."""
        table = self.table
        match = match_of(table)
        if match.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
            for seat in table.waiting_for():
                table.ready(seat, self.next_id(seat), rotate=True)
                self.note()
            return
        if table.act_for_bot():
            self.note()
            return
        turn = match.turn
        assert turn is not None
        bids = match.legal_bids(turn)
        if bids:
            table.bid(turn, self.rng.choice(bids), self.next_id(turn))
        else:
            card = self.rng.choice(sorted(match.legal_plays(turn)))
            table.play(turn, str(card), self.next_id(turn))
        self.note()


def played(seed: int) -> Live:
    """Every kind of entry: a bot at creation, people sitting, a start, a newcomer's
    claim dropped and another's kept, a seat taken back on a new device, a leave, bids,
    cards, `ready`, partners rotated, and a lobby move at a second table's start."""
    live = Live(seed)
    table = live.table
    for name in ("Ann", "Bob"):
        table.sit_down(name)
        live.note()
    table.start(table.starter or 0, 1)  # a bot fills the last seat; the match starts
    live.note()
    dee = table.sit_down("Dee")  # mid-hand: claims the other bot's seat...
    live.note()
    table.disconnected(dee)  # ...and goes before the next deal
    live.note()
    eve = table.sit_down("Eve")  # sits at the next deal
    live.note()
    bob = next(i for i, s in enumerate(table.seats) if s.name == "Bob")
    table.disconnected(bob)
    live.note()
    table.reclaim(bob)  # another device takes Bob's seat back
    live.note()
    rotated = 0
    while table.matches_started < 3:
        live.step()
        rotated += table.take_rotation() is not None
        if table.seats[eve].name == "Eve" and match_of(table).hand_number == 3:
            table.leave(eve)  # a bot takes Eve's seat, with its score
            live.note()
    assert rotated, "the people asked for partners rotated: the seats must have moved"
    return live


def test_replaying_the_journal_rebuilds_every_change_exactly() -> None:
    live = played(seed=11)
    written: list[Entry] = live.journal.written
    assert {type(entry).OP for entry in written} >= set(ENTRIES) - {"move"}
    replayed = Table("t", "Replayed", live.table.options, deck_source(None), seat_bots=False)
    checked = 0
    for count, _ in enumerate(replayed.replaying(written), start=1):
        if count in live.after:
            want_facts, want_events = live.after[count]
            assert facts(replayed) == want_facts, f"after entry {count}: {written[count - 1]}"
            assert entry_events(replayed.events) == want_events, f"after entry {count}"
            checked += 1
    assert checked > 100


def test_a_lobby_move_replays_to_the_same_seats() -> None:
    """`sit` journals the move (`SeatMoved`); its action id is not in the entry, so a
    replayed seat keeps its last id from before (a resent `sit` after a resume is
    refused as the seat being taken, never applied twice)."""
    journal = RecordingJournal()
    options = TableOptions(players=4, partnership=True)
    table = Table("t", "Live", options, deck_source(3), journal)
    ann = table.sit_down("Ann")
    assert table.change_seat(ann, 2, 1)
    assert not table.change_seat(2, 3, 1)  # the same id again: a duplicate, nothing journaled
    replayed = Table("t", "Replayed", options, deck_source(None), seat_bots=False)
    replayed.replay(journal.written)
    assert [s.name for s in replayed.seats] == ["", "", "Ann", ""]
    assert [type(entry).OP for entry in journal.written] == ["join", "move"]
