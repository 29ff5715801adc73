"""Two lone lobbies at once: which older table ours moves to, and how a lobby beside
ours differs (client/older_tables.py), decided from our table's facts alone."""

from __future__ import annotations

import dataclasses
from typing import Any

from client.discovery import FoundTable
from client.older_tables import differences, older_open_table
from host.server import HostedFacts
from pitchnet.protocol import PROTOCOL_VERSION
from pitchnet.rules import DEFAULT_RULES

OURS = HostedFacts(
    table_id="ours00000001",
    name="Ann's table",
    port=7000,
    born=5000,
    password=None,
    lobby_unstarted=True,
    people=2,
    players=4,
    target=7,
    rules=DEFAULT_RULES,
    bot_level="normal",
    journal=None,
    resumable=False,
)


def found(table_id: str, **changes: Any) -> FoundTable:
    """An open four-seat lobby, older than ours, with room for our two people."""
    fields: dict[str, Any] = {
        "name": f"Table {table_id}",
        "table_id": table_id,
        "host": "127.0.0.1",
        "port": 7100,
        "version": PROTOCOL_VERSION,
        "taken": 1,
        "seats": 4,
        "state": "lobby",
        "password": False,
        "open": 3,
        "born": 1000,
        "bot_level": "normal",
    }
    return FoundTable(**(fields | changes))


def test_the_oldest_open_lobby_with_room_for_everyone_is_the_one_to_move_to() -> None:
    oldest, older = found("t1", born=900), found("t2", born=1000, port=7200)
    assert older_open_table(OURS, [older, oldest]) is oldest


def test_no_lobby_is_moved_to_that_is_younger_closed_started_full_or_disputed() -> None:
    refused = [
        found("young", born=6000),  # younger than ours: that one moves, not ours
        found("locked", password=True),
        found("started", state="playing"),
        found("small", open=1),  # room for one of our two people
        found("unsaid", born=0),  # a host that does not say its age
        found("future", version=PROTOCOL_VERSION + 1),
        found("copied", port=7100),
        found("copied", port=7999),  # two addresses claim one id: an impostor's copy
        found(OURS.table_id, born=1),  # our own advert
    ]
    assert older_open_table(OURS, refused) is None
    assert older_open_table(OURS, [*refused, found("fine")]) == found("fine")


def test_nobody_yet_still_needs_one_open_seat() -> None:
    alone = dataclasses.replace(OURS, people=0)
    assert older_open_table(alone, [found("none", open=0)]) is None
    assert older_open_table(alone, [found("one", open=1)]) == found("one", open=1)


def test_a_lobby_beside_ours_is_named_with_how_its_settings_differ() -> None:
    assert differences(OURS, found("same")) == []
    assert differences(OURS, found("three", seats=3)) == ["3 players instead of 4"]
    assert differences(OURS, found("hard", bot_level="hard")) == ["hard bots instead of normal"]


def test_only_an_open_lobby_of_another_table_is_compared() -> None:
    for other in (
        found(OURS.table_id, seats=3),
        found("locked", seats=3, password=True),
        found("started", seats=3, state="playing"),
    ):
        assert differences(OURS, other) == []
