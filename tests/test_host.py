"""The host over real sockets on 127.0.0.1: whole matches, the no-leak guarantee, and
bad input that must not disturb the other seats."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import msgpack
import pytest

from host.entries import HandDealt
from pitchnet.cards import Card
from pitchnet.protocol import HEADER, MAX_FRAME, BidMsg, PlayMsg
from pitchnet.rules import Settings, deal_hands
from pitchnet.views import SeatView
from tests.netclient import RawClient, play_as_bot, running_host
from tests.table_doubles import RecordingJournal, dealt_hand, match_of

ROOT = Path(__file__).resolve().parent.parent
CARD_TEXT = re.compile(r"^[2-9TJQKA][CDHS]$")


def _wait_for_line(proc: subprocess.Popen[str], pattern: str, timeout: float = 20) -> re.Match[str]:
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"no line matching {pattern!r} from the host")


def test_whole_match_host_and_four_bot_processes(tmp_path: Path) -> None:
    env = {**os.environ, "PITCHNET_INTERFACE": "127.0.0.1"}
    base = [sys.executable, "-m", "pitchnet"]
    log = (tmp_path / "host.log").open("w")
    host = subprocess.Popen(
        [*base, "host", "--port", "0", "--seed", "11", "--bot-delay", "0", "--name", "Test"],
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env,
        cwd=ROOT,
    )
    try:
        port = _wait_for_line(host, r"127\.0\.0\.1:(\d+)").group(1)
        bots = [
            subprocess.Popen(
                [*base, "bot", f"127.0.0.1:{port}", "--name", f"B{i}"],
                stderr=subprocess.PIPE,
                text=True,
                env=env,
                cwd=ROOT,
            )
            for i in range(4)
        ]
        outputs = [bot.communicate(timeout=60)[1] for bot in bots]
        assert [bot.returncode for bot in bots] == [0, 0, 0, 0], outputs
        assert all("match over" in out for out in outputs)
        host.send_signal(signal.SIGTERM)
        assert host.wait(timeout=20) == 0
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
        log.close()
    host_log = (tmp_path / "host.log").read_text()
    assert "match over" in host_log
    assert "closed" in host_log


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (*_strings(key), *_strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


async def test_no_frame_names_a_card_its_seat_could_not_see() -> None:
    async with running_host(seed=2024, players=4) as server:
        journal = RecordingJournal()
        server.table.journal = journal
        clients = [await RawClient.connect(server) for _ in range(4)]
        for i, client in enumerate(clients):
            await client.hello(f"P{i}")
        finals = await asyncio.gather(*(play_as_bot(c) for c in clients))
        assert finals[0].winner is not None
        settings = Settings(4)
        dealt_by_hand = {
            e.hand: deal_hands([Card.parse(t) for t in e.deck], settings, e.dealer)
            for e in journal.written
            if isinstance(e, HandDealt)
        }
        assert len(dealt_by_hand) >= 2
        for seat, client in enumerate(clients):
            # Cards played so far, by hand: a frame may name the cards of this hand and
            # of the last one (its result and final events), never older ones, which
            # may since have been dealt to another seat.
            played: dict[int, set[str]] = defaultdict(set)
            hand_number = 0
            checked = 0
            for payload in client.received:
                if payload["type"] != "state":
                    continue
                if payload["view"] is not None:
                    hand_number = payload["view"]["hand_number"]
                for event in payload["events"]:
                    if event["kind"] == "play":
                        played[hand_number].add(event["card"])
                own = {str(c) for c in dealt_by_hand.get(hand_number, [[]] * 4)[seat]}
                allowed = own | played[hand_number] | played[hand_number - 1]
                for text in _strings(payload):
                    if CARD_TEXT.match(text):
                        assert text in allowed, f"seat {seat} was sent {text} in hand {hand_number}"
                        checked += 1
            assert checked > 100


async def _three_bots_and(server: Any) -> tuple[list[RawClient], list[asyncio.Task[SeatView]]]:
    bots = [await RawClient.connect(server) for _ in range(3)]
    for i, bot in enumerate(bots):
        await bot.hello(f"Bot{i}")
    return bots, [asyncio.create_task(play_as_bot(b)) for b in bots]


async def test_illegal_and_out_of_turn_moves_are_refused_and_change_nothing() -> None:
    async with running_host(players=4, seed=5) as server:
        me = await RawClient.connect(server)
        welcome = await me.hello("Offender")
        seat = welcome["seat"]
        others, tasks = await _three_bots_and(server)
        # Wait for the first state in which it is not my turn, then play out of turn.
        while True:
            state = await me.expect("state")
            view = state["view"]
            if view and view["phase"] == "bidding" and view["turn"] != seat:
                break
        seq_before = state["seq"]
        me.send(PlayMsg(id=me.new_id(), card=view["hand"][0]))
        error = await me.expect("error")
        assert error["code"] in ("not_playing", "not_your_turn")
        assert error["fatal"] is False
        # Wait for my turn to bid and bid 5 (never legal).
        while not (view["phase"] == "bidding" and view["turn"] == seat):
            state = await me.expect("state")
            view = state["view"]
        seq_at_turn = state["seq"]
        assert seq_at_turn >= seq_before
        me.send(BidMsg(id=me.new_id(), bid=5))
        error = await me.expect("error")
        assert error["code"] == "bad_bid"
        assert "pass" in error["message"]
        assert server.table.match is not None
        assert server.table.match.turn == seat  # nothing moved on
        # Now play properly to the end: the others finish too.
        final = await play_as_bot(me, current=state)
        assert final.winner is not None
        results = await asyncio.gather(*tasks)
        assert all(r.phase == "match_over" for r in results)
        for other in others:
            assert not [p for p in other.received if p["type"] == "error"]


def _frame_of(raw: bytes) -> bytes:
    return HEADER.pack(len(raw)) + raw


BAD_INPUT = {
    "oversize": (HEADER.pack(MAX_FRAME + 1) + b"x" * 100, "too_big"),
    "non-map": (_frame_of(msgpack.packb([1, 2, 3])), "bad_frame"),
    "garbage": (_frame_of(b"\xc1\xc1\xc1\xc1"), "bad_frame"),
}


@pytest.mark.parametrize("case", list(BAD_INPUT))
async def test_fatal_bad_input_closes_only_the_offender(case: str) -> None:
    data, code = BAD_INPUT[case]
    async with running_host(players=4, seed=9, grace=0.2) as server:
        offender = await RawClient.connect(server)
        await offender.hello("Offender")
        others, tasks = await _three_bots_and(server)
        await offender.expect("state")
        offender.send_raw(data)
        error = await offender.expect("error")
        assert error["code"] == code
        assert error["fatal"] is True
        assert await offender.closed_by_host()
        # The other seats' match goes on to its end (a bot plays the absent seat).
        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(r.phase == "match_over" and r.winner is not None for r in results)
        for other in others:
            assert not [p for p in other.received if p["type"] == "error"]


async def test_unknown_message_types_are_errors_then_the_connection_closes() -> None:
    async with running_host(players=2, seed=1) as server:
        client = await RawClient.connect(server)
        await client.hello("Chatty")
        for _ in range(server.limits.max_strikes):
            client.send_raw(_frame_of(msgpack.packb({"type": "dance"})))
        codes = []
        while True:
            payload = await client.next_payload()
            if payload is None:
                break
            if payload["type"] == "error":
                codes.append((payload["code"], payload["fatal"]))
        assert codes[0] == ("unknown_type", False)
        assert codes[-1] == ("unknown_type", True)
        assert len(codes) == server.limits.max_strikes


async def test_a_repeated_action_id_is_applied_once() -> None:
    async with running_host(players=2, seed=3) as server:
        a, b = await RawClient.connect(server), await RawClient.connect(server)
        await a.hello("A")
        await b.hello("B")
        for client in (a, b):
            while True:
                state = await client.expect("state")
                if state["view"] is not None:
                    break
        turn = match_of(server.table).turn
        assert turn is not None
        first = (a, b)[turn]
        action = BidMsg(id=first.new_id(), bid=None if turn != match_of(server.table).dealer else 2)
        first.send(action)
        ack = await first.expect("ack")
        assert ack == {"type": "ack", "id": action.id, "duplicate": False}
        bids_after_first = list(dealt_hand(server.table).bids)
        first.send(action)
        again = await first.expect("ack")
        assert again["duplicate"] is True
        assert dealt_hand(server.table).bids == bids_after_first


async def test_leaving_mid_match_hands_the_seat_to_a_bot_and_closes_the_connection() -> None:
    async with running_host(players=2, seed=4) as server:
        leaver, stayer = await RawClient.connect(server), await RawClient.connect(server)
        welcome = await leaver.hello("Leaver")
        await stayer.hello("Stayer")
        await leaver.expect("state")
        from pitchnet.protocol import Leave

        leaver.send(Leave())
        bye = await leaver.expect("bye")
        assert bye["code"] == "left"
        assert await leaver.closed_by_host()
        seat = server.table.seats[welcome["seat"]]
        assert seat.kind == "bot" and seat.name.endswith("(bot)")
        final = await play_as_bot(stayer)
        assert final.phase == "match_over"


async def test_a_pong_crossing_the_hello_is_no_handshake_error() -> None:
    async with running_host(players=2) as server:
        client = await RawClient.connect(server)
        from pitchnet.protocol import Pong

        client.send(Pong(t=0.0))
        welcome = await client.hello("Early")
        assert welcome["seat"] == 0


async def test_an_overlong_table_name_is_cut_to_what_clients_accept() -> None:
    async with running_host(name="\x1b[2J" + "Very long table name " * 5) as server:
        assert len(server.name) <= 24
        assert "\x1b" not in server.name
        client = await RawClient.connect(server)
        await client.hello("Guest")
        state = await client.expect("state")
        from pitchnet.protocol import TableInfo

        assert TableInfo.from_wire(state["table"]).name == server.name
