"""`?`: the keys, in one place, over whatever screen is showing."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from client.model import rules_text
from client.screens.base import PitchModal

KEYS = [
    ("Bidding", ""),
    ("p", "pass"),
    ("1 2 3 4 5", "bid that many (4 = pitch; 5 with the joker); only legal bids are offered"),
    ("Playing", ""),
    ("← →", "move along your hand"),
    ("1-6", "pick that card; press it again (or Enter) to play it"),
    ("Enter / click", "play the card; a dimmed card says why it can't be played"),
    ("Between hands", ""),
    ("Enter", "ready for the next hand (or play again after a match)"),
    ("Anywhere", ""),
    ("Esc", "leave the table (asks first)"),
    ("?", "this help"),
    ("Ctrl+Q", "quit"),
]


def keys_table(ascii_only: bool = False) -> Table:
    """The keys as a two-column grid; with --ascii the arrows are spelt out."""
    grid = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for key, meaning in KEYS:
        if meaning:
            grid.add_row("Left Right" if ascii_only and key == "← →" else key, meaning)
        else:
            grid.add_row(Text(key, style="bold underline"), "")
    return grid


class HelpScreen(PitchModal[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,enter,q", "close", "Close"),
    ]

    def compose(self) -> ComposeResult:
        game = self.app.game
        with Vertical(classes="dialog"):
            yield Static("Keys", classes="dialog-title")
            yield Static(keys_table(game.ascii_only))
            if game.table is not None:
                yield Static("Rules", classes="dialog-title")
                yield Static(rules_text(game), id="help-rules")

    def action_close(self) -> None:
        self.dismiss()
