"""What the client knows about its table, and the sentences it says about it.

Kept free of Textual so it can be tested on its own: the app stores one `GameState`,
screens read it, and the helpers here turn seat numbers and events (untrusted host
data) into plain `Text` for the log and the summaries.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from client.meanings import meaning_words
from client.reactions import SHOW_SECONDS
from client.text import card_text, plain, styled, suit_text
from pitchnet.cards import Card, CardParseError
from pitchnet.events import (
    Bid,
    Claimed,
    Dealt,
    Disconnected,
    Event,
    HandScored,
    Joined,
    Left,
    MatchWon,
    Played,
    Reconnected,
    Rotated,
    SeatChanged,
    StoodIn,
    TimedOut,
    TookOver,
    TrickWon,
)
from pitchnet.house_rules import HouseRules, label
from pitchnet.i18n import _
from pitchnet.protocol import BOT_SUFFIX, MAX_NAME, SeatKind, TableInfo
from pitchnet.reactions import Reaction
from pitchnet.rules import HandResult, Phase
from pitchnet.text import printable
from pitchnet.views import SeatView


@dataclass
class GameState:
    """The latest snapshot from the host plus what the handshake told us."""

    ascii_only: bool = False
    seat: int | None = None
    """The seat the host welcomed us to: ours, or claimed until the next hand (`me`)."""
    table_id: str = ""
    table_name: str = ""
    seq: int = -1
    table: TableInfo | None = None
    view: SeatView | None = None
    log: list[Text] = field(default_factory=list)
    log_table_id: str = ""
    """The table the log is about: rejoining it keeps the log, another table starts afresh."""
    received_at: float = 0.0
    """time.monotonic() when the latest snapshot arrived (away times count on from it)."""
    hosting: bool = False
    """This window hosts the table (its header says so; quitting asks first)."""
    watching: bool = False
    """A spectator: no seat, no hand, no moves."""
    reactions: dict[int, tuple[Reaction, float]] = field(default_factory=dict)
    """The latest reaction from each seat and when it came (`clock`), shown for a while."""
    clock: Callable[[], float] = time.monotonic
    """What a reaction's age is read from (tests drive it)."""

    def reaction(self, seat: int) -> Reaction | None:
        """The reaction to show beside `seat` now: its latest, for `SHOW_SECONDS`."""
        shown = self.reactions.get(seat)
        if shown is None or self.clock() - shown[1] >= SHOW_SECONDS:
            return None
        return shown[0]

    def forget_old_reactions(self) -> bool:
        """Drop reactions past their time; True if any was dropped (redraw then)."""
        old = [seat for seat in self.reactions if self.reaction(seat) is None]
        for seat in old:
            del self.reactions[seat]
        return bool(old)

    def name(self, seat: int | None) -> str:
        """A seat's display name, cleaned; "Seat N" if the seat is unknown or unnamed."""
        base, bot = self.name_parts(seat)
        return base + bot

    def name_parts(self, seat: int | None) -> tuple[str, str]:
        """A seat's name and the mark of a bot playing a leaver's seat: the host names that
        seat "Bob (bot)" (in English, on the wire); shown as "Bob" and " (bot)" in the
        reader's language, so a narrow seat cuts the name and keeps the mark."""
        if seat is None:
            return _("nobody"), ""
        if self.table and 0 <= seat < len(self.table.seats):
            info = self.table.seats[seat]
            name = printable(info.name, MAX_NAME)
            if info.kind == SeatKind.BOT and name.endswith(BOT_SUFFIX) and name != BOT_SUFFIX:
                # TRANSLATORS: after the name of a player who left, whose seat a bot plays.
                return name.removesuffix(BOT_SUFFIX), " " + _("(bot)")
            if name:
                return name, ""
        return _("Seat {seat}", seat=seat + 1), ""

    @property
    def me(self) -> int | None:
        """The seat this viewer plays now: every "You" and "your turn" on screen goes by
        it, never by `seat`. None for a spectator, and for a newcomer who has claimed a
        seat a bot plays until the next hand (`seat` is that seat; the host sends them the
        spectators' view meanwhile), so neither is ever told the bot's bids are theirs."""
        if self.watching or (self.view is not None and self.view.spectator):
            return None
        return self.seat

    def who(self, seat: int | None) -> str:
        """A seat's name, or "You" for the seat this viewer plays."""
        return _("You") if seat is not None and seat == self.me else self.name(seat)

    def side_name(self, side: int | None) -> str:
        """A scoring side: the seat's name, or "Team A (Ann & Cat)" in partnership play."""
        if side is None:
            return _("nobody")
        view = self.view
        if view is not None and view.partnership:
            members = " & ".join(self.who(s) for s in range(view.players) if s % 2 == side)
            return _("Team {team} ({members})", team="AB"[side % 2], members=members)
        return self.who(side)

    @property
    def is_starter(self) -> bool:
        return self.table is not None and self.seat is not None and self.table.starter == self.seat

    def reset(self) -> None:
        """Forget the table (left it, or joining another). The log stays until another
        table welcomes us (`start_log`), so rejoining the same table keeps it."""
        self.seat, self.table_id, self.table_name, self.seq = None, "", "", -1
        self.table, self.view = None, None

    def start_log(self, table_id: str) -> None:
        """Welcomed at `table_id`: keep the log if it is about that table, else a new one
        (a new list, so the log widget sees it is not the one it drew)."""
        if table_id != self.log_table_id:
            self.log, self.log_table_id = [], table_id


def bid_word(amount: int | None, you: bool = False, *, top: int) -> str:
    """ "bids 2", "passes", "pitches (bids 4)" (after "You": "bid 2", "pass"...): the verb
    the seats' lines show after a name. `top` is the table's top bid (`top_bid`): a
    pitch, 4 or 5 with the joker."""
    if amount is None:
        return _("pass") if you else _("passes")
    if amount == top:
        return _("pitch (bid {bid})", bid=amount) if you else _("pitches (bids {bid})", bid=amount)
    return _("bid {bid}", bid=amount) if you else _("bids {bid}", bid=amount)


def hand_so_far(view: SeatView) -> list[Event]:
    """The public moves of the hand under way, as the events that told them: the log of
    whoever arrives mid-hand (a watcher, a late-comer, a client started again) began
    empty, and nothing said who had bid what until the next move (second game night)."""
    if view.phase not in (Phase.BIDDING, Phase.PLAYING):
        return []
    events: list[Event] = [Dealt(view.hand_number, view.dealer)]
    events += [Bid(seat, amount) for seat, amount in view.bids]
    for trick in view.tricks:
        plays = [(seat, str(card)) for seat, card in trick.plays]
        events += [Played(seat, card) for seat, card in plays]
        events.append(TrickWon(trick.winner, plays))
    events += [Played(seat, card) for seat, card in view.trick]
    return events


def describe_event(game: GameState, event: Event) -> Text | None:
    """One log line for one host event, or None for events the log does not show. The
    host is untrusted: a seat or card that makes no sense skips the line, never raises."""
    try:
        return _describe(game, event)
    except (IndexError, ValueError, CardParseError):
        return None


def _describe(game: GameState, event: Event) -> Text | None:
    """Each line is one whole sentence of the catalog, with a second one where the
    subject is "You" (many languages, like English, conjugate the verb for it)."""
    ascii_only = game.ascii_only
    you = getattr(event, "seat", getattr(event, "dealer", None)) == game.me

    def who(seat: int | None, style: str = "") -> Text:
        return plain(game.who(seat), style=style)

    match event:
        case Dealt(hand=hand, dealer=dealer):
            if you:
                return styled(_("-- Hand {hand}: You deal --"), "bold", hand=hand)
            return styled(_("-- Hand {hand}: {name} deals --"), "bold", hand=hand, name=who(dealer))
        case Bid(seat=seat, bid=amount):
            if amount is None:
                return styled(_("You pass") if you else _("{name} passes"), name=who(seat))
            if amount == top_bid(game.view):
                template = _("You pitch (bid {bid})") if you else _("{name} pitches (bids {bid})")
                return styled(template, name=who(seat), bid=amount)
            template = _("You bid {bid}") if you else _("{name} bids {bid}")
            return styled(template, name=who(seat), bid=amount)
        case Played(seat=seat, card=card):
            template = _("You play {card}") if you else _("{name} plays {card}")
            return styled(template, name=who(seat), card=card_text(Card.parse(card), ascii_only))
        case TrickWon(winner=winner):
            mine = winner == game.me
            template = _("You won the trick") if mine else _("{name} won the trick")
            return styled(template, "bold", name=who(winner))
        case HandScored(result=HandResult(redeal=True)):
            return Text(_("Everyone passed: the hand is thrown in, nobody scores."), style="bold")
        case HandScored(result=HandResult(pitcher=int() as pitcher, bid=int() as bid) as result):
            made, smudge = result.made, result.smudge
            mine = pitcher == game.me
            if made and smudge is True:
                template = (
                    _("You made the bid of {bid}: a smudge!")
                    if mine
                    else _("{name} made the bid of {bid}: a smudge!")
                )
            elif made:
                template = (
                    _("You made the bid of {bid}") if mine else _("{name} made the bid of {bid}")
                )
            else:
                template = _("You were set back {bid}") if mine else _("{name} was set back {bid}")
            return styled(template, "bold", name=who(pitcher), bid=bid)
        case Rotated():
            view = game.view
            if view is not None and view.partnership and game.me is not None:
                partner = (game.me + 2) % view.players
                return styled(
                    _("Partners rotated for the new match: you now play with {name}"),
                    "bold",
                    name=plain(game.name(partner)),
                )
            return Text(_("Partners rotated for the new match"), style="bold")
        case MatchWon(winner=winner):
            partners = game.view is not None and game.view.partnership
            mine = winner is not None and winner == game.me and not partners
            template = _("You won the match!") if mine else _("{name} won the match!")
            return styled(template, "bold", name=plain(game.side_name(winner)))
        case Joined(seat=seat):
            return styled(_("You sat down") if you else _("{name} sat down"), name=who(seat))
        case Left(seat=seat):
            template = _("You left the table") if you else _("{name} left the table")
            return styled(template, name=who(seat))
        case Reconnected(seat=seat):
            return styled(_("You are back") if you else _("{name} is back"), name=who(seat))
        case Disconnected(seat=seat):
            template = _("You lost the connection") if you else _("{name} lost the connection")
            return styled(template, name=who(seat))
        case StoodIn(seat=seat):
            return styled(_("{name}: a bot plays for now"), name=who(seat))
        case TimedOut(seat=seat):
            return styled(_("{name}: time ran out; a bot made this one move"), name=who(seat))
        case Claimed(seat=seat, name=name):
            return styled(
                _("{newcomer} takes over from {name} at the next hand"),
                newcomer=plain(printable(name, MAX_NAME), style="bold"),
                name=plain(game.name(seat)),
            )
        case TookOver(seat=seat, name=name, was=was):
            return styled(
                _("{newcomer} took over seat {seat} (was {name})"),
                newcomer=plain(printable(name, MAX_NAME), style="bold"),
                seat=seat + 1,
                name=plain(printable(was, MAX_NAME)),
            )
        case SeatChanged(seat=seat):
            template = _("You moved to seat {seat}") if you else _("{name} moved to seat {seat}")
            return styled(template, name=who(seat), seat=seat + 1)
    return None


def refusal(view: SeatView, card: str) -> str | None:
    """Why `card` may not be played now, or None. A dimmed card explains itself without a
    round trip when the view says why (`view.play_meaning`, on our turn to play, worded
    here in the player's language; `play_rule`, the host's English, from an older host);
    any other move goes to the host, which decides and the app words its refusal, so the
    client keeps no copy of the rules themselves."""
    if card in view.legal_plays or (view.play_rule is None and view.play_meaning is None):
        return None
    return meaning_words(view.play_meaning, view.play_rule)


def top_bid(view: SeatView | None) -> int:
    """The bid that ends the auction at once (a pitch), as the table's rules say
    (`HouseRules.top_bid`: 4, or 5 with the joker). An option or value this client does
    not know (a newer host's) is left out rather than refused."""
    return (view.house_rules if view is not None else HouseRules()).top_bid


def rules_text(game: GameState) -> Text:
    """The table's house rules for the lobby and the help: "House rules: joker, to 10"
    and one line per rule that differs from the rule book. Unknown rules (a newer host)
    are shown as the host named them."""
    table = game.table
    if table is None:
        return Text("")
    rules = table.house_rules
    if rules is None:
        raw = ", ".join(f"{k}={v}" for k, v in table.rules.items())
        return Text(_("House rules: "), style="bold").append(plain(raw, limit=200))
    line = Text(_("House rules: "), style="bold").append(label(rules, table.target))
    for phrase in rules.describe():
        line.append(f"\n  - {phrase}")
    if not rules.changes():
        line.append("\n  - " + _("the rule book (RULES.md): no house rules"))
    return line


def status_line(game: GameState, width: int | None = None) -> Text:
    """The one-line header of the table: hand, trump, high bid and pitcher, target.

    Given the `width` it must fit in, the table's name gives way first (shortened, then
    dropped), then the notes (hosted here; "watching" stays, short), then the labels shrink
    ("H1"), then the pitcher's name is shortened: trump, the bid and the target, which play needs,
    stay whole down to 30 columns. Widths are in cells (Telugu's vowel signs take none)."""
    view = game.view
    name = plain(game.table_name or "pitchnet", style="bold")
    notes = Text()
    if game.hosting:
        notes.append("  " + _("(hosted here)"), style="yellow")
    if game.watching:
        notes.append("  " + _("(watching)"), style="yellow")
    elif game.me is None and game.seat is not None and view is not None:
        notes.append(
            "  " + _("(watching; seat {seat} at the next hand)", seat=game.seat + 1),
            style="yellow",
        )
    head = name.copy().append_text(notes)
    if view is None:
        return head if width is None else head[:width]
    pitcher = game.who(view.pitcher)

    def facts(compact: bool, name: str, bid: bool = True) -> Text:
        gap = " " if compact else "  "
        hand = view.hand_number
        # TRANSLATORS: "H3" is "Hand 3" shortened for a 40-column screen.
        line = Text(_("H{hand}", hand=hand) if compact else _("Hand {hand}", hand=hand))
        trump = suit_text(view.trump, game.ascii_only)
        line.append(gap).append_text(styled(_("Trump {suit}"), suit=trump))
        if view.high_bid is not None and bid:
            line.append(gap).append_text(
                styled(_("Bid {bid}: {name}"), bid=view.high_bid, name=plain(name))
            )
        line.append(gap).append(_("To {target}", target=view.target))
        return line

    full = facts(False, pitcher)
    if width is None or head.cell_len + 2 + full.cell_len <= width:
        return head.append("  ").append_text(full)
    room = width - 2 - full.cell_len - notes.cell_len
    if room >= 8:  # the table's name, shortened
        cut = name.copy()
        cut.truncate(room - 1)  # by cells, between clusters (a Telugu sign stays on)
        return cut.append("…").append_text(notes).append("  ").append_text(full)
    if notes.plain and notes.cell_len + full.cell_len <= width:
        return notes[2:].append("  ").append_text(full)
    compact = facts(True, pitcher)
    # Watching (or watching until our seat comes at the next hand) says why no card can
    # be played: at 40 columns it stays, short, before the compact facts (the pitcher's
    # name shortened, or the bid left out: this person does not play this hand).
    tag = None
    if game.watching:
        tag = Text(_("(watching)"), style="yellow").append(" ")
    elif game.me is None and game.seat is not None:
        tag = Text(_("seat {seat} next hand", seat=game.seat + 1), style="yellow").append(" ")
    if tag is not None:
        over = tag.cell_len + compact.cell_len - width
        keep = cell_len(pitcher) - over - 1 if over > 0 else cell_len(pitcher)
        if keep >= 3:
            shown = pitcher if keep >= cell_len(pitcher) else set_cell_size(pitcher, keep) + "…"
            return tag.append_text(facts(True, shown))
        bare = facts(True, pitcher, bid=False)
        if tag.cell_len + bare.cell_len <= width:
            return tag.append_text(bare)
    if full.cell_len <= width:
        return full
    if compact.cell_len <= width:
        return compact
    keep = max(1, cell_len(pitcher) - (compact.cell_len - width) - 1)
    line = facts(True, set_cell_size(pitcher, keep) + "…")
    line.truncate(width)
    return line
