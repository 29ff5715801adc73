"""Leaving is leaving (issue 25): a seated player who quits the window on purpose is
asked first, then gives the seat up, so a bot plays it at once; only a lost
connection keeps the seat for its grace period."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from client.app import ClientOptions
from client.screens.lobby import LobbyScreen
from client.screens.prompts import BackgroundOffer, ConfirmQuit, HostQuit
from host.server import HostConfig, HostServer
from pitchnet.protocol import SeatKind
from tests.netclient import RawClient, until_true
from tests.pilot import hosted_server, play_on_an_empty_lan, screen_text, setup_shown, until
from tests.pilot_app import PilotApp

SIZE = (80, 24)


@pytest.fixture
async def host() -> AsyncIterator[HostServer]:
    config = HostConfig(
        port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False, grace=600
    )
    async with HostServer(config) as server:
        yield server


def join_app(port: int) -> PilotApp:
    return PilotApp(ClientOptions(name="Ann", mode="join", address=("127.0.0.1", port)))


async def test_ctrl_q_mid_match_asks_then_a_bot_takes_the_seat_at_once(host: HostServer) -> None:
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        seat = app.game.seat
        assert seat is not None
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmQuit), "the question")
        assert "A bot takes your seat at once." in str(app.screen.query_one("Static").render())
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmQuit), "the answer")
        assert app.is_running and host.table.seats[seat].kind == SeatKind.HUMAN
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmQuit), "the question again")
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, "the window to close")
    # The grace period is ten minutes: only a `leave` makes the seat a bot's this soon.
    await until_true(lambda: host.table.seats[seat].kind == SeatKind.BOT, "a bot in the seat")
    assert app.tokens.find("Ann", table_id=host.table_id) is None  # given up, not kept


async def test_ctrl_q_in_the_lobby_frees_the_seat(host: HostServer) -> None:
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        seat = app.game.seat
        assert seat is not None
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmQuit), "the question")
        await pilot.press("y")
        await until(pilot, lambda: not app.is_running, "the window to close")
    await until_true(lambda: host.table.seats[seat].kind == SeatKind.EMPTY, "the seat free")


async def _keep_running_from_the_lobby(pilot: Any, app: PilotApp) -> tuple[str, int, str]:
    """Open a table from `play`'s setup screen, seat Bob, quit with "keep it running";
    returns the table id, its port and Bob's token."""
    await until(pilot, lambda: setup_shown(app), "the setup screen")
    await pilot.press("enter")
    await until(pilot, lambda: app.game.table is not None, "our lobby")
    hosted = hosted_server(app)
    table_id, port = hosted.table_id, hosted.port
    bob = await RawClient.connect(hosted)
    welcome = await bob.hello("Bob")
    await pilot.press("ctrl+q")
    await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
    await pilot.press("k")
    await until(pilot, lambda: app.background_pid is not None, "the background host")
    await bob.close()
    return table_id, port, welcome["token"]


async def _connect_when_open(port: int) -> RawClient:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:  # the detached host opens the port once it has read the journal
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            return RawClient(reader, writer)
        except OSError:
            assert loop.time() < deadline, "the table never came back"
            await asyncio.sleep(0.1)  # polling with a deadline


def _gone(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    return (
        not Path(f"/proc/{pid}/cmdline").exists() or not Path(f"/proc/{pid}/cmdline").read_bytes()
    )


async def test_keep_it_running_from_the_lobby_then_play_ends_it() -> None:
    """The window that hosts quits from its lobby with "keep it running": the detached
    host reopens the same lobby (before, its journal was deleted with the lobby and the
    background host died: "there is no journal for table ..."); a later `play` on this
    laptop says the table runs in the background, and `e` ends it for everyone."""
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        table_id, port, bob_token = await _keep_running_from_the_lobby(pilot, app)
    pid = app.background_pid
    assert pid is not None
    try:
        back = await _connect_when_open(port)
        welcome = await back.hello("Bob", token=bob_token)
        assert welcome["table_id"] == table_id  # his own seat, in the same lobby
        state = await back.expect("state")
        assert state["table"]["state"] == "lobby"
        bye = asyncio.ensure_future(back.expect("bye", timeout=60))  # reading: pongs go back
        later = play_on_an_empty_lan(5)
        async with later.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(later.screen, BackgroundOffer), "the offer")
            assert "runs in the background" in screen_text(later)
            await pilot.press("e")
            assert (await bye)["code"] == "closed"
            await until(pilot, lambda: "has ended for everyone" in screen_text(later), "why")
            assert later.hosted is None  # ended, not taken over
        await until_true(lambda: _gone(pid), "the background host to end")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)


async def test_play_takes_a_background_table_back_into_its_window() -> None:
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        table_id, port, bob_token = await _keep_running_from_the_lobby(pilot, app)
    pid = app.background_pid
    assert pid is not None
    try:
        back = await _connect_when_open(port)
        await back.hello("Bob", token=bob_token)
        bye = asyncio.ensure_future(back.expect("bye", timeout=60))  # reading: pongs go back
        later = play_on_an_empty_lan(5)
        async with later.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(later.screen, BackgroundOffer), "the offer")
            await pilot.press("t")
            assert (await bye)["code"] != "closed"  # "back in a moment": Bob keeps his seat
            await until(pilot, lambda: later.hosted is not None, "the table hosted here", 30)
            assert (
                later.hosted is not None
                and later.hosted.table_id == table_id
                and later.hosted.port == port
            )
            await until(pilot, lambda: later.game.table is not None, "its lobby")
            lobby = later.game.table
            names = [s.name for s in lobby.seats] if lobby else []
            assert "Bob" in names and "Ann" in names
            await later.close_network()
        assert _gone(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
