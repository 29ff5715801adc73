"""A table kept running in the background, then taken back by a `play` window on the
same laptop (issue 25): every seated person keeps their seat, a phone's browser too.
Everything binds to, and the browser loads only, 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Input

from client.screens.lobby import LobbyScreen
from client.screens.prompts import BackgroundOffer, HostQuit
from host.web import CLOSE_TABLE_CLOSED
from tests.browser import PHONE_AT_3, browser, identity_of, join, seat_of
from tests.netclient import RawClient, until_true
from tests.pilot import hosted_server, play_on_an_empty_lan, setup_shown, until

pytestmark = [pytest.mark.timeout(300), pytest.mark.slow]

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The background host (a process of its own) finds the journal where we do."""
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))


async def _seats_of_the_table(port: int) -> list[dict[str, Any]]:
    """The seats as a watcher of the table on `port` reads them (it may be opening)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while True:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            break
        except OSError:
            assert loop.time() < deadline, "the table never came back"
            await asyncio.sleep(0.1)  # polling the port with a deadline
    watcher = RawClient(reader, writer)
    try:
        await watcher.hello("Watcher", watch=True)
        state = await watcher.expect("state")
        seats: list[dict[str, Any]] = state["table"]["seats"]
        return seats
    finally:
        await watcher.close()


@pytest.mark.parametrize("when", ["lobby", "match"])
async def test_taking_a_table_back_keeps_a_phones_seat(when: str) -> None:
    """The hosting window serves browsers; Pat sits down from a phone; the window quits
    with "keep it running" (in the lobby, or mid-match), and Pat's page follows the table
    to the background host; a later `play` takes it back. Pat's phone sits in Pat's seat
    again (from the lobby, the background host's SIGHUP used to forget the browsers'
    identities: the phone came back a stranger, its seat kept "away" for nobody)."""
    app = play_on_an_empty_lan(5)
    async with browser() as chromium:
        context = await chromium.new_context(**PHONE_AT_3)
        await context.add_init_script(RECORD_CLOSES)
        page = await context.new_page()
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            app.screen.query_one("#setup-web", Checkbox).value = True
            app.screen.query_one("#setup-web-port", Input).value = "0"
            await pilot.pause()
            assert await pilot.click(app.screen.query_one("#setup-open"))
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            hosted, web = hosted_server(app), app.web
            assert web is not None
            port, web_port = hosted.port, web.port
            await join(page, web, "Pat")
            await until(pilot, lambda: seat_of(hosted, "Pat") is not None, "Pat seated", 30)
            pat = seat_of(hosted, "Pat")
            assert pat is not None and await identity_of(context, web) is not None
            if when == "match":
                await pilot.press("s")  # start: bots fill the rest
                await until(pilot, lambda: app.game.view is not None, "the deal", 30)
            await pilot.press("ctrl+q")
            await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
            await pilot.press("k")
            await until(pilot, lambda: app.background_pid is not None, "the background host")
        pid = app.background_pid
        assert pid is not None
        try:

            async def pat_back(port: int) -> bool:
                seats = await _seats_of_the_table(port)
                return seats[pat]["name"] == "Pat" and bool(seats[pat]["connected"])

            # Each look is a connection to the background host: a few a second, no more.
            await until_true(
                lambda: pat_back(port), "Pat back at the background table", timeout=60, every=0.2
            )
            later = play_on_an_empty_lan(5)
            async with later.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(later.screen, BackgroundOffer), "the offer")
                await pilot.press("t")
                await until(pilot, lambda: later.hosted is not None, "taken back", 30)
                taken = hosted_server(later)
                assert taken.port == port
                await until(pilot, lambda: later.web is not None, "the web join again", 30)
                assert later.web is not None and later.web.port == web_port
                seats = taken.table.seats
                await until(
                    pilot,
                    lambda: seat_of(taken, "Pat") == pat and not seats[pat].substitute,
                    "Pat in her own seat again, from the phone",
                    60,
                )
                assert all(s.name != "Pat" for i, s in enumerate(seats) if i != pat)
                closes = await page.evaluate("JSON.parse(sessionStorage.closes || '[]')")
                assert closes, "the page never saw its table go (the test saw nothing)"
                assert CLOSE_TABLE_CLOSED not in closes, closes  # never told it ended
                await later.close_network()
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
            await context.close()


RECORD_CLOSES = """
(() => {
  const Real = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Real(...args);
    socket.addEventListener("close", (event) => {
      const seen = JSON.parse(sessionStorage.closes || "[]");
      seen.push(event.code);
      sessionStorage.closes = JSON.stringify(seen);
    });
    return socket;
  };
  window.WebSocket.prototype = Real.prototype;
  for (const name of ["CONNECTING", "OPEN", "CLOSING", "CLOSED"]) {
    window.WebSocket[name] = Real[name];
  }
})();
"""
"""Each page of the context keeps the close codes of its websockets (across reloads)."""
