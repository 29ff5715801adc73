"""Late-comers and strangers (issue 25, item 4): a person is never told a table went
away when it did not; at a table of people they are offered to watch, with the truth;
`play` takes a seat at strangers' match only on a key press."""

from __future__ import annotations

from client.app import ClientOptions
from client.discovery import FoundTable
from client.screens.prompts import SeatOffer, WatchOffer
from host.server import HostServer
from pitchnet.protocol import PROTOCOL_VERSION
from tests.netclient import RawClient, running_host, until_true
from tests.pilot import screen_text, tables_seen, until
from tests.pilot_app import PilotApp
from tests.tmux import FRAMES

SIZE = (80, 24)


def advert(host: HostServer, *, open_seats: int) -> FoundTable:
    """The table as `play` saw it (perhaps a moment ago: `open_seats` may be stale)."""
    return FoundTable(
        name=host.name, table_id=host.table_id, host="127.0.0.1", port=host.port,
        version=PROTOCOL_VERSION, taken=len(host.table.seats), seats=len(host.table.seats),
        state=str(host.table.state), password=False, open=open_seats, born=1,
    )  # fmt: skip


def _says(app: PilotApp, *phrases: str) -> bool:
    """The screen shows every phrase at once (one capture: a dialog may be redrawn)."""
    text = " ".join(screen_text(app).translate(FRAMES).split())  # a wrapped sentence reads on
    return all(phrase in text for phrase in phrases)


def play(host: HostServer, open_seats: int) -> PilotApp:
    options = ClientOptions(name="Dee", mode="play")
    return PilotApp(
        options,
        browser_factory=tables_seen([advert(host, open_seats=open_seats)]),
        browse_seconds=0.1,
    )


async def test_a_late_comer_at_a_table_of_people_is_offered_to_watch() -> None:
    """Every seat a person's, one of them away in its grace period: `play` (which saw a
    seat free a moment ago) says so and offers to watch; never "went away"."""
    async with running_host(players=2, grace=600) as host:
        ann, bob = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await bob.hello("Bob")
        await until_true(lambda: host.table.state == "playing", "the match")
        await bob.close()  # Bob's link drops: his seat waits for him
        await until_true(lambda: not host.table.seats[1].connected, "Bob away")
        app = play(host, open_seats=1)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SeatOffer), "the question")
            await pilot.press("enter")  # sit: but the seat it saw is no longer free
            await until(pilot, lambda: isinstance(app.screen, WatchOffer), "the offer to watch")
            # The truth, from the host: every seat a person's, one kept for Bob.
            await until(pilot, lambda: _says(app, "person's", "lost the"), "the truth")
            assert "went away" not in app.finder_note
            await pilot.press("w")
            await until(pilot, lambda: app.game.watching, "watching")
        await ann.close()


async def test_play_asks_before_sitting_at_strangers_match() -> None:
    async with running_host(players=2, bots=1) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        await until_true(lambda: host.table.state == "playing", "the match")
        app = play(host, open_seats=1)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, SeatOffer), "the question")
            await until(pilot, lambda: "(one person at it)" in screen_text(app), "the question")
            assert app.connection is None and not any(s.claim_token for s in host.table.seats)
            await pilot.press("enter")
            await until_true(lambda: host.table.claimed(0), "Dee's claim on the bot's seat")
            assert host.table.seats[0].claim_name == "Dee"
        await ann.close()


async def test_a_player_who_left_a_match_is_told_the_bots_seat_may_be_their_own() -> None:
    """Dee leaves mid-match (Esc, y: a bot takes her seat), then runs `play` again: the
    question says she left and may take her seat back (the second game night's Bob was
    offered "a free seat" as to a stranger), and Enter claims that same seat."""
    from client.screens.prompts import ConfirmLeave
    from client.screens.table import TableScreen

    async with running_host(players=2) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        app = play(host, open_seats=1)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, TableScreen), "Dee at the table")
            await until_true(lambda: host.table.state == "playing", "the match")
            await pilot.press("escape")
            await until(pilot, lambda: isinstance(app.screen, ConfirmLeave), "the question")
            await pilot.press("y")
            await until_true(lambda: host.table.seats[1].name == "Dee (bot)", "a bot for Dee")
        again = play(host, open_seats=1)
        async with again.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(again.screen, SeatOffer), "the question")
            await until(pilot, lambda: _says(again, "You left", "your seat"), "the sentence")
            await pilot.press("enter")
            await until_true(lambda: host.table.claimed(1), "Dee's claim on her own seat")
            assert host.table.seats[1].claim_name == "Dee" and not host.table.claimed(0)
        await ann.close()


async def test_play_still_joins_an_open_lobby_at_once() -> None:
    async with running_host(players=3) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        app = play(host, open_seats=2)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.game.seat is not None, "Dee seated, no question")
            assert not isinstance(app.screen, SeatOffer)
        await ann.close()


async def test_play_offers_to_watch_a_match_of_people_before_any_setup() -> None:
    """No seat anywhere, but people play a match here: `play` says so and offers to
    watch it (or host a table here), instead of going straight to the setup screen."""
    from client.screens.prompts import FullTableOffer
    from client.screens.setup import SetupScreen

    async with running_host(players=2) as host:
        ann, bob = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await bob.hello("Bob")
        await until_true(lambda: host.table.state == "playing", "the match")
        app = play(host, open_seats=0)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, FullTableOffer), "the offer")
            await until(pilot, lambda: "every seat is a" in screen_text(app), "the truth")
            assert not any(isinstance(s, SetupScreen) for s in app.screen_stack)
            await pilot.press("w")
            await until(pilot, lambda: app.game.watching, "watching")
        await ann.close()
        await bob.close()


async def test_play_says_why_it_could_not_sit_at_a_table_it_found() -> None:
    """The table `play` picked is not listening (it ended, or its laptop is slow to
    answer): the note gives the link's own reason, never "went away", which a slow join
    under load showed of a table that was there."""
    import socket

    with socket.socket() as probe:  # a port with nothing listening on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gone = FoundTable(
        name="Den", table_id="t9", host="127.0.0.1", port=port, version=PROTOCOL_VERSION,
        taken=1, seats=4, state="lobby", password=False, open=3, born=1,
    )  # fmt: skip
    options = ClientOptions(name="Dee", mode="play")
    app = PilotApp(options, browser_factory=tables_seen([gone]), browse_seconds=0.1)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: "Could not sit at" in app.finder_note, "the note")
        assert "Den" in app.finder_note and "went away" not in app.finder_note
        assert app.finder_note.endswith("Looking again."), app.finder_note
