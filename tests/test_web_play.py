"""`pitchnet play`'s setup screen can serve the table it hosts to browsers too: the
hosting window then shows the address in its lobby and, on `w`, its QR code."""

from __future__ import annotations

import aiohttp
from textual.widgets import Checkbox, Input

from client.background import resume_command
from client.screens.lobby import LobbyScreen
from client.screens.prompts import HostQuit, WebAddress
from host.web_qr import qr_text
from tests.pilot import play_on_an_empty_lan, screen_text, setup_shown, until

SIZE = (80, 24)


async def get(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as session, session.get(url) as answer:
        return answer.status, await answer.text()


async def test_serve_to_browsers_from_setup_shows_the_address_and_its_qr_code() -> None:
    app = play_on_an_empty_lan(seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        app.screen.query_one("#setup-web", Checkbox).value = True
        app.screen.query_one("#setup-web-port", Input).value = "0"  # any free port
        await pilot.pause()  # laid out, so the button has a place to click
        assert await pilot.click(app.screen.query_one("#setup-open"))
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
        assert app.web is not None and app.hosted is not None
        url = f"http://127.0.0.1:{app.web.port}/"
        assert app.web_urls == [url]
        assert app.web.config.interface == "127.0.0.1"  # the window's interface, never all
        assert app.web.config.table_port == app.hosted.port
        await until(pilot, lambda: url in screen_text(app), "the address in the lobby")
        status, page = await get(url)
        assert status == 200 and "Ann&#x27;s table" in page and 'id="name"' in page
        await pilot.press("w")
        await until(pilot, lambda: isinstance(app.screen, WebAddress), "the QR code")
        first_row = qr_text(url).splitlines()[2]
        assert first_row.strip() and first_row.strip() in screen_text(app)
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "back to the lobby")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
        web = app.web
        await pilot.press("e")
        await until(pilot, lambda: app.web is None and web._runner is None, "the web closed")
    try:
        await get(url)
    except aiohttp.ClientConnectionError:
        pass
    else:
        raise AssertionError("the web join still answers after the table ended")


async def test_without_the_choice_no_browsers_are_served() -> None:
    app = play_on_an_empty_lan(seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
        await until(pilot, lambda: app.game.table is not None, "the lobby's seats")
        assert app.web is None and app.web_urls == []
        assert "Phones and browsers" not in screen_text(app)
        await pilot.press("w")
        await pilot.pause()
        assert not isinstance(app.screen, WebAddress)


async def test_a_bad_web_port_is_refused_on_the_setup_screen() -> None:
    app = play_on_an_empty_lan(seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        setup = app.screen
        setup.query_one("#setup-web", Checkbox).value = True
        setup.query_one("#setup-web-port", Input).value = "70000"
        await pilot.pause()  # laid out, so the button has a place to click
        assert await pilot.click(app.screen.query_one("#setup-open"))
        await until(pilot, lambda: "65535" in screen_text(app), "the reason")
        assert app.screen is setup and app.hosted is None


def test_keeping_a_served_table_running_keeps_its_web_join_on_the_same_port() -> None:
    command = resume_command("abc123", 7373, "127.0.0.1", web_port=8080)
    assert command[command.index("--web") + 1] == "8080"
    assert "--web" not in resume_command("abc123", 7373, "127.0.0.1")
