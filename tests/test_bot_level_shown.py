"""The table's bot level, shown before sitting down (the finder, from the advert) and
in the lobby (from the table's state), and left out when an older host does not say."""

from __future__ import annotations

import json
import random

from rich.console import Console

from client.discovery import table_from_record
from client.model import GameState
from client.screens.finder import table_row
from client.screens.lobby import lobby_title
from host.advertise import Advert
from host.snapshots import table_info
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import TableInfo


def rendered(text: object) -> str:
    console = Console(width=200, color_system=None, record=True)
    console.print(text)
    return console.export_text().rstrip("\n")


def _record(**txt: str) -> dict[bytes, bytes | None]:
    advert = Advert("abc123", "Den", 1, 4, "lobby", **txt).txt()  # type: ignore[arg-type]
    return {k.encode(): v.encode() for k, v in advert.items()}


def test_the_advert_carries_the_bot_level_to_the_finder_row() -> None:
    found = table_from_record("Den", _record(bots="hard"), 7373, ["127.0.0.1"])
    assert found.bot_level == "hard"
    state = rendered(table_row(found, ascii_only=False)[-1])
    assert state.splitlines() == ["in lobby", "hard bots"]


def test_an_advert_without_a_known_level_shows_none() -> None:
    old = {k: v for k, v in _record(bots="hard").items() if k != b"bots"}
    for record in (old, {**old, b"bots": b"[red]wild[/red]"}):
        found = table_from_record("Den", record, 7373, ["127.0.0.1"])
        assert found.bot_level == ""
        assert rendered(table_row(found, ascii_only=False)[-1]) == "in lobby"


def test_the_lobby_names_the_tables_bot_level() -> None:
    table = Table(
        "t1",
        "Den",
        TableOptions(players=2, bot_level="easy"),
        lambda key: shuffled_deck(random.Random(key)),
    )
    info = table_info(table)
    assert info.bot_level == "easy"
    wire = json.loads(json.dumps(info.to_wire()))  # as a frame carries it: plain strings
    again = TableInfo.from_wire(wire)
    assert rendered(lobby_title(GameState(table_name="Den", table=again))).endswith(" easy bots")
    older = {k: v for k, v in wire.items() if k != "bot_level"}
    title = rendered(lobby_title(GameState(table_name="Den", table=TableInfo.from_wire(older))))
    assert "bots" not in title
