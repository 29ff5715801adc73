"""The setup screen's keys (issue 25, item 1): Space ticks a box, Enter opens the table
wherever the focus is (a tick box or a list too), and a ticked box and an unticked one
differ in shape, not only colour."""

from __future__ import annotations

import pytest
from textual.widgets import Input

from client.screens.setup import Choice, SetupScreen, Tick
from tests.pilot import play_on_an_empty_lan, screen_text, until

SIZE = (80, 30)


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))


async def test_space_ticks_browsers_then_enter_opens_the_table_with_it() -> None:
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup screen")
        setup = app.screen
        setup.query_one("#setup-web-port", Input).value = "0"  # any free port
        web = setup.query_one("#setup-web", Tick)
        await pilot.pause()
        web.focus()
        await until(pilot, lambda: web.has_focus, "the tick box focused")
        await pilot.press("space")
        assert web.value
        await until(pilot, lambda: "▐X▌ serve to phones" in screen_text(app), "a tick")
        assert "▐ ▌ two teams" in screen_text(app)  # unticked: no X at all
        await pilot.press("enter")  # from the tick box: opens, never unticks
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        assert web.value and app.web is not None  # served to browsers, as ticked
        await app.close_network()


async def test_enter_on_a_list_opens_the_table() -> None:
    app = play_on_an_empty_lan(5)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen), "the setup screen")
        await pilot.pause()
        target = app.screen.query_one("#setup-target", Choice)
        target.focus()
        await until(pilot, lambda: target.has_focus, "the list focused")
        await pilot.press("enter")
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        await app.close_network()
