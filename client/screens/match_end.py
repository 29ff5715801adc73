"""The end of a match: the winner, the final standings, a chart of every side's score
after every hand (set-backs marked), and "play again" (which says `ready`; the host
starts a new match once every player at the table is ready): with the same seats, or,
in partnership play, with partners rotated (`ready` with `rotate`; the host rotates
them if most of the players who said ready asked for it)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import Button, Static

from client.model import GameState
from client.screens.summary import HandSummary
from client.text import plain, styled
from client.widgets.chart import SIDE_COLOURS, side_marker
from pitchnet.i18n import N_, _, number


def standings(game: GameState) -> Table:
    """Every side by final score, best first; the winner marked. Beside each name is
    its number in the chart below, in its colour, so the standings are the chart's key
    too even when the legend under the chart is scrolled away (at 60x20 and 80x24); a
    place number there read as the chart's numbers, which go by seat."""
    view = game.view
    grid = Table(box=None, padding=(0, 2, 0, 0), header_style="bold")
    grid.add_column("", justify="right")
    teams = view is not None and view.partnership
    grid.add_column(_("Team") if teams else _("Player"), no_wrap=True)
    grid.add_column(_("Score"), justify="right")
    if view is None:
        return grid
    order = sorted(range(view.sides), key=lambda side: (side != view.winner, -view.scores[side]))
    for side in order:
        name = plain(game.side_name(side), style="bold" if side == view.winner else "")
        if side == view.winner:
            name.append("  " + _("winner"), style="bold green")
        colour = SIDE_COLOURS[side % len(SIDE_COLOURS)]
        marker = Text(side_marker(side), style=f"bold {colour}")
        grid.add_row(marker, name, number(view.scores[side]))
    return grid


def match_body(game: GameState) -> RenderableType:
    view = game.view
    if view is None:
        return Text(_("The match is over."))
    winner = view.winner
    if winner is not None and game.me is not None and view.side_of(game.me) == winner:
        title = Text(_("You won the match!"), style="bold green")
    else:
        title = styled(_("{name} won the match!"), "bold", name=plain(game.side_name(winner)))
    parts: list[RenderableType] = [
        title,
        Text(_("First pitcher to {target} points wins.", target=view.target)),
    ]
    ahead = [s for s in range(view.sides) if s != winner and view.scores[s] >= view.target]
    if ahead:
        names = ", ".join(game.side_name(s) for s in ahead)
        parts.append(
            Text(
                _(
                    "{names} also reached {target}, but only the pitcher can win.",
                    names=names,
                    target=view.target,
                ),
                style="dim",
            )
        )
    parts += [Text(""), standings(game)]
    if view.partnership:
        parts += [Text(""), rotation_text(game)]
    return Group(*parts)


def rotation_text(game: GameState) -> Text:
    """How the next partnership match will be seated, and who asked for what."""
    text = Text(
        _(
            "Play again with the same seats, or with partners rotated (each of you gets a "
            "new partner): partners rotate if most of you ask for it."
        )
    )
    table = game.table
    if table is not None:
        asked = [game.who(seat) for seat, info in enumerate(table.seats) if info.rotate]
        if asked:
            text.append(" " + _("Asked for partners rotated: "), style="bold")
            text.append_text(plain(", ".join(asked), limit=120))
    return text


class MatchEnd(HandSummary):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", N_("Play again")),
        Binding("r", "rotate", N_("Partners rotated")),
        Binding("escape", "leave", N_("Leave")),
        Binding("question_mark", "app.help", N_("Keys")),
    ]
    NEXT_LABEL = N_("Play again (Enter)")
    LABELS: ClassVar[dict[str, str]] = {"ready": NEXT_LABEL, "leave": N_("Leave (Esc)")}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            with VerticalScroll(id="summary-scroll"):
                yield Static("", id="summary-body")
                yield from self.chart()
            yield Static("", id="summary-waiting")
            with Horizontal(classes="buttons"):
                # Each shown only where it means something, from the first frame.
                again = Button(_(self.NEXT_LABEL), id="ready", variant="primary", compact=True)
                again.display = self._offers(self.app.game, "ready")
                yield again
                # Worded for the width from the first frame: relabelled after it, the
                # button kept the long label's width for a frame or more (a snapshot at
                # 60x20 caught "Leave (E" cut off, one run in twenty).
                rotate = Button(self._rotate_label(self.app.size.width), id="rotate", compact=True)
                rotate.display = self._offers(self.app.game, "rotate")
                yield rotate
                yield Button(_(self.LABELS["leave"]), id="leave", compact=True)

    def body(self, game: GameState) -> RenderableType:
        return match_body(game)

    def show(self, game: GameState) -> None:
        super().show(game)
        if self._shown:
            rotate = self.query_one("#rotate", Button)
            rotate.display = self._offers(game, "rotate")
            rotate.disabled = self.query_one("#ready", Button).disabled
            self.query_one("#ready", Button).display = self._offers(game, "ready")
            self._fit_buttons(self.app.size.width)

    def on_resize(self, event: Resize) -> None:
        if self._shown:
            self._fit_buttons(self.app.size.width)

    def _fit_buttons(self, width: int) -> None:
        """Three buttons in a row need 64 columns; below that the rotation's is shorter
        (the sentence above it says what it does)."""
        self.query_one("#rotate", Button).label = self._rotate_label(width)

    @staticmethod
    def _rotate_label(width: int) -> str:
        return _("Partners rotated (r)") if width >= 64 else _("Rotate (r)")

    @staticmethod
    def _partnership(game: GameState) -> bool:
        return game.view is not None and game.view.partnership

    @classmethod
    def _offers(cls, game: GameState, action: str) -> bool:
        """Whether `action` (its key and its button) means anything to this viewer: a
        watcher has no seat to play again in, and partners rotate only in partnership
        play. Leave always does."""
        if action == "ready":
            return not game.watching
        if action == "rotate":
            return cls._partnership(game) and not game.watching
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self._offers(self.app.game, action)

    def action_rotate(self) -> None:
        """Play again with partners rotated (partnership play only)."""
        if not self.sent_ready and self._offers(self.app.game, "rotate"):
            self.sent_ready = True
            self.app.send_ready(rotate=True)
            self.show(self.app.game)

    @on(Button.Pressed, "#leave")
    def _leave_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_leave()  # "#ready" is the hand summary's

    @on(Button.Pressed, "#rotate")
    def _rotate_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_rotate()

    def action_leave(self) -> None:
        self.app.leave_table()
