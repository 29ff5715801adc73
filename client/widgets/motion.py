"""Cards that move on the felt: a played card travels from its seat to the middle, a won
trick sweeps to its winner when the next card is led, and a new hand's cards fly out
from the dealer, face down.

Motion only ever draws the state the client already has: the new state is applied at
once (the hand, the bid bar and the keys answer straight away) and the felt shows the
way there for a few hundred milliseconds. It is off where it would hurt or cannot be
drawn: Textual's `TEXTUAL_ANIMATIONS=none` (or `basic`), the player's "Card motion"
setting, ASCII terminals, and the test suite (which sets `PITCHNET_MOTION=off`; a test
that wants motion removes it and drives `Motion`'s clock itself).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from client.model import GameState
    from client.widgets.felt import TrickShown

PLAY_SECONDS = 0.25
"""A played card's flight from its seat to the middle."""
SWEEP_SECONDS = 0.3
"""A won trick's cards gathering at the winner's seat."""
DEAL_SECONDS = 0.25
DEAL_STAGGER = 0.06
"""Each seat's cards leave the dealer this long after the previous seat's."""

Place = tuple[Literal["panel", "trick"], int]
"""Where a flight starts or ends: a seat's panel, or the spot of its card in the trick."""


def motion_allowed(animation_level: str, ascii_only: bool, wanted: bool) -> bool:
    """Whether cards may move: Textual's animation level, the setting, the terminal."""
    if os.environ.get("PITCHNET_MOTION", "").lower() == "off":
        return False
    return animation_level == "full" and wanted and not ascii_only


@dataclass(frozen=True)
class Flight:
    card: str | None
    """The card's face, or None for a card face down (dealing)."""
    source: Place
    target: Place
    begin: float
    duration: float
    winner: bool = False
    """Drawn as a trick's winning card (its colour and mark)."""

    def progress(self, now: float) -> float:
        """How far along, eased out (fast, then settling): 0 before it starts, 1 done."""
        done = min(1.0, max(0.0, (now - self.begin) / self.duration))
        return 1 - (1 - done) ** 3


@dataclass
class Motion:
    """What the felt showed last, and the flights that lead from it to what it shows now."""

    flights: list[Flight]
    plays: list[tuple[int, str]] | None = None
    trick_number: int = 0
    winner: int | None = None
    hand_number: int | None = None

    @classmethod
    def idle(cls) -> Motion:
        return cls([])

    def update(self, game: GameState, shown: TrickShown | None, now: float, moving: bool) -> None:
        """Take in a new state; where it follows the last one and `moving`, add flights."""
        view = game.view
        if view is None:
            self.flights, self.plays = [], None
            return
        known = self.plays is not None
        if moving and known:
            self._add_flights(game, shown, now)
        elif not moving:
            self.flights = []
        self.hand_number = view.hand_number
        self.plays = list(shown.plays) if shown is not None else []
        self.trick_number = shown.number if shown is not None else 0
        self.winner = shown.winner if shown is not None else None

    def _add_flights(self, game: GameState, shown: TrickShown | None, now: float) -> None:
        view = game.view
        assert view is not None and self.plays is not None
        new_hand = view.hand_number != self.hand_number
        same_trick = shown is not None and shown.number == self.trick_number and not new_hand
        if not same_trick and self.plays and self.winner is not None:
            for seat, card in self.plays:  # the last trick goes to its winner
                self.flights.append(
                    Flight(card, ("trick", seat), ("panel", self.winner), now, SWEEP_SECONDS)
                )
        if new_hand and view.players:
            for order in range(view.players):  # face down, round from the dealer's left
                seat = (view.dealer + 1 + order) % view.players
                begin = now + order * DEAL_STAGGER
                self.flights.append(
                    Flight(None, ("panel", view.dealer), ("panel", seat), begin, DEAL_SECONDS)
                )
        if shown is None:
            return
        before = set(self.plays) if same_trick else set()
        for seat, card in shown.plays:
            if (seat, card) not in before:
                self.flights.append(
                    Flight(card, ("panel", seat), ("trick", seat), now, PLAY_SECONDS)
                )

    def current(self, now: float) -> list[tuple[Flight, float]]:
        """The flights still under way at `now`, each with its progress; the rest are
        forgotten (so an idle felt holds none)."""
        self.flights = [f for f in self.flights if f.progress(now) < 1.0]
        return [(f, f.progress(now)) for f in self.flights]
