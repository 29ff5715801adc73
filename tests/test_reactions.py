"""Quick reactions on the wire: relayed to everyone, rate-limited per connection, never
slowing the game, off per table, and from watchers only where the table allows."""

from __future__ import annotations

import asyncio
from typing import Any

from host.limits import Limits
from pitchnet.protocol import React, Reacted, parse_client_message, parse_host_message
from pitchnet.reactions import REACTIONS, Reaction, reaction_of
from tests.netclient import RawClient, play_as_bot, running_host, until_true

FLOOD = 3000
"""Reactions a flooding watcher sends in one write."""


def reacted(client: RawClient) -> list[dict[str, Any]]:
    return [p for p in client.received if p["type"] == "reacted"]


def codes(client: RawClient) -> list[str]:
    return [p["code"] for p in client.received if p["type"] == "error"]


def test_the_reaction_set_is_fixed_and_unknown_ids_are_none() -> None:
    assert [str(r) for r in REACTIONS] == ["nice", "oops", "well_bid", "hurry", "gg", "laugh"]
    assert reaction_of("gg") is Reaction.GG
    assert reaction_of("you are bad") is None
    wire = React(reaction="oops").to_wire()
    assert parse_client_message(wire) == React(reaction="oops")
    back = parse_host_message(Reacted(reaction="gg", name="Ann", seat=1).to_wire())
    assert back == Reacted(reaction="gg", name="Ann", seat=1)


async def test_a_reaction_reaches_every_seat_and_watcher_naming_its_sender() -> None:
    async with running_host(players=3, bots=1) as host:
        eve = await RawClient.connect(host)
        await eve.hello("Eve", watch=True)
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        bob = await RawClient.connect(host)
        seat = (await bob.hello("Bob"))["seat"]
        bob.send(React(reaction="nice"))
        for client in (ann, bob, eve):
            frame = await client.expect("reacted")
            assert frame == {"type": "reacted", "reaction": "nice", "name": "Bob", "seat": seat}
        for client in (ann, bob, eve):
            await client.close()


async def test_a_flood_from_a_player_relays_three_and_the_match_plays_on_unchanged() -> None:
    async with running_host(players=3, bots=1) as host:
        ann, flood = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await flood.hello("Flood")
        flood.send_raw(React(reaction="hurry").encode() * 300)  # under the message burst
        finals = await asyncio.gather(play_as_bot(ann), play_as_bot(flood))
        assert all(view.phase == "match_over" for view in finals)
        burst = Limits().reaction_burst
        assert len(reacted(ann)) == burst  # the rest reached no one
        assert codes(flood) == ["reaction_limit"] * (300 - burst)  # refused, never struck
        for client in (ann, flood):
            await client.close()


async def test_a_watchers_flood_is_cut_off_and_never_holds_the_table_up() -> None:
    async with running_host(players=3, bots=2, spectator_reactions=True) as host:
        eve = await RawClient.connect(host, bare=True)
        await eve.hello("Eve", watch=True)
        await until_true(lambda: host.table.spectators == 1, "the watcher counted")
        ann = await RawClient.connect(host)
        await ann.hello("Ann")  # the last seat: the match starts
        eve.send_raw(React(reaction="laugh").encode() * FLOOD)
        final, cut = await asyncio.gather(play_as_bot(ann), eve.closed_by_host())
        assert final.phase == "match_over" and cut
        assert len(reacted(ann)) <= Limits().reaction_burst
        # (a reset may lose the last frames the host queued before it cut the watcher)
        assert set(codes(eve)) <= {"reaction_limit", "rate_limited"}
        await ann.close()


async def test_reactions_off_means_none_relayed() -> None:
    async with running_host(players=2, reactions=False) as host:
        ann, bob = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await bob.hello("Bob")
        state = await ann.expect("state")
        assert state["table"]["reactions"] is False
        ann.send(React(reaction="gg"))
        assert (await ann.expect("error"))["code"] == "no_reactions"
        bob.send(React(reaction="gg"))
        assert (await bob.expect("error"))["code"] == "no_reactions"
        assert reacted(ann) == reacted(bob) == []
        for client in (ann, bob):
            await client.close()


async def test_watchers_see_reactions_but_send_none_unless_the_table_allows() -> None:
    async with running_host(players=2) as host:
        eve = await RawClient.connect(host)
        await eve.hello("Eve", watch=True)
        eve.send(React(reaction="oops"))
        assert (await eve.expect("error"))["code"] == "watching"
        eve.send(React(reaction="no such"))
        assert (await eve.expect("error"))["code"] == "bad_message"
        assert reacted(eve) == []
        await eve.close()


# ---- the client: beside the seat, in the log, off per player --------------------------------


async def shown_app(reactions: bool = True) -> Any:
    from client.app import ClientOptions
    from tests.pilot_app import PilotApp

    app = PilotApp(ClientOptions(name="Ann"))
    app.prefs.reactions = reactions
    return app


async def test_a_reaction_shows_beside_its_seat_and_in_the_log_then_goes() -> None:
    from client.demo import scene_with_events
    from tests.pilot import screen_text, until

    app = await shown_app()
    moment = [100.0]
    async with app.run_test(size=(120, 40)) as pilot:
        table, view, events = scene_with_events("playing", 7)
        app.game.seat, app.game.clock = 0, lambda: moment[0]
        app.apply_state(1, table, view, events)
        await pilot.pause()
        app.show_reaction(Reaction.OOPS, 1, "")
        # beside the seat and in the log (shown at 120x40)
        await until(pilot, lambda: screen_text(app).count("↯ oops") == 2, "the reaction drawn")
        name = app.game.name(1)
        assert [line.plain for line in app.game.log[-1:]] == [f"{name}: ↯ oops"]
        moment[0] += 5.0  # its time is up: the next tick takes it away
        screen = app.screen
        screen._tick()
        await until(pilot, lambda: screen_text(app).count("↯ oops") == 1, "only the log's line")
        assert app.game.reactions == {}


async def test_reactions_off_means_none_shown() -> None:
    from client.demo import scene_with_events
    from tests.pilot import screen_text

    app = await shown_app(reactions=False)
    async with app.run_test(size=(120, 40)) as pilot:
        table, view, events = scene_with_events("playing", 7)
        app.game.seat = 0
        app.apply_state(1, table, view, events)
        await pilot.pause()
        lines = len(app.game.log)
        app.show_reaction(Reaction.LAUGH, 1, "")
        await pilot.pause()
        assert "ha ha" not in screen_text(app)
        assert len(app.game.log) == lines and app.game.reactions == {}


async def test_r_then_a_number_sends_that_reaction_to_the_table() -> None:
    from client.app import ClientOptions
    from tests.pilot import screen_text, until
    from tests.pilot_app import PilotApp

    async with running_host(players=2, bots=1) as host:
        options = ClientOptions(name="Ann", mode="join", address=("127.0.0.1", host.port))
        app = PilotApp(options)
        async with app.run_test(size=(120, 40)) as pilot:
            await until(pilot, lambda: app.game.view is not None, "the table")
            await pilot.press("r")
            await until(pilot, lambda: "React (1-6" in screen_text(app), "the picker")
            await pilot.press("5")
            seat = app.game.seat
            assert seat is not None
            await until(pilot, lambda: app.game.reaction(seat) is Reaction.GG, "the reaction back")

            # beside the seat ("♥ gg" where "good game" has no room) and in the log
            def beside() -> bool:
                return any("(you)" in ln and "♥ g" in ln for ln in screen_text(app).splitlines())

            await until(pilot, beside, "beside the seat")
            assert app.game.log[-1].plain == "You: ♥ good game"


async def test_the_setup_screens_tick_box_turns_a_hosted_tables_reactions_off() -> None:
    from textual.widgets import Checkbox

    from client.screens.lobby import LobbyScreen
    from tests.pilot import play_on_an_empty_lan, setup_shown, until

    app = play_on_an_empty_lan(5)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: setup_shown(app), "the setup screen")
            await pilot.pause()
            app.screen.query_one("#setup-reactions", Checkbox).value = False
            app.screen.query_one("#setup-name").focus()
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "our lobby")
            await until(pilot, lambda: app.game.table is not None, "the lobby's table")
            assert app.game.table is not None and app.game.table.reactions is False
            assert not app._may_react()
    finally:
        await app.close_network()


async def test_on_a_phone_the_picker_takes_a_tap() -> None:
    """A browser has no `r` on a phone keyboard: the palette's React opens the picker,
    and each reaction is a button on screen at 40x20."""
    from client.app import ClientOptions
    from client.screens.react import ReactPicker
    from tests.pilot_app import PilotApp

    app = PilotApp(ClientOptions(name="Ann", mode="web"))
    chosen: list[Reaction | None] = []
    async with app.run_test(size=(40, 20)) as pilot:
        app.push_screen(ReactPicker(), chosen.append)
        await pilot.pause()
        for reaction in REACTIONS:
            button = app.screen.query_one(f"#react-{reaction}")
            assert button.region.area > 0 and button.region.bottom <= 20
        assert await pilot.click(f"#react-{Reaction.WELL_BID}")
        await pilot.pause()
    assert chosen == [Reaction.WELL_BID]


def test_a_label_fits_its_room_with_whole_words_and_plain_ascii() -> None:
    from client.reactions import reaction_label

    assert reaction_label(Reaction.NICE) == "★ nice play"
    assert reaction_label(Reaction.NICE, ascii_only=True) == "* nice play"
    assert reaction_label(Reaction.NICE, width=8) == "★ nice"
    assert reaction_label(Reaction.HURRY, ascii_only=True, width=3) == "zz"
    assert all(label.isascii() for label in (reaction_label(r, True) for r in REACTIONS))


async def test_play_no_reactions_means_none_shown_whatever_the_setting() -> None:
    from client.main import options_from_args
    from pitchnet.cli import build_parser
    from tests.pilot_app import PilotApp

    for command in (["play", "--no-reactions"], ["join", "--no-reactions", "127.0.0.1:1"]):
        options = options_from_args(build_parser().parse_args([*command, "--name", "Ann"]))
        assert options.reactions is False
        app = PilotApp(options)
        app.prefs.reactions = True  # the saved setting says show them; the flag wins
        app.show_reaction(Reaction.LAUGH, 1, "")  # off: returns before drawing anything
        assert app.game.log == [] and app.game.reactions == {}
    plain = options_from_args(build_parser().parse_args(["play", "--name", "Ann"]))
    assert plain.reactions is True
