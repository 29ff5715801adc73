"""A one-line screen while the handshake is under way, so the first frame the player
sees is drawn at once rather than after the network answers."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from client.screens.base import PitchScreen
from client.text import plain, styled
from client.widgets.footer import PitchFooter
from pitchnet.i18n import N_, _


class ConnectingScreen(PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", N_("Back"))]

    def compose(self) -> ComposeResult:
        yield Static("", id="connecting", classes="panel", markup=False)
        yield PitchFooter()

    def on_mount(self) -> None:
        self.show_target()
        self.call_after_refresh(self.app.dial)

    def on_screen_resume(self) -> None:
        self.show_target()
        self.call_after_refresh(self.app.dial)

    def show_target(self) -> None:
        """Name the table we are dialling (the screen is reused for every join)."""
        target = plain(self.app.connecting_to)
        text = Text("pitchnet", style="bold").append("\n\n")
        text.append_text(styled(_("Connecting to {table}..."), table=target))
        for label in self.query("#connecting").results(Static):
            label.update(text)

    def action_back(self) -> None:
        self.app.leave_table()
