"""The prompt line under the trick: whose turn it is, and the bid buttons.

Only the bids the view lists as legal are shown, so the player can never pick a
bid the rules refuse; the keys (p, 1-5) go through the same list.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Button, Static

from client.model import GameState
from client.text import plain

BID_LABELS = {None: "Pass", 1: "1", 2: "2", 3: "3", 4: "4 Pitch", 5: "5"}
"""Every bid a table can allow; only the view's legal ones are shown (5 with the joker)."""


def prompt_text(game: GameState) -> Text:
    """What the player should do now, or whom everyone is waiting for."""
    view = game.view
    if view is None:
        return Text("")
    if view.phase in ("hand_over", "match_over"):
        return Text("Hand over.", style="bold")
    if view.turn is None:
        return Text("")
    if view.turn == game.seat:
        if view.phase == "bidding":
            return Text("Your bid:", style="bold yellow")
        keys = "arrows" if game.ascii_only else "←/→"
        count = len(view.hand)  # the number keys pick cards by slot: only as many as we hold
        numbers = "1" if count == 1 else f"1-{count}"
        # A number picks its card and the same number again plays it, like Enter: one
        # stray keypress never plays a card.
        return Text(f"Your turn: pick with {numbers} or {keys}, Enter plays", style="bold yellow")
    verb = "bid" if view.phase == "bidding" else "play"
    return Text("Waiting for ").append(plain(game.name(view.turn))).append(f" to {verb}...")


class BidBar(Horizontal):
    DEFAULT_CSS = """
    BidBar { height: 1; width: 1fr; }
    BidBar > #prompt { width: auto; margin-right: 1; }
    BidBar > Button { margin-right: 1; min-width: 5; }
    """

    class Bid(Message):
        def __init__(self, amount: int | None) -> None:
            super().__init__()
            self.amount = amount

    def compose(self) -> ComposeResult:
        yield Static("", id="prompt", markup=False)
        for amount, label in BID_LABELS.items():
            button = Button(label, id=f"bid-{amount or 'pass'}", compact=True)
            button.can_focus = False
            button.display = False
            yield button

    def show(self, game: GameState) -> None:
        view = game.view
        self.query_one("#prompt", Static).update(prompt_text(game))
        legal = view.legal_bids if view and view.phase == "bidding" else []
        for amount in BID_LABELS:
            self.query_one(f"#bid-{amount or 'pass'}", Button).display = amount in legal

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        suffix = (event.button.id or "").removeprefix("bid-")
        self.post_message(self.Bid(None if suffix == "pass" else int(suffix)))
