"""Making a table: a new one with a fresh journal, or an old one rebuilt from its journal.

The journal's `meta` holds what the table was started with (name, options, seed,
port) so that `pitchnet host --resume` needs no other arguments and a resumed table
deals, scores and advertises exactly as the one that crashed.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from host.journal import JournalError, SqliteJournal, journal_path, unfinished_tables
from host.table import Table, TableOptions
from pitchnet.cards import Card, shuffled_deck
from pitchnet.rules import HouseRules, RulesError
from pitchnet.text import display_name

log = logging.getLogger("pitchnet.host")

FRIENDLY_NAMES = ("Kitchen Table", "Back Porch", "Card Room", "Parlour", "Den", "Attic Table")


def deck_source(seed: int | None, joker: bool = False) -> Callable[[str], list[Card]]:
    """Decks for each hand (53 cards with the joker). With a seed, hand `key`
    ("match.hand") always gets the same deck, so a seeded table deals the same cards
    whether or not it was resumed. Without one, every deck comes from `secrets.SystemRandom`."""
    if seed is None:
        return lambda key: shuffled_deck(joker=joker)
    return lambda key: shuffled_deck(random.Random(f"{seed}:{key}"), joker=joker)


def new_table(
    options: TableOptions,
    name: str | None,
    seed: int | None,
    state_dir: Path | None,
    journal: bool = True,
) -> tuple[Table, SqliteJournal | None]:
    table_id = secrets.token_hex(6)
    store = None
    if journal:
        store = SqliteJournal(journal_path(table_id, state_dir), create=True)
    table = Table(
        table_id,
        display_name(name or "", random.choice(FRIENDLY_NAMES)),
        options,
        deal_deck=deck_source(seed, options.rules.has_joker),
        journal=store,
    )
    if store is not None:
        store.set_meta(
            table_id=table_id,
            name=table.name,
            options=asdict(options),
            seed=seed,
            finished=False,
        )
    return table, store


def find_resumable(table_id: str, state_dir: Path | None) -> Path:
    """The journal to resume: the one named, or the most recent unfinished one."""
    if table_id:
        path = journal_path(table_id, state_dir)
        if not path.exists():
            raise JournalError(f"there is no journal for table {table_id}")
        return path
    skipped: list[str] = []
    latest = next(unfinished_tables(state_dir, skipped), None)
    for reason in skipped:
        log.warning("not resuming a journal: %s", reason)
    if latest is None:
        why = f" (skipped as unreadable: {'; '.join(skipped)})" if skipped else ""
        raise JournalError(f"there is no unfinished table to resume{why}")
    return latest.path


def resume_table(table_id: str, state_dir: Path | None) -> tuple[Table, SqliteJournal, int]:
    """Rebuild a table from its journal; returns it, its journal and its old port."""
    path = find_resumable(table_id, state_dir)
    store = SqliteJournal(path, repair=True)
    try:
        held = str(store.meta("table_id"))
        if held != path.stem:  # another table's journal under this name: never run one id twice
            raise JournalError(
                f"the journal {path.name} holds table {held}, not {path.stem} (it was copied "
                "or renamed), so it is not resumed under this id"
            )
        options = TableOptions(**_options(store.meta("options")))
        table = Table(
            str(store.meta("table_id")),
            display_name(store.meta("name", ""), random.choice(FRIENDLY_NAMES)),
            options,
            deal_deck=deck_source(store.meta("seed"), options.rules.has_joker),
            journal=store,
            seat_bots=False,
        )
        table.replay(store.entries())
        if store.damage is not None:
            log.warning("table %s: %s", table.id, store.damage)
            table.loss = (
                "The host lost part of this game's record; the game goes on from the "
                "last point it still holds."
            )
            store.cut_damage()
        table.settle()  # what the last entries would have triggered, had the host not stopped
    except (TypeError, ValueError, RulesError) as exc:
        store.close()
        raise JournalError(f"{store.path} cannot be replayed: {exc}") from None
    except JournalError:
        store.close()
        raise
    port = store.meta("port", 0)
    return table, store, port if isinstance(port, int) else 0


def table_to_read(table_id: str, name: str, options: Any) -> Table:
    """A table to replay a journal into only to read it (`pitchnet history`): the
    journal's own options, no journal of its own, no bots seated but those it records;
    its decks come from the journal's entries."""
    chosen = TableOptions(**_options(options))
    deck = deck_source(None, chosen.rules.has_joker)
    return Table(table_id, name, chosen, deal_deck=deck, seat_bots=False)


def _options(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ValueError("the journal has no table options")
    known = set(TableOptions.__dataclass_fields__)
    options = {key: value for key, value in raw.items() if key in known}
    # The journal holds the rules as their wire map (tables from before house rules: none).
    options["rules"] = HouseRules.from_wire(raw.get("rules") or {})
    return options
