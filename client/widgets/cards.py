"""One card face in the player's hand, sized to the terminal, with its number key.

On the player's turn a card that may be played has a solid frame and bright face; one
that may not has a dashed frame (a blank one with --ascii), a dimmed face and a
cross, so the difference never rests on colour alone. A dimmed card still answers a
click, so the table screen can say why it is refused instead of ignoring the player.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from client.text import card_text


def face_text(card: str, ascii_only: bool, *, dim: bool, large: bool, huge: bool = False) -> Text:
    """The inside of the frame: "A♥" in one line, or rank, big suit and rank when large
    (and on a huge card, 11 cells by 7, the suit in the middle of a taller face)."""
    face = card_text(card, ascii_only, dim=dim)
    if huge:
        return _huge_face(face, ascii_only, dim=dim)
    if not large:
        if dim:
            face.append("x" if ascii_only else "✗", style="dim")
        return face
    rank, suit = face.plain[:-1], face.plain[-1:]  # "10♦": a ten's rank is two cells
    if face.plain in ("JK", "J★"):
        rank, suit = face.plain[0], face.plain[1:]
    style = face.style
    text = Text(f"{rank:<7}\n", style=style)
    text.append(f"   {suit}   \n", style=style)
    mark = ("  ✗" if not ascii_only else "  x") if dim else ""
    text.append(mark.ljust(7 - len(rank)), style="dim")  # the rank ends at the right edge
    text.append(rank, style=style)
    if dim:
        text.stylize("dim")
    return text


def _huge_face(face: Text, ascii_only: bool, *, dim: bool) -> Text:
    rank, suit = face.plain[:-1], face.plain[-1:]
    style = face.style
    width = 11
    rows = [rank.ljust(width), "", "", suit.center(width), "", "", rank.rjust(width)]
    if dim:
        rows[4] = ("x" if ascii_only else "✗").center(width)
    text = Text("\n".join(row.ljust(width) for row in rows), style=style)
    if dim:
        text.stylize("dim")
    return text


class CardFace(Static):
    """A card in the player's hand; `slot` is its position (0-based)."""

    ALLOW_SELECT = False
    """A double click (two taps: pick, then play) must not select the card's text."""

    DEFAULT_CSS = """
    CardFace {
        width: 8;
        height: 3;
        border: round $foreground 50%;
        border-title-align: left;
        border-title-color: $foreground 70%;
        content-align: center middle;
        margin-right: 1;
    }
    CardFace.-narrow { width: 6; margin-right: 0; }
    CardFace.-narrow.-ten { width: 7; }
    CardFace.-large { width: 10; height: 5; content-align: left top; padding: 0 0 0 1; }
    CardFace.-huge { width: 14; height: 9; content-align: left top; padding: 0 0 0 1; }
    CardFace.-playable { border: round $foreground 90%; border-title-color: $foreground; }
    CardFace.-refused { border: dashed $foreground 30%; border-title-color: $foreground 40%; }
    CardFace.-cursor { border: heavy $accent; border-title-color: $accent; }
    CardFace.-refused.-cursor { border: dashed $accent; }
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
        self,
        card: str | None,
        *,
        playable: bool,
        refused: bool,
        cursor: bool,
        ascii_only: bool,
        large: bool = False,
        narrow: bool = False,
        huge: bool = False,
    ) -> None:
        """Draw `card` (None hides the slot): `playable` and `refused` only on our turn."""
        self.card = card
        self.set_class(card is None, "-empty")
        self.set_class(playable, "-playable")
        self.set_class(refused, "-refused")
        self.set_class(large and not huge, "-large")
        self.set_class(huge, "-huge")
        self.set_class(narrow and not large, "-narrow")
        self.set_class(cursor and card is not None, "-cursor")
        # "1 10♣" is a cell wider than "1 9♣": a slim ten gets the cell, not a wrapped face.
        self.set_class(card is not None and card[:1] == "T", "-ten")
        # A slim card has its number inside (below); on its frame it showed again over a
        # ten, whose card is a cell wider and so has room for it: a stray "5" over "5 10♠".
        self.border_title = "" if narrow and not large else str(self.slot + 1)
        if card is not None:
            face = face_text(card, ascii_only, dim=refused, large=large, huge=huge)
            if narrow and not large:  # no room for the frame's number: it goes inside
                face = face_text(card, ascii_only, dim=False, large=False)
                face.stylize("dim" if refused else "")
                mark = ("x" if ascii_only else "✗") if refused else str(self.slot + 1)
                face = Text(mark + " ", style="dim" if refused else "bold").append_text(face)
            self.update(face)

    def on_click(self, event: Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(self.Clicked(self.slot))
