"""The table seen from above: the seats in a ring in their real order with the player
at the bottom, each seat's card in front of it, trump and the trick's news in the middle.

Seats go round clockwise from the player (play passes to the left, so the next seat is
on the player's left), which puts a partner opposite. The layout is worked out for the
space there is: the largest set of sizes whose seats, cards and middle do not overlap
is drawn, down to one-line seats for seven players in a 60x20 terminal.

Everything drawn comes from the seat's view and the public table (`GameState`); names
from the network are cleaned and shortened here, never parsed as markup.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from client.model import GameState
from client.reactions import reaction_label
from client.text import card_text, styled, suit_text
from client.widgets.canvas import Canvas, Rect
from client.widgets.motion import Flight, Motion, Place, motion_allowed
from client.widgets.seats import presence, presence_kind
from client.widths import clusters, cut, head
from pitchnet.i18n import N_, _, ngettext, number, pgettext
from pitchnet.rules import Phase
from pitchnet.views import running_tally

PALETTES = {
    True: {  # on a dark theme
        "team_a": "bold #5fafff",
        "team_b": "bold #ffaf5f",
        "turn": "bold yellow",
        "frame": "#808080",
        "card": "#c0c0c0",
        "winner": "bold yellow",
    },
    False: {  # on a light theme
        "team_a": "bold #0060c0",
        "team_b": "bold #b35900",
        "turn": "bold #a05000",
        "frame": "#707070",
        "card": "#404040",
        "winner": "bold #a05000",
    },
}
"""Team A blue, team B orange (a pair that stays apart for every common colour vision);
the seat whose turn it is and the trick's winner in yellow (dark) or amber (light)."""
PALETTE = dict(PALETTES[True])


def use_felt_palette(dark: bool) -> None:
    PALETTE.update(PALETTES[dark])


def team_style(side: int) -> str:
    return PALETTE["team_a"] if side % 2 == 0 else PALETTE["team_b"]


@dataclass(frozen=True)
class Tier:
    """One set of sizes for the felt, from roomy to cramped."""

    name: str
    panel_w: int  # outer width of a seat
    panel_lines: int  # lines of text inside a seat (besides its title)
    boxed: bool
    card_w: int
    card_h: int
    centre_w: int
    centre_h: int
    min_height: int = 0
    """Only a felt this tall takes the tier (the huge one is for 200x60, not 120x40)."""
    ring: float = 1.0
    """How far the ring of seats may spread, as a share of MAX_RX, MAX_RY."""


TIERS = (
    Tier("huge", 26, 3, True, 9, 7, 21, 7, min_height=44, ring=1.3),
    Tier("large", 22, 3, True, 5, 4, 17, 5),
    Tier("medium", 18, 2, True, 4, 3, 15, 5),
    Tier("flat", 18, 2, True, 4, 1, 15, 3),
    Tier("small", 15, 1, False, 4, 1, 13, 3),
    Tier("narrow", 10, 1, False, 4, 1, 8, 3),
)


def shorten(name: str, width: int, others: list[str]) -> str:
    """`name` in at most `width` cells: cut at the end with an ellipsis, or, where that
    would read like another seat's name, keep the end too ("Chris…er"). Measured in
    cells and cut between letters (`clusters`): a Telugu letter keeps its vowel sign."""
    if cell_len(name) <= width:
        return name
    if width <= 1:
        return head(name, width)
    start = head(name, width - 1)
    clash = any(o != name and head(o, width - 1) == start for o in others)
    if not clash or width < 5:
        return start + "…"
    tail_room, tail = max(2, (width - 1) // 3), ""
    for letter in reversed(clusters(name)):
        if cell_len(letter + tail) > tail_room:
            break
        tail = letter + tail
    return head(name, width - 1 - cell_len(tail)) + "…" + tail


def relative(seat: int, me: int, players: int) -> int:
    """How many places clockwise from the player (0) a seat sits."""
    return (seat - me) % players


def seat_point(
    rel: int, players: int, cx: float, cy: float, rx: float, ry: float
) -> tuple[float, float]:
    """Where on the ring seat `rel` sits: 0 at the bottom, then left, top, right."""
    angle = math.radians(90 + rel * 360 / players)
    return cx + rx * math.cos(angle), cy + ry * math.sin(angle)


def _bid_of(view: Any, seat: int) -> tuple[bool, int | None]:
    for bidder, amount in view.bids:
        if bidder == seat:
            return True, amount
    return False, None


@dataclass
class Layout:
    tier: Tier
    panels: list[Rect]  # by seat number
    cards: list[Rect]  # by seat number
    centre: Rect


MAX_RX, MAX_RY = 48.0, 15.0
"""On a very big terminal the ring stops growing: a table, not seats lost in corners."""


def plan(
    tier: Tier, players: int, me: int, width: int, height: int, centre_w: int = 0
) -> Layout | None:
    """Place every seat, card and the middle for `tier`, or None if they would overlap
    or leave the felt. `centre_w` widens the middle for its text when there is room."""
    if height < tier.min_height:
        return None
    ph = tier.panel_lines + (2 if tier.boxed else 1)
    pw = min(tier.panel_w, width)
    cx, cy = (width - 1) / 2, (height - 1) / 2
    rx = min(MAX_RX * tier.ring, max(0.0, (width - pw) / 2))
    ry = min(MAX_RY * tier.ring, max(0.0, (height - ph) / 2))
    cw = max(tier.centre_w, centre_w + (2 if tier.boxed else 0))
    centre = Rect(
        round(cx - cw / 2 + 0.5),
        round(cy - tier.centre_h / 2 + 0.5),
        cw,
        tier.centre_h,
    )
    panels: list[Rect] = [Rect(0, 0, 0, 0)] * players
    points: list[tuple[float, float]] = [(0.0, 0.0)] * players
    for seat in range(players):
        px, py = seat_point(relative(seat, me, players), players, cx, cy, rx, ry)
        points[seat] = (px, py)
        panels[seat] = Rect(round(px - pw / 2 + 0.5), round(py - ph / 2 + 0.5), pw, ph)
    rects = [centre, *panels]
    if not all(r.inside(width, height) for r in rects) or _any_overlap(rects):
        return None
    # A blank column between the middle's text and a seat beside it ("0 ptsTrick 2").
    padded_centre = Rect(centre.x - 1, centre.y, centre.w + 2, centre.h)
    if any(padded_centre.overlaps(panel) for panel in panels):
        return None
    placed = list(rects)
    cards = []
    for seat in range(players):
        px, py = points[seat]
        tries = [
            (r, dy) for dy in (0, -1, 1) for r in (0.55, 0.5, 0.62, 0.45, 0.7, 0.38, 0.78, 0.3)
        ]
        for reach, dy in tries:
            x = cx + (px - cx) * reach
            y = cy + (py - cy) * reach + dy
            card = Rect(
                round(x - tier.card_w / 2 + 0.5),
                round(y - tier.card_h / 2 + 0.5),
                tier.card_w,
                tier.card_h,
            )
            padded = Rect(card.x - 1, card.y, card.w + 2, card.h)  # a blank column each side
            if card.inside(width, height) and not any(padded.overlaps(r) for r in placed):
                cards.append(card)
                placed.append(padded)
                break
        else:
            return None
    return Layout(tier, panels, cards, centre)


def _any_overlap(rects: list[Rect]) -> bool:
    return any(a.overlaps(b) for i, a in enumerate(rects) for b in rects[i + 1 :])


def choose_layout(
    players: int, me: int, width: int, height: int, centre_w: int = 0
) -> Layout | None:
    """The roomiest tier that fits; the middle as wide as its text where that fits."""
    for tier in TIERS:
        for wanted in (centre_w, 0) if centre_w else (0,):
            layout = plan(tier, players, me, width, height, wanted)
            if layout is not None:
                return layout
    return None


# ---- what is on the felt -------------------------------------------------------------------


@dataclass
class TrickShown:
    plays: list[tuple[int, str]]
    winner: int | None
    number: int
    last: bool  # the completed trick, still on the table or called back with the key


def trick_shown(game: GameState, recall: bool = False) -> TrickShown | None:
    """The cards to draw: the trick being played; once it is complete, that trick with
    its winner until the next card is led; with `recall`, the last completed trick."""
    view = game.view
    if view is None:
        return None
    if view.trick and not recall:
        return TrickShown(list(view.trick), None, len(view.tricks) + 1, False)
    if view.tricks and (recall or view.phase != Phase.BIDDING):
        last = view.tricks[-1]
        plays = [(seat, card.text) for seat, card in last.plays]
        return TrickShown(plays, last.winner, len(view.tricks), True)
    return None


# ---- drawing -------------------------------------------------------------------------------


def _panel_style(game: GameState, seat: int) -> str:
    view = game.view
    assert view is not None
    if view.turn == seat:
        return PALETTE["turn"]
    if view.partnership:
        return team_style(seat)
    return PALETTE["frame"]


def _marks(game: GameState, seat: int) -> Text:
    view = game.view
    assert view is not None
    marks = Text()
    if view.dealer == seat:
        marks.append(" D", style="bold cyan")
    if view.pitcher == seat:
        marks.append(" P", style="bold magenta")
    return marks


def _name_line(game: GameState, seat: int, width: int, others: list[str]) -> Text:
    view = game.view
    assert view is not None
    turn = view.turn == seat
    ascii_only = game.ascii_only
    line = Text()
    if turn:
        line.append(">" if ascii_only else "▶", style=PALETTE["turn"])
    if view.partnership:
        line.append("AB"[seat % 2], style=team_style(seat)).append(" ")
    marks = _marks(game, seat)
    full, bot = game.name_parts(seat)
    room = width - line.cell_len - marks.cell_len
    # TRANSLATORS: after the player's own name on the table: "Ann (you)".
    you = " " + _("(you)") if seat == game.me else ""
    if cell_len(full + bot + you) > room:
        you = ""
    if cell_len(full + bot) > room and room - cell_len(bot) < 2:
        bot = ""  # not even a letter of the name beside it: the name alone
    name = shorten(full, max(1, room - cell_len(you + bot)), others)
    line.append(name, style=PALETTE["turn"] if turn else "bold")
    line.append(bot, style="dim").append(you, style="italic").append_text(marks)
    return line


def _facts(
    game: GameState, seat: int, since: float, room: int
) -> tuple[Text, Text, Text, Text, str]:
    """Bid, tricks, score and state of one seat, as short texts (the state within `room`
    cells), and the state's key (`presence_kind`; "" for the viewer's own seat)."""
    view = game.view
    table = game.table
    assert view is not None
    has_bid, amount = _bid_of(view, seat)
    if has_bid:
        if amount is None:
            bid = Text(_("pass"), style="dim")
        else:
            bid = Text(_("bid {bid}", bid=amount), style="bold")
    else:
        bid = Text("")
    tricks = view.tricks_won[seat] if seat < len(view.tricks_won) else 0
    side = view.side_of(seat)
    score = view.scores[side] if 0 <= side < len(view.scores) else 0
    info = table.seats[seat] if table is not None and seat < len(table.seats) else None
    grace = table.grace if table is not None and table.substitute else None
    state = presence(info, since, grace if view.turn == seat else None, room)
    kind = presence_kind(info)
    if seat == game.me:
        state, kind = Text(""), ""
    return bid, Text(number(tricks)), Text(number(score)), state, kind


def _short_bid(game: GameState, seat: int) -> Text | None:
    """A seat's bid in its narrow form, or None where it bid nothing or passed."""
    has_bid, amount = _bid_of(game.view, seat) if game.view is not None else (False, None)
    if not has_bid or amount is None:
        return None
    # TRANSLATORS: a bid in the narrowest seats (a phone's, 60x20's), where "bid {bid}"
    # and the points do not fit: as short as a player still reads as a bid.
    return Text(pgettext("narrow seat", "bid {bid}", bid=amount), style="bold")


def points_text(score: str, gap: str = " ") -> Text:
    """ "5 pts", "1 pt", "-3 pts" (or "5pts" with no `gap`): the score in words, bold."""
    digits = "".join(ch for ch in score if ch.isdigit())
    count = int(digits) if digits.isascii() and digits else 0  # "-1" says "1 pt" too
    # TRANSLATORS: a seat's score in a narrow panel: "5 pts" (points), as short as you can.
    words = ngettext("{n} pt", "{n} pts", count, n=score)
    return Text(words if gap else words.replace(" ", ""), style="bold")


def seat_line(
    bid: Text, tricks: str, score: str, width: int, short_bid: Text | None = None
) -> tuple[Text, Text]:
    """A seat's one line of facts in `width` cells, in words a newcomer reads, and its
    shortest form. The bid always shows where it was made, in its narrow form
    (`short_bid`: Lithuanian's "pasiūl. 4" for "pasiūlymas 4") where the full one does
    not fit, the points beside it as short as they go; the tricks only where there is
    room for the word ("tricks 1"): never "b3 1t 0p" or "0tk 0pt", which players could
    not read."""
    points = points_text(score)
    short = short_bid if short_bid is not None and short_bid.plain else bid
    tight = Text(short.plain.replace(" ", ""), style=short.style)
    tried = [
        _join(bid, Text(_("tricks {n}", n=tricks)), points, sep=", "),
        _join(bid, points, sep=", "),
        _join(bid, points, sep=" "),  # a phone's seat: "bid 4 0 pts", the points in bold
        _join(  # the narrowest: "bid4 0pts", still words
            Text(bid.plain.replace(" ", ""), style=bid.style),
            points_text(score, gap=""),
            sep=" ",
        ),
        _join(short, points_text(score, gap=""), sep=" "),  # "pasiūl. 4 0tšk."
        _join(tight, points_text(score, gap=""), sep=" "),  # "pasiūl.4 0tšk."
        _join(tight, Text(score, style="bold"), sep=" "),  # "pasiūl.4 0", the points bold
        tight,
        points,
    ]
    brief = points
    line = next((t for t in tried if t.cell_len <= width), points)
    return line, brief


def card_backs(game: GameState, seat: int, room: int) -> Text:
    """The cards another seat holds, face down: one back each ("▮▮▮▮▮", "#####" in
    ASCII), or "5▮" where a row of them does not fit; nothing for our own seat (the hand
    below shows it), between hands, or where even the count does not fit."""
    view = game.view
    if view is None or seat == game.me or view.phase not in (Phase.BIDDING, Phase.PLAYING):
        return Text("")
    held = view.hand_counts[seat] if 0 <= seat < len(view.hand_counts) else 0
    back = "#" if game.ascii_only else "▮"
    style = PALETTE["frame"]
    if 0 < held <= room:
        return Text(back * held, style=style)
    if held and len(f"{held}{back}") <= room:
        return Text(f"{held}{back}", style=style)
    return Text("")


def _join(*parts: Text, sep: str = "  ") -> Text:
    out = Text()
    for part in parts:
        if not part.plain:
            continue
        if out.plain:
            out.append(sep)
        out.append_text(part)
    return out


def draw_panel(
    canvas: Canvas, game: GameState, seat: int, rect: Rect, tier: Tier, since: float
) -> None:
    names = [game.name(s) for s in range(game.view.players)] if game.view else []
    style = _panel_style(game, seat)
    bid, tricks, score, state, kind = _facts(game, seat, since, rect.w - 2 * tier.boxed)
    reaction = game.reaction(seat)
    if reaction is not None and not tier.boxed:  # for a few seconds in the state's place
        label = reaction_label(reaction, game.ascii_only, rect.w)
        state, kind = Text(label, style="bold reverse"), "reaction"
    if tier.boxed:
        inner = rect.w - 2
        heavy = game.view is not None and game.view.turn == seat
        frame = (
            ("ascii_heavy" if heavy else "ascii")
            if game.ascii_only
            else ("heavy" if heavy else "round")
        )
        canvas.box(rect, frame, style, None)
        title = _name_line(game, seat, inner - 1, names)
        if reaction is not None:  # for a few seconds on the top edge, after the name
            room = inner - 2 - title.cell_len
            label = reaction_label(reaction, game.ascii_only, room)
            if cell_len(label) <= room:
                title = _join(title, Text(label, style="bold reverse"), sep=" ")
            else:  # no room beside the name: the reaction has the line for now
                title = Text(reaction_label(reaction, game.ascii_only, inner - 1), "bold reverse")
        canvas.put_text(rect.x + 1, rect.y, title)
        backs = card_backs(game, seat, inner - 2)
        if backs.plain:  # on the bottom edge, as cards held face down below the name
            canvas.put_text(rect.x + 2, rect.y + rect.h - 1, backs)
        lines: list[Text]
        if tier.panel_lines >= 3:
            lines = [
                _join(bid, Text(_("tricks {n}", n=tricks.plain))),
                Text(_("score {n}", n=score.plain), style="bold"),
                state,
            ]
        else:
            first = _join(bid, Text(_("tricks {n}", n=tricks.plain)), sep="  ")
            if first.cell_len > inner:  # no "tk": the tricks wait for a wider seat
                first = bid
            points = points_text(score.plain)
            second = _join(points, state, sep="  ")
            if second.cell_len > inner:
                second = _join(points, state, sep=" ")
            if second.cell_len > inner:  # "0 pts bot in 5" told no unit: one of them whole
                second = state if kind not in ("", "here", "bot") else points
            lines = [first, second]
        for row, line in enumerate(lines[: tier.panel_lines]):
            canvas.put_text(rect.x + 1, rect.y + 1 + row, cut(line, inner))
        return
    line = brief = Text()
    if tier.panel_lines >= 1:
        line, brief = seat_line(bid, tricks.plain, score.plain, rect.w, _short_bid(game, seat))
    # A player away (or a bot about to stand in) must show even in the smallest seat:
    # beside the numbers, else beside the name, shortened for it, else in the numbers'
    # place; "bot" only where it fits.
    urgent = kind not in ("", "here", "bot")
    with_state = _join(line, state, sep=" ")
    title_room = rect.w
    if state.plain and kind != "here" and with_state.cell_len <= rect.w:
        line = with_state
    elif urgent and _join(brief, state, sep=" ").cell_len <= rect.w:
        line = _join(brief, state, sep=" ")
    elif urgent and rect.w - state.cell_len - 1 >= 5:
        title_room = rect.w - state.cell_len - 1
    elif urgent:  # no room beside a readable name: it stands for the numbers for now
        line = state
    title = _name_line(game, seat, title_room, names)
    if title_room < rect.w:
        title = _join(title, state, sep=" ")
    backs = card_backs(game, seat, rect.w - title.cell_len - 1)
    if backs.plain:
        title = _join(title, backs, sep=" ")
    canvas.put_text(rect.x, rect.y, cut(title, rect.w))
    if tier.panel_lines >= 1:
        canvas.put_text(rect.x, rect.y + 1, cut(line, rect.w))


def draw_card(
    canvas: Canvas, game: GameState, card: str, rect: Rect, *, winner: bool, led: bool
) -> None:
    face = card_text(card, game.ascii_only)
    style = PALETTE["winner"] if winner else (PALETTE["card"] if not led else "bold")
    if rect.h >= 3:
        kind = (
            ("ascii_heavy" if winner else "ascii")
            if game.ascii_only
            else ("double" if winner else "round")
        )
        canvas.box(rect, kind, style)
        inner = rect.w - 2
        if rect.h >= 6:  # a big card: its rank in two corners, its suit in the middle
            rank = Text(face.plain[:-1], style=face.style)
            suit = Text(face.plain[-1:], style=face.style)
            canvas.put_text(rect.x + 1, rect.y + 1, rank)
            canvas.put_text(rect.x + 1 + (inner - 1) // 2, rect.y + rect.h // 2, suit)
            canvas.put_text(rect.x + rect.w - 1 - rank.cell_len, rect.y + rect.h - 2, rank)
        elif rect.h >= 4:
            rank = Text(face.plain[:-1], style=face.style)  # "10" is two cells
            suit = Text(face.plain[-1:], style=face.style)
            canvas.put_text(rect.x + 1 + (inner - rank.cell_len) // 2, rect.y + 1, rank)
            canvas.put_text(rect.x + 1 + (inner - 1) // 2, rect.y + 2, suit)
        else:
            canvas.put_text(rect.x + 1 + (inner - 2) // 2, rect.y + 1, face)
        if winner:
            canvas.put(
                rect.x + rect.w - 1, rect.y, "*" if game.ascii_only else "✓", PALETTE["winner"]
            )
        return
    if face.cell_len > 2:  # a ten: "[10♠]" is a cell too wide, and "]" hid the suit
        canvas.put_text(rect.x, rect.y, face)  # its suit where the others' is
    else:
        canvas.put(rect.x, rect.y, "[", style)
        canvas.put_text(rect.x + 1, rect.y, face)
        canvas.put(rect.x + 3, rect.y, "]", style)
    if winner:  # in the blank column the layout keeps beside every card
        canvas.put(rect.x + 4, rect.y, "*" if game.ascii_only else "✓", style)


def centre_lines(game: GameState, shown: TrickShown | None, recall: bool) -> list[Text]:
    """The middle of the table: trump, the trick's number, what was led, who won."""
    view = game.view
    if view is None:
        return []
    lines: list[Text] = []
    if view.phase == Phase.BIDDING:
        lines.append(Text(_("Bidding"), style="bold"))
        if view.high_bid is not None:
            lines.append(Text(_("high bid {bid}", bid=view.high_bid)))
            lines.append(Text(game.who(view.pitcher)))
        else:
            lines.append(Text(_("no bid yet"), style="dim"))
        return lines
    trump = suit_text(view.trump, game.ascii_only)
    lines.append(styled(_("Trump {suit}"), "bold", suit=trump))
    if shown is None:
        if view.pitcher is not None and view.phase == Phase.PLAYING:
            if view.pitcher == game.me:
                lines.append(Text(_("You lead")))
            else:
                lines.append(Text(_("{name} leads", name=game.who(view.pitcher))))
        return lines
    if recall:
        lines.append(Text(_("Last: trick {n}", n=shown.number), style="bold"))
    else:
        lines.append(Text(_("Trick {n}", n=shown.number)))
    if shown.winner is not None:
        if shown.winner == game.me:
            won = _("You won")
        else:
            won = _("{name} won", name=game.who(shown.winner))
        lines.append(Text(won, style=PALETTE["winner"]))
    elif shown.plays:
        led = card_text(shown.plays[0][1], game.ascii_only)
        lines.append(styled(_("led {card}"), card=led))
    return lines


TALLY_LABELS = (
    ("high", N_("High")),
    ("low", N_("Low")),
    ("joker", N_("Joker")),
    ("jack", N_("Jack")),
    ("game", N_("Game")),
)
"""The tally's labels, one column as wide as the widest in the language in use."""


def tally_lines(game: GameState, width: int = 0) -> list[Text]:
    """What this hand has decided so far (public: from the completed tricks). Given a
    `width`, the Game line wraps after a side's points to stay within it, so every
    side's points show whole."""
    view = game.view
    if view is None or view.phase != Phase.PLAYING or view.trump is None:
        return []
    tally = running_tally(view)
    ascii_only = game.ascii_only
    lines = [Text(_("So far"), style="bold underline")]
    names = {key: _(word) for key, word in TALLY_LABELS}
    labelled = [key for key in names if key != "joker" or tally["joker"] is not None]
    column = max(cell_len(names[key]) for key in labelled) + 1  # the widest, and a space

    def label(key: str) -> Text:
        return Text(names[key] + " " * (column - cell_len(names[key])), style="bold")

    for key in ("high", "low"):
        entry = tally[key]
        line = label(key)
        if entry is None:
            lines.append(line.append("-", style="dim"))
        else:
            seat, card = entry
            lines.append(line.append_text(card_text(card, ascii_only)).append(f" {game.who(seat)}"))
    if tally["joker"] is not None:
        lines.append(label("joker").append(game.who(tally["joker"])))
    jack = tally["jack"]
    lines.append(
        label("jack").append(
            "-" if jack is None else game.who(jack), style="dim" if jack is None else ""
        )
    )
    points = tally["game_points"]
    game_line = label("game")
    if view.partnership:
        game_line.append(f"A {number(points[0])}  B {number(points[1])}")
    else:
        shown = [f"{game.who(side)} {number(p)}" for side, p in enumerate(points) if p] or ["0"]
        for index, entry in enumerate(shown):
            part = entry + ("," if index < len(shown) - 1 else "")
            if width and index and game_line.cell_len + 1 + cell_len(part) > width:
                lines.append(game_line)
                game_line = Text(" " * column)
            game_line.append(" " + part if index else part)
    lines.append(game_line)
    return lines


def _place_corner(layout: Layout, width: int, height: int, w: int, h: int) -> Rect | None:
    taken = [  # a blank column between the tally and a seat's words or a card
        layout.centre,
        *(Rect(p.x - 1, p.y, p.w + 2, p.h) for p in layout.panels),
        *(Rect(c.x - 1, c.y, c.w + 2, c.h) for c in layout.cards),
    ]
    for x, y in ((width - w, height - h), (0, height - h), (width - w, 0), (0, 0)):
        rect = Rect(x, y, w, h)
        if rect.inside(width, height) and not any(rect.overlaps(r) for r in taken):
            return rect
    return None


def felt_text(
    game: GameState,
    width: int,
    height: int,
    *,
    recall: bool = False,
    since: float = 0.0,
    flights: Sequence[tuple[Flight, float]] = (),
) -> Text:
    """The whole felt, `width` x `height` cells, with any cards in flight (each with its
    progress) drawn on their way, over the rest."""
    canvas = Canvas(width, height)
    view = game.view
    me = game.seat if game.seat is not None else 0  # a claimed seat at the bottom too
    if view is None or width < 10 or height < 3:
        return canvas.to_text()
    shown = trick_shown(game, recall)
    lines = centre_lines(game, shown, recall)
    widest = max((line.cell_len for line in lines), default=0)
    layout = choose_layout(view.players, me, width, height, widest)
    if layout is None:
        return Text(_("The window is too small for the table."), style="bold")
    tier = layout.tier
    for seat in range(view.players):
        draw_panel(canvas, game, seat, layout.panels[seat], tier, since)
    arriving = {f.target[1] for f, _progress in flights if f.target[0] == "trick"}
    if shown is not None:
        for index, (seat, card) in enumerate(shown.plays):
            if 0 <= seat < view.players and seat not in arriving:
                draw_card(
                    canvas,
                    game,
                    card,
                    layout.cards[seat],
                    winner=shown.winner == seat,
                    led=index == 0,
                )
    for most in range(24, 11, -1):  # narrower, the Game line wraps onto more rows
        tally = tally_lines(game, most)
        if not tally:
            break
        tw = min(most, max(line.cell_len for line in tally))
        corner = _place_corner(layout, width, height, tw, len(tally))
        if corner is None and len(tally) > 1:  # a smaller tally: without its heading
            tally = tally[1:]
            corner = _place_corner(layout, width, height, tw, len(tally))
        if corner is not None:
            for row, line in enumerate(tally):
                canvas.put_text(corner.x, corner.y + row, cut(line, tw))
            break
    centre = layout.centre
    boxed = tier.boxed and centre.h >= 4
    if boxed:
        kind = "ascii" if game.ascii_only else "round"
        canvas.box(centre, kind, PALETTE["frame"])
        top, inner = centre.y + 1, centre.w - 2
        left = centre.x + 1
    else:
        top, inner, left = centre.y, centre.w, centre.x
    for row, line in enumerate(lines[: max(0, centre.h - (2 if boxed else 0))]):
        fitted = cut(line, inner)
        canvas.put_text(left + (inner - fitted.cell_len) // 2, top + row, fitted)
    for flight, progress in flights:
        draw_flight(canvas, game, layout, flight, progress)
    return canvas.to_text()


def _place_rect(layout: Layout, place: Place) -> Rect | None:
    """A card-sized rect at a seat's panel (centred on it) or at its spot in the trick."""
    kind, seat = place
    if not 0 <= seat < len(layout.panels):
        return None
    if kind == "trick":
        return layout.cards[seat]
    panel, tier = layout.panels[seat], layout.tier
    return Rect(
        panel.x + (panel.w - tier.card_w) // 2,
        panel.y + (panel.h - tier.card_h) // 2,
        tier.card_w,
        tier.card_h,
    )


def draw_flight(
    canvas: Canvas, game: GameState, layout: Layout, flight: Flight, progress: float
) -> None:
    """One card on its way, `progress` (0 to 1) from its start to its end."""
    start, end = _place_rect(layout, flight.source), _place_rect(layout, flight.target)
    if start is None or end is None:
        return
    rect = Rect(
        round(start.x + (end.x - start.x) * progress),
        round(start.y + (end.y - start.y) * progress),
        start.w,
        start.h,
    )
    if flight.card is not None:
        draw_card(canvas, game, flight.card, rect, winner=flight.winner, led=False)
        return
    style = PALETTE["frame"]  # a card face down
    if rect.h >= 3:
        canvas.box(rect, "round", style)
        for row in range(rect.y + 1, rect.y + rect.h - 1):
            canvas.put(rect.x + 1, row, "▒" * (rect.w - 2), style)
    else:
        canvas.put(rect.x, rect.y, "[▒▒]", style)


class Felt(Widget):
    """The table top; redrawn whole from the game state on every snapshot and resize."""

    DEFAULT_CSS = """
    Felt { height: 1fr; width: 1fr; }
    """

    recall: reactive[bool] = reactive(False)
    since: reactive[float] = reactive(0.0)

    FRAME_SECONDS = 1 / 30

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.game: GameState | None = None
        self.motion = Motion.idle()
        self.clock: Callable[[], float] = time.monotonic
        """The motion's clock (a test that draws a frame of it sets its own)."""
        self._frames: Timer | None = None

    def motion_on(self, game: GameState) -> bool:
        wanted = getattr(getattr(self.app, "prefs", None), "motion", True)
        return motion_allowed(self.app.animation_level, game.ascii_only, bool(wanted))

    def show(self, game: GameState, since: float = 0.0) -> None:
        self.game = game
        self.since = since
        moving = self.motion_on(game)
        self.motion.update(game, trick_shown(game), self.clock(), moving)
        if self.motion.flights and self._frames is None:
            self._frames = self.set_interval(self.FRAME_SECONDS, self._next_frame)
        self.refresh()

    def _next_frame(self) -> None:
        self.refresh()
        if not self.motion.flights and self._frames is not None:
            self._frames.stop()
            self._frames = None

    def render(self) -> Text:
        if self.game is None:
            return Text("")
        return felt_text(
            self.game,
            self.size.width,
            self.size.height,
            recall=self.recall,
            since=self.since,
            flights=self.motion.current(self.clock()),
        )
