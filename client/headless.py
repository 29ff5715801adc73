"""`pitchnet bot HOST:PORT`: headless computer players that join over the network,
exactly as a person's client does, and play until the match ends.

They use the client's own `Connection`, so they reconnect with backoff and their
seat token like any player, and they keep that token on disk per bot name: a bot
process killed mid-hand and started again sits back down in its seat. They decide
from the seat view the host sends, so a seeded match replays the same whether its
bots sit inside the host or here. A bot that thinks long (`hard`) thinks on a worker
thread, so the event loop keeps answering the host's pings and reading its news.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from functools import partial
from typing import Any

from client.connection import Connection, parse_address
from client.discovery import locate
from client.messages import Disconnected, HostError, StateReceived, Welcomed
from client.tokens import SavedSeat, TokenStore
from pitchnet.bots import make_bot
from pitchnet.i18n import _
from pitchnet.rules import Action, Phase
from pitchnet.search import TABLE_BUDGET
from pitchnet.views import SeatView

log = logging.getLogger("pitchnet.bot")


class HeadlessPlayer:
    """One bot seat: reads the connection's news from a queue and answers its turns."""

    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        kind: str,
        password: str | None,
        think: float = 0,
        interface: str | None = None,
    ) -> None:
        self.name = name
        self.think = think
        self.bot = make_bot(kind, seed=0, budget=TABLE_BUDGET)
        self.tokens = TokenStore()
        self.news: asyncio.Queue[Any] = asyncio.Queue()
        saved = self.tokens.find(name, address=(host, port), given_up=True)
        self.connection = Connection(
            host,
            port,
            name,
            self.news.put_nowait,
            password=password,
            remembered=saved,
            locate=partial(locate, interface),
        )
        self._acted: tuple[int, ...] | None = None
        self._latest: StateReceived | None = None
        self._thinking: asyncio.Task[None] | None = None

    async def play(self) -> int:
        """Play to the end of the match; returns a process exit status."""
        runner = asyncio.create_task(self.connection.run())
        try:
            while True:
                news_task = asyncio.create_task(self.news.get())
                done, _pending = await asyncio.wait(
                    {news_task, runner}, return_when=asyncio.FIRST_COMPLETED
                )
                if news_task not in done:
                    news_task.cancel()
                    log.error("%s: the connection ended", self.name)
                    return 1
                status = self._on(news_task.result())
                if status is not None:
                    return status
        finally:
            if self._thinking is not None:
                self._thinking.cancel()
            await self.connection.close()
            runner.cancel()
            await asyncio.gather(runner, return_exceptions=True)

    def _on(self, news: Any) -> int | None:
        if isinstance(news, Welcomed):
            welcome, conn = news.welcome, self.connection
            seat = SavedSeat(
                welcome.table_id,
                self.name,
                conn.host,
                conn.port,
                conn.token or "",
                conn.kept_tokens,
            )
            self.tokens.remember(seat)
            if news.note:
                log.warning("%s: %s", self.name, news.note)
            log.info("%s: seated at seat %d", self.name, welcome.seat)
        elif isinstance(news, Disconnected):
            log.warning("%s: %s", self.name, news.reason)
            if not news.retrying:
                return 1
        elif isinstance(news, HostError):
            log.warning("%s: host says %s: %s", self.name, news.code, news.message)
            if self._latest is not None and news.code == "stale":
                # A refused move (a stale resend, say) changes nothing, so no new state
                # will come: look at the latest one again, now nothing is in flight.
                self._acted = None
                return self._turn(self._latest)
        elif isinstance(news, StateReceived) and news.view is not None:
            self._latest = news
            return self._turn(news)
        return None

    def _turn(self, news: StateReceived) -> int | None:
        view, table = news.view, news.table
        assert view is not None
        if view.phase == Phase.MATCH_OVER:
            log.info("%s: match over, side %s wins", self.name, view.winner)
            if self.connection.table_id:
                table_id, token = self.connection.table_id, self.connection.token
                self.tokens.forget(table_id, self.name, token)
            return 0
        if self._thinking is not None:
            return None  # the thought under way looks at the latest state when it ends
        key = _moment(view)
        if key == self._acted or self.connection.pending:
            return None  # already answered this state, or the answer is still in flight
        if view.phase == Phase.HAND_OVER and not table.seats[view.seat].ready:
            self._acted = key
            self._later(self.connection.ready)
        elif view.my_turn and view.phase in (Phase.BIDDING, Phase.PLAYING):
            self._acted = key
            if self.bot.thinks_long:
                self._thinking = asyncio.create_task(self._think(view, key))
            else:
                self._answer(self.bot.decide(view))
        return None

    async def _think(self, view: SeatView, key: tuple[int, ...]) -> None:
        """Decide on a worker thread, so the loop keeps answering pings meanwhile; then
        answer, unless the table moved on while we thought (a refused move, a new state
        after a reconnect): then look at the latest state afresh."""
        try:
            decision = await asyncio.to_thread(self.bot.decide, view)
        except Exception:
            log.exception("%s: the bot failed to decide", self.name)
            raise
        finally:
            self._thinking = None
        latest = self._latest
        if latest is not None and latest.view is not None and _moment(latest.view) != key:
            self._acted = None
            self._turn(latest)
            return
        self._answer(decision)

    def _answer(self, decision: Action) -> None:
        if decision.kind == "bid":
            self._later(self.connection.bid, decision.bid)
        else:
            self._later(self.connection.play, str(decision.card))

    def _later(self, act: Any, *args: Any) -> None:
        """Act now, or after `think` seconds (like a person pausing); the action is sent,
        or queued for the next connection, whatever happened to the link meanwhile."""
        if self.think > 0:
            asyncio.get_running_loop().call_later(self.think, act, *args)
        else:
            act(*args)


def _moment(view: SeatView) -> tuple[int, ...]:
    """Where the hand stands in this view: a bot answers each moment once."""
    return (view.hand_number, len(view.bids), len(view.tricks), len(view.trick))


async def run(args: argparse.Namespace) -> int:
    host, port = parse_address(args.address)
    names = [args.name] if args.count == 1 else [f"{args.name} {i + 1}" for i in range(args.count)]
    think = max(0.0, getattr(args, "think", 0.0))
    players = [
        HeadlessPlayer(host, port, n, args.kind, args.password, think, args.interface)
        for n in names
    ]
    results = await asyncio.gather(*(p.play() for p in players))
    return max(results, default=0)


def main(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(name)s %(message)s", stream=sys.stderr
    )
    if args.count < 1:
        print(_("pitchnet bot: --count must be at least 1"), file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        return 130
    except ValueError as exc:
        print(_("pitchnet bot: {reason}", reason=str(exc)), file=sys.stderr)
        return 2
