"""The host's journal: a crashed table resumes exactly; a bad journal is refused whole."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from host import dispatch
from host.entries import (
    ENTRIES,
    BidMade,
    BotSeated,
    CardPlayed,
    ClaimDropped,
    EntryError,
    HandDealt,
    HumanSeated,
    MatchBegun,
    PartnersRotated,
    ReadySaid,
    SeatClaimed,
    SeatLeft,
    SeatMoved,
    SeatReclaimed,
    StartAsked,
    entry_from_json,
)
from host.history import print_history
from host.journal import JournalError, SqliteJournal, journal_path
from host.server import HostConfig, HostServer
from host.tables import resume_table
from pitchnet.events import Event
from pitchnet.protocol import BidMsg
from pitchnet.views import seat_view
from tests.netclient import RawClient, play_as_bot, running_host
from tests.table_doubles import dealt_hand, match_of

SEED = 4242


async def _seat_four(server: HostServer) -> tuple[list[RawClient], list[dict[str, Any]]]:
    clients = [await RawClient.connect(server) for _ in range(4)]
    welcomes = [await c.hello(f"P{i}") for i, c in enumerate(clients)]
    return clients, welcomes


def _deals(table_id: str) -> list[list[str]]:
    journal = SqliteJournal(journal_path(table_id), lock=False)  # the host may still run
    try:
        return [e.deck for e in journal.entries() if isinstance(e, HandDealt)]
    finally:
        journal.close()


async def _uninterrupted() -> tuple[list[int], list[list[str]]]:
    async with running_host(seed=SEED) as server:
        clients, _ = await _seat_four(server)
        finals = await asyncio.gather(*(play_as_bot(c) for c in clients))
        return finals[0].scores, _deals(server.table_id)


async def _wait_until(server: HostServer, condition: Any, timeout: float = 20) -> None:
    reached = asyncio.Event()

    def check(_events: list[Event]) -> None:
        if condition(server.table):
            reached.set()

    server.on_broadcast.append(check)
    check([])
    await asyncio.wait_for(reached.wait(), timeout)


def _mid_second_hand(table: Any) -> bool:
    match = table.match
    return bool(match and match.hand_number == 2 and match.hand and len(match.hand.tricks) == 2)


async def test_a_resumed_table_finishes_as_if_nothing_happened() -> None:
    expected_scores, expected_deals = await _uninterrupted()

    first = HostServer(
        HostConfig(interface="127.0.0.1", port=0, advertise=False, bot_delay=0, seed=SEED)
    )
    await first.start()
    clients, welcomes = await _seat_four(first)
    tasks = [asyncio.create_task(play_as_bot(c)) for c in clients]
    await _wait_until(first, _mid_second_hand)
    views_before = [seat_view(match_of(first.table), seat).to_wire() for seat in range(4)]
    table_id = first.table_id
    await first.close()  # the journal is all that survives
    await asyncio.gather(*tasks, return_exceptions=True)

    resumed = HostServer(HostConfig(interface="127.0.0.1", port=0, advertise=False, resume=""))
    await resumed.start()
    try:
        assert resumed.table_id == table_id
        views_after = [seat_view(match_of(resumed.table), seat).to_wire() for seat in range(4)]
        assert views_after == views_before
        assert all(not seat.connected for seat in resumed.table.seats)
        back = [await RawClient.connect(resumed) for _ in range(4)]
        states = []
        for client, welcome in zip(back, welcomes, strict=True):
            again = await client.hello("ignored", token=welcome["token"], table_id=table_id)
            assert again["seat"] == welcome["seat"]
            states.append(await client.expect("state"))
        finals = await asyncio.gather(
            *(play_as_bot(c, current=s) for c, s in zip(back, states, strict=True))
        )
        assert finals[0].scores == expected_scores
    finally:
        await resumed.close()
    assert _deals(table_id) == expected_deals
    journal = SqliteJournal(journal_path(table_id))
    actions = [
        (e.OP, e.seat, e.id) for e in journal.entries() if isinstance(e, BidMade | CardPlayed)
    ]
    journal.close()
    assert len(actions) == len(set(actions)), "an action was journaled twice"


async def test_an_action_resent_after_a_resume_is_applied_once() -> None:
    async with running_host(players=2, seed=1) as server:
        a, b = await RawClient.connect(server), await RawClient.connect(server)
        await a.hello("A")
        await b.hello("B")
        await _wait_until(server, lambda t: t.match is not None)
        turn = match_of(server.table).turn
        assert turn is not None
        actor = (a, b)[turn]
        action = BidMsg(id=actor.new_id(), bid=None)
        actor.send(action)
        await actor.expect("ack")
        table_id = server.table_id
    table, journal, _ = resume_table(table_id, None)
    try:
        assert table.seats[turn].last_id == action.id
        assert dispatch.act(table, turn, BidMsg(id=action.id, bid=None)) is False
        assert len(dealt_hand(table).bids) == 1
    finally:
        journal.close()


async def test_history_prints_every_hand_of_a_table() -> None:
    async with running_host(players=3, seed=8) as server:
        clients = [await RawClient.connect(server) for _ in range(3)]
        for i, c in enumerate(clients):
            await c.hello(f"H{i}")
        finals = await asyncio.gather(*(play_as_bot(c) for c in clients))
        table_id = server.table_id
    out = io.StringIO()
    print_history(table_id, out)
    text = out.getvalue()
    hands = finals[0].hand_number
    assert text.count("--- Hand ") == hands
    assert text.count("  dealt: ") == hands
    assert text.count("trick 6:") == hands
    assert "wins the match" in text
    assert "H0 bids" in text


def _journal_with(tmp: Path, mutate: Any) -> str:
    async def make() -> str:
        async with running_host(players=2, seed=2) as server:
            a, b = await RawClient.connect(server), await RawClient.connect(server)
            await a.hello("A")
            await b.hello("B")
            return server.table_id

    table_id = asyncio.run(make())
    mutate(journal_path(table_id))
    return table_id


def _garble(path: Path) -> None:
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    path.write_bytes(b"this is not a database" * 100)


def _newer(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='schema_version'")


def _bad_entry(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute('INSERT INTO entries (at, entry) VALUES (0, \'{"op":"play","seat":0}\')')


@pytest.mark.parametrize(
    ("mutate", "words"),
    [(_garble, "not a pitchnet journal"), (_newer, "newer pitchnet"), (_bad_entry, "replayed")],
)
def test_a_bad_journal_is_refused_with_a_clear_message(
    tmp_path: Path, mutate: Any, words: str
) -> None:
    table_id = _journal_with(tmp_path, mutate)
    with pytest.raises(JournalError, match=words):
        resume_table(table_id, None)


def test_every_entry_reads_back_as_written_and_nothing_else_does() -> None:
    written = [
        BotSeated(2, "Bot 1"),
        HumanSeated(0, "Ann", "t" * 32),
        StartAsked(0, 5),
        MatchBegun(1),
        HandDealt(["AS", "2C"], hand=1, dealer=1),
        BidMade(1, None, 6),
        CardPlayed(1, "AS"),
        ReadySaid(0, 7),
        ReadySaid(1, 8, rotate=True),
        PartnersRotated([0, 3, 1, 2]),
        SeatLeft(3),
        SeatClaimed(1, "Dee", "u" * 32),
        ClaimDropped(1),
        SeatMoved(0, 2),
        SeatReclaimed(2, "v" * 32),
    ]
    assert {type(e) for e in written} == set(ENTRIES.values())
    assert [entry_from_json(json.loads(json.dumps(e.to_json()))) for e in written] == written
    assert entry_from_json({"op": "bot", "seat": 2}) == BotSeated(2)  # before bot names
    assert entry_from_json({"op": "ready", "seat": 0}) == ReadySaid(0)  # before rotations
    bad: Any
    for bad in (
        [],
        {"seat": 1},
        {"op": "teleport", "seat": 1},
        {"op": "play", "seat": 0},
        {"op": "bid", "seat": "1", "value": 2},
        {"op": "join", "seat": 0, "name": "Ann", "token": "t" * 65},
    ):
        with pytest.raises(EntryError):
            entry_from_json(bad)


@pytest.mark.parametrize(
    "value",
    [
        {"op": "play", "seat": 1, "value": "QS", "id": None},
        {"op": "join", "seat": 0, "name": 'Zoë "the ace" ☃\n', "token": "a" * 64},
        {"op": "deal", "deck": ["AS", "2C", "JK"], "hand": 3, "dealer": 1},
        {"op": "ready", "seat": 2, "id": 2**53 - 1, "rotate": True},
    ],
)
def test_an_entry_is_written_as_the_json_encoder_writes_it(value: dict[str, Any]) -> None:
    """The journal's entry text (its C encoder, made once) is byte for byte what
    `json.JSONEncoder(separators=(",", ":"))` writes, and reads back the same."""
    from host.journal import _ENCODE

    text = _ENCODE(value)
    assert text == json.JSONEncoder(separators=(",", ":")).encode(value)
    assert json.loads(text) == value
