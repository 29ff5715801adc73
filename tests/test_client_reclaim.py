"""The seat follows the person (issue 24, item 4), in the terminal client: Carol's device
died mid-hand; on another one, watching, she is offered her away seat, asks for it, and
once Ann vouches she plays it with its hand and keeps the new token. Someone else typing
her name is refused and watches on; the player asked answers in a dialog."""

from __future__ import annotations

from pathlib import Path

from client.app import ClientOptions
from client.screens.reclaim import ReclaimOffer, VouchPrompt
from client.tokens import TokenStore
from host.server import HostServer
from pitchnet.protocol import Reclaim, Vouch
from tests.netclient import RawClient, running_host, until_true
from tests.pilot import dealt, screen_text, tap, until
from tests.pilot_app import PilotApp

SIZE = (100, 32)


def _says(app: PilotApp, *phrases: str) -> bool:
    text = " ".join(screen_text(app).split())
    notices = " ".join(app.notices)
    return all(phrase in text or phrase in notices for phrase in phrases)


async def _carol_gone(host: HostServer) -> tuple[RawClient, str]:
    """Ann and Carol play; Carol's device dies mid-hand. Ann's client, Carol's old token."""
    ann, carol = await RawClient.connect(host), await RawClient.connect(host)
    await ann.hello("Ann")
    token = (await carol.hello("Carol"))["token"]
    await until_true(lambda: host.table.state == "playing", "the match")
    await carol.close()
    await until_true(lambda: not host.table.seats[1].connected, "Carol away")
    return ann, token


def watching_as(name: str, host: HostServer, seats: Path) -> PilotApp:
    options = ClientOptions(
        name=name, mode="watch", address=("127.0.0.1", host.port), seats_file=seats
    )
    return PilotApp(options)


async def test_carol_on_a_new_device_gets_her_own_seat_back_once_ann_vouches(
    tmp_path: Path,
) -> None:
    async with running_host(players=2, grace=600) as host:
        ann, old_token = await _carol_gone(host)
        app = watching_as("carol", host, tmp_path / "seats.json")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ReclaimOffer), "the offer")
            await until(pilot, lambda: _says(app, "Carol's seat is kept", "another player"), "why")
            assert app.game.watching
            await pilot.press("y")
            asked = await ann.expect("reclaim_asked")
            assert (asked["seat"], asked["name"], asked["asker"]) == (1, "Carol", "carol")
            await until(pilot, lambda: _says(app, "Ann must confirm"), "told what happens")
            ann.send(Vouch(seat=1, yes=True))
            await until(pilot, lambda: not app.game.watching, "seated")
            await until(pilot, lambda: app.game.me == 1, "her own seat")
            await until(pilot, lambda: bool(app.game.view and dealt(app).hand), "her hand")
            assert [s.kind for s in host.table.seats] == ["human", "human"]  # no second seat
            token = app.connection.token if app.connection else None
            assert token and token != old_token and token == host.table.seats[1].token
            saved = app.tokens.find("carol", table_id=host.table_id)
            assert saved is not None and saved.token == token
        await ann.close()


async def test_someone_else_typing_carols_name_is_refused_and_watches_on(tmp_path: Path) -> None:
    async with running_host(players=2, grace=600) as host:
        ann, _ = await _carol_gone(host)
        app = watching_as("Carol", host, tmp_path / "seats.json")
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ReclaimOffer), "the offer")
            await pilot.press("y")
            await ann.expect("reclaim_asked")
            ann.send(Vouch(seat=1, yes=False))
            await until(pilot, lambda: _says(app, "Ann said you are not Carol"), "the refusal")
            assert _says(app, "go on watching")
            assert app.game.watching and app.game.me is None
            assert not host.table.seats[1].connected
        await ann.close()


async def test_the_player_asked_answers_in_a_dialog(tmp_path: Path) -> None:
    async with running_host(players=2, grace=600) as host:
        carol = await RawClient.connect(host)
        options = ClientOptions(
            name="Ann",
            mode="join",
            address=("127.0.0.1", host.port),
            seats_file=tmp_path / "seats.json",
        )
        app = PilotApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: app.game.seat == 0, "Ann seated")
            await carol.hello("Carol")
            await until(pilot, lambda: host.table.state == "playing", "the match")
            await carol.close()
            await until_true(lambda: not host.table.seats[1].connected, "Carol away")
            new = await RawClient.connect(host)
            await new.hello("Carol", watch=True)
            new.send(Reclaim(seat=1))
            await until(pilot, lambda: isinstance(app.screen, VouchPrompt), "the question")
            await until(pilot, lambda: _says(app, "asks for Carol's seat", "Is it Carol?"), "it")
            await pilot.press("y")
            status = await new.expect("reclaim_status")
            while status["status"] == "waiting":
                status = await new.expect("reclaim_status")
            assert status["status"] == "granted"
            welcome = await new.expect("welcome")
            assert welcome["seat"] == 1 and welcome["token"]
            await until(pilot, lambda: not isinstance(app.screen, VouchPrompt), "closed")
            await new.close()


async def test_in_a_browser_carol_taps_to_ask_and_the_seat_file_keeps_her_new_token(
    tmp_path: Path,
) -> None:
    """The client as host/web.py runs it for a phone: joining finds every seat a
    person's, so it watches, says why, and offers her away seat; a tap asks for it."""
    async with running_host(players=2, grace=600) as host:
        ann, old_token = await _carol_gone(host)
        seats = tmp_path / "identity-seats.json"
        options = ClientOptions(
            name="Carol", mode="web", address=("127.0.0.1", host.port), seats_file=seats
        )
        app = PilotApp(options)
        async with app.run_test(size=(40, 30)) as pilot:
            await until(pilot, lambda: isinstance(app.screen, ReclaimOffer), "the offer")
            assert app.game.watching and _says(app, "So you are watching")
            # The notice's toast may lie over the button at 40 columns: a tap on it only
            # closes the toast. Read, it goes; then the tap is on the button.
            app.clear_notifications()
            # Tap once the button is drawn where it will stay (not before layout).
            await until(
                pilot, lambda: "Ask (y)" in screen_text(app), "its button, short at 40 columns"
            )
            assert not app._notifications  # nothing lies over the button
            await tap(pilot, "#yes", "Ask")
            await until(pilot, lambda: not isinstance(app.screen, ReclaimOffer), "the tap")
            await ann.expect("reclaim_asked")
            ann.send(Vouch(seat=1, yes=True))
            await until(pilot, lambda: app.game.me == 1, "her own seat")
            await until(pilot, lambda: bool(app.game.view and dealt(app).hand), "her hand")
            saved = TokenStore(seats).find("Carol", table_id=host.table_id)
            assert saved is not None and saved.token not in ("", old_token)
            assert saved.token == host.table.seats[1].token
        await ann.close()
