"""The lobby: who sits where, who is a bot, and Start for the first player.

The match also starts by itself when every seat is taken, so everyone else only
waits here; the screen says whom they are waiting for.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Footer, Static

from client.model import GameState
from client.screens.base import PitchScreen
from client.text import plain
from client.widgets.seats import lobby_table
from pitchnet.house_rules import label


def lobby_title(game: GameState) -> Text:
    title = plain(game.table_name or "A table", style="bold")
    table = game.table
    if table is not None:
        teams = ", partners" if table.partnership else ""
        title.append(f"  {table.players} players, to {table.target} points{teams}", style="dim")
        if table.password:
            title.append("  (password)", style="dim")
        rules = table.house_rules
        if table.rules:  # a host from before house rules sends none
            name = label(rules, table.target).rsplit(",", 1)[0] if rules else "house rules"
            title.append(f"  rules: {name} (? lists them)", style="dim")
    return title


def lobby_hint(game: GameState) -> Text:
    table = game.table
    if table is None:
        return Text("")
    free = sum(seat.kind == "empty" for seat in table.seats)
    if game.is_starter:
        return Text(
            f"{free} seat(s) open. Press s to start now with bots in the empty seats, "
            "or wait for friends: the match starts when every seat is taken."
        )
    starter = Text("the first player") if table.starter is None else plain(game.who(table.starter))
    return (
        Text(f"{free} seat(s) open. The match starts when every seat is taken, or when ")
        .append_text(starter)
        .append(" starts it.")
    )


class LobbyScreen(PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", "Start with bots"),
        Binding("escape", "leave", "Leave"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby", classes="panel"):
            yield Static("", id="lobby-title", markup=False)
            yield Static("", id="lobby-seats", markup=False)
            yield Static("", id="lobby-hint", markup=False)
            with Horizontal(id="lobby-buttons"):
                yield Button("Start with bots", id="start", variant="primary", compact=True)
                yield Button("Leave", id="leave", compact=True)
        yield Footer()

    _shown = False
    """Set once composed: show() before that has nothing to draw on."""

    def on_mount(self) -> None:
        # Nested containers finish mounting after the screen's Mount: draw after a refresh.
        self.call_after_refresh(self._first_show)

    def _first_show(self) -> None:
        self._shown = True
        self.show(self.app.game)

    def show(self, game: GameState) -> None:
        if not self._shown:
            return
        self.query_one("#lobby-title", Static).update(lobby_title(game))
        self.query_one("#lobby-seats", Static).update(lobby_table(game))
        self.query_one("#lobby-hint", Static).update(lobby_hint(game))
        self.query_one("#start", Button).display = game.is_starter
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "start":
            return self.app.game.is_starter  # hidden otherwise
        return True

    def action_start(self) -> None:
        self.app.send_start()

    def action_leave(self) -> None:
        self.app.confirm_leave()

    @on(Button.Pressed, "#start")
    def _start_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_start()

    @on(Button.Pressed, "#leave")
    def _leave_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_leave()
