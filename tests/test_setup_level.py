"""The setup screen of `pitchnet play` chooses the bot level of the table hosted here."""

from __future__ import annotations

from textual.widgets import Select

from client.screens.lobby import LobbyScreen
from pitchnet.bots import SearchBot
from tests.pilot import hosted_server, play_on_an_empty_lan, screen_text, setup_shown, until

SIZE = (80, 24)


async def test_the_level_chosen_on_the_setup_screen_is_the_tables() -> None:
    """Choosing `hard` in "Bots play" and opening the table: the table hosted here plays
    its bots at that level, and its lobby says so."""
    app = play_on_an_empty_lan(5)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.pause()
            level = app.screen.query_one("#setup-level", Select)
            level.focus()
            await pilot.press("space")  # open the list of levels (Enter opens the table)
            await pilot.press("down", "enter")  # normal is chosen: one down is hard
            await until(pilot, lambda: level.value == "hard", "hard chosen")
            app.screen.query_one("#setup-name").focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            await until(pilot, lambda: app.game.table is not None, "the lobby's seats")
            assert hosted_server(app).table.options.bot_level == "hard"
            await until(pilot, lambda: "hard bots" in screen_text(app), "the level shown")
            await pilot.press("s")
            await until(pilot, lambda: app.game.view is not None, "a hand at our own table")
            table = hosted_server(app).table
            await until(pilot, lambda: bool(table._bots), "a bot has played")
            assert all(isinstance(bot, SearchBot) for bot in table._bots.values())
    finally:
        await app.close_network()
