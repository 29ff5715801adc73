"""The middle of the table: the trick being played, or the last one and who won it.

Drawn only from the seat's view, so it shows exactly what a player at a real table
would see: the cards face up in play order, and the winner once the trick is done.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from client.model import GameState, bid_word, top_bid
from client.text import card_text, plain, styled
from pitchnet.i18n import _
from pitchnet.rules import Phase


def _plays(game: GameState, plays: Sequence[tuple[int, object]]) -> Text:
    line = Text()
    for seat, card in plays:
        if line:
            line.append("  ")
        line.append(plain(game.who(seat), limit=10)).append(" ")
        line.append(card_text(str(card), game.ascii_only))
    return line


def trick_text(game: GameState) -> Text:
    """Two lines: what is on the table now, and what that means."""
    view = game.view
    if view is None:
        return Text("")
    if view.phase == Phase.BIDDING:
        line = Text(_("Bidding"), style="bold")
        if view.bids:
            seat, amount = view.bids[-1]
            line.append(": ").append(plain(game.who(seat)))
            line.append(f" {bid_word(amount, seat == game.me, top=top_bid(view))}")
        if view.high_bid is not None:
            line.append("\n").append_text(
                styled(
                    _("High bid {bid} {name}"),
                    bid=view.high_bid,
                    name=plain(game.who(view.pitcher)),
                )
            )
        return line
    count = len(view.tricks) + (1 if view.trick else 0)
    if view.trick:
        head = Text(_("Trick {n}", n=count) + "\n", style="bold")
        return head.append_text(_plays(game, view.trick))
    if view.tricks:
        last = view.tricks[-1]
        head = styled(
            _("Trick {n} won by {name}", n=len(view.tricks), name="{name}"),
            "bold",
            name=plain(game.who(last.winner), style="bold"),
        ).append("\n")
        return head.append_text(_plays(game, last.plays))
    if view.pitcher is not None:
        line = Text(_("Trick {n}", n=1) + "\n", style="bold")
        if view.pitcher == game.me:
            return line.append(_("You lead: the first card sets trump"))
        return line.append_text(
            styled(_("{name} leads: the first card sets trump"), name=plain(game.who(view.pitcher)))
        )
    return Text("")


class TrickView(Static):
    DEFAULT_CSS = """
    TrickView { height: auto; min-height: 4; border: round $foreground 30%; padding: 0 1; }
    """

    def show(self, game: GameState) -> None:
        self.update(trick_text(game))
