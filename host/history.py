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
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from host.entries import BidMade, BotSeated, CardPlayed, Entry, HandDealt, MatchBegun
from host.journal import (
    JournalDamaged,
    JournalError,
    SqliteJournal,
    TableRecord,
    journal_path,
    list_tables,
)
from host.table import Table
from host.tables import table_to_read
from pitchnet.cards import Card
from pitchnet.house_rules import label
from pitchnet.i18n import _, ngettext, number
from pitchnet.invocation import shown_command
from pitchnet.rules import HandResult, Match, RulesError, Settings, deal_hands
from pitchnet.text import printable
from pitchnet.words import suit_plural


def _bid_text(amount: int | None) -> str:
    return _("pass") if amount is None else str(amount)


def rules_line(settings: Settings) -> str:
    """ "Rules: joker, to 10 (five-point Pitch: ...)" for the top of the history."""
    phrases = settings.rules.describe()
    detail = f" ({'; '.join(phrases)})" if phrases else ""
    return _("Rules: {rules}", rules=label(settings.rules, settings.target)) + detail


def seat_names(table: Table) -> list[str]:
    """A name for every seat as the table has it now: its player's, or "seat N" while
    it is empty (players count from 1)."""
    return [seat.name or _("seat {seat}", seat=i + 1) for i, seat in enumerate(table.seats)]


def describe(entries: list[Entry], options: dict[str, Any]) -> Iterator[str]:
    """The match as the journal tells it, replayed through the table itself (so seats
    are named as the table named them at each moment)."""
    table = table_to_read("history", "", options)
    settings = table.settings
    yield rules_line(settings)
    matches = 0
    dealt: list[list[Card]] = []
    for entry in table.replaying(entries):
        if isinstance(entry, BotSeated) and not entry.name:  # older journals: no name kept
            table.seats[entry.seat].name = f"Bot (seat {entry.seat + 1})"
        game, names = table.match, seat_names(table)
        if game is None:
            continue
        hand = game.hand
        match entry:
            case MatchBegun():
                matches += 1
                yield _("=== Match {n} ===", n=matches)
            case HandDealt(deck=deck_text) if hand is not None:
                dealt = deal_hands([Card.parse(text) for text in deck_text], settings, hand.dealer)
                yield _(
                    "--- Hand {hand}, {name} deals ---",
                    hand=game.hand_number,
                    name=names[hand.dealer],
                )
            case BidMade(seat=seat, value=value):
                if value is None:
                    yield "  " + _("{name} passes", name=names[seat])
                else:
                    yield "  " + _("{name} bids {bid}", name=names[seat], bid=value)
                if hand is not None and hand.complete:  # thrown in: all passed
                    yield from _summary(game, dealt, names)
            case CardPlayed() if hand is not None:
                if not hand.trick:  # the table is clear again: this card took a trick
                    trick = hand.tricks[-1]
                    cards = " ".join(f"{c}({names[s]})" for s, c in trick.plays)
                    yield "  " + _(
                        "trick {n}: {cards} -> {name}",
                        n=len(hand.tricks),
                        cards=cards,
                        name=names[trick.winner],
                    )
                if hand.complete:
                    yield from _summary(game, dealt, names)


def side_name(settings: Settings, names: list[str], side: int) -> str:
    """A scoring side as the client names it: the seat's name, or "team A (Ann & Cat)"
    in partnership play (seats 1 and 3 are team A)."""
    if not settings.partnership:
        return names[side]
    members = " & ".join(names[s] for s in range(settings.players) if s % 2 == side)
    return _("team {team} ({members})", team="AB"[side], members=members)


def _summary(match: Match, dealt: list[list[Card]], names: list[str]) -> Iterator[str]:
    result = match.last_result
    assert result is not None

    def side(number: int) -> str:
        return side_name(match.settings, names, number)

    yield (
        "  "
        + _("dealt: ")
        + "; ".join(f"{names[i]}: {' '.join(map(str, cards))}" for i, cards in enumerate(dealt))
    )
    if result.redeal or result.trump is None or result.pitcher is None:
        yield "  " + _("everyone passed: the hand is thrown in, nobody scores")
    else:
        joker = match.settings.rules.has_joker
        yield "  " + _(
            "trump {suit}; {points}",
            suit=suit_plural(result.trump.value),
            points=_points(result, names, side, joker),
        )
        name, bid = names[result.pitcher], result.bid
        if result.made and result.smudge:
            yield "  " + _("{name} bid {bid} and made it (a smudge!)", name=name, bid=bid)
        elif result.made:
            yield "  " + _("{name} bid {bid} and made it", name=name, bid=bid)
        else:
            yield "  " + _("{name} bid {bid} and was set back", name=name, bid=bid)
    scores = ", ".join(f"{side(i)} {number(n)}" for i, n in enumerate(result.scores))
    yield "  " + _("scores: ") + scores
    if result.winner is not None:
        yield "  " + _("*** {name} wins the match ***", name=side(result.winner))


def _points(result: HandResult, names: list[str], side: Any, joker: bool) -> str:
    def to(seat: int | None, missing: str) -> str:
        return missing if seat is None else _("to {name}", name=names[seat])

    parts = []
    if result.high_card is None:
        parts.append(_("no High or Low (no natural trump dealt)"))
    else:
        parts.append(_("High {card} {won}", card=str(result.high_card), won=to(result.high, "")))
        # Low: dealt or captured, as the table's rules say.
        parts.append(_("Low {card} {won}", card=str(result.low_card), won=to(result.low, "")))
    parts.append(_("Jack {won}", won=to(result.jack, _("not dealt"))))
    if joker:
        parts.append(_("Joker {won}", won=to(result.joker, _("not dealt"))))
    if result.game is None:
        parts.append(_("Game tied"))
    else:
        parts.append(_("Game {won}", won=_("to {name}", name=side(result.game))))
    return ", ".join(parts)


UNFIT = (KeyError, TypeError, ValueError, IndexError, AttributeError, AssertionError, RulesError)
"""What a tampered or damaged entry can raise while it is read back."""


def print_history(table_id: str, out: TextIO) -> None:
    """Print the history; a journal whose entries stop fitting is printed up to there,
    then JournalError says where (never a traceback)."""
    path = journal_path(table_id)
    with contextlib.ExitStack() as stack:
        try:
            journal = SqliteJournal(path, lock=False)  # reading only
        except JournalDamaged:  # read what is intact from a copy; the file is left alone
            from host.salvage import salvage

            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            saved = salvage(path, folder / path.name, keep=False)
            if saved is None:
                raise
            journal = SqliteJournal(folder / path.name, lock=False)
            journal.damage = _(
                "the journal's file is damaged; what follows stops at its entry {n}, the "
                "last one intact",
                n=saved.entries,
            )
        _print_journal(journal, table_id, out)


def _print_journal(journal: SqliteJournal, table_id: str, out: TextIO) -> None:
    try:
        name = repr(printable(journal.meta("name", table_id)))
        print(_("Table {name} ({table_id})", name=name, table_id=table_id), file=out)
        if journal.damage is not None:
            print(_("Warning: {damage}.", damage=journal.damage), file=out)
        options = journal.meta("options", {})
        lines = describe(journal.entries(), options if isinstance(options, dict) else {})
        count = 0
        try:
            for count, line in enumerate(lines, 1):  # noqa: B007 - counted for the error
                print(line, file=out)
        except UNFIT as exc:
            raise JournalError(
                _(
                    "the journal does not read back past this point ({error}); {n} lines "
                    "were printed",
                    error=type(exc).__name__ + ": " + str(exc),
                    n=count,
                )
            ) from None
    finally:
        journal.close()


def table_state(entries: list[Entry], options: dict[str, Any], finished: bool) -> str:
    """How far a table got, replayed from its journal: a hand dealt but never scored
    is marked unfinished."""
    return _state(_replayed(entries, options), finished)


def _replayed(entries: list[Entry], options: dict[str, Any]) -> Table:
    table = table_to_read("history", "", options)
    table.replay(entries)
    return table


def _state(table: Table, finished: bool, live: bool = False) -> str:
    if finished:
        return _("finished")
    game = table.match
    if live:  # not cut off: still being played
        if game is None:
            return _("being hosted now, in its lobby")
        return _("being hosted now, hand {hand}", hand=game.hand_number)
    if game is None or game.hand is None:
        return _("never started (lobby)")
    if not game.hand.complete:
        return _("unfinished: hand {hand} was cut off before it was scored", hand=game.hand_number)
    return _("unfinished: stopped after hand {hand}", hand=game.hand_number)


def table_lines(records: list[TableRecord]) -> Iterator[str]:
    """One line per table hosted here, most recent first."""
    if not records:
        yield _("No tables have been hosted on this computer yet.")
        return
    for record in records:
        journal = SqliteJournal(record.path, lock=False)
        try:
            entries = journal.entries()
            options = journal.meta("options", {}) or {}
        finally:
            journal.close()
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.updated))
        try:
            table = _replayed(entries, options if isinstance(options, dict) else {})
        except UNFIT:  # one damaged journal does not hide the others
            unread = _("[its record does not read back]")
            yield f"{record.table_id}  {record.name!r}  {when}  {unread}"
            continue
        players = ", ".join(seat.name for seat in table.seats if seat.name) or _("nobody sat down")
        state = _state(table, record.finished, record.live)
        seats = ngettext(
            "{n} seat: {players}", "{n} seats: {players}", len(table.seats), players=players
        )
        yield f"{record.table_id}  {record.name!r}  {when}  {seats}  [{state}]"


def main(args: argparse.Namespace) -> int:
    try:
        if args.table_id is None:
            records = list_tables()  # opens every journal: once
            for line in table_lines(records):
                print(line)
            if records:
                command = shown_command(["pitchnet", "history"])
                print(_("`{command} TABLE_ID` prints a table's hands.", command=command))
            return 0
        if not journal_path(args.table_id).exists():
            listing = shown_command(["pitchnet", "history"])
            print(
                _(
                    "pitchnet history: no table hosted on this laptop has the id {table_id}; "
                    "`{command}` lists them.",
                    table_id=repr(printable(args.table_id, 40)),
                    command=listing,
                ),
                file=sys.stderr,
            )
            return 1
        print_history(args.table_id, sys.stdout)
    except JournalError as exc:
        text = str(exc)
        print(f"pitchnet history: {text}{'' if text.endswith('.') else '.'}", file=sys.stderr)
        return 1
    except UNFIT as exc:
        print(
            _("pitchnet history: the journal does not read back: {error}", error=str(exc)),
            file=sys.stderr,
        )
        return 1
    return 0
