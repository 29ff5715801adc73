"""The lobby: who sits where, who is a bot, and Start for the table's creator.

The match also starts by itself when every seat is taken, so everyone else only
waits here; the screen says whom the table waits for, and for how long. A player moves
to an open seat with its number key; in partnership play the seats are shown as the
two teams (A: seats 1 and 3, B: seats 2 and 4) and `t` moves a player to the other side.
"""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.widgets import Button, Static

from client.model import GameState
from client.screens.base import FirstShow, PitchScreen
from client.text import duration, level_name, plain, styled
from client.widgets.footer import PitchFooter
from client.widgets.seats import TEAMS, lobby_table
from pitchnet.house_rules import rules_name
from pitchnet.i18n import N_, _, ngettext, number
from pitchnet.protocol import SeatKind


def lobby_title(game: GameState, narrow: bool = False, width: int | None = None) -> Text:
    """The table's name and facts; `narrow` (a phone's 40 columns, two lines) in fewer
    words, so that the rules' key and the bots' level are not cut off. Given the `width`,
    no fact is split between lines: the title takes two lines at most, and facts that do
    not fit are left out, the least needed first (a Lithuanian phone read "botai:" with
    the level cut off)."""
    gap = " " if narrow else "  "
    pieces: list[tuple[Text, int]] = [(plain(game.table_name or _("A table"), style="bold"), 9)]
    if game.hosting:
        pieces.append((Text(_("(hosted here)"), style="yellow"), 4))
    if game.watching:
        pieces.append((Text(_("(watching)"), style="yellow"), 5))
    table = game.table
    if table is not None:
        players, target = table.players, table.target
        if narrow:
            facts = ngettext("{n} players, to {target}", "{n} players, to {target}", players)
        else:
            facts = ngettext(
                "{n} players, to {target} points", "{n} players, to {target} points", players
            )
        facts = facts.replace("{target}", number(target))
        if table.partnership:
            facts = _("{facts}, partners", facts=facts)
        pieces.append((Text(facts.replace("{n}", number(players)), style="dim"), 8))
        if table.password:
            pieces.append((Text(_("(password)"), style="dim"), 2))
        rules = table.house_rules
        if table.rules:  # a host from before house rules sends none
            name = rules_name(rules) if rules else _("house rules")
            key = (
                _("{name} rules (F2)", name=name)
                if narrow
                else _("rules: {name} (F2 lists them)", name=name)
            )
            pieces.append((Text(key, style="dim"), 7))
        if table.bot_level:  # a host from before bot levels does not say
            bots = _("{level} bots", level=level_name(table.bot_level))
            pieces.append((Text(bots, style="dim"), 6))
        if table.turn_timer:  # after this long a bot makes the move for a person, once
            turns = _("{seconds} s turns", seconds=round(table.turn_timer))
            pieces.append((Text(turns, style="dim"), 3))
    texts = [text for text, _need in pieces]
    if width is not None:
        texts = _fit_lines(pieces, width, gap, lines=2)
    title = Text()
    for text in texts:
        if title.plain and not title.plain.endswith("\n"):
            title.append(gap)
        title.append_text(text)
    return title


def _fit_lines(pieces: list[tuple[Text, int]], width: int, gap: str, lines: int) -> list[Text]:
    """The pieces, each whole, laid out in at most `lines` lines of `width` cells (a line
    break ends a line's last piece); the least needed left out until they fit. The first
    piece (the name) always stays, cut to the width if it must."""
    kept = list(pieces)
    while True:
        laid: list[Text] = []
        used, rows = 0, 1
        for text, _need in kept:
            size = min(text.cell_len, width)
            if laid and used + len(gap) + size > width:
                laid[-1] = laid[-1] + Text("\n")
                used, rows = 0, rows + 1
            used += size + (len(gap) if used else 0)
            laid.append(text)
        if rows <= lines or len(kept) == 1:
            return laid
        least = min(range(1, len(kept)), key=lambda i: kept[i][1])
        del kept[least]


SHORT_BELOW = 24
"""Rows below which (a phone's 20) the hint gives up its last lines rather than the
buttons under it: seven seats, the hint and Start do not all fit in 20 rows."""

NARROW_BELOW = 56
"""Columns below which the seats are drawn narrow (as the table's narrow mode)."""

SHOW_WAIT_AFTER = 10.0
"""Seconds of waiting before the lobby and the summary say how long it has been."""


def lobby_hint(game: GameState, since: float = 0.0, *, narrow: bool = False) -> Text:
    """Whom the table waits for, for how long, and what this player can do (`narrow`:
    the starter's sentence in short, whole at 40x15 where the long one was cut off)."""
    table = game.table
    if table is None:
        return Text("")
    free = sum(seat.kind == SeatKind.EMPTY for seat in table.seats)
    seconds = table.waiting + since
    # How long, once it is worth saying (a few seconds in, nobody needs a clock).
    waited = duration(seconds) if seconds >= SHOW_WAIT_AFTER else ""
    if game.is_starter:
        if narrow:
            sentence = ngettext(
                "{n} seat open: s starts with bots, or the match starts once it is taken.",
                "{n} seats open: s starts with bots, or the match starts once all are taken.",
                free,
            )
        elif waited:
            sentence = ngettext(
                "{n} seat open; the table has waited {time}. Press s to start now with bots "
                "in the empty seats, or wait for friends: the match starts when every seat "
                "is taken.",
                "{n} seats open; the table has waited {time}. Press s to start now with bots "
                "in the empty seats, or wait for friends: the match starts when every seat "
                "is taken.",
                free,
                time=waited,
            )
        else:
            sentence = ngettext(
                "{n} seat open. Press s to start now with bots in the empty seats, or wait "
                "for friends: the match starts when every seat is taken.",
                "{n} seats open. Press s to start now with bots in the empty seats, or wait "
                "for friends: the match starts when every seat is taken.",
                free,
            )
        text = Text(sentence)
    else:
        starter = (
            Text(_("the first player")) if table.starter is None else plain(game.who(table.starter))
        )
        # How long the table has waited so far, after whom: "Waiting 52 s for Alice" read
        # as a countdown.
        if waited:
            template = ngettext(
                "Waiting for {name} to start, or for {n} more player to fill the table "
                "(waiting {time} so far).",
                "Waiting for {name} to start, or for {n} more players to fill the table "
                "(waiting {time} so far).",
                free,
                name="{name}",
                time=waited,
            )
        else:
            template = ngettext(
                "Waiting for {name} to start, or for {n} more player to fill the table.",
                "Waiting for {name} to start, or for {n} more players to fill the table.",
                free,
                name="{name}",
            )
        text = styled(template, name=starter)
    if game.seat is not None and table.partnership:
        text.append("\n" + side_hint(game), style="dim")
    elif game.seat is not None and free:
        text.append("\n" + _("A seat's number key moves you there."), style="dim")
    if table.spectators:
        text.append("\n" + _("{n} watching.", n=table.spectators), style="dim")
    return text


def side_seat(game: GameState) -> int | None:
    """An open seat on the other team (partnership play), for `t`."""
    table = game.table
    if table is None or game.seat is None or not table.partnership:
        return None
    for seat, info in enumerate(table.seats):
        if info.kind == SeatKind.EMPTY and seat % 2 != game.seat % 2:
            return seat
    return None


def side_hint(game: GameState) -> str:
    """Partnership play: which team this player is on and how to change sides."""
    assert game.seat is not None
    mine, other = TEAMS[game.seat % 2], TEAMS[1 - game.seat % 2]
    seat = side_seat(game)
    if seat is None:
        return _("You are on team {mine}; team {other} has no open seat.", mine=mine, other=other)
    return _(
        "You are on team {mine}; t moves you to team {other} (seat {seat}), "
        "a number key to that seat.",
        mine=mine,
        other=other,
        seat=seat + 1,
    )


class LobbyScreen(FirstShow, PitchScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("s", "start", N_("Start with bots")),
        Binding("t", "side", N_("Change sides")),
        *(Binding(str(n), f"sit({n})", N_("Sit in seat {n}"), show=False) for n in range(1, 8)),
        Binding("escape", "leave", N_("Leave")),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(id="lobby", classes="panel"):
            yield Static("", id="lobby-title", markup=False)
            yield Static("", id="lobby-seats", markup=False)
            yield Static("", id="lobby-hint", markup=False)
            with Horizontal(id="lobby-buttons"):
                yield Button(_("Start with bots"), id="start", variant="primary", compact=True)
                yield Button(_("Leave"), id="leave", compact=True)
        yield PitchFooter()

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)  # the "waited" clock counts on

    def _tick(self) -> None:
        if self._shown:
            game = self.app.game
            since = time.monotonic() - game.received_at
            self.query_one("#lobby-hint", Static).update(self._hint(game, since))

    def first_show(self) -> None:
        self.set_class(self.size.height < SHORT_BELOW, "-short")
        super().first_show()

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.height < SHORT_BELOW, "-short")
        if self._shown:
            self.show(self.app.game)  # the seats drawn for the new width

    def show(self, game: GameState) -> None:
        if not self._shown:
            return
        narrow = self.size.width < NARROW_BELOW
        width = self.query_one("#lobby-title", Static).content_size.width or self.size.width
        self.query_one("#lobby-title", Static).update(lobby_title(game, narrow, width))
        self.query_one("#lobby-seats", Static).update(lobby_table(game, narrow=narrow))
        self.query_one("#lobby-hint", Static).update(self._hint(game))
        self.query_one("#start", Button).display = game.is_starter
        self.refresh_bindings()

    def _hint(self, game: GameState, since: float = 0.0) -> Text:
        """The hint, and where browsers join when this window serves them the table."""
        hint = lobby_hint(game, since, narrow=self.size.width < NARROW_BELOW)
        urls = self.app.web_urls
        if urls:
            hint = Text.assemble(
                Text(_("Phones and browsers join at") + " ", style="bold"),
                Text(" ".join(urls), style="bold underline"),
                Text(" " + _("(w: its QR code)") + "\n", style="dim"),
                hint,
            )
        return hint

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        game = self.app.game
        if action == "start":
            return game.is_starter  # hidden otherwise
        if action == "side":
            return game.table is not None and game.table.partnership and game.seat is not None
        return True

    def action_start(self) -> None:
        self.app.send_start()

    def action_sit(self, number: int) -> None:
        """Move to seat `number` (counted from 1) if it is open."""
        game = self.app.game
        table = game.table
        if table is None or game.seat is None or not 1 <= number <= len(table.seats):
            return
        if table.seats[number - 1].kind != SeatKind.EMPTY:
            self.notify(_("Seat {seat} is taken.", seat=number), markup=False)
            return
        self.app.send_sit(number - 1)

    def action_side(self) -> None:
        seat = side_seat(self.app.game)
        if seat is None:
            other = TEAMS[1 - (self.app.game.seat or 0) % 2]
            self.notify(_("Team {team} has no open seat.", team=other), markup=False)
            return
        self.app.send_sit(seat)

    def action_leave(self) -> None:
        self.app.confirm_leave()

    @on(Button.Pressed, "#start")
    def _start_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_start()

    @on(Button.Pressed, "#leave")
    def _leave_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_leave()
