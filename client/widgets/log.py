"""The running log of the match: bids, plays, trick winners, hands.

Lines are `Text` objects (never markup) kept in the app's `GameState.log`; this
widget only writes the ones it has not written yet, so redraws are cheap. The log
lives in the app, not here, so it outlasts reconnects and rejoins of the same table.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import RichLog

from client.model import GameState


class HandLog(RichLog):
    DEFAULT_CSS = """
    HandLog { border: round $foreground 30%; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False, wrap=True, max_lines=500, min_width=10)
        self.can_focus = False
        self.border_title = "Log"
        self._written = 0
        self._source: list[Text] | None = None
        """The log list drawn so far: another list means another table's log."""

    def show(self, game: GameState) -> None:
        if game.log is not self._source or self._written > len(game.log):
            self.clear()
            self._written, self._source = 0, game.log
        for line in game.log[self._written :]:
            self.write(line)
        self._written = len(game.log)
