"""Issue 24's "Carol 2": Carol's device died mid-hand while another seat was free (its
player had left). Joining again from a terminal with her name, she must not be given
that free seat beside her own: she is told her seat is kept, watches, and is offered
to ask for her own. Someone with another name still takes the free seat."""

from __future__ import annotations

from pathlib import Path

from client.app import ClientOptions
from client.screens.prompts import WatchOffer
from client.screens.reclaim import ReclaimOffer
from pitchnet.protocol import Leave, Vouch
from tests.netclient import RawClient, running_host, until_true
from tests.pilot import dealt, screen_text, until
from tests.pilot_app import PilotApp

SIZE = (100, 32)


async def test_carol_joining_again_watches_and_asks_instead_of_a_second_seat(
    tmp_path: Path,
) -> None:
    async with running_host(players=3, grace=600) as host:
        ann, carol, dan = [await RawClient.connect(host) for _ in range(3)]
        await ann.hello("Ann")
        await carol.hello("Carol")
        await dan.hello("Dan")
        await until_true(lambda: host.table.state == "playing", "the match")
        dan.send(Leave())
        await until_true(lambda: host.table.seats[2].takeable, "Dan's seat free")
        await carol.close()
        await until_true(lambda: not host.table.seats[1].connected, "Carol away")
        options = ClientOptions(
            name="Carol",
            mode="join",
            address=("127.0.0.1", host.port),
            seats_file=tmp_path / "seats.json",
        )
        app = PilotApp(options)
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: isinstance(app.screen, WatchOffer), "no seat offered")
            await until(
                pilot,
                lambda: "Carol's seat is kept for its player" in " ".join(screen_text(app).split()),
                "why, in the host's words",
            )
            assert not any(s.claim_token for s in host.table.seats)  # no "Carol 2"
            await pilot.press("w")
            await until(pilot, lambda: isinstance(app.screen, ReclaimOffer), "the offer")
            assert app.game.watching
            await pilot.press("y")
            await ann.expect("reclaim_asked")
            ann.send(Vouch(seat=1, yes=True))
            await until(pilot, lambda: app.game.me == 1, "her own seat")
            await until(pilot, lambda: bool(app.game.view and dealt(app).hand), "her hand")
            assert [s.name for s in host.table.seats][:2] == ["Ann", "Carol"]
        eve = await RawClient.connect(host)
        welcome = await eve.hello("Eve")
        assert welcome["seat"] == 2
        for client in (ann, dan, eve):
            await client.close()
