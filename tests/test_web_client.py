"""The client in "web" mode, as host/web.py runs it for a browser, driven with Pilot."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path

import pytest
from textual.widget import Widget

from client.app import ClientOptions
from client.hosting import (
    AWAY_META,
    NAME_ENV,
    PASSWORD_ENV,
    SEATS_ENV,
    TABLE_ENV,
)
from client.screens.lobby import LobbyScreen
from client.screens.table import TableScreen
from client.tokens import TokenStore
from client.web_session import options_from_environment, web_app_class, web_driver_class
from client.widgets.cards import CardFace
from host.server import HostConfig, HostServer
from pitchnet.i18n import LANGUAGES
from pitchnet.views import SeatView
from tests.netclient import until_true
from tests.pilot import dealt, tap, until
from tests.pilot_app import PilotApp

SIZE = (80, 24)


@pytest.fixture
async def host() -> AsyncIterator[HostServer]:
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False, bots=3)
    async with HostServer(config) as server:
        yield server


def web_app(port: int, seats: Path) -> PilotApp:
    options = ClientOptions(name="Ann", mode="web", address=("127.0.0.1", port), seats_file=seats)
    return PilotApp(options)


def test_the_options_come_from_the_environment(tmp_path: Path) -> None:
    env = {
        TABLE_ENV: "127.0.0.1:7373",
        NAME_ENV: "Ann\x1b[2J",
        SEATS_ENV: str(tmp_path / "seats.json"),
        PASSWORD_ENV: "pw",
    }
    options = options_from_environment(env)
    assert options.address == ("127.0.0.1", 7373)
    assert options.one_table and options.password == "pw"
    assert "\x1b" not in options.name
    assert options.seats_file == tmp_path / "seats.json"


def replaced(app: PilotApp, view: SeatView) -> bool:
    """The app holds a newer view than `view`."""
    return app.game.view is not view


async def test_a_tap_picks_a_card_and_a_second_tap_plays_it(
    host: HostServer, tmp_path: Path
) -> None:
    app = web_app(host.port, tmp_path / "seats.json")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table", 20)
        seat = app.game.seat
        # Bid with the keys; then wait for our turn to play.
        while True:
            await until(
                pilot,
                lambda: app.game.view is not None and dealt(app).turn == seat,
                "our turn",
                20,
            )
            view = dealt(app)
            if view.phase == "playing":
                break
            amount = None if None in view.legal_bids else max(b for b in view.legal_bids if b)
            await tap(pilot, f"#bid-{amount or 'pass'}", "the bid")  # a click bids at once
            await until(pilot, partial(replaced, app, view), "the bid taken")
        card = view.legal_plays[0]
        face = app.screen.query(CardFace)[view.hand.index(card)]
        await tap(pilot, face, "the card")
        await pilot.pause()
        assert app.connection is not None and app.connection.pending == []
        # Nothing sent: the card is still ours and it is still our turn (the view itself
        # may be a new one: a notice from the host also replaces it).
        assert card in dealt(app).hand and dealt(app).turn == seat
        await tap(pilot, face, "the card")
        await until(pilot, lambda: card not in dealt(app).hand, "the card played")
        assert TokenStore(tmp_path / "seats.json").find("Ann", table_id=host.table_id)


async def test_leaving_the_table_ends_a_web_session(tmp_path: Path) -> None:
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False)
    async with HostServer(config) as server:
        app = web_app(server.port, tmp_path / "seats.json")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
            await pilot.press("escape", "y")  # leave, and confirm
            await until(pilot, lambda: app.return_code is not None, "the app to end")
        assert app.current_mode != "finder"  # never the finder: it could host a table
        assert TokenStore(tmp_path / "seats.json").find("Ann", table_id=server.table_id) is None
        assert all(seat.kind == "empty" for seat in server.table.seats)


async def test_a_web_session_keeps_the_host_owners_files_alone(
    host: HostServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Preferences change for the session only, and a screenshot goes to the browser."""
    config_dir = tmp_path / "config"
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(config_dir))
    app = web_app(host.port, tmp_path / "seats.json")
    delivered: list[bool] = []
    monkeypatch.setattr(app, "deliver_screenshot", lambda *a, **k: delivered.append(True))
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table", 20)
        app.toggle("bell")
        assert app.prefs.bell
        await pilot.press("ctrl+s")
        await until(pilot, lambda: delivered, "the screenshot handed to the browser")
    assert not (config_dir / "settings.json").exists()
    assert not (tmp_path / "state" / "screenshots").exists()


PHONE = (40, 20)
PHONE_BUTTONS = {
    ("lobby", 7): ["#start", "#leave"],
    ("bidding", 4): ["#bid-pass", "#bid-3", "#bid-4"],
    ("hand_over", 4): ["#ready"],
    ("hand_over", 7): ["#ready"],
    ("match_over", 4): ["#ready", "#leave"],
}


@pytest.mark.parametrize(("scene", "players"), list(PHONE_BUTTONS))
async def test_a_phone_screen_keeps_its_buttons_on_screen(scene: str, players: int) -> None:
    """At 40x20 nothing a guest must tap is pushed off the bottom (the summary's body
    scrolls, the lobby's hint gives up its lines instead)."""
    from client.demo import scene_with_events
    from client.screens.summary import HandSummary

    options = ClientOptions(name="Ann", mode="web")
    app = PilotApp(options)
    async with app.run_test(size=PHONE) as pilot:
        table, view, events = scene_with_events(scene, 7, players)
        app.game.seat, app.game.table_name = 0, table.name
        app.apply_state(1, table, view, events)
        if scene in ("hand_over", "match_over"):
            await until(pilot, lambda: isinstance(app.screen, HandSummary), "the summary")
        await pilot.pause()
        await pilot.pause()
        for selector in PHONE_BUTTONS[(scene, players)]:
            button = app.screen.query_one(selector)
            region = button.region
            assert button.display and region.area > 0, f"{selector} not drawn"
            for holder in button.ancestors_with_self[1:]:  # not under a frame or cut off
                if isinstance(holder, Widget):
                    inside = holder.content_region.contains_region(region)
                    assert inside, f"{selector} at {region}, outside {holder}"


async def test_a_browser_sessions_palette_offers_only_pitchnets_commands() -> None:
    """The palette of a web session is pitchnet's own list (what its keys do): none of
    Textual's system commands, and its screenshot goes to the browser, not the host's disk."""
    from client.demo import scene_with_events

    app = PilotApp(ClientOptions(name="Ann", mode="web"))
    async with app.run_test(size=PHONE) as pilot:
        table, view, events = scene_with_events("playing", 7, 4)
        app.game.seat, app.game.table_name = 0, table.name
        app.apply_state(1, table, view, events)
        await pilot.pause()
        titles = {command.title for command in app.get_system_commands(app.screen)}
    ours = {"Leave the table", "Last trick", "Coach", "Rules", "Keys", "Deck: four colours"}
    ours |= {"Deck: two colours", "One-press keys on/off", "Turn bell on/off", "Theme"}
    ours |= {"Card motion on/off", "Reactions on/off", "React"}
    ours |= {"Screenshot", "Quit"}
    ours |= {f"Language: {name}" for name in LANGUAGES.values()}  # a browser's own choice
    assert titles <= ours, titles - ours
    assert "Last trick" in titles and "Screenshot" in titles
    assert "Coach" in titles  # the coach by a tap: a browser has no `c` key on a phone


async def test_a_browser_at_a_table_full_of_people_watches_it(tmp_path: Path) -> None:
    """A browser is locked to its one table and has no finder to go back to: when every
    seat is taken by people it watches the table (and says how to take a seat later),
    instead of a "Could not join" whose Enter ended the session."""
    from client.screens.prompts import OfflineScreen
    from tests.netclient import RawClient

    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False)
    async with HostServer(config) as server:
        people = [await RawClient.connect(server) for _ in range(4)]
        for number, person in enumerate(people):
            await person.hello(f"P{number}")
        app = web_app(server.port, tmp_path / "seats.json")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.game.watching and app.game.table is not None, "watching")
            assert app.game.me is None
            assert not any(isinstance(s, OfflineScreen) for s in app.screen_stack)
            notices = [n.message for n in app._notifications]
            said = " ".join(notices)
            assert "taken by people" in said and "So you are watching" in said, notices
        for person in people:
            await person.close()


def test_the_web_driver_passes_the_servers_away_to_the_app() -> None:
    """host/web.py's AWAY_META, read from the session's stdin, reaches the app as a message
    (in the input thread's order: before a `quit` sent after it)."""
    driver = web_driver_class()
    posted: list[object] = []

    class App:
        def post_message(self, message: object) -> None:
            posted.append(message)

    fake = object.__new__(driver)  # an instance, its __init__ (a terminal's) not run
    fake._app = App()
    driver.on_meta(fake, AWAY_META, {"type": AWAY_META})
    assert [type(m) for m in posted] == [driver.message]


async def test_a_closed_page_goes_away_a_bot_plays_at_once_and_the_token_stays(
    tmp_path: Path,
) -> None:
    """What the session's client does when its page was closed: `away` to the table (a bot
    plays now, not after the grace period), the token kept in the seat file, the app over."""
    config = HostConfig(
        port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False, bots=3, grace=600.0
    )
    async with HostServer(config) as server:
        options = ClientOptions(
            name="Ann", mode="web", address=("127.0.0.1", server.port), seats_file=tmp_path / "s"
        )
        app = web_app_class()(options)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table", 20)
            seat = app.game.seat
            assert seat is not None
            app.post_message(web_driver_class().message())
            await until(pilot, lambda: app.return_code is not None, "the app to end")
        await until_true(lambda: server.table.seats[seat].substitute, "a bot in Ann's seat")
        assert seat not in server.referee.grace_until
        assert server.table.seats[seat].name == "Ann"
        assert TokenStore(tmp_path / "s").find("Ann", table_id=server.table_id) is not None
