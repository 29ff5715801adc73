"""Taking one's own seat back from another device (PROTOCOL.md section 9): the watcher's
offer to ask for it, and the question another player answers for them.

Both are yes/no dialogs with buttons, so a tap does what a key does (a phone has no
keyboard open).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Button, Static

from client.screens.prompts import YesNo, narrow_buttons
from client.text import plain, styled
from pitchnet.i18n import N_, _, ngettext
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
        Binding("y,r", "answer(True)", N_("Ask for it")),
        Binding("n,escape", "answer(False)", N_("Watch")),
    ]

    def __init__(self, seat_name: str) -> None:
        super().__init__()
        self.seat_name = seat_name

    def compose(self) -> ComposeResult:
        name = plain(self.seat_name, style="bold", limit=MAX_NAME)
        with Vertical(classes="dialog"):
            yield Static(
                styled(
                    _(
                        "{name}'s seat is kept for its player, who lost the connection. Is it "
                        "yours, from a device that died? Ask for it back: another player at "
                        "the table confirms it is you. Until then you watch."
                    ),
                    name=name,
                ),
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Ask for it (y)"), id="yes", variant="primary", compact=True)
                yield Button(_("Just watch (n)"), id="no", compact=True)

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {"yes": _("Ask (y)"), "no": _("Watch (n)")})


class VouchPrompt(YesNo):
    """To the player asked: is the watcher asking for this seat its player? Escape says
    no (and silence refuses too): a seat is never given without a yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", N_("Yes")),
        Binding("n,escape", "answer(False)", N_("No")),
    ]

    def __init__(self, asked: ReclaimAsked) -> None:
        super().__init__()
        self.asked = asked

    def compose(self) -> ComposeResult:
        asked = self.asked
        name = plain(asked.name, style="bold", limit=MAX_NAME)
        with Vertical(classes="dialog"):
            yield Static(
                styled(
                    ngettext(
                        "Someone watching as {asker} asks for {name}'s seat ({n} point) from a "
                        "new device. Is it {name}? Say yes only if you know it is: anyone can "
                        "type a name. No answer in {seconds} s says no.",
                        "Someone watching as {asker} asks for {name}'s seat ({n} points) from a "
                        "new device. Is it {name}? Say yes only if you know it is: anyone can "
                        "type a name. No answer in {seconds} s says no.",
                        asked.points,
                        asker="{asker}",
                        name="{name}",
                        seconds=round(asked.wait),
                    ),
                    asker=plain(asked.asker, style="bold", limit=MAX_NAME),
                    name=name,
                ),
                markup=False,
            )
            with Horizontal(classes="buttons"):
                yield Button(_("Yes, it is (y)"), id="yes", variant="primary", compact=True)
                yield Button(_("No (n)"), id="no", compact=True)

    def on_resize(self, event: Resize) -> None:
        narrow_buttons(self, event.size.width, {"yes": _("Yes (y)")})
