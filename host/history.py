"""`pitchnet history [TABLE_ID]`: the tables hosted on this laptop, or one table's hands,
read back from the journals.

Without an id it lists every table: name, when it last changed, who sat there and how
far it got (finished, in the lobby, or unfinished, with the hand that was cut off).

Each hand is printed once it is over: the cards dealt to each seat, the bids, the
six tricks, who took High, Low, Jack (and the Joker) and Game, and the scores. A hand
still in progress shows only what was played, never the cards still in anyone's hand.
The table's house rules come first: they are part of its options in the journal.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any, TextIO

from host.entries import (
    BidMade,
    BotSeated,
    CardPlayed,
    ClaimDropped,
    Entry,
    HandDealt,
    HumanSeated,
    MatchBegun,
    PartnersRotated,
    SeatClaimed,
    SeatLeft,
    SeatMoved,
)
from host.journal import JournalError, SqliteJournal, TableRecord, journal_path, list_tables
from pitchnet.cards import Card
from pitchnet.house_rules import HouseRules, label
from pitchnet.rules import HandResult, Match, RulesError, Settings, deal_hands
from pitchnet.text import display_name, printable


def _bid_text(amount: int | None) -> str:
    return "pass" if amount is None else str(amount)


def settings_of(options: dict[str, Any]) -> Settings:
    """The match settings a journal's options record (tables from before house rules
    recorded none: they played the defaults)."""
    return Settings(
        options.get("players", 4),
        options.get("partnership", False),
        options.get("target", 7),
        HouseRules.from_wire(options.get("rules") or {}),
    )


def rules_line(settings: Settings) -> str:
    """ "Rules: joker, to 10 (five-point Pitch: ...)" for the top of the history."""
    phrases = settings.rules.describe()
    detail = f" ({'; '.join(phrases)})" if phrases else ""
    return f"Rules: {label(settings.rules, settings.target)}{detail}"


class SeatNames:
    """Who plays each seat as a journal goes on, as the table itself replays it: people
    and bots sitting down, lobby moves, a player leaving (in the lobby the seat empties; in
    a match a bot plays on as "<name> (bot)"), a newcomer who claimed a bot-played seat
    (sitting at the next deal, or at once between hands) and partners rotated."""

    def __init__(self, players: int) -> None:
        self.seated = [""] * players
        """Each seat's name; "" while it is empty."""
        self.claims: dict[int, str] = {}
        """Seat -> the newcomer who will sit in it at the next deal."""
        self.playing = False

    def names(self) -> list[str]:
        """A name for every seat: its player's, or "seat N" (players count from 1)."""
        return [name or f"seat {i + 1}" for i, name in enumerate(self.seated)]

    def apply(self, entry: Entry, between_hands: bool) -> None:
        match entry:
            case HumanSeated(seat=seat, name=name):
                self.seated[seat] = name
            case BotSeated(seat=seat, name=name):
                self.seated[seat] = name or f"Bot (seat {seat + 1})"  # older journals: no name
            case SeatMoved(seat=seat, to=to):
                self.seated[to], self.seated[seat] = self.seated[seat], ""
            case SeatLeft(seat=seat) if self.playing:
                self.seated[seat] = display_name(f"{self.seated[seat]} (bot)", "Bot")
            case SeatLeft(seat=seat):
                self.seated[seat] = ""
            case SeatClaimed(seat=seat, name=name):
                self.claims[seat] = name
                if between_hands:
                    self.sit_claimants()
            case ClaimDropped(seat=seat):
                self.claims.pop(seat, None)
            case PartnersRotated(order=order):
                self.seated = [self.seated[i] for i in order]
                self.claims = {
                    new: self.claims[old] for new, old in enumerate(order) if old in self.claims
                }
            case MatchBegun():
                self.playing = True
            case HandDealt():
                self.sit_claimants()

    def sit_claimants(self) -> None:
        for seat, name in self.claims.items():
            self.seated[seat] = name
        self.claims.clear()


def _between_hands(game: Match | None) -> bool:
    return game is None or game.hand is None or game.hand.complete


def describe(entries: list[Entry], options: dict[str, Any]) -> Iterator[str]:
    settings = settings_of(options)
    yield rules_line(settings)
    seats = SeatNames(settings.players)
    names = seats.names()
    game: Match | None = None
    matches = 0
    dealt: list[list[Card]] = []
    for entry in entries:
        seats.apply(entry, _between_hands(game))
        names = seats.names()
        match entry:
            case MatchBegun(dealer=dealer):
                matches += 1
                game = Match(settings, dealer=dealer)
                yield f"=== Match {matches} ==="
            case HandDealt(deck=deck_text) if game is not None:
                deck = [Card.parse(text) for text in deck_text]
                hand = game.deal(deck)
                dealt = deal_hands(deck, settings, hand.dealer)
                yield f"--- Hand {game.hand_number}, {names[hand.dealer]} deals ---"
            case BidMade(seat=seat, value=value) if game is not None:
                game.bid(seat, value)
                yield f"  {names[seat]} bids {_bid_text(value)}"
                if game.hand is not None and game.hand.complete:  # thrown in: all passed
                    yield from _summary(game, dealt, names)
            case CardPlayed(seat=seat, value=card) if game is not None and game.hand is not None:
                trick = game.play(seat, Card.parse(card))
                if trick is not None:
                    cards = " ".join(f"{c}({names[s]})" for s, c in trick.plays)
                    yield f"  trick {len(game.hand.tricks)}: {cards} -> {names[trick.winner]}"
                if game.hand.complete:
                    yield from _summary(game, dealt, names)


def side_name(settings: Settings, names: list[str], side: int) -> str:
    """A scoring side as the client names it: the seat's name, or "team A (Ann & Cat)"
    in partnership play (seats 1 and 3 are team A)."""
    if not settings.partnership:
        return names[side]
    members = " & ".join(names[s] for s in range(settings.players) if s % 2 == side)
    return f"team {'AB'[side]} ({members})"


def _summary(match: Match, dealt: list[list[Card]], names: list[str]) -> Iterator[str]:
    result = match.last_result
    assert result is not None

    def side(number: int) -> str:
        return side_name(match.settings, names, number)

    yield "  dealt: " + "; ".join(
        f"{names[i]}: {' '.join(map(str, cards))}" for i, cards in enumerate(dealt)
    )
    if result.redeal or result.trump is None or result.pitcher is None:
        yield "  everyone passed: the hand is thrown in, nobody scores"
    else:
        joker = match.settings.rules.has_joker
        yield f"  trump {result.trump.plural}; {_points(result, names, side, joker)}"
        made = "made" if result.made else "set back"
        smudge = " (a smudge!)" if result.smudge else ""
        yield f"  {names[result.pitcher]} bid {result.bid} and was {made}{smudge}"
    yield "  scores: " + ", ".join(f"{side(i)} {n}" for i, n in enumerate(result.scores))
    if result.winner is not None:
        yield f"  *** {side(result.winner)} wins the match ***"


def _points(result: HandResult, names: list[str], side: Any, joker: bool) -> str:
    def to(seat: int | None, missing: str) -> str:
        return missing if seat is None else "to " + names[seat]

    parts = []
    if result.high_card is None:
        parts.append("no High or Low (no natural trump dealt)")
    else:
        parts.append(f"High {result.high_card} {to(result.high, '')}")
        parts.append(f"Low {result.low_card} {to(result.low, '')}")  # dealt or captured
    parts.append(f"Jack {to(result.jack, 'not dealt')}")
    if joker:
        parts.append(f"Joker {to(result.joker, 'not dealt')}")
    parts.append(f"Game {'tied' if result.game is None else 'to ' + side(result.game)}")
    return ", ".join(parts)


UNFIT = (KeyError, TypeError, ValueError, IndexError, AttributeError, AssertionError, RulesError)
"""What a tampered or damaged entry can raise while it is read back."""


def print_history(table_id: str, out: TextIO) -> None:
    """Print the history; a journal whose entries stop fitting is printed up to there,
    then JournalError says where (never a traceback)."""
    journal = SqliteJournal(journal_path(table_id), lock=False)  # reading only
    try:
        print(f"Table {printable(journal.meta('name', table_id))!r} ({table_id})", file=out)
        if journal.damage is not None:
            print(f"Warning: {journal.damage}.", file=out)
        options = journal.meta("options", {})
        lines = describe(journal.entries(), options if isinstance(options, dict) else {})
        count = 0
        try:
            for count, line in enumerate(lines, 1):  # noqa: B007 - counted for the error
                print(line, file=out)
        except UNFIT as exc:
            raise JournalError(
                f"the journal does not read back past this point ({type(exc).__name__}: "
                f"{exc}); {count} lines were printed"
            ) from None
    finally:
        journal.close()


def table_state(entries: list[Entry], settings: Settings, finished: bool) -> str:
    """How far a table got, replayed from its journal: a hand dealt but never scored
    is marked unfinished."""
    if finished:
        return "finished"
    game, _ = _replay(entries, settings)
    if game is None or game.hand is None:
        return "never started (lobby)"
    if not game.hand.complete:
        return f"unfinished: hand {game.hand_number} was cut off before it was scored"
    return f"unfinished: stopped after hand {game.hand_number}"


def _replay(entries: list[Entry], settings: Settings) -> tuple[Match | None, SeatNames]:
    """The match as far as the journal goes, and who plays each seat at that point."""
    game: Match | None = None
    seats = SeatNames(settings.players)
    for entry in entries:
        seats.apply(entry, _between_hands(game))
        match entry:
            case MatchBegun(dealer=dealer):
                game = Match(settings, dealer=dealer)
            case HandDealt(deck=deck) if game is not None:
                game.deal([Card.parse(text) for text in deck])
            case BidMade(seat=seat, value=value) if game is not None:
                game.bid(seat, value)
            case CardPlayed(seat=seat, value=card) if game is not None:
                game.play(seat, Card.parse(card))
    return game, seats


def table_lines(records: list[TableRecord]) -> Iterator[str]:
    """One line per table hosted here, most recent first."""
    if not records:
        yield "No tables have been hosted on this computer yet."
        return
    for record in records:
        journal = SqliteJournal(record.path, lock=False)
        try:
            entries = journal.entries()
            options = journal.meta("options", {}) or {}
        finally:
            journal.close()
        options = options if isinstance(options, dict) else {}
        settings = settings_of(options)
        _, seated = _replay(entries, settings)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.updated))
        players = ", ".join(name for name in seated.seated if name) or "nobody sat down"
        state = table_state(entries, settings, record.finished)
        seats = settings.players
        yield f"{record.table_id}  {record.name!r}  {when}  {seats} seats: {players}  [{state}]"


def main(args: argparse.Namespace) -> int:
    try:
        if args.table_id is None:
            for line in table_lines(list_tables()):
                print(line)
            if list_tables():
                print("`pitchnet history TABLE_ID` prints a table's hands.")
            return 0
        print_history(args.table_id, sys.stdout)
    except JournalError as exc:
        print(f"pitchnet history: {exc}", file=sys.stderr)
        return 1
    except UNFIT as exc:
        print(f"pitchnet history: the journal does not read back: {exc}", file=sys.stderr)
        return 1
    return 0
