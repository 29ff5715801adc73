"""Test-side network helpers: a raw protocol client that records every frame, a bot
player built on it, and an in-process host on 127.0.0.1 with an ephemeral port."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

from host.server import HostConfig, HostServer
from pitchnet.bots import make_bot
from pitchnet.protocol import (
    BidMsg,
    Challenge,
    FrameDecoder,
    Hello,
    Message,
    Ping,
    PlayMsg,
    Pong,
    Ready,
    answer,
    parse_host_message,
)
from pitchnet.views import SeatView

DEADLINE = 20.0
POLL_DEADLINE = 30.0
"""How long `until_true` waits for the host to reach a state before the test fails."""


async def until_true(
    condition: Callable[[], object],
    what: str,
    timeout: float = POLL_DEADLINE,
    every: float = 0.005,
) -> None:
    """Poll `condition` (a coroutine's result is awaited) every `every` seconds with a
    deadline: the host changes state on its own loop turns."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        result = condition()
        if inspect.isawaitable(result):
            result = await result
        if result:
            return
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(every)  # polling with a deadline, not a guess


@contextlib.asynccontextmanager
async def running_host(**overrides: Any) -> AsyncIterator[HostServer]:
    """A host on 127.0.0.1, any free port, not advertised, bots acting at once."""
    options: dict[str, Any] = {
        "interface": "127.0.0.1",
        "port": 0,
        "advertise": False,
        "bot_delay": 0.0,
        "seed": 7,
    }
    options.update(overrides)
    server = HostServer(HostConfig(**options))
    await server.start()
    try:
        yield server
    finally:
        await server.close()


class RawClient:
    """Speaks the protocol frame by frame and keeps every payload it received.

    A `bare` client (the abuse tests') never answers the host (no pongs: before hello a
    pong would itself be a handshake error), hands on every frame, pings too, checks
    each against the protocol (whatever is thrown at it, the host sends well-formed
    frames) and takes a reset for the host's close."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        bare: bool = False,
        deadline: float = DEADLINE,
    ) -> None:
        self.reader, self.writer = reader, writer
        self.decoder = FrameDecoder()
        self.received: list[dict[str, Any]] = []
        self._backlog: list[dict[str, Any]] = []
        self.next_id = 0
        self.bare = bare
        self.deadline = deadline
        """How long one read (and `expect`) waits before the test fails."""
        self.challenge: Challenge | None = None
        """The host's challenge to this connection, once it has come."""
        self.answer_pings = not bare
        """Off for tests that write frames in pieces: a pong must not land mid-frame."""

    @classmethod
    async def connect(
        cls, server: HostServer, *, bare: bool = False, deadline: float = DEADLINE
    ) -> RawClient:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        return cls(reader, writer, bare=bare, deadline=deadline)

    def send(self, message: Message) -> None:
        self.writer.write(message.encode())

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    async def answer(self, name: str = "tester", **secrets: Any) -> Hello:
        """The `hello` answering this connection's challenge (`token`, `password`,
        `table_id`, `nonce` as `protocol.answer` takes them)."""
        if self.challenge is None:
            await self.expect("challenge")
        assert self.challenge is not None
        return answer(self.challenge, name, **secrets)

    async def hello(self, name: str = "tester", **fields: Any) -> dict[str, Any]:
        self.send(await self.answer(name, **fields))
        welcome = await self.expect("welcome")
        self.next_id = max(self.next_id, welcome["last_id"])  # number on, as clients must
        return welcome

    async def next_payload(self, timeout: float | None = None) -> dict[str, Any] | None:
        """The next frame (pings answered and skipped, unless `bare`), or None once the
        host hung up."""
        while True:
            if self._backlog:
                payload = self._backlog.pop(0)
                if self.bare:
                    parse_host_message(payload)
                self.received.append(payload)
                if payload.get("type") == "challenge" and self.challenge is None:
                    challenge = parse(payload)
                    assert isinstance(challenge, Challenge)
                    self.challenge = challenge
                if payload.get("type") == "ping" and not self.bare:
                    if self.answer_pings:
                        self.send(Pong(t=payload["t"]))
                    continue
                return payload
            try:
                data = await asyncio.wait_for(self.reader.read(65536), timeout or self.deadline)
            except ConnectionResetError:
                if not self.bare:
                    raise
                data = b""
            if not data:
                return None
            self._backlog.extend(self.decoder.feed(data))

    async def expect(self, kind: str, timeout: float | None = None) -> dict[str, Any]:
        """Skip frames until one of type `kind` arrives; fail if the host hangs up first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + (timeout or self.deadline)
        while True:
            payload = await self.next_payload(max(0.01, deadline - loop.time()))
            if payload is None:
                raise ConnectionError(f"host hung up while waiting for {kind!r}: {self.received}")
            if payload["type"] == kind:
                return payload

    async def refusal(self) -> dict[str, Any]:
        """Read until the host closes the connection; return its last error, which must be
        fatal and say why."""
        while await self.next_payload() is not None:
            pass
        errors = [p for p in self.received if p["type"] == "error"]
        assert errors, f"closed without an error frame: {self.received}"
        assert errors[-1]["fatal"] is True and errors[-1]["message"]
        await self.close()
        return errors[-1]

    async def closed_by_host(self, timeout: float = DEADLINE) -> bool:
        """True once the host closes this connection (frames before that are kept)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            while await self.next_payload(max(0.01, deadline - loop.time())) is not None:
                pass
        except (ConnectionError, TimeoutError):
            return False
        return True

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(Exception):
            await self.writer.wait_closed()


async def play_as_bot(
    client: RawClient, kind: str = "heuristic", current: dict[str, Any] | None = None
) -> SeatView:
    """Play this seat with a bot until the match is over; return the final view.
    `current` is a state already read, to act on before waiting for the next."""
    bot = make_bot(kind, seed=0)
    acted: tuple[int, ...] | None = None
    while True:
        state, current = current or await client.expect("state"), None
        if state["view"] is None:
            continue
        view = SeatView.from_wire(state["view"])
        if view.phase == "match_over":
            return view
        key = (view.hand_number, len(view.bids), len(view.tricks), len(view.trick))
        if key == acted:
            continue
        if view.phase == "hand_over" and not state["table"]["seats"][view.seat]["ready"]:
            acted = key
            client.send(Ready(id=client.new_id()))
        elif view.my_turn:
            acted = key
            decision = bot.decide(view)
            if decision.kind == "bid":
                client.send(BidMsg(id=client.new_id(), bid=decision.bid))
            else:
                client.send(PlayMsg(id=client.new_id(), card=str(decision.card)))


def parse(payload: dict[str, Any]) -> Message:
    return parse_host_message(payload)


__all__ = ["Ping", "RawClient", "parse", "play_as_bot", "running_host"]
