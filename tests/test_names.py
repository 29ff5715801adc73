"""Names that impersonate (issue 11, item 8) and names from a tampered journal (item 9)."""

from __future__ import annotations

import pytest
from rich.table import Table as RichTable

from client.model import GameState
from client.widgets.seats import lobby_table
from host import dispatch
from host.entries import HumanSeated
from host.table import Table, TableOptions
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, Hello, SeatInfo, SeatKind, TableInfo, TableState
from pitchnet.text import player_name, printable


def a_table(players: int = 3, bots: int = 1) -> Table:
    options = TableOptions(players=players, bots=bots)
    return Table("t1", "Test", options, deal_deck=lambda key: shuffled_deck())


def join(table: Table, name: str) -> str:
    seat = dispatch.join(table, Hello(version=PROTOCOL_VERSION, name=name))
    return table.seats[seat].name


@pytest.mark.parametrize(
    "raw",
    [
        "\u3164\u3164\u3164",  # Hangul filler: a letter that draws nothing
        "\u115f\u1160\uffa0",
        "\u2800\u2800",  # braille blank
        "\u200b\u2060\ufeff",  # zero-width characters
        "\u0301\u0308",  # combining marks with nothing to mark
        "\u3000\u00a0\u2003",  # spaces of other kinds
    ],
)
def test_a_name_that_draws_nothing_becomes_player_n(raw: str) -> None:
    assert printable(raw) == ""
    assert join(a_table(), raw) == "Player 2"


def test_fillers_and_odd_spaces_inside_a_name_are_stripped_or_made_plain() -> None:
    assert printable("An\u3164n\u3000Lee\u2800") == "Ann Lee"
    assert printable("Zoe\u0301") == "Zoe\u0301"  # a mark on a letter is kept


@pytest.mark.parametrize(
    "raw",
    [
        "Bot 1",
        "bot",
        "BOT 2",
        "Ann (bot)",
        "Victim (you) ★",
        "waiting for a player...",
        "Empty seat",
        "  Bot\u3164 1",
    ],
)
def test_wordings_reserved_for_seats_that_are_not_a_persons_are_refused(raw: str) -> None:
    assert player_name(raw, "fallback") == "fallback"


@pytest.mark.parametrize(
    "raw",
    [
        "Carol (y\u043eu)",  # Cyrillic o: issue 27 item 8
        "Carol (\u0443\u043e\u057d)",  # Cyrillic y and o, Armenian u
        "\u0412\u043e\u0442 1",  # "Bot 1" in Cyrillic letters
        "B0t 1",  # a zero for the o
        "Ann (\u0432\u043e\u0442)",
        "\u0415mpty seat",  # Cyrillic E
        "Wa\u0456ting for you",  # Ukrainian i
    ],
)
def test_look_alike_spellings_of_the_reserved_wordings_are_refused(raw: str) -> None:
    """Compared by Unicode skeletons (UTS #39): a name cannot imitate "(you)" or a bot
    with letters of another script."""
    assert player_name(raw, "fallback") == "fallback"


def test_a_name_that_looks_like_another_players_is_numbered() -> None:
    table = a_table(players=4, bots=0)
    assert join(table, "Carol") == "Carol"
    assert join(table, "C\u0430rol") == "C\u0430rol 2"  # Cyrillic a
    assert join(table, "CAROL") == "CAROL 3"
    assert join(table, "Anna") == "Anna"  # only look-alikes are numbered


@pytest.mark.parametrize("raw", ["Abbot", "Robot Rita", "Bottle", "You", "Ann", "Bottom"])
def test_ordinary_names_that_contain_those_letters_are_kept(raw: str) -> None:
    assert player_name(raw, "fallback") == raw


def test_a_human_cannot_sit_as_bot_1_next_to_the_real_bot_1() -> None:
    table = a_table(players=3, bots=1)
    assert table.seats[0].name == "Bot 1"
    assert join(table, "Bot 1") == "Player 2"
    assert join(table, "Bot 2") == "Player 3"


def cells(grid: RichTable, column: int) -> list[str]:
    """The plain text of one column's cells."""
    return [getattr(cell, "plain", str(cell)) for cell in grid.columns[column]._cells]


def test_the_lobby_marks_the_viewers_seat_in_its_own_column_not_after_the_name() -> None:
    seats = [
        SeatInfo(name="Victim", kind=SeatKind.HUMAN, connected=True),
        SeatInfo(name="Ann", kind=SeatKind.HUMAN, connected=True),
        SeatInfo(name="", kind=SeatKind.EMPTY, connected=False),
    ]
    info = TableInfo("t1", "Test", TableState.LOBBY, 3, False, 7, seats, starter=0)
    game = GameState(seat=1, table=info)
    grid = lobby_table(game)
    names, starter, presence = cells(grid, 1), cells(grid, 2), cells(grid, 3)
    assert names == ["Victim", "Ann", "waiting for a player..."]
    assert presence[1] == "you" and "you" not in (presence[0], presence[2])
    assert starter == ["★", "", ""]
    assert not any("(you)" in name or "★" in name for name in names)


def test_a_journal_naming_seat_minus_one_is_refused() -> None:
    table = a_table(players=3, bots=0)
    with pytest.raises(ValueError, match="seat -1"):
        table.replay([HumanSeated(-1, "Eve", "x" * 32)])


def test_a_tampered_journal_name_is_cleaned_again_on_replay() -> None:
    table = a_table(players=3, bots=0)
    table.replay(
        [
            HumanSeated(0, "\x1b[31mEve\u3164", "x" * 32),
            HumanSeated(1, "Bot 1", "y" * 32),
        ]
    )
    assert [s.name for s in table.seats[:2]] == ["[31mEve", "Player 2"]
