"""`pitchnet play` on a laptop whose hosted table never finished: it offers to resume
it, and the player sits back down in their own seat with the same cards."""

from __future__ import annotations

from client.screens.prompts import ResumeOffer
from client.screens.table import TableScreen
from client.tokens import SavedSeat, TokenStore
from host.server import HostConfig, HostServer
from pitchnet.protocol import Start
from pitchnet.views import seat_view
from tests.netclient import RawClient
from tests.pilot import dealt, play_on_an_empty_lan, setup_shown, until
from tests.test_client_play import SIZE


async def _leave_an_unfinished_table() -> tuple[str, int, list[str]]:
    """Host a table, sit "Ann" at it with bots, let a few cards be played, then stop."""
    config = HostConfig(port=0, interface="127.0.0.1", advertise=False, bot_delay=0, seed=3)
    server = HostServer(config)
    await server.start()
    try:
        ann = await RawClient.connect(server)
        welcome = await ann.hello("Ann")
        ann.send(Start(id=ann.new_id()))
        await ann.expect("ack")
        match = server.table.match
        assert match is not None and match.hand is not None
        hand = seat_view(match, welcome["seat"]).hand
        TokenStore().remember(
            SavedSeat(server.table_id, "Ann", "127.0.0.1", server.port, welcome["token"])
        )
        return server.table_id, welcome["seat"], hand
    finally:
        await server.close()


async def test_play_offers_to_resume_and_sits_the_player_back_down() -> None:
    table_id, seat, hand = await _leave_an_unfinished_table()
    app = play_on_an_empty_lan()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumeOffer), "the resume offer")
            await pilot.press("r")
            await until(pilot, lambda: app.game.view is not None, "the resumed table")
            assert app.hosted is not None and app.hosted.table_id == table_id
            assert app.game.seat == seat
            assert isinstance(app.screen, TableScreen)
            # Our own cards, as dealt before the table stopped (bots may play on since).
            assert set(dealt(app).hand) <= set(hand)
    finally:
        await app.close_network()


async def test_play_can_decline_and_host_a_new_table() -> None:
    table_id, _, _ = await _leave_an_unfinished_table()
    app = play_on_an_empty_lan()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumeOffer), "the resume offer")
            await pilot.press("n")
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.press("enter")
            await until(pilot, lambda: app.game.table is not None, "a new table's lobby")
            assert app.hosted is not None and app.hosted.table_id != table_id
    finally:
        await app.close_network()


async def test_resuming_a_table_whose_seats_are_all_other_players_watches_it() -> None:
    """The laptop hosted a table for two friends and did not play (`pitchnet host`), and
    the table stopped. `play` offers to resume it; every seat is kept for its player, so
    the one who resumed it watches the table they host, rather than being told it "went
    away" and offered yet another table."""
    config = HostConfig(players=2, port=0, interface="127.0.0.1", advertise=False, bot_delay=0)
    server = HostServer(config)
    await server.start()
    try:
        ben, cat = await RawClient.connect(server), await RawClient.connect(server)
        await ben.hello("Ben")
        await cat.hello("Cat")
        ben.send(Start(id=ben.new_id()))
        await ben.expect("ack")
        assert server.table.match is not None and server.table.open_seats() == 0
        table_id = server.table_id
    finally:
        await server.close()
    app = play_on_an_empty_lan()
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ResumeOffer), "the resume offer")
            await pilot.press("r")
            await until(pilot, lambda: app.game.watching and app.game.view is not None, "watching")
            assert app.hosted is not None and app.hosted.table_id == table_id
            assert app.game.seat is None
            assert isinstance(app.screen, TableScreen)
            assert "went away" not in app.finder_note
    finally:
        await app.close_network()
