"""The running log of the match: bids, plays, trick winners, hands.

Lines are `Text` objects (never markup) kept in the app's `GameState.log`; this
widget only writes the ones it has not written yet, so redraws are cheap. The log
lives in the app, not here, so it outlasts reconnects and rejoins of the same table.
RichLog wraps a line once, at the width it has when written (ten columns while the log
is hidden, at 80x24), so a change of width draws every kept line again at the new one.
"""

from __future__ import annotations

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from client.model import GameState
from pitchnet.i18n import _


class HandLog(RichLog):
    DEFAULT_CSS = """
    HandLog { border: round $foreground 30%; scrollbar-size-vertical: 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, markup=False, wrap=True, max_lines=500, min_width=10)
        self.can_focus = False
        self.border_title = _("Log")
        self._written = 0
        self._source: list[Text] | None = None
        """The log list drawn so far: another list means another table's log."""
        self._drawn_width = 0
        """The content width the written lines were wrapped at (0: hidden, or not yet)."""

    def on_resize(self, event: Resize) -> None:
        width = self.scrollable_content_region.width
        if width and width != self._drawn_width and self._source is not None:
            self.clear()
            for line in self._source[-(self.max_lines or len(self._source)) :]:
                self.write(line)
        self._drawn_width = width

    def show(self, game: GameState) -> None:
        if game.log is not self._source or self._written > len(game.log):
            self.clear()
            self._written, self._source = 0, game.log
        for line in game.log[self._written :]:
            self.write(line)
        if len(game.log) > self._written:
            self._drawn_width = min(self._drawn_width, self.scrollable_content_region.width)
        self._written = len(game.log)
