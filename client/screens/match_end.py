"""The end of a match: the winner, the final scores, and "play again" (which says
`ready`; the host starts a new match once every player at the table is ready)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType

from client.model import GameState
from client.screens.summary import HandSummary, points_table, scores_table
from client.text import plain


def match_body(game: GameState) -> RenderableType:
    view = game.view
    if view is None:
        return Text("The match is over.")
    winner = view.winner
    if winner is not None and view.side_of(game.seat or 0) == winner and game.seat is not None:
        title = Text("You won the match!", style="bold green")
    else:
        title = plain(game.side_name(winner), style="bold").append(" won the match!", style="bold")
    parts: list[RenderableType] = [title, Text(f"First to {view.target} points."), Text("")]
    result = view.last_result if isinstance(view.last_result, dict) else None
    if result is not None:
        parts += [Text("Last hand", style="bold"), points_table(game, result), Text("")]
        before = [v for v in result.get("scores_before", []) if type(v) is int]
        parts.append(scores_table(game, before, list(view.scores)))
    return Group(*parts)


class MatchEnd(HandSummary):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", "Play again"),
        Binding("escape", "leave", "Leave"),
        Binding("question_mark", "app.help", "Keys"),
    ]
    NEXT_LABEL = "Play again (Enter)"

    def body(self, game: GameState) -> RenderableType:
        return match_body(game)

    def action_leave(self) -> None:
        self.app.leave_table()
