"""The end of a hand: who took High, Low, Jack (the Joker with five-point Pitch) and Game,
the bid made or set (or a smudge, or a hand thrown in when everyone passed), and the
score changes. Enter says `ready`; the next deal closes the screen by itself.

The result is the view's `HandResult`, its types checked as it was read (`from_wire`);
a seat or side it names that is not at the table shows as what it can, never raises.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Resize
from textual.widgets import Button, Static

from client.model import GameState
from client.screens.base import FirstShow, PitchModal
from client.screens.lobby import SHOW_WAIT_AFTER
from client.text import card_text, duration, plain, signed, styled, suit_text
from client.widgets.chart import ScoreChart, chart_legend
from pitchnet.i18n import N_, _, ngettext, number
from pitchnet.protocol import SeatKind
from pitchnet.rules import HandResult, Phase
from pitchnet.text import printable

SHORT_BELOW = 24
"""Rows below which the summary's body scrolls in a dialog as tall as the screen."""
NARROW_BELOW = 56
"""Columns below which the buttons leave out their keys (as the table's narrow mode)."""


def headline(game: GameState, result: HandResult) -> Text:
    """ "Hand 2: Bob bid 2 in ♥: made it." (or "set back")."""
    number = game.view.hand_number if game.view else 0
    line = styled(_("Hand {hand}: "), "bold", hand=number)
    if result.redeal:
        return line.append(_("everyone passed. The hand is thrown in: nobody scores."))
    pitcher = result.pitcher
    mine = pitcher is not None and pitcher == game.me
    line.append_text(
        styled(
            _("You bid {bid} in {suit}") if mine else _("{name} bid {bid} in {suit}"),
            name=plain(game.who(pitcher), style="bold"),
            bid=str(result.bid),
            suit=suit_text(result.trump.value if result.trump else None, game.ascii_only),
        )
    )
    if result.smudge:
        return line.append(_(": made it, a smudge! That wins the match."), style="bold green")
    if result.made:
        return line.append(_(": made it."), style="bold green")
    return line.append(_(": set back."), style="bold red")


def points_table(game: GameState, result: HandResult) -> Table:
    """High, Low, Jack and Game: the card and who captured it."""
    trump = result.trump.value if result.trump else None
    grid = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    labels = (_("High"), _("Low"), _("Jack"), _("Joker"), _("Game"))
    grid.add_column(style="bold", width=max(cell_len(label) for label in labels), no_wrap=True)
    grid.add_column(width=3)
    grid.add_column()
    ascii_only = game.ascii_only
    high, low = (result.high_card, result.high), (result.low_card, result.low)
    for label, (card, seat) in ((_("High"), high), (_("Low"), low)):
        if card is None or seat is None:  # only with the joker: no natural trump dealt
            grid.add_row(label, "", Text(_("no natural trump dealt"), style="dim"))
            continue
        grid.add_row(label, card_text(str(card), ascii_only), plain(game.who(seat)))
    jack = result.jack
    jack_card = card_text(f"J{trump}", ascii_only) if trump else Text("")
    grid.add_row(
        _("Jack"), jack_card, plain(game.who(jack)) if jack is not None else _("not dealt")
    )
    view = game.view
    joker_on = view is not None and view.house_rules.has_joker
    joker = result.joker
    if joker_on or joker is not None:
        joker_card = card_text("JK", ascii_only)
        grid.add_row(
            _("Joker"), joker_card, plain(game.who(joker)) if joker is not None else _("not dealt")
        )
    game_side, points = result.game, result.game_points
    if game_side is not None and 0 <= game_side < len(points):
        won = plain(game.side_name(game_side)).append(
            " " + ngettext("({n} point)", "({n} points)", points[game_side])
        )
    else:
        won = Text(_("tied at {n}: nobody", n=max(points, default=0)), style="dim")
    grid.add_row(_("Game"), "", won)
    # Each side's name and points stay together where the line wraps: as one text, "Bot
    # 1 34" broke before its points, and "34" stood alone on the next line.
    last = len(points) - 1
    every = [
        Text(f"{game.side_name(side)} {number(p)}" + ("," if side < last else ""))
        for side, p in enumerate(points)
    ]
    grid.add_row("", "", Flow([Text(_("Game points:"), style="dim"), *every]))
    return grid


class Flow:
    """Texts side by side, a space apart, wrapped between two of them and never inside
    one (unless one alone is wider than the room): Rich's own wrapping breaks at any
    space, and a side's points went to the next line without its name."""

    def __init__(self, items: list[Text]) -> None:
        self.items = items

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width, line = options.max_width, Text()
        for item in self.items:
            if line.plain and line.cell_len + 1 + item.cell_len > width:
                yield line
                line = Text()
            if line.plain:
                line.append(" ")
            line.append_text(item)
        yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widths = [item.cell_len for item in self.items]
        return Measurement(max(widths, default=0), sum(widths) + len(widths) - 1)


def scores_table(game: GameState, before: list[int], after: list[int]) -> Table:
    """Each side's score before, the change, and after."""
    grid = Table(box=None, padding=(0, 2, 0, 0), header_style="bold")
    teams = game.view is not None and game.view.partnership
    grid.add_column(
        _("Team") if teams else _("Player"), no_wrap=True, overflow="ellipsis", max_width=30
    )
    for title in (_("Before"), _("Hand"), _("Score")):
        grid.add_column(title, justify="right")
    for side, score in enumerate(after):
        old = before[side] if side < len(before) else score
        change = score - old
        style = "green" if change > 0 else "red" if change < 0 else "dim"
        grid.add_row(
            plain(game.side_name(side)),
            number(old),
            Text(signed(change), style=style),
            number(score),
        )
    return grid


def past_target_note(game: GameState, after: list[int]) -> Text | None:
    """Why a side at or past the target has not won: only the pitcher can win."""
    view = game.view
    if view is None or view.winner is not None:
        return None
    pitcher = view.last_result.pitcher if view.last_result else None
    pitching = view.side_of(pitcher) if pitcher is not None else None
    ahead = [s for s, score in enumerate(after) if score >= view.target and s != pitching]
    if not ahead:
        return None
    names = ", ".join(game.side_name(s) for s in ahead)
    return Text(
        _(
            "{names} reached {target} but did not pitch this hand: only the pitcher can "
            "win, so the match goes on.",
            names=names,
            target=view.target,
        ),
        style="italic",
    )


def summary_body(game: GameState) -> RenderableType:
    view = game.view
    result = view.last_result if view else None
    if result is None:
        return Text(_("The hand is over."))
    before, after = list(result.scores_before), list(result.scores)
    if result.redeal:
        return Group(headline(game, result), Text(""), scores_table(game, before, after))
    parts: list[RenderableType] = [
        headline(game, result),
        Text(""),
        points_table(game, result),
        Text(""),
        scores_table(game, before, after),
    ]
    note = past_target_note(game, after)
    if note is not None:
        parts += [Text(""), note]
    return Group(*parts)


def waiting_text(game: GameState, since: float = 0.0) -> Text:
    """Whom the table waits for (people not yet ready: bots always are), for how long,
    and when the next hand is dealt regardless (the host's ready limit)."""
    table = game.table
    if table is None:
        return Text("")
    seats = table.waiting_for or [
        seat
        for seat, info in enumerate(table.seats)
        if info.kind == SeatKind.HUMAN and info.connected and not info.ready
    ]
    over = game.view is not None and game.view.phase == Phase.MATCH_OVER
    if not seats:
        return Text(_("Starting a new match...") if over else _("Dealing..."), style="dim")
    text = _waiting_for(game, seats, over, since)
    # A person whose connection is gone is not waited for (or one phone asleep would hold
    # the whole table): said, so nobody wonders why their name left the list.
    away = [
        seat
        for seat, info in enumerate(table.seats)
        if info.kind == SeatKind.HUMAN and not info.connected
    ]
    if away:
        names = printable(", ".join(game.who(seat) for seat in away), 120)
        joiner = " " if text.plain.endswith(".") else ". "
        text.append(joiner + _("Away, so not waited for: {names}", names=names), style="dim")
    return text


def _waiting_for(game: GameState, seats: list[int], over: bool, since: float) -> Text:
    table = game.table
    assert table is not None
    names = ", ".join(game.who(seat) for seat in seats)
    # After a match nothing starts by itself: the new match waits for everyone's word.
    lead = _("A new match starts when everyone says play again. Waiting for: ")
    text = Text(lead if over else _("Waiting for: "), style="dim").append(plain(names, limit=120))
    waited = table.waiting + since
    if waited >= SHOW_WAIT_AFTER:  # as a clock reads it: "45 min 21 s", never "2,721 s"
        text.append(_(", for {time} so far", time=duration(waited)), style="dim")
    if table.ready_left is not None:
        left = max(0, round(table.ready_left - since))
        text.append(
            _(". The next hand is dealt in {seconds} s either way.", seconds=left), style="dim"
        )
    return text


class HandSummary(FirstShow, PitchModal[None]):
    """Shown over the table when a hand is scored."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "ready", N_("Next hand")),
        Binding("escape", "leave", N_("Leave")),
        Binding("question_mark", "app.help", N_("Keys")),
    ]
    NEXT_LABEL = N_("Next hand (Enter)")
    """Button labels (marked with `N_`, translated when drawn)."""
    LABELS: ClassVar[dict[str, str]] = {"ready": NEXT_LABEL}

    def __init__(self) -> None:
        super().__init__()
        self.sent_ready = False

    def action_leave(self) -> None:
        self.app.confirm_leave()

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            with VerticalScroll(id="summary-scroll"):
                yield Static("", id="summary-body")
                yield from self.chart()
            yield Static("", id="summary-waiting")
            yield Button(_(self.NEXT_LABEL), id="ready", variant="primary", compact=True)

    @staticmethod
    def chart() -> ComposeResult:
        """Every side's score after every hand so far, and its key, under the body."""
        yield ScoreChart()
        yield Static("", id="chart-legend")

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)  # the waiting clocks count on

    def first_show(self) -> None:
        self._fit(self.size.width, self.size.height)
        super().first_show()

    def on_resize(self, event: Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """On a short screen (a phone's 20 rows) the dialog takes the whole height and
        its body scrolls, so the buttons under it are never pushed off the bottom; on a
        narrow one (a phone's 40 columns) the buttons drop their keys to fit side by side."""
        self.set_class(height < SHORT_BELOW, "-short")
        narrow = width < NARROW_BELOW
        for button in self.query(Button):
            full = self.LABELS.get(button.id or "")
            if full is not None:
                full = _(full)
                button.label = full.split(" (")[0] if narrow else full

    def _tick(self) -> None:
        if self._shown:
            game = self.app.game
            since = time.monotonic() - game.received_at
            self.query_one("#summary-waiting", Static).update(waiting_text(game, since))

    def body(self, game: GameState) -> RenderableType:
        return summary_body(game)

    def show(self, game: GameState) -> None:
        if not self._shown:
            return
        self.query_one("#summary-body", Static).update(self.body(game))
        self.query_one(ScoreChart).show(game)
        self.query_one("#chart-legend", Static).update(chart_legend(game))
        mine = game.table.seats[game.seat] if game.table and game.seat is not None else None
        ready = self.sent_ready or (mine is not None and mine.ready) or game.watching
        waiting = self.query_one("#summary-waiting", Static)
        waiting.update(waiting_text(game))
        self.query_one("#ready", Button).disabled = ready

    def action_ready(self) -> None:
        if not self.sent_ready:
            self.sent_ready = True
            self.app.send_ready()
            self.show(self.app.game)

    @on(Button.Pressed, "#ready")
    def _ready_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_ready()
