"""One card face: a small bordered box with the card and its number key.

A card that may not be played is drawn dimmed but still answers a click, so the
table screen can say why it is refused instead of ignoring the player.
"""

from __future__ import annotations

from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from client.text import card_text


class CardFace(Static):
    """A card in the player's hand; `slot` is its position (0-based)."""

    ALLOW_SELECT = False
    """A double click (two taps: pick, then play) must not select the card's text."""

    DEFAULT_CSS = """
    CardFace {
        width: 7;
        height: 3;
        border: round $foreground 40%;
        border-title-align: left;
        border-title-color: $foreground 60%;
        content-align: center middle;
        margin-right: 1;
    }
    CardFace.-cursor { border: heavy $accent; border-title-color: $accent; }
    CardFace.-playable { border: round $foreground 80%; }
    CardFace.-playable.-cursor { border: heavy $accent; }
    CardFace.-empty { display: none; }
    """

    class Clicked(Message):
        def __init__(self, slot: int) -> None:
            super().__init__()
            self.slot = slot

    def __init__(self, slot: int) -> None:
        super().__init__("", markup=False, classes="-empty")
        self.slot = slot
        self.card: str | None = None
        self.border_title = str(slot + 1)

    def show_card(
        self, card: str | None, *, playable: bool, cursor: bool, ascii_only: bool
    ) -> None:
        """Draw `card` (None hides the slot), dimmed unless `playable`."""
        self.card = card
        self.set_class(card is None, "-empty")
        self.set_class(playable, "-playable")
        self.set_class(cursor and card is not None, "-cursor")
        if card is not None:
            self.update(card_text(card, ascii_only, dim=not playable))

    def on_click(self, event: Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(self.Clicked(self.slot))
