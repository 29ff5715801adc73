"""The prompt line above the hand: whose turn it is, and the bid buttons.

Only the bids the view lists as legal are shown, so the player can never pick a
bid the rules refuse; the keys (p, 1-5) go through the same list. A key picks a bid
(its button lights up) and Enter confirms it, as with cards; a click bids at once.
"Pitch" bids the top bid (4, or 5 at a joker table) and leads the card under the
hand's cursor, in one gesture (client/gestures.py).
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, Static

from client.model import GameState, top_bid
from client.text import card_text, plain, styled
from client.widgets.felt import PALETTE
from pitchnet.i18n import N_, _
from pitchnet.protocol import SeatKind
from pitchnet.rules import Phase


def turn_style() -> str:
    """The prompt on our turn: the turn's colour of the felt, reversed (yellow on a dark
    theme, amber on a light one, where reversed yellow would be white on yellow)."""
    return f"{PALETTE['turn']} reverse"


BID_LABELS = {None: N_("Pass"), 1: "1", 2: "2", 3: "3", 4: "4", 5: "5"}
"""Each bid's button (the pass's word marked with `N_`, translated when drawn)."""


def prompt_text(
    game: GameState,
    *,
    one_press: bool = False,
    short: bool = False,
    narrow: bool = False,
    touch: bool = False,
    tiny: bool = False,
) -> Text:
    """What the player should do now, or whom everyone is waiting for. `touch`: a
    browser, where a tap picks a card and a second tap plays it; on a narrow (phone)
    screen that is what the prompt says, as there are no keys to name. `short`,
    `narrow` and `tiny` for ever less room beside the bid buttons."""
    view = game.view
    if view is None:
        return Text("")
    if view.phase in (Phase.HAND_OVER, Phase.MATCH_OVER):
        return Text(_("Hand over."), style="bold")
    if view.turn is None:
        return Text("")
    enter = "" if one_press else (_(", Enter") if short else _(", then Enter"))
    if view.turn == game.me:
        if view.phase == Phase.BIDDING:
            amounts = [b for b in view.legal_bids if b is not None]
            offers = ["p"] if None in view.legal_bids else []
            if amounts:
                low, high = min(amounts), max(amounts)
                offers.append(str(low) if low == high else f"{low}-{high}")
            # TRANSLATORS: between the keys offered for a bid: "p or 2-4" (keep the spaces).
            offer = _(" or ").join(offers)
            if tiny:
                # TRANSLATORS: as short as it can be: a phone's row of bid buttons.
                return Text(_("BID:"), style=turn_style())
            if narrow:  # the buttons beside it say the rest
                return Text(_("YOUR BID:"), style=turn_style())
            return Text(_("YOUR BID: {offer}{enter}", offer=offer, enter=enter), style=turn_style())
        count = len(view.hand)  # the number keys pick cards by slot: only as many as we hold
        numbers = "1" if count == 1 else f"1-{count}"
        keys = _("arrows") if game.ascii_only else "←→"
        if touch and narrow:
            return Text(_("YOUR TURN: tap a card twice"), style=turn_style())
        if one_press:  # a number key plays at once; the arrows still need Enter
            if short:
                return Text(_("YOUR TURN: {numbers} plays", numbers=numbers), style=turn_style())
            turn = _("YOUR TURN: {numbers} plays that card at once", numbers=numbers)
            return Text(turn, style=turn_style())
        if short:
            turn = _("YOUR TURN: {numbers}/{keys}{enter}", numbers=numbers, keys=keys, enter=enter)
            return Text(turn, style=turn_style())
        turn = _(
            "YOUR TURN: pick with {numbers} or {keys}{enter} plays",
            numbers=numbers,
            keys=keys,
            enter=enter,
        )
        return Text(turn, style=turn_style())
    seats = game.table.seats if game.table is not None else []
    info = seats[view.turn] if view.turn is not None and view.turn < len(seats) else None
    if info is not None and info.kind == SeatKind.HUMAN and not (info.connected or info.substitute):
        # Said in words, not only by the seat's countdown: why the table waits.
        template = _("Waiting for {name} (connection lost)...")
    elif view.phase == Phase.BIDDING:
        template = _("Waiting for {name} to bid...")
    else:
        template = _("Waiting for {name} to play...")
    return styled(template, name=plain(game.name(view.turn)))


class BidBar(Horizontal):
    DEFAULT_CSS = """
    BidBar { height: 1; width: 1fr; }
    BidBar > #prompt { width: auto; margin-right: 1; }
    BidBar > Button { margin-right: 1; min-width: 5; }
    BidBar.-tight > Button { min-width: 3; }
    BidBar > Button.-armed { text-style: bold reverse; }
    """

    @staticmethod
    def needed(prompt: Text, labels: list[str], min_width: int) -> int:
        """Cells the prompt and these buttons take (a button is its label, a cell of
        padding each side, at least `min_width`, and a cell of margin)."""
        buttons = sum(max(min_width, cell_len(label) + 2) + 1 for label in labels)
        return prompt.cell_len + 1 + buttons

    class Bid(Message):
        def __init__(self, amount: int | None) -> None:
            super().__init__()
            self.amount = amount

    class Pitch(Message):
        """Bid the top bid (4, or 5 with the joker) and lead the card under the cursor."""

    def compose(self) -> ComposeResult:
        yield Static("", id="prompt", markup=False)
        for amount, label in BID_LABELS.items():
            button = Button(_(label), id=f"bid-{amount or 'pass'}", classes="amount", compact=True)
            button.can_focus = False
            button.display = False
            yield button
        pitch = Button(_("Pitch"), id="bid-pitch", compact=True)
        pitch.can_focus = False
        pitch.display = False
        yield pitch

    def show(
        self,
        game: GameState,
        *,
        armed: int | str | None = "",
        lead: str | None = None,
        one_press: bool = False,
        short: bool = False,
        narrow: bool = False,
        touch: bool = False,
        width: int | None = None,
    ) -> None:
        """`armed` is the bid picked by a key but not yet confirmed ("" for none);
        `lead` the card a pitch would lead. Given the `width` there is, the prompt
        shortens and the buttons narrow until every legal bid's button shows whole."""
        view = game.view
        mine = view is not None and view.phase == Phase.BIDDING and view.turn == game.me
        legal = view.legal_bids if view is not None and mine else []
        with_pitch = top_bid(view) in legal and lead is not None
        labels = [_(BID_LABELS[amount]) for amount in BID_LABELS if amount in legal]
        face = card_text(lead, game.ascii_only) if lead is not None else Text("")
        pitch_word = "! " + _("Pitch") + " "
        tight = False
        prompt = prompt_text(game, one_press=one_press, short=short, narrow=narrow, touch=touch)
        if width is not None and legal:
            tries = [
                (dict(short=short), False, pitch_word),
                (dict(short=True), False, pitch_word),
                (dict(narrow=True), False, pitch_word),
                (dict(narrow=True), True, pitch_word),
                (dict(tiny=True), True, pitch_word),
                (dict(tiny=True), True, "! "),
            ]
            for flags, tight, pitch_word in tries:
                prompt = prompt_text(game, one_press=one_press, touch=touch, **flags)
                pitch_label = [pitch_word + face.plain] if with_pitch else []
                if self.needed(prompt, labels + pitch_label, 3 if tight else 5) <= width:
                    break
            else:  # the buttons alone, whole, rather than the last one cut off
                prompt = Text("")
        self.set_class(tight, "-tight")
        self.query_one("#prompt", Static).update(prompt)
        for amount in BID_LABELS:
            button = self.query_one(f"#bid-{amount or 'pass'}", Button)
            button.display = amount in legal
            button.set_class(armed != "" and armed == amount, "-armed")
        pitch = self.query_one("#bid-pitch", Button)
        pitch.display = with_pitch
        pitch.set_class(armed == "pitch", "-armed")
        if lead is not None:
            label = Content.from_rich_text(Text(pitch_word).append_text(face))
            if label.spans != Content.from_text(pitch.label).spans:
                # A label compares by its text alone: the same card in another colour
                # (a new theme or deck) would not be drawn without this.
                pitch.label = Content.empty()
            pitch.label = label

    @on(Button.Pressed, "#bid-pitch")
    def _pitch_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.Pitch())

    @on(Button.Pressed, ".amount")
    def _bid_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        suffix = (event.button.id or "").removeprefix("bid-")
        self.post_message(self.Bid(None if suffix == "pass" else int(suffix)))
