"""The player's own hand: up to six card faces and a cursor.

The hand only draws and reports; the table screen owns the keys and decides what
a choice means (play it, or explain why not), so there is one place for that rule.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message

from client.widgets.cards import CardFace
from pitchnet.rules import HAND_SIZE


class HandView(Horizontal):
    DEFAULT_CSS = """
    HandView { height: 3; width: 1fr; }
    HandView.-large { height: 5; }
    HandView.-huge { height: 9; }
    """

    class Chosen(Message):
        """A card was clicked (or picked with the keyboard by the screen)."""

        def __init__(self, card: str) -> None:
            super().__init__()
            self.card = card

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.cards: list[str] = []
        self.playable: set[str] = set()
        self.cursor = 0
        self.ascii_only = False
        self.my_turn = False
        """Only on our turn are cards marked as playable or refused."""
        self.large = False
        self.narrow = False
        self.huge = False

    def compose(self) -> ComposeResult:
        for slot in range(HAND_SIZE):
            yield CardFace(slot)

    def show(
        self, cards: list[str], playable: set[str], *, ascii_only: bool, my_turn: bool = True
    ) -> None:
        """Draw this hand. The cursor stays on the same card while that card can be
        played (or while nothing can); otherwise it moves to the first playable card."""
        current = self.current
        self.cards, self.playable, self.ascii_only = list(cards)[:HAND_SIZE], playable, ascii_only
        self.my_turn = my_turn
        if current in self.cards and (current in playable or not playable):
            self.cursor = self.cards.index(current)
        else:
            first = next((i for i, c in enumerate(self.cards) if c in playable), 0)
            self.cursor = first
        self._redraw()

    def set_size(self, *, large: bool, narrow: bool, huge: bool = False) -> None:
        """Big cards on a big terminal (bigger still on a huge one, 200x60), slim ones on
        a narrow one (a phone's browser)."""
        if (large, narrow, huge) != (self.large, self.narrow, self.huge):
            self.large, self.narrow, self.huge = large, narrow, huge
            self.set_class(large and not huge, "-large")
            self.set_class(huge, "-huge")
            self._redraw()

    @property
    def current(self) -> str | None:
        return self.cards[self.cursor] if 0 <= self.cursor < len(self.cards) else None

    def move(self, step: int) -> None:
        if self.cards:
            self.cursor = (self.cursor + step) % len(self.cards)
            self._redraw()

    def select(self, slot: int) -> str | None:
        """Put the cursor on card `slot` (0-based); returns that card, if any."""
        if 0 <= slot < len(self.cards):
            self.cursor = slot
            self._redraw()
            return self.cards[slot]
        return None

    def _redraw(self) -> None:
        for face in self.query(CardFace):
            card = self.cards[face.slot] if face.slot < len(self.cards) else None
            face.show_card(
                card,
                playable=self.my_turn and card in self.playable,
                refused=self.my_turn and card not in self.playable,
                cursor=face.slot == self.cursor,
                ascii_only=self.ascii_only,
                large=self.large,
                narrow=self.narrow,
                huge=self.huge,
            )

    def on_card_face_clicked(self, event: CardFace.Clicked) -> None:
        event.stop()
        card = self.select(event.slot)
        if card is not None:
            self.post_message(self.Chosen(card))
