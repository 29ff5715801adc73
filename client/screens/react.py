"""The reaction picker: `r` at the table, then 1-6 (or a tap on a button on a phone).

It dismisses with the chosen reaction, or None (Escape). Only ids go to the host,
never text the player typed (pitchnet/reactions.py).
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Button, Static

from client.reactions import reaction_label
from client.screens.base import PitchModal
from pitchnet.i18n import N_, _
from pitchnet.reactions import REACTIONS, Reaction


class ReactPicker(PitchModal[Reaction | None]):
    """Six buttons, one per reaction, keys 1-6; Escape sends none."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(str(n), f"pick({n - 1})", show=False) for n in range(1, len(REACTIONS) + 1)),
        Binding("escape,r", "pick(-1)", N_("Cancel")),
    ]

    def __init__(self, ascii_only: bool = False) -> None:
        super().__init__()
        self.ascii_only = ascii_only

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(_("React (1-6, Esc: none)"), markup=False)
            for n, reaction in enumerate(REACTIONS, 1):
                label = f"{n} {reaction_label(reaction, self.ascii_only)}"
                yield Button(label, id=f"react-{reaction}", compact=True)

    def action_pick(self, index: int) -> None:
        self.dismiss(REACTIONS[index] if 0 <= index < len(REACTIONS) else None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        name = (event.button.id or "").removeprefix("react-")
        self.dismiss(Reaction(name) if name in set(REACTIONS) else None)
