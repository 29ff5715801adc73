"""The table: the player's hand, the others around it, the trick, bids and the log.

Every snapshot redraws the whole screen from the seat's view (snapshots, not
deltas). The keys live here, not in the widgets, so one method decides what a key
means in each phase: number keys bid while bidding and pick cards while playing.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from client.model import GameState, refusal, status_line
from client.screens.base import PitchScreen
from client.screens.match_end import MatchEnd
from client.screens.summary import HandSummary
from client.widgets.bidbar import BidBar
from client.widgets.hand import HandView
from client.widgets.log import HandLog
from client.widgets.seats import SeatsPanel
from client.widgets.trick import TrickView


class TableScreen(PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "play", "Play card"),
        Binding("left", "move(-1)", "Prev card", show=False),
        Binding("right", "move(1)", "Next card", show=False),
        Binding("p", "bid(0)", "Pass"),
        *(Binding(str(n), f"number({n})", f"Key {n}", show=False) for n in range(1, 7)),
        Binding("escape", "leave", "Leave"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._shown_modal: ModalScreen[None] | None = None
        self._waiting_since_seq: int | None = None
        self._armed: str | None = None
        """The card last picked with its number key: the same key again plays it."""

    @property
    def game(self) -> GameState:
        return self.app.game

    def compose(self) -> ComposeResult:
        yield Static("", id="status", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield SeatsPanel(id="seats")
                yield TrickView(id="trick")
                yield BidBar(id="bidbar")
                yield HandView(id="hand")
            yield HandLog(id="log")
        yield Footer()

    _shown = False
    """Set once composed: show() before that has nothing to draw on."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)
        # Nested containers finish mounting after the screen's Mount: draw after a refresh.
        self.call_after_refresh(self._first_show)

    def _first_show(self) -> None:
        self._shown = True
        self.show(self.game)

    # ---- drawing ------------------------------------------------------------------------------

    def show(self, game: GameState) -> None:
        """Redraw from a fresh snapshot, and open or close the end-of-hand screens."""
        if not self._shown:
            return
        view = game.view
        self._waiting_since_seq = None
        self.query_one("#status", Static).update(status_line(game))
        self.query_one(SeatsPanel).show(game)
        self.query_one(TrickView).show(game)
        self.query_one(BidBar).show(game)
        self.query_one(HandLog).show(game)
        if view is not None:
            playing = view.phase == "playing" and view.turn == game.seat
            playable = set(view.legal_plays) if playing else set()
            self.query_one(HandView).show(view.hand, playable, ascii_only=game.ascii_only)
            self._follow_phase(view.phase)
        self.refresh_bindings()

    def _tick(self) -> None:
        """Count an absent player's time on from the last snapshot, once a second."""
        game = self.game
        if self._shown and game.table and any(not s.connected for s in game.table.seats):
            since = time.monotonic() - game.received_at
            self.query_one(SeatsPanel).show(game, since)

    def _follow_phase(self, phase: str) -> None:
        wanted = {"hand_over": HandSummary, "match_over": MatchEnd}.get(phase)
        if self._shown_modal is not None and type(self._shown_modal) is not wanted:
            self.app.close_modal(self._shown_modal)
            self._shown_modal = None
        if wanted is not None and self._shown_modal is None:
            self._shown_modal = wanted()
            self.app.push_screen(self._shown_modal)

    # ---- keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show "Play card" while cards are being played and "Pass" on our bid only
        (False hides a binding in this Textual; None would show it greyed out)."""
        view = self.game.view
        if action == "play":
            return view is not None and view.phase == "playing"
        if action == "bid":
            mine = view is not None and view.turn == self.game.seat
            return mine and view is not None and None in view.legal_bids
        return True

    def action_move(self, step: int) -> None:
        self._armed = None
        self.query_one(HandView).move(step)

    def action_number(self, number: int) -> None:
        view = self.game.view
        if view is None:
            return
        if view.phase == "bidding":
            self.action_bid(number)
            return
        card = self.query_one(HandView).select(number - 1)
        if card is not None and card == self._armed:
            self._armed = None
            self.try_play(card)
        else:
            self._armed = card

    def action_play(self) -> None:
        self._armed = None
        card = self.query_one(HandView).current
        if card is not None:
            self.try_play(card)

    def action_bid(self, amount: int) -> None:
        """Bid `amount` (0 = pass) if the view lists it as legal; else say why not."""
        view, bid = self.game.view, amount or None
        if view is None or view.phase != "bidding":
            return
        if view.turn != self.game.seat:
            self.notify("It is not your turn to bid.", severity="warning", markup=False)
        elif bid not in view.legal_bids:
            offers = ", ".join("pass" if b is None else str(b) for b in view.legal_bids)
            self.notify(f"You may bid: {offers}.", severity="warning", markup=False)
        elif self._once():
            self.app.send_bid(bid)

    def try_play(self, card: str) -> None:
        view = self.game.view
        if view is None:
            return
        reason = refusal(view, card)
        if reason is not None:
            self.notify(reason, severity="warning", markup=False)
        elif self._once():
            self.app.send_play(card)

    def _once(self) -> bool:
        """One action per snapshot: a second key press before the host answers is
        dropped instead of being refused as out of turn."""
        if self._waiting_since_seq == self.game.seq:
            return False
        self._waiting_since_seq = self.game.seq
        return True

    def action_leave(self) -> None:
        self.app.confirm_leave()

    def on_hand_view_chosen(self, event: HandView.Chosen) -> None:
        """A click plays the card. In a browser (a phone, by touch) a tap picks it and a
        second tap on it plays it, like its number key, so one stray tap never plays a
        card; a card that cannot be played now says why at the first tap."""
        view = self.game.view
        two_taps = self.app.options.one_table
        reason = refusal(view, event.card) if view is not None else None
        if not two_taps or event.card == self._armed or reason is not None:
            self._armed = None
            self.try_play(event.card)
        else:
            self._armed = event.card

    def on_bid_bar_bid(self, event: BidBar.Bid) -> None:
        self.action_bid(event.amount or 0)
