"""The players around the table (and the lobby's seat list), as plain-text tables.

Names come from the network, so every cell is a `Text` built by `plain()`; a Rich
table never parses them as markup.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from client.model import GameState
from client.text import plain
from pitchnet.i18n import _, number, pgettext
from pitchnet.protocol import SeatInfo, SeatKind


def presence_kind(info: SeatInfo | None) -> str:
    """How a seat is being played, as a key (never its words): "open", "bot", "stand-in"
    (a bot plays for an absent person), "away" or "here"."""
    if info is None or info.kind == SeatKind.EMPTY:
        return "open"
    if info.kind == SeatKind.BOT:
        return "bot"
    if info.substitute:
        return "stand-in"
    return "here" if info.connected else "away"


def presence(
    info: SeatInfo | None,
    since: float = 0.0,
    grace: float | None = None,
    room: int | None = None,
) -> Text:
    """How a seat is being played: by its human, a bot, or nobody for now. An absent
    player shows how long they have been away (`since` seconds after the snapshot), or,
    given the `grace`, how long before a bot takes their turn. Given the `room` (cells)
    a seat has, a bot's part is said in the catalog's narrow form where the full one
    does not fit (a phone's seat is ten cells: cut, "botas po 5s" read "botas po 5")."""
    kind = presence_kind(info)
    if kind == "open":
        return Text(_("open"), style="italic dim")
    if kind == "bot":
        return Text(_("bot"), style="dim")
    if kind == "stand-in":
        words = _("bot plays")
        if room is not None and cell_len(words) > room:
            # TRANSLATORS: a bot plays for an absent player, in a seat of ten cells (a phone's).
            words = pgettext("narrow seat", "bot plays")
        return Text(words, style="yellow")
    if kind == "away" and info is not None:
        away = max(0.0, info.away + since)
        if grace is not None:
            # TRANSLATORS: a bot plays for this absent player in 58 seconds; a narrow column.
            left = max(0, round(grace - away))
            words = _("bot in {seconds}s", seconds=left)
            if room is not None and cell_len(words) > room:
                # TRANSLATORS: "bot in 58s" in a seat of ten cells (a phone's): at most 9.
                words = pgettext("narrow seat", "bot in {seconds}s", seconds=left)
            return Text(words, style="bold red")
        words = _("away {seconds}s", seconds=round(away)) if away >= 1 else _("away")
        return Text(words, style="bold red")
    return Text(_("here"), style="green")


def _bid(view_bids: list[tuple[int, int | None]], seat: int) -> str:
    for bidder, amount in view_bids:
        if bidder == seat:
            return _("pass") if amount is None else str(amount)
    return ""


def seats_table(game: GameState, since: float = 0.0) -> Table:
    """Everyone at the table: turn, name, dealer/pitcher marks, presence, cards,
    bid, tricks and score (the team's score in partnership play)."""
    view, table = game.view, game.table
    grid = Table(box=None, padding=(0, 1, 0, 0), expand=True, show_edge=False)
    grid.add_column(" ", width=1, no_wrap=True)
    grid.add_column(_("Player"), ratio=1, no_wrap=True, overflow="ellipsis")
    grid.add_column("", width=3, no_wrap=True)
    grid.add_column("", width=10, no_wrap=True)
    # TRANSLATORS: column heads of at most four cells: "Crd" cards held, "Bid", "Trk"
    # tricks won, "Pts" points. Abbreviate as your language does.
    for title in (_("Crd"), _("Bid"), _("Trk"), _("Pts")):
        grid.add_column(title, width=4, justify="right", no_wrap=True)
    if view is None:
        return grid
    grace = table.grace if table is not None and table.substitute else None
    for seat in range(view.players):
        info = table.seats[seat] if table and seat < len(table.seats) else None
        mine = seat == game.me
        turn = view.turn == seat
        marker = Text(">" if game.ascii_only else "▶", style="bold yellow") if turn else Text("")
        # The viewer's own row is marked by its own column ("you" where the others show
        # their presence), never by text after the name: a name could copy that text.
        name = plain(game.name(seat), style="bold" if turn else "")
        if view.partnership:
            name = Text(f"{'AB'[seat % 2]} ", style="dim").append_text(name)
        marks = Text("D" if view.dealer == seat else " ", style="cyan")
        marks.append("P" if view.pitcher == seat else " ", style="bold magenta")
        side = view.side_of(seat)
        score = view.scores[side] if 0 <= side < len(view.scores) else 0
        grid.add_row(
            marker,
            name,
            marks,
            Text(_("you"), style="italic")
            if mine
            else presence(info, since, grace if turn else None),
            number(view.hand_counts[seat]) if seat < len(view.hand_counts) else "",
            _bid(view.bids, seat),
            number(view.tricks_won[seat]) if seat < len(view.tricks_won) else "",
            number(score),
        )
    return grid


TEAMS = "AB"
"""Team A holds seats 1 and 3 as players count them (indices 0 and 2), team B 2 and 4."""


def lobby_order(game: GameState) -> list[int | None]:
    """The lobby's rows as seats: in seat order, or in partnership play team A's seats,
    a gap (None), then team B's, so the two teams read as two groups."""
    table = game.table
    if table is None:
        return []
    seats = range(len(table.seats))
    if not table.partnership:
        return list(seats)
    return [*seats[0::2], None, *seats[1::2]]


def lobby_table(game: GameState, *, narrow: bool = False) -> Table:
    """The lobby's seats: who sits where and who is a bot or still to come; in
    partnership play grouped as the two teams, each named on its first row. `narrow`
    (a phone's 40 columns): tighter columns and shorter names, so the seat numbers and
    who is here still show."""
    grid = Table(box=None, padding=(0, 1 if narrow else 2, 0, 0), expand=False, show_edge=False)
    table = game.table
    partnership = table is not None and table.partnership
    if partnership:
        grid.add_column(_("Team"), no_wrap=True)
    grid.add_column(_("Seat"), justify="right")
    grid.add_column(
        _("Player"),
        min_width=10 if narrow else 16,
        max_width=14 if narrow else 26,
        no_wrap=True,
        overflow="ellipsis",
    )
    grid.add_column("", width=1, no_wrap=True)
    grid.add_column("")
    if table is None:
        return grid
    from client.widgets.felt import team_style  # felt draws seats with `presence` above

    named: set[int] = set()
    for seat in lobby_order(game):
        if seat is None:
            grid.add_row()  # between the teams
            continue
        info = table.seats[seat]
        # Marks live in columns of their own, never in the name's: a name may copy any
        # text ("Victim (you) ★") but not the layout. The host refuses the wordings
        # below as names (pitchnet/text.py, `player_name`).
        starter = Text("")
        if info.kind == SeatKind.EMPTY:
            name = Text(_("waiting for a player..."), style="dim")
        else:
            name = plain(game.name(seat))
            if seat == table.starter:
                starter = Text("*" if game.ascii_only else "★", style="yellow")
        mine = seat == game.me and info.kind != SeatKind.EMPTY
        row: list[Text | str] = [
            str(seat + 1),
            name,
            starter,
            Text(_("you"), style="italic") if mine else presence(info),
        ]
        if partnership:
            side = seat % 2
            first = side not in named
            named.add(side)
            label = TEAMS[side] if narrow else _("Team {team}", team=TEAMS[side])
            row.insert(0, Text(label, style=team_style(side)) if first else "")
        grid.add_row(*row)
    return grid


class SeatsPanel(Static):
    """The table's players, redrawn from the whole game state on every snapshot."""

    DEFAULT_CSS = """
    SeatsPanel { height: auto; }
    """

    def show(self, game: GameState, since: float = 0.0) -> None:
        self.update(seats_table(game, since))
