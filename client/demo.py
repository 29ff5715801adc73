"""Realistic table states built with the engine, without a host.

Snapshot tests (and anyone trying a layout) need the screens filled with real data
that never changes: a seeded deck dealt by `pitchnet.rules.Match`, advanced by a
seeded random player, and cut into the seat's view by `pitchnet.views.seat_view`,
exactly what a host would send.
"""

from __future__ import annotations

import random
from typing import Any

from pitchnet.cards import shuffled_deck
from pitchnet.events import Bid, Dealt, Event, HandScored, MatchWon, Played, TrickWon
from pitchnet.protocol import SeatInfo, SeatKind, TableInfo, TableState
from pitchnet.rules import Match, Phase, Settings
from pitchnet.views import SeatView, seat_view

NAMES = ("Ann", "Bot 1", "Bot 2", "Bot 3", "Bot 4", "Bot 5", "Bot 6")
SCENES = ("lobby", "bidding", "first_bid", "playing", "trick_won", "hand_over", "match_over")


def table_info(
    state: TableState, names: list[str], kinds: list[SeatKind], **extra: Any
) -> TableInfo:
    seats = [
        SeatInfo(
            name=name if kind != SeatKind.EMPTY else "",
            kind=kind,
            connected=kind != SeatKind.EMPTY,
        )
        for name, kind in zip(names, kinds, strict=True)
    ]
    return TableInfo(
        id="demo0table",
        name=extra.pop("name", "Kitchen Table"),
        state=state,
        players=len(names),
        partnership=extra.pop("partnership", False),
        target=7,
        seats=seats,
        starter=0,
        bot_level=extra.pop("bot_level", "normal"),
        **extra,
    )


class Scene:
    """A seeded match that can be stepped to a chosen moment, seen from `seat`."""

    def __init__(
        self, seed: int = 7, players: int = 4, seat: int = 0, partnership: bool = False
    ) -> None:
        self.rng = random.Random(seed)
        self.deck_rng = random.Random(seed + 1000)
        self.partnership = partnership
        self.match = Match(Settings(players=players, partnership=partnership))
        self.seat = seat
        self.names = list(NAMES[:players])
        self.events: list[Event] = []
        """What a host would have sent along, in its event format (for the log)."""

    def deal(self) -> None:
        self.events.clear()  # the log of a scene starts with its last deal
        hand = self.match.deal(shuffled_deck(self.deck_rng))
        self.events.append(Dealt(self.match.hand_number, hand.dealer))

    def step(self) -> None:
        """One bid or one play by whoever's turn it is (a seeded random choice)."""
        match = self.match
        turn = match.turn
        assert turn is not None
        if match.phase is Phase.BIDDING:
            amount = self.rng.choice(match.legal_bids(turn))
            match.bid(turn, amount)
            self.events.append(Bid(turn, amount))
            return
        card = self.rng.choice(sorted(match.legal_plays(turn)))
        trick = match.play(turn, card)
        self.events.append(Played(turn, str(card)))
        if trick is not None:
            plays = [(seat, str(c)) for seat, c in trick.plays]
            self.events.append(TrickWon(trick.winner, plays))
        if match.phase is not Phase.PLAYING and match.last_result is not None:
            self.events.append(HandScored.of(match.last_result))
        if match.winner is not None:
            self.events.append(MatchWon(match.winner))

    def until(self, done: Any, limit: int = 2000) -> None:
        for _ in range(limit):
            if done(self.match):
                return
            if self.match.phase in (Phase.HAND_OVER,) and self.match.winner is None:
                self.deal()
            else:
                self.step()
        raise RuntimeError("the scene never reached the wanted moment")

    def view(self) -> SeatView:
        return seat_view(self.match, self.seat)

    def table(self, state: TableState = TableState.PLAYING) -> TableInfo:
        kinds = [SeatKind.HUMAN] + [SeatKind.BOT] * (len(self.names) - 1)
        return table_info(state, self.names, kinds, partnership=self.partnership)


def scene(name: str, seed: int = 7, players: int = 4) -> tuple[TableInfo, SeatView | None]:
    """The table and seat 0's view at a named moment of a seeded match."""
    table, view, _ = scene_with_events(name, seed, players)
    return table, view


def scene_with_events(
    name: str, seed: int = 7, players: int = 4, partnership: bool = False
) -> tuple[TableInfo, SeatView | None, list[Event]]:
    """As `scene`, with the events of the hand so far (what the log would show)."""
    s = Scene(seed, players, partnership=partnership)
    if name == "lobby":
        kinds = [SeatKind.HUMAN, SeatKind.HUMAN] + [SeatKind.EMPTY] * (players - 2)
        return table_info(TableState.LOBBY, [*s.names[:1], "Cat", *s.names[2:]], kinds), None, []
    s.deal()
    me = s.seat
    if name == "bidding":
        s.until(lambda m: m.phase is Phase.BIDDING and m.turn == me)
    elif name == "first_bid":  # every bid still open, and the pitch
        s.until(lambda m: m.phase is Phase.BIDDING and m.turn == me and not m.hand.bids)
    elif name == "playing":
        s.until(lambda m: m.phase is Phase.PLAYING and m.turn == me and bool(m.hand.trick))
    elif name == "trick_won":
        s.until(lambda m: m.phase is Phase.PLAYING and not m.hand.trick and len(m.hand.tricks) > 0)
    elif name == "hand_over":
        s.until(lambda m: m.phase is Phase.HAND_OVER and m.hand_number >= 1)
    elif name == "match_over":
        s.until(lambda m: m.phase is Phase.MATCH_OVER)
        return s.table(TableState.OVER), s.view(), s.events
    else:
        raise ValueError(f"no scene {name!r}; try one of {', '.join(SCENES)}")
    return s.table(), s.view(), s.events
