"""What a late-comer and a waiting player read, in a real terminal (tmux) at the two
ends of the sizes a player may have, 40x15 and 200x60 (issue 25, item 5): every
sentence whole, never cut off, and true."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from host.server import HostServer
from tests.netclient import RawClient, running_host, until_true
from tests.tmux import LoopbackTui

SIZES = [(40, 15), (200, 60)]
sized = pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.serial,  # real client processes on wall-clock deadlines (tests/conftest.py)
]


@asynccontextmanager
async def joining(
    host: HostServer, size: tuple[int, int], home: Path
) -> AsyncIterator[LoopbackTui]:
    tui = LoopbackTui(["join", f"127.0.0.1:{host.port}", "--name", "Dee"], size, home)
    tui.start()
    try:
        yield tui
    finally:
        tui.close()


@sized
async def test_a_late_comer_is_told_why_there_is_no_hand(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Joining a match that is on: a bot's seat is Dee's from the next hand, and the
    header says so, short at 40 columns, whole at 200."""
    async with running_host(players=2, bots=1, grace=600) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        await until_true(lambda: host.table.state == "playing", "the match")
        async with joining(host, size, tmp_path) as tui:
            seat = next(i for i, s in enumerate(host.table.seats) if s.name != "Ann") + 1
            wanted = f"seat {seat} next hand" if size[0] < 80 else f"(watching; seat {seat} at"
            screen = await tui.wait_for(wanted)
            assert "Trump" in screen  # and the table's facts beside it
        await ann.close()


@sized
async def test_a_waiting_player_reads_who_starts_and_how_long(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """In a lobby Ann opened: the sentence says who starts and how many more may sit,
    whole however narrow the terminal (it wraps, it is never cut)."""
    async with running_host(players=3) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        async with joining(host, size, tmp_path) as tui:
            await tui.wait_for("Waiting for Ann to start, or for 1 more player to fill the table")
        await ann.close()


@sized
async def test_at_a_table_of_people_the_late_comer_watches_and_is_told_why(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Every seat a person's (Bob's link dropped: his seat waits for him): Dee watches,
    and the screen says so in words, never that the table went away."""
    async with running_host(players=2, grace=600) as host:
        ann, bob = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await bob.hello("Bob")
        await until_true(lambda: host.table.state == "playing", "the match")
        await bob.close()
        await until_true(lambda: not host.table.seats[1].connected, "Bob away")
        async with joining(host, size, tmp_path) as tui:
            screen = await tui.wait_for(
                "Every seat at this table is a person's (one is kept for a player who lost "
                "the connection and may come back); you can watch instead.",
                "Watch (w)",
            )
            assert "went away" not in " ".join(screen.split())
            tui.keys("w")
            await tui.wait_for("(watching)" if size[0] >= 80 else "watching")
        await ann.close()


@sized
async def test_ctrl_q_at_the_table_asks_first_and_says_a_bot_plays_at_once(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Leaving is leaving (item 2): Ctrl+Q mid-match asks, in a whole sentence at either
    size, and `n` keeps the seat (nothing was sent)."""
    async with (
        running_host(players=2, bots=1, grace=600) as host,
        joining(host, size, tmp_path) as tui,
    ):
        await until_true(lambda: host.table.state == "playing", "Dee's match with a bot")
        await tui.wait_for("Trump")
        tui.keys("C-q")
        await tui.wait_for("Quit pitchnet? A bot takes your seat at once.", "Quit (y)")
        tui.keys("n")
        await until_true(lambda: "Quit (y)" not in tui.screen(), "the question answered")
        dee = next(s for s in host.table.seats if s.name == "Dee")
        assert dee.kind == "human" and dee.connected and not dee.substitute


@sized
async def test_the_lobby_points_at_the_key_that_lists_the_rules(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """The lobby's title names the rules and the key that lists them (F2; `?` lists keys),
    short at 40 columns, whole at 200."""
    async with running_host(players=3) as host, joining(host, size, tmp_path) as tui:
        await tui.wait_for("rules (F2)" if size[0] < 80 else "(F2 lists them)")


@sized
async def test_the_starter_reads_her_choice_whole(size: tuple[int, int], tmp_path: Path) -> None:
    """The first at a table reads how to start it, to its last word: short at 40 columns
    (the long sentence was cut off after "the match starts when"), whole at 200."""
    async with running_host(players=3) as host, joining(host, size, tmp_path) as tui:
        if size[0] < 80:
            await tui.wait_for("the match starts once all are taken.")
        else:
            await tui.wait_for("or wait for friends: the match starts when every seat is taken.")
