"""Issue 25's second pass, on screen (Pilot): what a spectator's header says at every
size, and the cards of the hand drawn clean at the phone's size."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from client.app import ClientOptions
from client.screens.table import TableScreen
from pitchnet.events import Event
from pitchnet.protocol import SeatKind, TableInfo
from pitchnet.views import SeatView, spectator_private
from tests.pilot import at_the_table, dealt_scene, screen_text, tables_seen, until
from tests.pilot_app import PilotApp

SIZES = [(40, 15), (60, 20), (80, 24), (200, 60)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_a_watcher_sees_they_are_watching_at_every_size(size: tuple[int, int]) -> None:
    """A spectator (welcomed as one: no seat) reads "watching" in the table's header at
    40x15 as at 200x60, so nobody wonders why no card can be played."""
    table, view, events = dealt_scene("playing", seed=7)
    watched = dataclasses.replace(view, **spectator_private())
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=size) as pilot:
        app.game.seat, app.game.watching = None, True
        app.apply_state(1, table, watched, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        header = screen_text(app).splitlines()[0]
        assert "watching" in header, screen_text(app)
        assert f"To {view.target}" in header, header


@pytest.mark.parametrize("size", [(44, 48), (40, 15)], ids=["phone-3x", "40x15"])
async def test_a_slim_ten_has_no_number_on_its_frame(size: tuple[int, int]) -> None:
    """On a narrow screen (a phone's browser: 44x48 at 360 CSS pixels) the cards are slim
    and their number key is drawn inside ("5 10♠"); a ten's card is a cell wider, and its
    frame showed the number again above it, a stray "5" over the card."""
    from client.text import card_text

    table, view, events = dealt_scene("first_bid", seed=2)
    ten = next(card for card in view.hand if card.startswith("T"))
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=size) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        face = card_text(ten, False, dim=False).plain
        row = next(i for i, line in enumerate(lines) if face in line)
        assert f"2 {face}" in lines[row]  # its number, inside
        assert not any(ch.isdigit() for ch in lines[row - 1]), "\n".join(lines[row - 1 : row + 2])


FINDER_SIZES = [(40, 15), (60, 20), (80, 24), (200, 60)]


@pytest.mark.parametrize("size", FINDER_SIZES, ids=[f"{w}x{h}" for w, h in FINDER_SIZES])
async def test_the_finder_says_which_table_holds_your_seat(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match where this player's seat is remembered (a bot plays it meanwhile) reads
    "your seat is kept" at every width, not "4/4 bot's seat" as if anyone's; a stranger's
    match beside it still offers its free seat."""
    from client.discovery import FoundTable
    from client.tokens import SavedSeat
    from pitchnet.protocol import PROTOCOL_VERSION

    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))

    def match(table_id: str, name: str) -> FoundTable:
        return FoundTable(
            name=name, table_id=table_id, host="10.0.0.5", port=7373, version=PROTOCOL_VERSION,
            taken=4, seats=4, state="playing", password=False, open=1, born=10,
        )  # fmt: skip

    tables = [match("t1", "Kitchen"), match("t2", "Den")]
    app = PilotApp(ClientOptions(name="Ann", mode="find"), browser_factory=tables_seen(tables))
    app.tokens.remember(SavedSeat("t1", "Ann", "10.0.0.5", 7373, "tok-ann"))
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: "Kitchen" in screen_text(app), "the tables listed")
        lines = screen_text(app).splitlines()
        kitchen = next(i for i, line in enumerate(lines) if "Kitchen" in line)
        assert "your seat is kept" in lines[kitchen + 1], "\n".join(lines)
        assert "bot's seat" not in lines[kitchen], "\n".join(lines)
        if size[0] >= 80:  # where the state's column shows
            den = next(line for line in lines if "Den" in line)
            assert "bot's seat" in den and "your seat" not in den, "\n".join(lines)


@pytest.mark.parametrize("size", [(80, 24), (40, 15)], ids=["80x24", "40x15"])
async def test_after_a_lost_connection_the_finder_tells_the_truth_about_the_seat(
    size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Earlier in the evening a host closed its table on purpose ("The host closed the
    table"); later this player's link to another table was cut past the give-up time.
    Back at the finder, which lists that table as playing, the note must not repeat the
    old closing: it says the seat stays theirs and how to get it back. At 40x15 the
    note's four lines left the list no row (its border only): the table shows too."""
    import socket

    from client.discovery import FoundTable
    from client.screens.lobby import LobbyScreen
    from client.screens.prompts import OfflineScreen
    from host.server import HostConfig, HostServer
    from pitchnet.protocol import PROTOCOL_VERSION

    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path))
    listed: list[FoundTable] = []
    config = HostConfig(port=0, interface="127.0.0.1", bot_delay=0, seed=5, advertise=False)
    first, second = HostServer(config), HostServer(config)
    await first.start()
    await second.start()
    options = ClientOptions(name="Ann", mode="join", address=("127.0.0.1", first.port))
    app = PilotApp(options, browser_factory=tables_seen(listed))
    try:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the first lobby")
            await first.close(on_purpose=True)
            await until(pilot, lambda: "The host closed" in screen_text(app), "the closing")
            app.join("127.0.0.1", second.port)
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the second lobby")
            await pilot.press("s")  # start: bots fill the other seats
            await until(pilot, lambda: app.game.view is not None, "the deal")
            playing = FoundTable(
                name=second.table.name, table_id=second.table_id, host="127.0.0.1",
                port=second.port, version=PROTOCOL_VERSION, taken=4, seats=4,
                state="playing", password=False, open=0, born=1,
            )  # fmt: skip
            listed.append(playing)
            # The link is cut: nothing answers where the table was, and it stops trying.
            connection = app.connection
            assert connection is not None
            with socket.socket() as unused:
                unused.bind(("127.0.0.1", 0))
                connection.session.port = unused.getsockname()[1]
            connection.session.give_up_after = 0.3
            writer = connection._writer
            assert writer is not None
            writer.transport.abort()
            await until(
                pilot,
                lambda: isinstance(app.screen, OfflineScreen) and not app.screen.retrying,
                "the connection to give up",
            )
            await pilot.press("enter")
            await until(pilot, lambda: second.table.name in screen_text(app), "the finder")
            text = screen_text(app)
            assert "closed" not in text, text
            assert "your seat is kept" in text, text  # the row (the table is listed playing)
            note = " ".join(text.split())
            assert "Your seat stays yours" in note and "join the table again" in note, text
            assert "host:port" in text, text  # the address row, whole, under the list
    finally:
        await first.close()
        await second.close()


async def table_text(
    table: TableInfo, view: SeatView, events: list[Event], size: tuple[int, int], lang: str = "en"
) -> str:
    """The screen of the seat `view` is for, at `size`, in `lang`."""
    app = PilotApp(ClientOptions(name="Ann", lang=lang), idle=True)
    async with app.run_test(size=size) as pilot:
        app.game.seat = view.seat
        app.apply_state(1, table, view, events)
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        await pilot.pause()
        return screen_text(app)


@pytest.mark.parametrize("size", [(40, 15), (60, 20), (44, 48)], ids=["40x15", "60x20", "phone"])
async def test_a_ten_in_the_trick_shows_its_suit(size: tuple[int, int]) -> None:
    """Where the trick's cards are one line ("[K♠]"), a ten is a cell wider: it read
    "[10]", its suit under the closing bracket (the LAN game night at 40x15)."""
    from client.text import card_text

    table, view, events = dealt_scene("playing", seed=7)
    ten = next(card for card in ("TS", "TH", "TD", "TC") if card not in view.hand)
    led = dataclasses.replace(view, trick=[((view.seat + 1) % len(table.seats), ten)])
    text = await table_text(table, led, events, size)
    assert card_text(ten, False, dim=False).plain in text, text
    assert "[10]" not in text, text


@pytest.mark.parametrize(
    ("size", "lang", "mark"),
    [((44, 48), "en", "(bot)"), ((40, 15), "lt", "(botas)"), ((80, 24), "lt", "(botas)")],
    ids=["phone-en", "40x15-lt", "80x24-lt"],
)
async def test_a_leavers_seat_keeps_its_bot_mark_whole(
    size: tuple[int, int], lang: str, mark: str
) -> None:
    """The host names a leaver's seat "Bob (bot)" for the bot that plays on; a narrow
    seat cut it to "Bob (bo…" on the phone, and in Lithuanian it read English. The name
    is cut, the mark is the reader's word and stays whole."""
    table, view, events = dealt_scene("playing", seed=7)
    other = (view.seat + 1) % len(table.seats)
    seats = list(table.seats)
    seats[other] = dataclasses.replace(seats[other], name="Roberta (bot)", kind=SeatKind.BOT)
    left = dataclasses.replace(table, seats=seats)
    text = await table_text(left, view, events, size, lang)
    assert mark in text, text
    assert "(bot)" not in text or lang == "en", text


@pytest.mark.parametrize(("away_for", "stand_in"), [(20.0, False), (75.0, True)])
async def test_reconnecting_says_when_a_bot_has_taken_over_the_kept_seat(
    away_for: float, stand_in: bool
) -> None:
    """Within the table's grace the seat waits for its player; past it a bot plays it (the
    seat still theirs): "your seat is kept" alone then read as if the table waited."""
    from client.screens.prompts import OfflineScreen

    table, view, events = dealt_scene("bidding", seed=7)
    table = dataclasses.replace(table, substitute=True, grace=60.0)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with at_the_table(app, (table, view, events), (80, 24)) as pilot:
        offline = OfflineScreen()
        app.push_screen(offline)
        await until(pilot, lambda: app.screen is offline, "the lost banner")
        offline.update_reason("The connection was lost.", retrying=True, trying_for=away_for)
        await pilot.pause()
        text = " ".join(screen_text(app).replace("┃", " ").split())  # the dialog's lines
        assert "your seat is kept" in text, text
        assert ("a bot plays it until you are back" in text) is stand_in, text


@pytest.mark.parametrize("size", [(40, 15), (44, 48), (60, 20), (200, 60)])
async def test_the_lobbys_title_says_every_fact_it_shows_whole(size: tuple[int, int]) -> None:
    """A Lithuanian lobby hosted here, with a password, bots and a turn timer: at 40x15
    the title's second line ended "botai:", the level cut off. Each fact shown is whole;
    those that do not fit in two lines are left out, the name and the size kept."""
    from client.screens.lobby import LobbyScreen
    from pitchnet.i18n import _, use
    from pitchnet.protocol import TableState

    table, _view, _events = dealt_scene("playing", seed=7)
    lobby = dataclasses.replace(
        table, state=TableState.LOBBY, password=True, bot_level="normal", turn_timer=30.0
    )
    app = PilotApp(ClientOptions(name="Ann", lang="lt"), idle=True)
    async with app.run_test(size=size) as pilot:
        app.game.seat, app.game.hosting, app.game.table_name = 0, True, "Vakaro stalas"
        app.apply_state(1, lobby, None, [])
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.pause()
        use("lt")
        title = " ".join(str(app.screen.query_one("#lobby-title").render()).split())
        shown = " ".join(screen_text(app).split())
        assert title in shown  # nothing of it hidden below its two lines
        assert "Vakaro stalas" in title
        bots = _("{level} bots", level=_("normal"))
        assert bots in title or bots.split()[0] not in title, title
        assert not title.rstrip().endswith(":"), title
        footer = screen_text(app).splitlines()[-1]
        assert _("Leave") in footer.split(), footer  # the screen's own key, whole


async def test_a_watchers_log_starts_with_the_hand_so_far() -> None:
    """A watcher arriving mid-hand read an empty log (second game night): it starts with
    the deal, every bid and every card played so far, told once."""
    table, view, _events = dealt_scene("playing", seed=7)
    watched = dataclasses.replace(view, **spectator_private())
    played = sum(len(trick.plays) for trick in view.tricks) + len(view.trick)
    assert view.bids and played
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        app.game.seat, app.game.watching = None, True
        app.apply_state(1, table, watched, [])
        await until(pilot, lambda: isinstance(app.screen, TableScreen), "the table")
        lines = [line.plain for line in app.game.log]
        assert lines[0].startswith(f"-- Hand {view.hand_number}:"), lines
        said = lines[1:]
        assert sum(" plays " in line for line in said) == played, lines
        assert sum(" won the trick" in line for line in said) == len(view.tricks), lines
        assert len(said) == len(view.bids) + played + len(view.tricks), lines
        app.apply_state(2, table, watched, [])  # a later snapshot tells nothing again
        assert len(app.game.log) == len(lines)


@pytest.mark.parametrize("lang", ["en", "tl", "lt", "te", "hr", "da"])
async def test_a_questions_buttons_show_whole_at_40_columns(lang: str) -> None:
    """Each of the three-answer questions at 40x15: every button's label is on screen
    whole (in Lithuanian the seat offer's third read "Atga"); where they do not fit with
    their keys, the keys go from the labels."""
    from textual.widgets import Button

    from client.screens.prompts import BackgroundOffer, Choice, FullTableOffer, SeatOffer

    async def shown_whole(question: Choice) -> None:
        app = PilotApp(ClientOptions(name="Bob", lang=lang), idle=True)
        async with app.run_test(size=(40, 15)) as pilot:
            app.push_screen(question)
            await until(pilot, lambda: app.screen is question, "the question")
            await pilot.pause()
            shown = screen_text(app)
            for button in question.query(Button):
                label = str(button.label)
                assert label.strip() and label in shown, (type(question).__name__, label, shown)

    await shown_whole(SeatOffer("Den", 3, left=True))
    await shown_whole(SeatOffer("Den", 1))
    await shown_whole(FullTableOffer("Den"))
    await shown_whole(BackgroundOffer("Den"))


@pytest.mark.parametrize("lang", ["en", "tl", "lt", "te", "hr", "da"])
@pytest.mark.parametrize("scene", ["lobby", "bidding", "playing"])
@pytest.mark.parametrize("size", [(40, 15), (60, 20), (80, 24)], ids=["40x15", "60x20", "80x24"])
async def test_the_footer_shows_whole_keys_and_always_leave(
    lang: str, scene: str, size: tuple[int, int]
) -> None:
    """At 40 columns Textual's footer cut its last key ("esc L", "esc I"): a phone, with
    no Esc key, could not see how to leave. Every key the footer shows is whole, and
    Leave and the palette's key (the third game night's phone had none) are among them
    at every size."""
    from textual.widgets._footer import FooterKey

    from client.widgets.footer import PitchFooter
    from pitchnet.protocol import TableState

    table, view, events = dealt_scene("playing" if scene == "lobby" else scene, seed=7)
    app = PilotApp(ClientOptions(name="Ann", lang=lang), idle=True)
    async with app.run_test(size=size) as pilot:
        app.game.seat = 0
        if scene == "lobby":
            app.apply_state(1, dataclasses.replace(table, state=TableState.LOBBY), None, [])
        else:
            app.apply_state(1, table, view, events)
        await until(pilot, lambda: bool(app.screen.query(FooterKey)), "the footer's keys")
        await pilot.pause()
        footer = screen_text(app).splitlines()[-1]
        keys = app.screen.query_one(PitchFooter).query(FooterKey)
        for key in keys:
            assert f"{key.key_display} {key.description}" in footer, footer
        assert "leave" in {key.action for key in keys}, footer
        # The palette's key at every size: a phone reaches the coach and reactions by it.
        assert "command_palette" in {key.action for key in keys}, footer


@pytest.mark.parametrize("size", [(40, 15), (80, 24), (120, 40)], ids=["40x15", "80x24", "120x40"])
async def test_leave_stays_in_its_place_as_turns_come_and_go(size: tuple[int, int]) -> None:
    """The move keys ("⏎ Confirm bid", "p Pass") appear on a player's own turn and go
    after it; Leave used to move right and left with them, so a phone user's tap on it
    could land on another key or on nothing (CI's footer test missed it twice). Leave
    now stands beside the palette's key, in one place on the player's turn and off it."""
    from textual.widgets._footer import FooterKey

    table, view, events = dealt_scene("bidding", seed=7)
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    places: dict[bool, tuple[int, int]] = {}
    async with app.run_test(size=size) as pilot:
        app.game.seat = 0
        for ours in (True, False, True):
            turn = view.seat if ours else (view.seat + 1) % view.players
            shown = dataclasses.replace(view, turn=turn)
            app.apply_state(app.game.seq + 1, table, shown, events)

            def leave_shown(ours: bool = ours) -> bool:
                keys = {key.action: key for key in app.screen.query(FooterKey)}
                moves = "confirm" in keys or "number(0)" in keys
                return "leave" in keys and moves is ours and keys["leave"].region.width > 0

            await until(pilot, leave_shown, f"the footer {'on' if ours else 'off'} our turn")
            await pilot.pause()
            leave = next(k for k in app.screen.query(FooterKey) if k.action == "leave").region
            place = (leave.x, leave.right)
            assert places.setdefault(ours, place) == place
            assert place[1] <= size[0]
    assert places[True] == places[False], places
