"""The pitch gesture: one key press (or tap) for two moves, the top bid and the card to
lead. The auction must end first, so the card waits here until the host's view gives
us the lead; it is decided from views alone (no I/O), so it is tested without an app."""

from __future__ import annotations

from dataclasses import dataclass

from pitchnet.rules import Phase
from pitchnet.views import SeatView


@dataclass
class PitchLead:
    """The card to lead once our pitch (the top bid: 4, or 5 with the joker) is taken."""

    card: str | None = None

    def begin(self, card: str) -> None:
        self.card = card

    def cancel(self) -> None:
        """The host refused something: whatever it was, the pending lead is off."""
        self.card = None

    def due(self, view: SeatView | None, me: int | None) -> str | None:
        """The card to play now, at most once: nothing while the auction is on; after it,
        the card if the first lead is ours and it is legal, else nothing and the gesture
        is over (the bid was refused, or another seat won the auction)."""
        card = self.card
        if card is None or view is None or view.phase == Phase.BIDDING:
            return None
        self.card = None
        ours = view.phase == Phase.PLAYING and view.turn == me and not view.tricks
        return card if ours and not view.trick and card in view.legal_plays else None
