"""The table: the felt (seats in a ring, the trick in front of them, trump in the
middle), the prompt and bid buttons, and the player's hand along the bottom.

Every snapshot redraws the whole screen from the seat's view (snapshots, not
deltas). The keys live here, not in the widgets, so one method decides what a key
means in each phase: a number key picks a bid or a card, Enter confirms it (or, with
the one-press setting, the number key alone does); a click bids or plays at once.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.timer import Timer
from textual.widgets import Static

from client.model import GameState, refusal, status_line, top_bid
from client.screens.base import FirstShow, PitchModal, PitchScreen
from client.screens.match_end import MatchEnd
from client.screens.summary import HandSummary
from client.widgets.bidbar import BidBar
from client.widgets.felt import Felt
from client.widgets.footer import PitchFooter
from client.widgets.hand import HandView
from client.widgets.log import HandLog
from pitchnet.i18n import N_, _
from pitchnet.rules import Phase
from pitchnet.views import SeatView

if TYPE_CHECKING:
    from pitchnet.coach import Advice

NO_PICK = ""
COACH_SECONDS = 12.0
"""How long the coach's line stays up, unless its decision passes first."""
"""No bid picked yet (None is a pick: it is a pass)."""


class TableScreen(FirstShow, PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "play", N_("Play card")),
        Binding("enter", "confirm", N_("Confirm bid")),
        Binding("left", "move(-1)", N_("Prev card"), show=False),
        Binding("right", "move(1)", N_("Next card"), show=False),
        Binding("p", "number(0)", N_("Pass")),
        Binding("exclamation_mark", "pitch", N_("Pitch card"), show=False),
        *(Binding(str(n), f"number({n})", N_("Key {n}"), show=False) for n in range(1, 7)),
        # Shown where the coach can help (our decision, a table that allows it: a phone
        # can tap it); elsewhere the same key says why it cannot.
        Binding("c", "coach", N_("Coach")),
        Binding("c", "coach_why", N_("Coach"), show=False),
        Binding("t", "last_trick", N_("Last trick")),
        Binding("r", "app.react", N_("React"), show=False),
        Binding("l", "toggle_log", N_("Log")),
        Binding("escape", "leave", N_("Leave")),
    ]
    KEYS_HELP: ClassVar[list[tuple[str, str]]] = [
        (N_("Bidding"), ""),
        ("p, 1-5", N_("pick pass or a bid (only legal bids are offered)")),
        ("Enter", N_("confirm the picked bid (a click bids at once)")),
        ("!", N_("pitch: bid the top bid (4, or 5 with the joker) and lead the card")),
        (N_("Playing"), ""),
        ("← →", N_("move along your hand")),
        ("1-6", N_("pick that card; press it again or Enter to play it")),
        ("click", N_("play the card; a dashed card says why it can't be played")),
        (N_("Table"), ""),
        ("c", N_("the coach: what the hard bot would do now, and why (on your turn)")),
        ("t", N_("show the last trick (again to go back)")),
        ("r", N_("react: then 1-6 for nice play, oops, well bid, hurry up, good game, ha ha")),
        ("l", N_("show or hide the log")),
        ("Esc", N_("leave the table (asks first)")),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._shown_modal: PitchModal[None] | None = None
        self._ticker: Timer | None = None
        self._waiting_since_seq: int | None = None
        self._armed: str | None = None
        """The card last picked with its number key: the same key again plays it."""
        self._bid_pick: int | str | None = NO_PICK
        self._log_wanted: bool | None = None
        """Shown or hidden by `l`; None until then: shown only on a wide terminal."""
        self._advice: Advice | None = None
        """The coach's last advice: asked again for the same decision, it is shown again."""
        self._coaching: tuple[int, int] | None = None
        """The decision the coach is thinking about (None: it is not)."""
        self._advice_shown_at: float | None = None
        """When the coach's line was last put up (None: not since its decision passed)."""

    @property
    def game(self) -> GameState:
        return self.app.game

    @property
    def one_press(self) -> bool:
        return bool(self.app.prefs.one_press)

    def compose(self) -> ComposeResult:
        yield Static("", id="status", markup=False)
        with Horizontal(id="main"):
            yield Felt(id="felt")
            yield HandLog(id="log")
        with Vertical(id="bottom"):
            yield BidBar(id="bidbar")
            yield HandView(id="hand")
        yield PitchFooter()

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self._tick)

    def on_screen_suspend(self) -> None:
        if self._ticker is not None:  # nothing to count out of sight (or being removed)
            self._ticker.pause()

    def on_screen_resume(self) -> None:
        if self._ticker is not None:
            self._ticker.resume()

    def first_show(self) -> None:
        self._fit(self.size.width, self.size.height)
        self.show(self.game)

    def on_resize(self, event: Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """Cards grow on a big terminal; the log shows beside the felt only when wide."""
        if not self._drawable():
            return
        self.query_one(HandView).set_size(
            large=width >= 120 and height >= 40,
            narrow=width < 56,
            huge=width >= 150 and height >= 52,
        )
        wide = width >= 110 and height >= 30
        log = self.query_one(HandLog)
        log.display = wide if self._log_wanted is None else self._log_wanted
        self.set_class(width < 80 or height < 24, "-compact")
        self._draw_status()
        self._draw_prompt()

    def _draw_status(self) -> None:
        status = self.query_one("#status", Static)
        status.update(status_line(self.game, max(1, self.size.width - 2)))  # less padding

    # ---- drawing ------------------------------------------------------------------------------

    def show(self, game: GameState) -> None:
        """Redraw from a fresh snapshot, and open or close the end-of-hand screens."""
        if not self._drawable():
            return
        view = game.view
        self._waiting_since_seq = None
        self._draw_status()
        felt = self.query_one(Felt)
        if view is not None and view.trick:
            felt.recall = False  # a new card led: the table shows the trick being played
        felt.show(game)
        self.query_one(HandLog).show(game)
        self._retire_advice(view)
        if view is not None:
            if view.phase != Phase.BIDDING or view.turn != game.me:
                self._bid_pick = NO_PICK
            playing = view.phase == Phase.PLAYING and view.turn == game.me
            playable = set(view.legal_plays) if playing else set()
            self.query_one(HandView).show(
                view.hand, playable, ascii_only=game.ascii_only, my_turn=playing
            )
            self._follow_phase(view.phase)
        self._draw_prompt()
        self.refresh_bindings()

    def _drawable(self) -> bool:
        """Shown once, and not being taken down (Textual's `display` is False while a
        screen is being removed): the app redraws only its current screens, but a
        screen on its way out still gets what was scheduled on it."""
        return self._shown and self.display

    def _draw_prompt(self) -> None:
        if not self._drawable():
            return
        view = self.game.view
        lead = self.query_one(HandView).current if view is not None else None
        self.query_one(BidBar).show(
            self.game,
            armed=self._bid_pick,
            lead=lead,
            one_press=self.one_press,
            short=self.size.width < 80,
            narrow=self.size.width < 56,
            touch=self.app.options.one_table,
            width=self.size.width - 2,  # less the bottom's padding
        )

    def _tick(self) -> None:
        """Count an absent player's time on from the last snapshot, once a second."""
        game = self.game
        if game.forget_old_reactions() and self._drawable():
            self.query_one(Felt).show(game, time.monotonic() - game.received_at)
        if self._drawable() and game.table and any(not s.connected for s in game.table.seats):
            since = time.monotonic() - game.received_at
            self.query_one(Felt).show(game, since)

    def _follow_phase(self, phase: Phase) -> None:
        wanted = {Phase.HAND_OVER: HandSummary, Phase.MATCH_OVER: MatchEnd}.get(phase)
        if self._shown_modal is not None and type(self._shown_modal) is not wanted:
            self.app.close_modal(self._shown_modal)
            self._shown_modal = None
        if wanted is not None and self._shown_modal is None:
            self._shown_modal = wanted()
            self.app.push_screen(self._shown_modal)

    # ---- keys ---------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show "Confirm" and "Pass" only when they mean something (False hides a
        binding in this Textual; None would show it greyed out)."""
        view = self.game.view
        mine = view is not None and view.turn == self.game.me
        if action == "coach":
            table = self.game.table
            on = table is None or table.coach
            return on and mine and view is not None and bool(view.legal_bids or view.legal_plays)
        if action == "play":  # only on our turn: a spectator, or a player waiting, plays none
            return mine and view is not None and view.phase == Phase.PLAYING
        if action == "confirm":  # one press bids at once: there is nothing to confirm
            return mine and view is not None and view.phase == Phase.BIDDING and not self.one_press
        if action == "number" and parameters == (0,):
            return mine and view is not None and None in view.legal_bids
        if action == "pitch":  # the top bid: 4, or 5 at a joker table
            return mine and view is not None and top_bid(view) in view.legal_bids
        return True

    def action_move(self, step: int) -> None:
        self._armed = None
        self.query_one(HandView).move(step)
        self._draw_prompt()

    def action_number(self, number: int) -> None:
        """A number key (p is 0, a pass): pick that bid or card; confirm it if it was
        already picked, or at once with the one-press setting."""
        view = self.game.view
        if view is None:
            return
        if view.phase == Phase.BIDDING:
            bid = number or None
            if self.one_press or self._bid_pick == bid or bid not in view.legal_bids:
                self.action_bid(number)  # a bid the view does not offer: the host says why
            elif self._bid_allowed():
                self._bid_pick = bid
                self._draw_prompt()
            return
        if number == 0:
            return
        card = self.query_one(HandView).select(number - 1)
        if card is not None and (card == self._armed or self.one_press):
            self._armed = None
            self.try_play(card)
        else:
            self._armed = card

    def action_confirm(self) -> None:
        """Enter while bidding: send the bid picked with its key."""
        if self._bid_pick == "pitch":
            self.action_pitch()
        elif self._bid_pick != NO_PICK:
            self.action_bid(self._bid_pick or 0)  # type: ignore[arg-type]
        else:
            self.notify(_("Pick a bid first: p to pass, or a number to bid."), markup=False)

    def action_play(self) -> None:
        """Enter while playing: play the card under the cursor."""
        self._armed = None
        card = self.query_one(HandView).current
        if card is not None:
            self.try_play(card)

    def _bid_allowed(self) -> bool:
        """Whether a bid may go to the host: in the bidding, from a seat. Whose turn it is
        and which bids are legal the host decides, and a refusal is its own sentence
        (shown by the app), so the client keeps no copy of those rules."""
        view = self.game.view
        return view is not None and view.phase == Phase.BIDDING and not view.spectator

    def action_bid(self, amount: int) -> None:
        """Bid `amount` (0 = pass); the host refuses one it does not allow, and says why."""
        bid = amount or None
        if self._bid_allowed() and self._once():
            self._bid_pick = NO_PICK
            self.app.send_bid(bid)

    def action_pitch(self) -> None:
        """Bid the top bid (4, or 5 with the joker) and lead the card under the cursor:
        the host hears the bid now and the card as soon as the hand is ours to lead (the
        app sends it then)."""
        card = self.query_one(HandView).current
        if card is None or not self._bid_allowed() or not self._once():
            return
        self._bid_pick = NO_PICK
        self.app.pitch(card)

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

    def action_coach_why(self) -> None:
        """`c` where the coach cannot help: the sentence that says why."""
        self.action_coach()

    def action_coach(self) -> None:
        """What the `hard` bot would do now, and why, from our own view (pitchnet.coach):
        thought out off the screen's loop, once per decision (asked again, the same line)."""
        game, view = self.game, self.game.view
        if game.table is not None and not game.table.coach:
            self.notify(_("This table's host has turned the coach off."), markup=False)
            return
        if view is None or view.spectator or game.me is None:
            self.notify(_("The coach helps players on their turn; you are watching."), markup=False)
            return
        if view.turn != view.seat or not (view.legal_bids or view.legal_plays):
            self.notify(_("The coach helps on your turn."), markup=False)
            return
        from pitchnet.coach import moment  # the search loads only when asked for

        decision = moment(view)
        if self._advice is not None and self._advice.moment == decision:
            self._show_advice(self._advice)
        elif self._coaching != decision:
            self._coaching = decision
            self.run_worker(self._think(view), group="coach", exclusive=True)

    async def _think(self, view: SeatView) -> None:
        from pitchnet.coach import advise, moment

        try:
            advice = await asyncio.to_thread(advise, view)
        finally:
            self._coaching = None
        now = self.game.view
        if advice is not None and now is not None and moment(now) == advice.moment:
            self._advice = advice
            self._show_advice(advice)

    def _show_advice(self, advice: Advice) -> None:
        self.notify(advice.line, title=_("Coach"), timeout=COACH_SECONDS, markup=False)
        self._advice_shown_at = time.monotonic()

    def _retire_advice(self, view: SeatView | None) -> None:
        """Once its decision has passed (the bid made, the card played, the hand over),
        the coach's line goes: left up for its seconds it read as advice for the next
        move. Textual removes toasts only all at once; any other is in the log too."""
        shown = self._advice_shown_at
        if shown is None or self._advice is None:
            return
        from pitchnet.coach import moment  # loaded already: there is advice

        if view is not None and moment(view) == self._advice.moment:
            return
        self._advice_shown_at = None
        if time.monotonic() - shown < COACH_SECONDS:
            self.app.clear_notifications()

    def action_last_trick(self) -> None:
        felt = self.query_one(Felt)
        view = self.game.view
        if not felt.recall and (view is None or not view.tricks):
            self.notify(_("No trick has been completed yet this hand."), markup=False)
            return
        felt.recall = not felt.recall
        felt.refresh()

    def action_toggle_log(self) -> None:
        log = self.query_one(HandLog)
        self._log_wanted = not log.display
        log.display = self._log_wanted

    def action_leave(self) -> None:
        self.app.confirm_leave()

    def on_hand_view_chosen(self, event: HandView.Chosen) -> None:
        """A click plays the card (and, during our bid, also chooses the card a pitch
        leads). In a browser (a phone, by touch) a tap picks it and a second tap on it
        plays it, like its number key, so one stray tap never plays a card; a card that
        cannot be played now says why at the first tap."""
        self._draw_prompt()
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

    def on_bid_bar_pitch(self, event: BidBar.Pitch) -> None:
        self.action_pitch()
