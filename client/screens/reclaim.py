"""Taking one's own seat back from another device (PROTOCOL.md section 9): the watcher's
offer to ask for it, and the question another player answers for them.

Both are yes/no dialogs with buttons, so a tap does what a key does (a phone has no
keyboard open).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Button, Static

from client.screens.prompts import YesNo, narrow_buttons
from client.text import counted, plain
from pitchnet.i18n import _
from pitchnet.protocol import MAX_NAME, ReclaimAsked, SeatKind, TableInfo


def own_away_seat(table: TableInfo | None, name: str) -> int | None:
    """The seat of an away player who has our name (case aside): likely our own, left on
    a device that died. Only a hint: the host asks another person to vouch."""
    if table is None or table.state == "lobby" or not name.strip():
        return None
    wanted = name.strip().casefold()
    for index, seat in enumerate(table.seats):
        if seat.kind == SeatKind.HUMAN and not seat.connected and seat.name.casefold() == wanted:
            return index
    return None


class ReclaimOffer(YesNo):
    """To a watcher whose name an away seat carries: is it theirs? Then ask for it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,r", "answer(True)", _("Ask for it")),
        Binding("n,escape", "answer(False)", _("Watch")),
    ]

    def __init__(self, seat_name: str) -> None:
        super().__init__()
        self.seat_name = seat_name

    def compose(self) -> ComposeResult:
        name = plain(self.seat_name, style="bold", limit=MAX_NAME)
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    name,
                    "'s seat is kept for its player, who lost the connection. Is it yours, "
                    "from a device that died? Ask for it back: another player at the table "
                    "confirms it is you. Until then you watch.",
                ),
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button("Ask for it (y)", id="yes", variant="primary", compact=True)
                yield Button("Just watch (n)", id="no", compact=True)

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {"yes": "Ask (y)", "no": "Watch (n)"})


class VouchPrompt(YesNo):
    """To the player asked: is the watcher asking for this seat its player? Escape says
    no (and silence refuses too): a seat is never given without a yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", _("Yes")),
        Binding("n,escape", "answer(False)", _("No")),
    ]

    def __init__(self, asked: ReclaimAsked) -> None:
        super().__init__()
        self.asked = asked

    def compose(self) -> ComposeResult:
        asked = self.asked
        name = plain(asked.name, style="bold", limit=MAX_NAME)
        with Vertical(classes="dialog"):
            yield Static(
                Text.assemble(
                    "Someone watching as ",
                    plain(asked.asker, style="bold", limit=MAX_NAME),
                    " asks for ",
                    name,
                    f"'s seat ({counted(asked.points, 'point')}) from a new device. Is it ",
                    name.copy(),
                    "? Say yes only if you know it is: anyone can type a name. ",
                    f"No answer in {asked.wait:.0f} s says no.",
                ),
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button("Yes, it is (y)", id="yes", variant="primary", compact=True)
                yield Button("No (n)", id="no", compact=True)

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {"yes": "Yes (y)"})
