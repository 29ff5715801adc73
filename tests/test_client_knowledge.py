"""Issue 11 item 5, the clients' own knowledge: a player who comes back having seen a
later point of the game than the host now holds proves the host lost part of its record
(a journal and its mark rolled back together, which the checksums cannot show). The host
says so in its log and to every player, in a sentence; an honest or odd claim changes
nothing."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from client.connection import Connection
from pitchnet.protocol import FrameDecoder, Hello, State, TableInfo, parse_client_message
from pitchnet.rules import Match, Settings
from pitchnet.views import seat_view
from tests.netclient import RawClient, running_host, until_true
from tests.test_client_connection import Inbox, fake_host, running, welcome

LOSS = "The host lost part of this game's record: a player had seen a later point of it."


async def _away_at_a_dealt_table(server: Any) -> tuple[RawClient, dict[str, Any]]:
    """Ann and Bob sit at a 2-seat table (the match is dealt), then Ann's link drops."""
    ann, bob = await RawClient.connect(server), await RawClient.connect(server)
    welcome = await ann.hello("Ann")
    await bob.hello("Bob")
    await bob.expect("state")
    await ann.close()
    await until_true(lambda: not server.table.seats[0].connected, "Ann to be away")
    return bob, welcome


async def test_a_player_who_saw_more_than_the_host_holds_makes_it_say_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_host(players=2) as server:
        bob, first = await _away_at_a_dealt_table(server)
        assert server.table.progress() == (1, 1, 0, 0)  # match 1, hand 1, bidding, step 0
        back = await RawClient.connect(server)
        with caplog.at_level(logging.WARNING):
            back.send(await back.answer("Ann", token=first["token"], seen=[1, 4, 0, 3]))
            assert (await back.expect("welcome"))["seat"] == 0
            told = await back.expect("error")
            assert told["code"] == "journal_loss" and not told["fatal"]
            assert told["message"].startswith(LOSS)
            heard = await bob.expect("error")
        assert heard["code"] == "journal_loss" and heard["message"] == told["message"]
        lines = [record.getMessage() for record in caplog.records]
        logged = [line for line in lines if "lost part of its record" in line]
        assert logged and "[1, 4, 0, 3]" in logged[0] and "[1, 1, 0, 0]" in logged[0]
        # Someone who joins later hears it too, with its welcome.
        watcher = await RawClient.connect(server)
        watcher.send(await watcher.answer("Eve", watch=True))
        await watcher.expect("welcome")
        assert (await watcher.expect("error"))["code"] == "journal_loss"


@pytest.mark.parametrize(
    "seen", [[1, 1, 0, 0], [0, 9, 1, 9], [1, 1, 0], [1, 1, 0, -1], [1, 1, 0, 2**40], None]
)
async def test_an_honest_or_odd_claim_says_nothing(seen: Any) -> None:
    async with running_host(players=2) as server:
        bob, first = await _away_at_a_dealt_table(server)
        back = await RawClient.connect(server)
        back.send(await back.answer("Ann", token=first["token"], seen=seen))
        await back.expect("welcome")
        assert server.table.loss is None
        # Bob hears Ann is back (the broadcast that would follow a notice to him).
        while not (await bob.expect("state"))["table"]["seats"][0]["connected"]:
            pass
        assert not [p for p in bob.received if p.get("code") == "journal_loss"]


async def test_the_client_reports_the_last_point_it_saw_when_it_comes_back() -> None:
    """The terminal and headless clients' connection sends `seen` from its last state:
    the table's match, then the view's hand, whether it is over, and the step."""
    hellos: list[Any] = []
    view = _a_view()

    async def session(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        decoder = FrameDecoder()
        while True:
            data = await reader.read(65536)
            if not data:
                return
            for payload in decoder.feed(data):
                if payload.get("type") == "hello":
                    hello = parse_client_message(payload)
                    assert isinstance(hello, Hello)
                    hellos.append(hello)
                    writer.write(welcome("tok", hello) + _state(n, view))
                    if n == 1:
                        await writer.drain()
                        return  # the link drops after the first state

    async with fake_host(session) as port:
        inbox = Inbox()
        connection = Connection("127.0.0.1", port, "Ann", inbox.post, token="tok", table_id="t1")
        async with running(connection):
            await until_true(lambda: len(hellos) >= 2, "the second hello")
    assert hellos[0].seen is None  # nothing seen yet
    assert view.step > 0  # a turn into the hand, so the step is really carried
    assert hellos[1].seen == [3, view.hand_number, 0, view.step]


def _a_view() -> Any:
    """Seat 0's view of a seeded 2-seat match, one bid into its first hand."""
    import random

    from pitchnet.cards import shuffled_deck
    from tests.strategies import legal_actions

    match = Match(Settings(players=2), dealer=0)
    match.deal(shuffled_deck(random.Random(5)))
    legal_actions(match)[0].apply_to(match)
    return seat_view(match, 0)


def _state(seq: int, view: Any) -> bytes:
    table = {
        "id": "t1", "name": "Fake", "state": "playing", "players": 2, "partnership": False,
        "target": 7, "seats": [{"name": "Ann", "kind": "human", "connected": True}] * 2,
        "starter": 0, "match": 3,
    }  # fmt: skip
    return State(seq=seq, table=TableInfo.from_wire(table), view=view).encode()
