"""The table finder with real zeroconf on 127.0.0.1: a hosted table appears in the list
and Enter joins it. Skipped (with the reason) where loopback multicast is impossible,
unless PITCHNET_REQUIRE_LAN=1 makes that a failure, as in tests/test_zeroconf.py."""

from __future__ import annotations

import secrets

import pytest
from textual.widgets import DataTable

from client.app import ClientOptions
from client.discovery import FoundTable
from client.screens.finder import FinderScreen
from client.screens.lobby import LobbyScreen
from host.server import HostConfig, HostServer
from tests.multicast import LOOPBACK
from tests.pilot import screen_text, tables_seen, until
from tests.pilot_app import PilotApp

SIZE = (80, 24)


async def test_the_finder_shows_an_advertised_table_and_joins_it(multicast: None) -> None:
    name = f"Finder {secrets.token_hex(3)}"
    config = HostConfig(name=name, port=0, interface=LOOPBACK, bot_delay=0, advertise=True)
    async with HostServer(config) as server:
        app = PilotApp(ClientOptions(name="Ann", mode="find", interface=LOOPBACK))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, FinderScreen), "the finder")
            finder = app.screen
            assert isinstance(finder, FinderScreen)

            def row_key() -> str | None:
                return next(
                    (k for k, t in finder.found.items() if t.table_id == server.table_id), None
                )

            await until(pilot, row_key, "the advert to be listed", timeout=15)
            assert name in screen_text(app)
            rows = finder.query_one("#tables", DataTable)
            key = row_key()
            assert key is not None
            rows.move_cursor(row=list(finder.found).index(key))
            rows.focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert app.game.table_id == server.table_id
            assert app.game.table_name == name
            assert server.table.seats[0].name == "Ann"


def test_play_picks_a_remembered_seat_then_open_lobbies_fullest_then_oldest() -> None:
    from client.discovery import FoundTable
    from client.screens.finder import best_table
    from pitchnet.protocol import PROTOCOL_VERSION

    def table(tid: str, state: str, taken: int, open_: int, born: int) -> FoundTable:
        return FoundTable(
            name=tid, table_id=tid, host="127.0.0.1", port=1, version=PROTOCOL_VERSION,
            taken=taken, seats=4, state=state, password=False, open=open_, born=born,
        )  # fmt: skip

    young_full = table("a", "lobby", 2, 2, born=20)
    old_lone = table("b", "lobby", 1, 3, born=10)
    match_seat = table("c", "playing", 4, 1, born=5)
    full = table("d", "playing", 4, 0, born=1)
    assert best_table([full]) is None
    assert best_table([match_seat, old_lone]) is old_lone  # lobbies first
    assert best_table([old_lone, young_full]) is young_full  # then where most people sit
    assert best_table([table("e", "lobby", 1, 3, 30), old_lone]) is old_lone  # then oldest
    assert best_table([young_full, full], mine={"d"}) is full  # our own seat, even if full


def test_play_joins_only_tables_of_its_own_version() -> None:
    """Every table speaks protocol 3: play never picks an older table (which would take
    its secrets in clear) nor one from a newer pitchnet."""
    from dataclasses import replace

    from client.discovery import FoundTable
    from client.screens.finder import best_table
    from pitchnet.protocol import PROTOCOL_VERSION

    table = FoundTable(
        name="s", table_id="s", host="127.0.0.1", port=1, version=PROTOCOL_VERSION,
        taken=1, seats=4, state="lobby", password=False, open=3, born=10,
    )  # fmt: skip
    assert best_table([table]) is table
    for other in (1, 2, PROTOCOL_VERSION + 1):
        assert best_table([replace(table, version=other)]) is None


def _found(table_id: str, host: str, name: str = "Kitchen Table") -> FoundTable:
    from client.discovery import FoundTable
    from pitchnet.protocol import PROTOCOL_VERSION

    return FoundTable(
        name=name, table_id=table_id, host=host, port=7373, version=PROTOCOL_VERSION,
        taken=1, seats=4, state="lobby", password=True, open=3, born=10,
    )  # fmt: skip


def test_play_never_picks_a_table_that_two_addresses_claim() -> None:
    from client.screens.finder import best_table

    real, copy, other = _found("t1", "10.0.0.5"), _found("t1", "10.0.0.9"), _found("t2", "10.0.0.7")
    assert best_table([real, copy]) is None  # one of them is an impostor: the player chooses
    assert best_table([real, copy], mine={"t1"}) is None
    assert best_table([real, copy, other]) is other


async def test_the_finder_shows_two_adverts_of_one_table_as_a_conflict() -> None:
    """Issue 11: an impostor copying a table's advert (same name, same id) is not a second
    equal row: both rows say two claim the table, and the status says to check the address."""
    from client.screens.finder import DISPUTED_MARK

    tables = [_found("t1", "10.0.0.5"), _found("t1", "10.0.0.9"), _found("t2", "10.0.0.7", "Den")]

    app = PilotApp(ClientOptions(name="Ann", mode="find"), browser_factory=tables_seen(tables))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: DISPUTED_MARK in screen_text(app), "the conflict mark")
        text = screen_text(app)
        assert text.count(DISPUTED_MARK) == 2
        assert "10.0.0.5:7373" in text and "10.0.0.9:7373" in text
        assert "Two tables claim to be Kitchen Table" in text
        assert "ask its host which address is theirs" in text
        assert "standard, to 7" in text  # Den's row keeps its rules line


@pytest.mark.parametrize(("open_seats", "ours"), [(0, False), (1, False), (0, True)])
async def test_the_finder_says_enter_joins_only_where_a_seat_is_free(
    open_seats: int, ours: bool
) -> None:
    """Above a table whose every seat is a person's, "Enter joins" only led to "every seat
    is taken" (the second game night): the status says so and offers to watch, unless
    one of those seats is ours, kept (the third night's "every seat taken" above a row
    saying "your seat is kept")."""
    from client.tokens import SavedSeat, TokenStore

    if ours:
        TokenStore().remember(SavedSeat("t1", "Ann", "127.0.0.1", 7373, "k" * 32))
    from client.discovery import FoundTable
    from pitchnet.protocol import PROTOCOL_VERSION

    full = FoundTable(
        name="Kitchen Table", table_id="t1", host="127.0.0.1", port=7373,
        version=PROTOCOL_VERSION, taken=4, seats=4, state="playing", password=False,
        open=open_seats, born=10,
    )  # fmt: skip
    app = PilotApp(ClientOptions(name="Ann", mode="find"), browser_factory=tables_seen([full]))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "1 table found" in screen_text(app), "the status")
        text = " ".join(screen_text(app).split())
        free = open_seats > 0 or ours
        assert ("every seat taken: w watches" in text) is not free, text
        assert ("Enter joins" in text) is free, text
