"""Game night through a real host on 127.0.0.1 (issue 12): spectators, the ready limit,
lobby seat moves, a newcomer taking a bot's seat at the next hand, and a table ended
on purpose."""

from __future__ import annotations

import asyncio
from typing import Any

from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Hello, PlayMsg, Ready, Sit, Start
from pitchnet.views import SeatView
from tests.leaks import spectator_leaks
from tests.netclient import RawClient, play_as_bot, running_host, until_true


async def _until_state(client: RawClient, test: Any, timeout: float = 20) -> dict[str, Any]:
    while True:
        state = await client.expect("state", timeout=timeout)
        if test(state):
            return state


async def _play_my_turns_until(client: RawClient, test: Any) -> dict[str, Any]:
    """Bid pass-or-lowest and play the first legal card on our turns, never `ready`,
    until a state passes `test`."""
    acted = None
    while True:
        state = await client.expect("state", timeout=30)
        if test(state):
            return state
        if state["view"] is None:
            continue
        view = SeatView.from_wire(state["view"])
        key = (view.hand_number, len(view.bids), len(view.tricks), len(view.trick))
        if not view.my_turn or key == acted:
            continue
        acted = key
        if view.phase == "bidding":
            amount = None if None in view.legal_bids else view.legal_bids[0]
            client.send(BidMsg(id=client.new_id(), bid=amount))
        elif view.phase == "playing":
            client.send(PlayMsg(id=client.new_id(), card=view.legal_plays[0]))


async def test_a_spectator_watches_a_whole_match_and_sees_no_hand() -> None:
    async with running_host(players=3, bots=2, target=7) as host:
        watcher = await RawClient.connect(host)
        welcome = await watcher.hello("Eve", watch=True)
        assert welcome["spectator"] is True and welcome.get("token") is None
        await until_true(lambda: host.table.spectators == 1, "the count of watchers")
        ann = await RawClient.connect(host)
        await ann.hello("Ann")  # the last seat: the match starts

        async def watch() -> None:
            while (payload := await watcher.next_payload(timeout=30)) is not None:
                if payload.get("type") == "state" and payload["table"]["state"] == "over":
                    return

        await asyncio.gather(play_as_bot(ann), watch())
        frames = watcher.received
        assert sum(f.get("type") == "state" for f in frames) > 30
        assert spectator_leaks(frames) == []
        watcher.send(BidMsg(id=1, bid=None))  # a watcher cannot act
        error = await watcher.expect("error")
        assert error["code"] == "watching"
        await watcher.close()


async def test_a_table_can_refuse_spectators() -> None:
    async with running_host(spectators=False) as host:
        watcher = await RawClient.connect(host)
        watcher.send(Hello(PROTOCOL_VERSION, "Eve", watch=True))
        error = await watcher.expect("error")
        assert error["code"] == "no_spectators" and error["fatal"]
        assert await watcher.closed_by_host()


async def test_the_ready_limit_deals_the_next_hand() -> None:
    async with running_host(players=2, bots=1, target=21, ready_limit=0.5) as host:
        ann = await RawClient.connect(host)
        seat = (await ann.hello("Ann"))["seat"]  # the last seat: the match starts
        summary = await _play_my_turns_until(
            ann, lambda s: s["view"] is not None and s["view"]["phase"] == "hand_over"
        )
        assert summary["table"]["waiting_for"] == [seat]
        assert 0 < summary["table"]["ready_left"] <= 0.5
        # Ann never says ready: after half a second the host deals on all the same.
        dealt = await _until_state(
            ann, lambda s: s["view"] is not None and s["view"]["hand_number"] == 2
        )
        assert len(dealt["view"]["hand"]) == 6
        assert host.table.match is not None and host.table.match.hand_number == 2
        await ann.close()


async def test_a_lobby_seat_move_is_welcomed_to_the_new_seat() -> None:
    async with running_host(players=4, partnership=True) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        bob = await RawClient.connect(host)
        assert (await bob.hello("Bob"))["seat"] == 1
        bob.send(Sit(id=bob.new_id(), seat=2))  # Bob joins Ann's side
        moved = await bob.expect("welcome")
        assert moved["seat"] == 2
        state = await _until_state(bob, lambda s: s["table"]["seats"][2]["name"] == "Bob")
        assert state["table"]["seats"][1]["kind"] == "empty"
        assert host.connections[2] is not None and 1 not in host.connections
        await ann.close()
        await bob.close()


async def test_a_newcomer_takes_a_bot_seat_at_the_next_hand() -> None:
    async with running_host(players=3, bots=0, target=21, ready_limit=0.0) as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        ann.send(Start(id=ann.new_id()))
        await _until_state(ann, lambda s: s["view"] is not None)
        dee = await RawClient.connect(host)
        welcome = await dee.hello("Dee")
        seat = welcome["seat"]
        waiting = await _until_state(dee, lambda s: s["view"] is not None)
        assert waiting["view"]["spectator"] is True and waiting["view"]["hand"] == []
        assert waiting["table"]["seats"][seat]["claimed_by"] == "Dee"
        await _play_my_turns_until(
            ann, lambda s: s["view"] is not None and s["view"]["phase"] == "hand_over"
        )
        ann.send(Ready(id=ann.new_id()))
        seated = await _until_state(
            dee, lambda s: s["view"] is not None and s["view"]["hand_number"] == 2
        )
        assert seated["view"]["spectator"] is False and len(seated["view"]["hand"]) == 6
        assert seated["table"]["seats"][seat]["name"] == "Dee"
        assert seated["table"]["seats"][seat]["kind"] == "human"
        took = [
            e
            for f in dee.received
            if f.get("type") == "state"
            for e in f["events"]
            if e["kind"] == "takeover"
        ]
        assert took and took[0]["seat"] == seat and took[0]["name"] == "Dee"
        await ann.close()
        await dee.close()


async def test_a_table_ended_on_purpose_says_the_host_closed_it() -> None:
    async with running_host() as host:
        ann = await RawClient.connect(host)
        await ann.hello("Ann")
        watcher = await RawClient.connect(host)
        await watcher.hello("Eve", watch=True)
        await host.close(on_purpose=True)
        for client in (ann, watcher):
            bye = await client.expect("bye")
            assert bye["code"] == "closed" and bye["reason"] == "The host closed the table."
