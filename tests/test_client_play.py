"""The client driven through its UI (Pilot) against a real host with bots on 127.0.0.1.

Every wait polls a condition with a deadline; nothing waits a fixed time hoping the
host has answered.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any, ClassVar

import pytest
from textual.widgets import DataTable, Input

from client.app import ClientOptions, ConnectionNews
from client.messages import Disconnected, HostError, Welcomed
from client.screens.lobby import LobbyScreen
from client.screens.match_end import MatchEnd
from client.screens.prompts import ConfirmLeave, OfflineScreen, PasswordPrompt, WatchOffer
from client.screens.setup import SetupScreen
from client.screens.summary import HandSummary
from client.screens.table import TableScreen
from client.widgets.cards import CardFace
from client.widgets.log import HandLog
from host.server import HostConfig, HostServer
from pitchnet.protocol import Sit, Start
from pitchnet.rules import Phase, RulesError
from tests.netclient import running_host, until_true
from tests.pilot import (
    NoTables,
    dealt,
    dealt_scene,
    hosted_server,
    moved_on,
    my_seat,
    play_on_an_empty_lan,
    screen_text,
    setup_shown,
    tables_seen,
    tap,
    until,
)
from tests.pilot_app import PilotApp

SEED = 5
SIZE = (80, 24)


@pytest.fixture
async def host() -> AsyncIterator[HostServer]:
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=SEED, advertise=False)
    async with HostServer(config) as server:
        yield server


def join_app(port: int, name: str = "Ann") -> PilotApp:
    return PilotApp(ClientOptions(name=name, mode="join", address=("127.0.0.1", port)))


async def test_play_a_whole_hand_through_the_ui(host: HostServer) -> None:
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        assert isinstance(app.screen, TableScreen)
        led = followed = bid = 0
        clicked = False
        while dealt(app).phase in ("bidding", "playing"):
            game = app.game
            await until(
                pilot,
                lambda: (
                    dealt(app).turn == app.game.seat
                    or dealt(app).phase not in ("bidding", "playing")
                ),
                "our turn",
            )
            view, seq = dealt(app), app.game.seq
            if view.phase == "bidding":
                amount = max((b for b in view.legal_bids if b is not None), default=None)
                await pilot.press(str(amount) if amount else "p", "enter")  # pick, confirm
                bid += 1
            elif view.phase == "playing":
                card = view.legal_plays[0]
                slot = view.hand.index(card)
                if view.trick:
                    followed += 1
                    face = app.screen.query(CardFace)[slot]
                    await tap(pilot, face, "the card")  # the mouse plays a card directly
                    clicked = True
                else:
                    led += 1
                    await pilot.press(str(slot + 1), "enter")  # pick, then play
            else:
                break
            await until(pilot, moved_on(app, seq), "the host's answer")
            assert game is app.game
        await until(pilot, lambda: isinstance(app.screen, HandSummary), "the hand summary")
        # Pushed is not yet painted: on a busy machine the summary's first frame comes later.
        await until(pilot, lambda: "Score" in screen_text(app), "the summary drawn")
        text = screen_text(app)
        for word in ("High", "Low", "Jack", "Game", "Before", "Score"):
            assert word in text
        log = "\n".join(line.plain for line in app.game.log)
        assert "won the trick" in log
        assert log.count("won the trick") == 6
        assert bid == 1 and led >= 1 and followed >= 1 and clicked
        assert app.notices == []  # nothing we sent was refused
        await pilot.press("enter")  # ready: the bots are always ready, so hand 2 is dealt
        await until(pilot, lambda: dealt(app).hand_number == 2, "the second deal")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the summary to close")


async def test_an_unplayable_card_is_refused_with_the_reason(host: HostServer) -> None:
    """Click a card in the bidding, then key a bid the rules refuse: each goes to the host,
    which refuses it in its own words, shown as it worded them; nothing changes."""
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        await until(pilot, lambda: dealt(app).turn == app.game.seat, "our turn to bid", timeout=10)
        hand, bids = dealt(app).hand, dealt(app).bids
        await tap(pilot, app.screen.query(CardFace)[0], "the first card")
        await until(pilot, lambda: app.notices, "the host's refusal of the card")
        assert app.notices[-1] == "The bidding is not over yet."  # pitchnet/rules.py's words
        assert dealt(app).hand == hand
        await pilot.press("1")  # no such bid: the bid bar does not offer it
        await until(pilot, lambda: len(app.notices) == 2, "the host's refusal of the bid")
        assert app.game.seat is not None and host.table.match is not None
        with pytest.raises(RulesError) as refused:  # what the rules say to a bid of 1 now
            host.table.match.check_bid(app.game.seat, 1)
        assert app.notices[-1] == refused.value.message
        assert dealt(app).hand == hand and dealt(app).bids == bids
        assert app.connection is not None and app.connection.pending == []


async def test_a_hostile_name_renders_literally(host: HostServer) -> None:
    hostile = "[red]x[/red]\x1b[2J"
    app = join_app(host.port, name=hostile)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.pause()
        text = screen_text(app)
        assert "[red]x[/red]" in text
        assert "\x1b" not in text
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        await pilot.pause()
        assert "[red]x[/r" in screen_text(app)  # the seats panel may cut the name short


async def test_a_host_error_is_shown_as_a_notification(host: HostServer) -> None:
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert app.connection is not None
        app.connection.ready()  # nothing to be ready for in the lobby
        await until(pilot, lambda: app.notices, "the host's refusal")
        assert "ready" in app.notices[-1].lower()


def news_into(seen: list[Any]) -> Callable[[Any], None]:
    """A message hook that keeps the connection's news (unwrapped) and every other
    message the app handles, in order."""
    return lambda m: seen.append(m.news if isinstance(m, ConnectionNews) else m)


async def test_a_full_table_says_why_and_offers_the_finder() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", bots=4, bot_delay=0, advertise=False)
    async with HostServer(config) as server:
        seen: list[Any] = []
        app = join_app(server.port)
        async with app.run_test(size=SIZE, message_hook=news_into(seen)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, WatchOffer), "the refusal")
            await pilot.pause()
            text = screen_text(app)
            [refusal] = [m for m in seen if isinstance(m, HostError)]
            assert refusal.fatal and refusal.code == "table_full"
            assert "No free seat" in text  # and an offer to watch instead (issue 25)
            assert refusal.message in text
            assert app.notices == []  # said once, in the dialog, not in a toast as well
            await pilot.press("escape")
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            assert app.finder_note.startswith("No free seat at ")


async def test_a_restarted_client_sits_back_down_in_its_seat(host: HostServer) -> None:
    """The seat token is kept on disk, so a client that died mid-hand and is
    started again gets the same seat and the same cards."""
    first = join_app(host.port)
    async with first.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(first.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: first.game.view is not None, "the first deal")
        seat, hand = my_seat(first), list(dealt(first).hand)
    # the app is gone without a word to the host, as if killed
    await until_true(lambda: not host.table.seats[seat].connected, "the host to notice")
    second = join_app(host.port)
    async with second.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: second.game.view is not None, "the rejoin")
        assert second.game.seat == seat
        assert dealt(second).hand == hand
        assert isinstance(second.screen, TableScreen)


async def test_a_stale_remembered_seat_falls_back_to_a_fresh_join(host: HostServer) -> None:
    from client.tokens import SavedSeat, TokenStore

    TokenStore().remember(SavedSeat("gone-table", "Ann", "127.0.0.1", host.port, "old-token"))
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "a fresh seat")
        assert app.game.table_id == host.table_id
        assert not any(isinstance(s, OfflineScreen) for s in app.screen_stack)
    assert TokenStore().find("Ann", table_id=host.table_id) is not None


async def test_a_password_table_asks_for_it_until_it_is_right() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", password="sesame", advertise=False)
    async with HostServer(config) as server:
        app = join_app(server.port)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PasswordPrompt), "the prompt")
            prompt = app.screen
            assert isinstance(prompt, PasswordPrompt) and not prompt.wrong
            await pilot.press(*"open", "enter")
            await until(
                pilot,
                lambda: isinstance(app.screen, PasswordPrompt) and app.screen.wrong,
                "the prompt again, saying the password was wrong",
            )
            await pilot.press(*"sesame", "enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert server.table.seats[0].kind == "human"


async def test_a_given_password_is_used_instead_of_asking() -> None:
    """`pitchnet join --password`: a password table from the list, or typed into the
    address box, is joined without the prompt."""
    from client.discovery import FoundTable
    from pitchnet.protocol import PROTOCOL_VERSION

    config = HostConfig(port=0, interface="127.0.0.1", password="sesame", advertise=False)
    async with HostServer(config) as server:
        advert = FoundTable(
            "Locked",
            server.table_id,
            "127.0.0.1",
            server.port,
            PROTOCOL_VERSION,
            0,
            4,
            "lobby",
            True,
        )
        options = ClientOptions(name="Ann", mode="find", password="sesame")
        app = PilotApp(options, browser_factory=tables_seen([advert]))
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.screen.query_one(DataTable).row_count, "the list")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            assert server.table.seats[0].kind == "human"
            await pilot.press("escape", "y")
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            await until(pilot, lambda: server.table.seats[0].kind == "empty", "a free seat")
            await pilot.press("a", *f"127.0.0.1:{server.port}", "enter")  # no pw asked yet
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby again")
            assert server.table.seats[0].kind == "human"


async def test_a_wrong_given_password_asks_for_the_right_one() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", password="sesame", advertise=False)
    async with HostServer(config) as server:
        options = ClientOptions(
            name="Ann", mode="join", address=("127.0.0.1", server.port), password="open"
        )
        app = PilotApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, PasswordPrompt), "the prompt")
            prompt = app.screen
            assert (
                isinstance(prompt, PasswordPrompt) and prompt.wrong
            )  # the given one was tried, and said to be wrong
            await pilot.press(*"sesame", "enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")


async def test_a_lost_host_is_shown_at_once() -> None:
    async with running_host(seed=SEED) as server:  # closed here too (a second close is a no-op)
        app = join_app(server.port)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("s")
            await until(pilot, lambda: app.game.view is not None, "the first deal")
            await server.close()
            await until(pilot, lambda: isinstance(app.screen, OfflineScreen), "the lost banner")
            # Pushed is not yet painted: on a busy machine the first frame comes a bit later.
            await until(pilot, lambda: "Connection lost" in screen_text(app), "the banner drawn")
            await pilot.press("escape")
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            # The host was not told we left: the seat is still ours, and so is its token.
            assert app.tokens.find("Ann", table_id=server.table_id) is not None


async def test_a_dropped_link_is_shown_then_healed_by_itself(host: HostServer) -> None:
    """The host side of the socket vanishes mid-hand: the client says so, reconnects with
    its token and is back at the same seat with the same cards, without a keypress."""
    seen: list[Any] = []
    app = join_app(host.port)
    async with app.run_test(size=SIZE, message_hook=news_into(seen)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        hand, seat = list(dealt(app).hand), my_seat(app)
        host.connections[seat].abort()
        await until(pilot, lambda: any(isinstance(m, Disconnected) for m in seen), "the drop")
        await until(pilot, lambda: sum(isinstance(m, Welcomed) for m in seen) == 2, "the rejoin")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert not any(isinstance(s, OfflineScreen) for s in app.screen_stack)
        assert app.game.seat == seat
        assert dealt(app).hand == hand  # we have not played: the same six cards
        drop = next(m for m in seen if isinstance(m, Disconnected))
        assert drop.retrying


def log_lines(app: PilotApp) -> list[str]:
    return [line.plain for line in app.game.log]


def drawn_log(app: PilotApp) -> str:
    """What the log widget of the table screen holds (all of it, not just what fits)."""
    return "\n".join(strip.text for strip in app.screen.query_one(HandLog).lines)


async def test_the_log_outlasts_a_dropped_link(host: HostServer) -> None:
    """A reconnect in the same process keeps the log: what happened before the drop is
    still there, in the game state and on screen, with "You are back" after it."""
    seen: list[Any] = []
    app = join_app(host.port)
    async with app.run_test(size=SIZE, message_hook=news_into(seen)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: any("deal" in line for line in log_lines(app)), "the deal")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("l")  # at 80x24 the log is beside the felt only when asked for
        await pilot.pause()
        before = log_lines(app)
        assert "-- Hand 1:" in drawn_log(app)
        host.connections[my_seat(app)].abort()
        await until(pilot, lambda: sum(isinstance(m, Welcomed) for m in seen) == 2, "the rejoin")
        await until(pilot, lambda: "You are back" in log_lines(app), "the rejoin in the log")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table again")
        assert log_lines(app)[: len(before)] == before
        await until(pilot, lambda: "You are back" in drawn_log(app), "the log redrawn")
        drawn = drawn_log(app)
        assert all(line in drawn for line in before)


async def test_rejoining_the_same_table_keeps_the_log(host: HostServer) -> None:
    """Leave for the finder and sit down at the same table again: its log carries on.
    Another table starts a log of its own."""
    app = PilotApp(
        ClientOptions(name="Ann", mode="join", address=("127.0.0.1", host.port)),
        browser_factory=NoTables,
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "You sat down" in log_lines(app), "the first seat")
        await pilot.press("escape", "y")
        await until(pilot, lambda: app.current_mode == "finder", "the finder")
        await until(pilot, lambda: host.table.seats[0].kind == "empty", "the seat to be free")
        await pilot.press("a", *f"127.0.0.1:{host.port}", "enter")
        await until(pilot, lambda: log_lines(app).count("You sat down") == 2, "the second seat")
        assert log_lines(app)[0] == "You sat down"  # the first visit is still there
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.press("l")
        await pilot.pause()
        assert drawn_log(app).count("You sat down") == 2

        config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, advertise=False)
        async with HostServer(config) as other:
            await pilot.press("escape", "y")
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            await pilot.press("a", *f"127.0.0.1:{other.port}", "enter")
            await until(pilot, lambda: app.game.table_id == other.table_id, "the other table")
            await until(pilot, lambda: log_lines(app), "the other table's log")
            assert log_lines(app) == ["You sat down"]


async def test_play_hosts_a_table_with_bots_when_none_is_found() -> None:
    """`pitchnet play` on an empty LAN: the setup screen (Enter takes its defaults), then
    the lobby of a table hosted here (never a dealt hand); `s` starts it with bots."""

    app = play_on_an_empty_lan(SEED)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            await until(pilot, lambda: app.game.table is not None, "the lobby's seats")
            assert app.hosted is not None and app.game.hosting
            lobby = app.game.table
            assert lobby is not None and app.game.view is None and lobby.state == "lobby"
            assert app.hosted.name == "Ann's table" and len(lobby.seats) == 4
            await until(pilot, lambda: "hosted here" in screen_text(app), "the header painted")
            await pilot.press("s")
            await until(pilot, lambda: app.game.view is not None, "a hand at our own table")
            assert isinstance(app.screen, TableScreen)
            assert app.game.table is not None
            kinds = [seat.kind for seat in app.game.table.seats]
            assert kinds == ["human", "bot", "bot", "bot"]
    finally:
        await app.close_network()


async def test_a_table_hosted_here_with_a_password_seats_its_own_window_without_asking() -> None:
    """The setup screen's password protects the table from the others; the window that
    hosts it sits down in its lobby at once, never asked for the password it just chose."""
    app = play_on_an_empty_lan(SEED)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.pause()
            app.screen.query_one("#setup-password", Input).value = "kitchen"
            app.screen.query_one("#setup-name").focus()
            await pilot.press("enter")
            await until(pilot, lambda: app.game.seat is not None, "seated at our own table")
            assert hosted_server(app).table.options.password == "kitchen"
            assert isinstance(app.screen, LobbyScreen)
            assert not any(isinstance(s, PasswordPrompt) for s in app.screen_stack)
    finally:
        await app.close_network()


async def test_ctrl_o_opens_the_table_from_any_field_of_the_setup_screen() -> None:
    """Enter on a list opens the list, so ctrl+o opens the table from any field (ctrl+s,
    the screenshot key everywhere, does not)."""
    app = play_on_an_empty_lan(SEED)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.pause()
            app.screen.query_one("#setup-level").focus()
            await pilot.press("ctrl+o")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            assert app.hosted is not None
    finally:
        await app.close_network()


async def test_a_second_enter_on_the_setup_screen_hosts_one_table_and_no_crash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Enter pressed twice before the setup screen is gone (a double press, a busy
    machine): the second answer is ignored, so one table is hosted and the screen under
    the setup screen is not popped (that was a ScreenStackError traceback)."""
    app = play_on_an_empty_lan(SEED)
    hosted: list[Any] = []
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            setup = app.screen
            assert isinstance(setup, SetupScreen)
            await pilot.pause()  # drawn, as when a person presses Enter
            real_host_here = app.host_here

            def counting_host_here(*args: Any, **kwargs: Any) -> Any:
                hosted.append(args or kwargs)
                return real_host_here(*args, **kwargs)

            monkeypatch.setattr(app, "host_here", counting_host_here)
            setup.action_accept()
            setup.action_accept()  # the second Enter, already queued
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            await until(pilot, lambda: app.game.table is not None, "the lobby's seats")
            assert len(hosted) == 1 and app.is_running
    finally:
        await app.close_network()


async def test_play_looks_for_a_second_after_browsing_has_started(host: HostServer) -> None:
    """On a busy laptop starting zeroconf can take longer than the whole first look: the
    look is timed from when browsing has begun, so a table the network answers with
    then is joined, and no setup screen is offered beside it."""
    from client.discovery import FoundTable
    from pitchnet.protocol import PROTOCOL_VERSION

    slow = 2.0  # longer than the first look and the random second look together
    found = FoundTable(
        "Kitchen", host.table_id, "127.0.0.1", host.port, PROTOCOL_VERSION, 0, 4, "lobby",
        False, open=4,
    )  # fmt: skip

    class SlowBrowser:
        tables: list[Any] = []  # noqa: RUF012

        def __init__(self, interface: str | None, on_change: Callable[..., None]) -> None:
            self.on_change = on_change

        async def start(self) -> None:
            await asyncio.sleep(slow)  # a slow zeroconf start, not a wait for the app
            self.tables = [found]
            self.on_change(self.tables)

        async def close(self) -> None:
            pass

    options = ClientOptions(name="Ann", mode="play")
    app = PilotApp(options, browser_factory=SlowBrowser, browse_seconds=0.2)
    offered_setup = False

    def joined() -> bool:
        nonlocal offered_setup
        offered_setup = offered_setup or isinstance(app.screen, SetupScreen)
        return isinstance(app.screen, LobbyScreen) and app.game.table_id == host.table_id

    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, joined, "the table the slow browser found", timeout=20)
        assert not offered_setup and app.hosted is None


async def test_a_whole_match_then_play_again(host: HostServer) -> None:
    """Hand after hand through the keyboard until someone wins; the match-end screen
    shows the winner and "Play again" starts a new match."""
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        hands = 0
        while dealt(app).phase != "match_over":
            view, seq = dealt(app), app.game.seq
            if view.phase == "hand_over":
                assert isinstance(app.screen, HandSummary)
                await pilot.press("enter")
                hands += 1
            elif view.turn != app.game.seat:
                pass  # a bot is about to act
            elif view.phase == "bidding":  # pass when we may: bots pitch, and one soon wins
                low = min((b for b in view.legal_bids if b is not None), default=None)
                await pilot.press("p" if None in view.legal_bids else str(low), "enter")
            else:
                slot = view.hand.index(view.legal_plays[-1])
                await pilot.press(str(slot + 1), str(slot + 1))  # the same key twice plays
            await until(pilot, moved_on(app, seq), "the next snapshot")
            assert hands < 60, "a match to 7 should not take this long"
        await until(pilot, lambda: isinstance(app.screen, MatchEnd), "the match-end screen")
        winner = dealt(app).winner
        assert winner is not None and dealt(app).scores[winner] >= 7
        assert "won the match" in screen_text(app)
        await pilot.press("enter")  # play again
        await until(pilot, lambda: dealt(app).phase == "bidding", "a new match")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert dealt(app).hand_number == 1
        assert dealt(app).scores == [0, 0, 0, 0]
        assert app.notices == []


async def test_a_number_key_picks_and_the_same_key_again_plays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Keys against an engine-built view: one press only picks, wherever the cursor was."""
    table, view, events = dealt_scene("playing", seed=7)
    sent: list[str] = []
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    monkeypatch.setattr(app, "send_play", sent.append)
    async with app.run_test(size=SIZE) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        slot = view.hand.index(view.legal_plays[0])
        await pilot.press(str(slot + 1))
        assert sent == []  # picked, not played, even if the cursor was already there
        await pilot.press(str(slot + 1))
        assert sent == [view.legal_plays[0]]


async def test_leaving_asks_first_then_frees_the_seat(host: HostServer) -> None:
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeave), "the question")
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, ConfirmLeave), "the answer")
        assert isinstance(app.screen, LobbyScreen) and host.table.seats[0].kind == "human"
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, ConfirmLeave), "the question")
        await pilot.press("y")
        await until(pilot, lambda: app.current_mode == "finder", "the finder")
        await until(pilot, lambda: host.table.seats[0].kind == "empty", "the seat to be free")


async def test_the_host_closing_on_purpose_sends_the_client_to_the_finder() -> None:
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=SEED, advertise=False)
    server = HostServer(config)
    await server.start()
    app = join_app(server.port)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await server.close(on_purpose=True)
            await until(pilot, lambda: app.current_mode == "finder", "the finder")
            assert "The host closed the table." in app.notices
            await until(pilot, lambda: "The host closed the table" in screen_text(app), "why")
            assert not isinstance(app.screen, OfflineScreen)  # no reconnect loop
            assert app.tokens.find("Ann", table_id=server.table_id) is not None  # remembered
    finally:
        await server.close()


async def test_quitting_the_window_that_hosts_asks_and_ends_the_table_for_everyone() -> None:
    from client.screens.prompts import HostQuit
    from tests.netclient import RawClient

    app = play_on_an_empty_lan(SEED)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.press("enter")
        await until(pilot, lambda: app.game.table is not None, "our lobby")
        hosted = hosted_server(app)
        friend = await RawClient.connect(hosted)
        await friend.hello("Bob")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
        assert hosted.table.state == "lobby" and app.is_running  # nothing ended yet
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, HostQuit), "the answer")
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question again")
        await pilot.press("e")
        bye = await friend.expect("bye")
        assert bye["code"] == "closed" and bye["reason"] == "The host closed the table."
    assert app.hosted is None


async def _act_for(pilot: Any, app: PilotApp) -> None:
    """One move of the app's player if it is their turn: the top bid or a pass, the first
    legal card, or ready on the summary."""
    view = app.game.view
    if view is None:
        return
    if isinstance(app.screen, HandSummary):
        await pilot.press("enter")
    elif view.turn == app.game.me and view.phase == "bidding":
        amount = max((b for b in view.legal_bids if b is not None), default=None)
        await pilot.press(str(amount) if amount else "p", "enter")
    elif view.turn == app.game.me and view.phase == "playing" and view.legal_plays:
        await pilot.press(str(view.hand.index(view.legal_plays[0]) + 1), "enter")


async def _play_seat(client: Any, states: list[dict[str, Any]]) -> None:
    """Play a raw client's seat (pass or the lowest bid, the first legal card, ready)
    and keep every state it received, until the host hangs up."""
    from pitchnet.protocol import BidMsg, PlayMsg, Ready
    from pitchnet.views import SeatView

    acted = None
    with contextlib.suppress(ConnectionError, TimeoutError):
        while True:
            state = await client.expect("state", timeout=120)
            states.append(state)
            if state["view"] is None:
                continue
            view = SeatView.from_wire(state["view"])
            key = (view.hand_number, len(view.bids), len(view.tricks), len(view.trick))
            if key == acted:
                continue
            if view.phase == "hand_over" and not state["table"]["seats"][view.seat]["ready"]:
                acted = key
                client.send(Ready(id=client.new_id()))
            elif view.my_turn and view.phase == "bidding":
                acted = key
                amount = None if None in view.legal_bids else view.legal_bids[0]
                client.send(BidMsg(id=client.new_id(), bid=amount))
            elif view.my_turn and view.phase == "playing":
                acted = key
                client.send(PlayMsg(id=client.new_id(), card=view.legal_plays[0]))


async def test_keep_it_running_hands_the_same_table_to_a_background_host() -> None:
    """Keep the table running: a detached host resumes the same table (its id, seats,
    scores and the hand in progress, card for card) on the same port, and a player who
    was seated reconnects to their seat with their token."""
    import os
    import signal

    from client.screens.prompts import HostQuit
    from tests.netclient import RawClient

    app = play_on_an_empty_lan(SEED)
    bob_states: list[dict[str, Any]] = []
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.press("enter")
        await until(pilot, lambda: app.game.table is not None, "our lobby")
        hosted = hosted_server(app)
        table_id, port = hosted.table_id, hosted.port
        bob = await RawClient.connect(hosted)
        welcome = await bob.hello("Bob")
        bob_seat, bob_token = welcome["seat"], welcome["token"]
        bob_playing = asyncio.ensure_future(_play_seat(bob, bob_states))
        await until(
            pilot,
            lambda: bool(app.game.table and app.game.table.seats[bob_seat].name == "Bob"),
            "Bob seated",
        )
        await pilot.press("s")  # bots in the other seats
        await until(pilot, lambda: app.game.view is not None, "the first deal")

        def ann_to_act_in_hand_2() -> bool:
            view = app.game.view
            return (
                view is not None
                and view.hand_number == 2
                and view.phase == "playing"
                and view.turn == app.game.me
                and bool(bob_states)
                and bob_states[-1]["seq"] == app.game.seq  # Bob has seen it too
            )

        # Play hand 1 out (so there are scores) and into hand 2, to Ann's turn: the
        # table then waits for Ann and nothing changes until she plays.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        while not ann_to_act_in_hand_2():
            assert loop.time() < deadline, f"hand 2 never came\n{screen_text(app)}"
            await _act_for(pilot, app)
            await pilot.pause(0.05)
        before = bob_states[-1]
        assert any(before["view"]["scores"]) and before["view"]["bids"]
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
        await pilot.press("k")
        await until(pilot, lambda: app.background_pid is not None, "the background host")
        await asyncio.wait_for(bob_playing, 20)  # the window's host hung up on Bob
    pid = app.background_pid
    assert pid is not None
    try:
        deadline = asyncio.get_running_loop().time() + 30
        while True:  # the detached host opens the port once it has read the journal
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                assert asyncio.get_running_loop().time() < deadline, "the table never came back"
                await asyncio.sleep(0.1)
        back = RawClient(reader, writer)
        welcome = await back.hello("Bob", token=bob_token)
        assert welcome["table_id"] == table_id and welcome["seat"] == bob_seat
        after = await back.expect("state")
        seats = [(s["name"], s["kind"]) for s in after["table"]["seats"]]
        assert seats == [(s["name"], s["kind"]) for s in before["table"]["seats"]]
        assert after["table"]["id"] == table_id and after["table"]["state"] == "playing"
        for fact in ("hand_number", "scores", "hand", "bids", "trick", "tricks", "turn"):
            assert after["view"][fact] == before["view"][fact], fact
        assert after["table"]["seats"][bob_seat]["connected"]
        await back.close()
    finally:
        os.kill(pid, signal.SIGTERM)


async def test_pitchnet_watch_shows_the_table_and_no_hand() -> None:
    from tests.netclient import RawClient, play_as_bot

    config = HostConfig(
        port=0, interface="127.0.0.1", bot_delay=0.05, seed=SEED, advertise=False, bots=1
    )
    async with HostServer(config) as server:
        options = ClientOptions(name="Eve", mode="watch", address=("127.0.0.1", server.port))
        app = PilotApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.game.watching, "the spectator's welcome")
            ann = await RawClient.connect(server)
            await ann.hello("Ann")
            bob = await RawClient.connect(server)
            await bob.hello("Bob")
            cat = await RawClient.connect(server)
            await cat.hello("Cat")  # the table is full: the match starts
            players = [asyncio.ensure_future(play_as_bot(c)) for c in (ann, bob, cat)]
            try:
                await until(pilot, lambda: app.game.view is not None, "the first deal")
                await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
                assert dealt(app).spectator and dealt(app).hand == []
                assert app.game.seat is None
                await until(pilot, lambda: "(watching)" in screen_text(app), "the header")
                assert app.tokens.find("Eve", table_id=server.table_id) is None
            finally:
                for task in players:
                    task.cancel()
                await asyncio.gather(*players, return_exceptions=True)


async def test_pitch_bids_four_and_leads_the_chosen_card(host: HostServer) -> None:
    """One gesture: with the cursor on a card, "!" bids 4, and the card is led as soon
    as the host gives us the lead."""
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("s")
        while True:
            await until(
                pilot,
                lambda: (
                    app.game.view is not None
                    and (
                        dealt(app).turn == app.game.seat
                        or dealt(app).phase in ("hand_over", "match_over")
                    )
                ),
                "our turn",
            )
            view, seq = dealt(app), app.game.seq
            if view.phase == "bidding" and 4 in view.legal_bids:
                break
            # 4 was taken before our bid: pass, play the hand out, try the next one.
            await pilot.press("p" if view.phase == "bidding" else "enter")
            if view.phase == "bidding":
                await pilot.press("enter")
            await until(pilot, moved_on(app, seq), "the next snapshot")
        chosen = view.hand[-1]
        await pilot.press("left", "exclamation_mark")  # the cursor wraps to the last card
        await until(pilot, lambda: bool(dealt(app).trick or dealt(app).tricks), "the lead")
        shown = dealt(app)
        plays = shown.tricks[0].plays if shown.tricks else shown.trick
        assert [plays[0][0], str(plays[0][1])] == [app.game.seat, chosen]
        assert shown.pitcher == app.game.seat and shown.high_bid == 4
        assert app.notices == []


async def test_the_partnership_lobby_shows_the_teams_and_t_changes_sides() -> None:
    """Partnership play: the lobby lists team A (seats 1, 3) and team B (seats 2, 4) as
    two groups; `t` moves a player to an open seat of the other team, and says so when
    the other team has none."""
    from tests.netclient import RawClient

    def row_of(app: PilotApp, text: str) -> int:
        return next(n for n, line in enumerate(screen_text(app).splitlines()) if text in line)

    async def keep_reading(client: RawClient) -> None:
        """Answer the host's pings (it cuts a silent connection) while Pilot runs."""
        with contextlib.suppress(ConnectionError, TimeoutError):
            while await client.next_payload(timeout=120) is not None:
                pass

    config = HostConfig(
        port=0, interface="127.0.0.1", seed=SEED, advertise=False, players=4, partnership=True
    )
    async with HostServer(config) as server:
        ann = await RawClient.connect(server)
        await ann.hello("Ann")  # seat 1, team A
        cat = await RawClient.connect(server)
        assert (await cat.hello("Cat"))["seat"] == 1
        readers = [asyncio.ensure_future(keep_reading(c)) for c in (ann, cat)]
        cat.send(Sit(id=cat.new_id(), seat=2))  # Cat joins Ann: team A is full
        await until_true(lambda: server.table.seats[2].name == "Cat", "Cat on team A")
        app = join_app(server.port, name="Bob")
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: app.game.seat == 1, "Bob's seat on team B")
                await until(pilot, lambda: "Team B" in screen_text(app), "the teams")
                # Each team is a group: its name on its first row, then its other seat.
                assert row_of(app, "Team A") == row_of(app, "Ann") < row_of(app, "Cat")
                assert row_of(app, "Cat") < row_of(app, "Team B") == row_of(app, "Bob")
                assert "You are on team B; team A has no open seat." in screen_text(app)
                await pilot.press("t")
                await until(pilot, lambda: "Team A has no open seat." in app.notices, "the refusal")
                assert app.game.seat == 1
                cat.send(Sit(id=cat.new_id(), seat=3))  # Cat changes sides: seat 3 opens
                await until(
                    pilot,
                    lambda: "t moves you to team A (seat 3)" in screen_text(app),
                    "the open seat on team A",
                )
                await pilot.press("t")
                await until(pilot, lambda: app.game.seat == 2, "Bob's move to team A")
                await until(pilot, lambda: "You are on team A" in screen_text(app), "the new side")
                assert server.table.seats[1].kind == "empty"
                assert server.table.seats[2].name == "Bob"
                assert row_of(app, "Team A") == row_of(app, "Ann") < row_of(app, "Bob")
                assert row_of(app, "Bob") < row_of(app, "Team B") < row_of(app, "Cat")
        finally:
            for reader in readers:
                reader.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
            await ann.close()
            await cat.close()


async def test_a_newcomer_waiting_for_a_bot_seat_is_never_you_until_it_is_theirs() -> None:
    """A newcomer who claims a seat a bot plays watches the rest of the hand: the header,
    the felt and the log name the bot, never "You", until the seat is theirs at the next
    deal; from then on it is "you"."""
    from tests.netclient import RawClient, play_as_bot

    config = HostConfig(
        port=0, interface="127.0.0.1", seed=SEED, advertise=False, players=3, bot_delay=0.02
    )
    async with HostServer(config) as server:
        ann = await RawClient.connect(server)
        await ann.hello("Ann")
        ann.send(Start(id=ann.new_id()))  # bots in seats 2 and 3
        playing = asyncio.ensure_future(play_as_bot(ann))
        try:
            await until_true(lambda: server.table.match is not None, "the first deal")
            app = join_app(server.port, name="Dee")
            async with app.run_test(size=(120, 40)) as pilot:
                await until(pilot, lambda: app.game.view is not None, "the spectators' view")
                seat = app.game.seat
                assert seat is not None and app.game.me is None
                bot = server.table.seats[seat].name
                seen = 0
                while app.game.me is None:
                    text = screen_text(app)  # blank while a screen is being switched
                    header = text.splitlines()[0] if text else ""
                    if isinstance(app.screen, TableScreen) and "Hand " in header:
                        assert f"seat {seat + 1} at the next hand" in header, header
                    assert "You" not in text and "(you)" not in text, text
                    seen += 1
                    await pilot.pause(0.02)
                    assert app.game.seq >= 0 and seen < 5000, "the takeover never came"
                await until(pilot, lambda: "(you)" in screen_text(app), "our seat on the felt")
                assert app.game.view is not None and not dealt(app).spectator
                log = [line.plain for line in app.game.log]
                took = log.index(f"Dee took over seat {seat + 1} (was {bot})")
                before = "\n".join(log[:took])
                assert f"{bot} plays" in before or f"{bot} bid" in before  # the bot's moves
                assert "You" not in before, before
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)


async def test_moves_before_our_takeover_in_one_snapshot_are_the_bots() -> None:
    """One snapshot may carry the bot's last moves and then our takeover: the moves are
    told as the bot's (with the view we had), what follows the takeover as ours."""
    from client.demo import Scene
    from pitchnet.events import Dealt, Played, TookOver
    from pitchnet.views import seat_view, spectator_view

    s = Scene(7)
    s.deal()
    s.until(lambda m: m.phase is Phase.PLAYING and m.turn == 1)
    table = s.table()
    app = PilotApp(ClientOptions(name="Dee"), idle=True)
    async with app.run_test(size=SIZE) as pilot:
        app.game.seat = 1  # claimed: Bot 1 plays it until the next deal
        app.apply_state(1, table, spectator_view(s.match), [])
        assert app.game.me is None
        events = [Played(1, "QS"), TookOver(1, "Dee", "Bot 1"), Dealt(2, 1)]
        app.apply_state(2, table, seat_view(s.match, 1), events)
        await pilot.pause()
        assert app.game.me == 1
        log = [line.plain for line in app.game.log][-3:]
        assert log[0].startswith("Bot 1 plays") and log[2] == "-- Hand 2: You deal --"


async def test_a_partnership_match_then_play_again_with_partners_rotated() -> None:
    """A whole partnership match through the keyboard (the pitch gesture when it is ours
    to bid), then `r` at the match end: the new match seats us by the rotation, with a
    new partner, and the log says so."""
    from pitchnet.protocol import ROTATION

    config = HostConfig(
        port=0, interface="127.0.0.1", bot_delay=0, seed=SEED, advertise=False, partnership=True
    )
    async with HostServer(config) as server:
        app = join_app(server.port)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("s")
            await until(pilot, lambda: app.game.view is not None, "the first deal")
            seat = app.game.seat
            assert seat is not None and dealt(app).partnership
            partner = app.game.name((seat + 2) % 4)
            hands = 0
            while dealt(app).phase != "match_over":
                view, seq = dealt(app), app.game.seq
                if view.phase == "hand_over":
                    await pilot.press("enter")
                    hands += 1
                elif view.turn != app.game.seat:
                    pass
                elif view.phase == "bidding":
                    await pilot.press("p" if None in view.legal_bids else "4", "enter")
                else:
                    slot = view.hand.index(view.legal_plays[-1])
                    await pilot.press(str(slot + 1), "enter")
                await until(pilot, moved_on(app, seq), "the next snapshot")
                assert hands < 60, "a match to 7 should not take this long"
            await until(pilot, lambda: isinstance(app.screen, MatchEnd), "the match-end screen")
            assert "Partners rotated (r)" in screen_text(app)
            await pilot.press("r")
            await until(pilot, lambda: dealt(app).phase == "bidding", "a new match")
            await until(pilot, lambda: app.game.seat == ROTATION.index(seat), "our new seat")
            assert dealt(app).hand_number == 1 and dealt(app).seat == app.game.seat
            new_partner = app.game.name((app.game.seat + 2) % 4)
            assert new_partner != partner
            log = "\n".join(line.plain for line in app.game.log)
            assert f"Partners rotated for the new match: you now play with {new_partner}" in log
        await app.close_network()


async def test_the_hosts_quit_question_outlives_the_hand_summary_it_was_asked_over() -> None:
    """Ctrl+Q pressed over the hand summary, after Enter (ready): when the next hand is
    dealt and the summary closes, the question stays until it is answered (closing the
    summary used to pop every screen above it, the question with it)."""
    from client.screens.prompts import HostQuit

    app = play_on_an_empty_lan(SEED)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await pilot.press("enter")
        await until(pilot, lambda: app.game.table is not None, "our lobby")
        await pilot.press("s")  # bots in the other seats
        await until(pilot, lambda: app.game.view is not None, "the first deal")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90
        while not isinstance(app.screen, HandSummary):
            assert loop.time() < deadline, f"hand 1 never ended\n{screen_text(app)}"
            await _act_for(pilot, app)
            await pilot.pause(0.05)
        summary = app.screen
        await pilot.press("ctrl+q")
        await until(pilot, lambda: isinstance(app.screen, HostQuit), "the question")
        app.send_ready()  # as if Enter had gone just before Ctrl+Q: the bots are ready
        await until(pilot, lambda: dealt(app).hand_number == 2, "the next deal")
        await pilot.pause()
        assert isinstance(app.screen, HostQuit)  # still asking
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        assert summary not in app.screen_stack and app.hosting_here()


async def test_leaving_a_lobby_before_it_is_first_drawn_crashes_nothing(host: HostServer) -> None:
    """Leaving the moment the lobby is pushed (before its first draw, which Textual runs
    after a refresh) takes the screen down with that draw still scheduled on it: it must
    not draw on parts already removed."""
    app = join_app(host.port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        lobby = app.screen
        app.leave_table()
        await until(pilot, lambda: app.current_mode == "finder", "the finder")
        await until(pilot, lambda: not lobby.is_attached, "the lobby removed")
        await pilot.pause()
    assert app.return_code in (None, 0), app.return_code  # no crash in the lobby
    await until_true(lambda: host.table.seats[0].kind == "empty", "the seat free again")


def watch_app(port: int) -> PilotApp:
    return PilotApp(ClientOptions(name="Eve", mode="watch", address=("127.0.0.1", port)))


async def test_watching_an_address_with_no_table_says_so_and_stops() -> None:
    """`pitchnet watch` of an address nobody hosts at: one sentence, no reconnect loop
    (there was nothing to lose), and no word of a seat (a spectator has none)."""
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    server.close()
    await server.wait_closed()
    app = watch_app(port)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, OfflineScreen), "the refusal")
        await until(pilot, lambda: "Nobody is hosting" in screen_text(app), "it drawn")
        text = screen_text(app)
        assert "Could not join" in text and "Reconnecting" not in text
        assert "seat" not in text
        assert app.connection is None or app.connection.connected is False


async def test_a_spectator_who_loses_the_table_reconnects_without_a_seat_to_keep() -> None:
    async with running_host(seed=SEED) as server:  # closed here too (a second close is a no-op)
        app = watch_app(server.port)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.game.watching, "watching")
            await server.close()  # a loss, not the host closing on purpose
            await until(pilot, lambda: "Reconnecting for" in screen_text(app), "the loop")
            text = screen_text(app)
            assert "Connection lost" in text and "seat" not in text
            await pilot.press("escape")
            await until(pilot, lambda: app.current_mode == "finder", "the finder")


@pytest.mark.parametrize("watching", [False, True])
async def test_the_host_closing_the_table_speaks_of_a_seat_only_to_a_player(
    watching: bool,
) -> None:
    """A player is told the table is remembered and the seat comes back; a spectator,
    who had no seat, only that the table shows in the finder again if it returns."""
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=SIZE):
        app.game.table_name, app.game.watching = "Den", watching
        app.host_closed()
        assert app.finder_note.startswith("The host closed the table (Den).")
        assert ("sit in your seat" in app.finder_note) is not watching, app.finder_note
        assert ("shows in the finder again" in app.finder_note) is watching, app.finder_note


class LaterTables:
    """A table browser that sees nothing until the test shows it `tables` (`appear`):
    `play` finds an empty LAN and hosts, then an advert turns up."""

    shown: ClassVar[list[Any]] = []
    watching: ClassVar[list[Any]] = []

    def __init__(self, interface: str | None, on_change: Any) -> None:
        self.on_change = on_change

    @property
    def tables(self) -> list[Any]:
        return list(self.shown)

    async def start(self) -> None:
        self.watching.append(self)
        self.on_change(self.tables)

    async def close(self) -> None:
        self.watching.remove(self)

    @classmethod
    def appear(cls, table: Any) -> None:
        cls.shown.append(table)
        for browser in cls.watching:
            browser.on_change(browser.tables)


async def test_a_lobby_moves_to_an_older_table_only_on_its_creators_key_press() -> None:
    """Issue 27 item 2: an advert claiming an older open lobby (anyone's laptop can send
    one) no longer moves a `play` lobby by itself: the screen names the table and its
    address, and nobody moves until the creator presses `m` (`n` stays, for good)."""
    from client.discovery import FoundTable
    from client.screens.prompts import MoveOffer
    from pitchnet.protocol import PROTOCOL_VERSION

    LaterTables.shown, LaterTables.watching = [], []
    async with running_host(players=2, name="Vic's table") as elsewhere:
        advert = FoundTable(
            "Vic's table", elsewhere.table_id, "127.0.0.1", elsewhere.port, PROTOCOL_VERSION,
            taken=0, seats=2, state="lobby", password=False, open=2, born=1,
        )  # fmt: skip
        app = play_on_an_empty_lan(SEED)
        app.browser_factory = LaterTables
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: setup_shown(app), "the setup")
                await pilot.press("enter")
                await until(pilot, lambda: app.game.seat is not None, "seated at our own table")
                ours = app.hosted
                LaterTables.appear(advert)
                await until(pilot, lambda: isinstance(app.screen, MoveOffer), "the offer")
                text = screen_text(app)
                assert "Vic's table" in text and f"127.0.0.1:{elsewhere.port}" in text
                assert app.hosted is ours and not any(
                    s.kind == "human" for s in elsewhere.table.seats
                )  # nobody moved on the advert alone
                await pilot.press("m")
                await until(
                    pilot,
                    lambda: any(s.kind == "human" for s in elsewhere.table.seats),
                    "seated at the older table",
                )
                assert app.hosted is None
        finally:
            if app.hosted is not None:
                await app.hosted.server.close()
