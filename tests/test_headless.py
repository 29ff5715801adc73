"""`pitchnet bot`: a bot that thinks long thinks off its event loop, so the host keeps
hearing from it (its pings answered) for as long as it thinks."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from client.headless import HeadlessPlayer
from client.messages import HostError, StateReceived
from host.journal import JournalWriteError
from pitchnet.bots import Bot, NormalBot
from pitchnet.cards import Card
from pitchnet.rules import Bid, Phase
from pitchnet.views import SeatView
from tests.netclient import running_host, until_true

THINK_LIMIT = 20.0
"""How long the stuck bot waits to be let go: long enough for the test to act, short
enough that a bot blocking the loop fails the test instead of hanging it."""


class StuckBot(Bot):
    """Thinks until the test lets it go (at most THINK_LIMIT), then plays as `normal`.
    Records whether it was let go: only a test that ran during the think could do it."""

    kind = "hard"
    thinks_long = True

    def __init__(self) -> None:
        self.thinking = threading.Event()
        self.let_go = threading.Event()
        self.let_go_in_time: list[bool] = []
        self.normal = NormalBot()

    def _think(self) -> None:
        self.thinking.set()
        self.let_go_in_time.append(self.let_go.wait(THINK_LIMIT))
        self.thinking.clear()

    def choose_bid(self, view: SeatView) -> Bid:
        self._think()
        return self.normal.choose_bid(view)

    def choose_play(self, view: SeatView) -> Card:
        self._think()
        return self.normal.choose_play(view)


async def test_a_long_think_keeps_answering_the_hosts_pings() -> None:
    async with running_host(players=2, bots=1) as server:
        player = HeadlessPlayer("127.0.0.1", server.port, "Slow", "hard", None)
        bot = StuckBot()
        player.bot = bot
        playing = asyncio.create_task(player.play())
        try:
            await until_true(bot.thinking.is_set, "the bot to start thinking")
            peers = server.referee.peers
            (peer,) = [p for p in peers.values() if p.seat is not None]
            heard = peer.last_heard
            # The host pings every second; the answer can only come from a free loop.
            await until_true(lambda: peer.last_heard > heard + 1.0, "a pong mid-think")
            assert bot.thinking.is_set()
            bot.let_go.set()
            seat = peer.seat

            def moved() -> bool:
                hand = server.table.match.hand if server.table.match else None
                return hand is not None and any(bidder == seat for bidder, _ in hand.bids)

            await until_true(moved, "the bot's bid to reach the host")
        finally:
            bot.let_go.set()
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        assert bot.let_go_in_time and all(bot.let_go_in_time)


async def test_a_bot_sends_its_move_again_after_the_host_could_not_record_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 item 7: the host's disk fills as `pitchnet bot` makes a move (`journal`,
    nothing changed), then frees up: the bot sends the move again and the match goes on
    to its end (before, it waited for a state that never came)."""
    monkeypatch.setenv("PITCHNET_STATE_DIR", str(tmp_path / "bot"))
    async with running_host(players=2, bots=1, state_dir=tmp_path) as server:
        journal = server.journal
        assert journal is not None
        record_all, full = journal.record_all, [False]
        refused: list[str] = []

        def disk(entries: list[Any]) -> None:
            if full[0]:
                raise JournalWriteError("database or disk is full")
            record_all(entries)

        monkeypatch.setattr(journal, "record_all", disk)
        player = HeadlessPlayer("127.0.0.1", server.port, "Ann", "normal", None)
        on = player._on

        def watched(news: Any) -> int | None:
            if isinstance(news, HostError) and news.code == "journal":
                refused.append(news.code)
                full[0] = False  # space is freed as soon as the move was refused
            elif not refused and isinstance(news, StateReceived) and news.view is not None:
                full[0] = news.view.my_turn  # the disk fills as the bot is about to move
            return on(news)

        monkeypatch.setattr(player, "_on", watched)
        status = await asyncio.wait_for(player.play(), 60)
        assert refused == ["journal"] and status == 0
        assert server.table.match is not None and server.table.match.phase is Phase.MATCH_OVER
