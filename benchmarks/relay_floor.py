"""The floors for benchmarks/latency.py: bare asyncio msgpack relays with no game logic.

A relay does the host's fan-out and nothing else: a "table" is four connections; every
frame one of them sends (4-byte big-endian length + msgpack map) is decoded, the table's
sequence number goes up by one, and each of the four gets its own freshly packed msgpack
snapshot frame. No handshake, no validation, no rules, no views, no heartbeats, no
journal. Whatever the real host spends beyond this is the price of being a referee.

Two kinds of snapshot:
- "light" (the original floor): a ~250-byte filler map per seat, and no ack.
- "same bytes": the frames the host itself sends for the same kind of action. Each
  seat's snapshot is that seat's real `state` map from a recorded seeded match (the
  next broadcast of the recording, round and round; 0.4-1.4 KB), with `seq`, `turn` and
  `seat` set for the relay's clients, and the sender also gets an `ack` frame in the same
  write as its snapshot, as the host does. The frames are still packed afresh per seat
  per action, so the relay pays the same msgpack and socket costs as the host.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import msgpack

HEADER = struct.Struct(">I")
PLAYERS = 4
PAD = "x" * 170
"""Brings a light snapshot to about 250 bytes (checked by `snapshot_size`)."""


def snapshot(seq: int, seat: int) -> bytes:
    """One seat's light frame: the new sequence number, whose turn it is, and filler."""
    return _frame(
        {
            "type": "state",
            "seq": seq,
            "seat": seat,
            "turn": seq % PLAYERS,
            "hand": ["TD", "AS", "2C", "JH", "9S", "KD"],
            "scores": [0, 0, 0, 0],
            "pad": PAD,
        }
    )


def snapshot_size() -> int:
    return len(snapshot(123456, 3))


def _frame(payload: dict[str, Any]) -> bytes:
    body = msgpack.packb(payload)
    return HEADER.pack(len(body)) + body


class RelayTable:
    """Four seats; any frame from any seat is answered by a snapshot to every seat.
    With `recording` (a list of broadcasts, each four seats' state maps) the snapshots
    are the host's own and the sender gets an ack first."""

    def __init__(self, recording: list[list[dict[str, Any]]] | None = None) -> None:
        self.writers: list[asyncio.StreamWriter | None] = [None] * PLAYERS
        self.seq = 0
        self.relayed = 0
        self.recording = recording

    def snapshot(self, seat: int) -> bytes:
        if self.recording is None:
            return snapshot(self.seq, seat)
        state = self.recording[self.seq % len(self.recording)][seat]
        return _frame({**state, "seq": self.seq, "turn": self.seq % PLAYERS, "seat": seat})

    def fan_out(self, sender: int, message: dict[str, Any]) -> None:
        self.seq += 1
        self.relayed += 1
        for seat, writer in enumerate(self.writers):
            if writer is None:
                continue
            frame = self.snapshot(seat)
            if seat == sender and self.recording is not None:
                ack = {"type": "ack", "id": message.get("id"), "duplicate": False}
                frame = _frame(ack) + frame
            writer.write(frame)


class RelayServer:
    """One listener per table, like one HostServer per table."""

    def __init__(self, recording: list[list[dict[str, Any]]] | None = None) -> None:
        self.table = RelayTable(recording)
        self._server: asyncio.base_events.Server | None = None
        self._joined = 0
        self.port = 0
        self._tasks: set[asyncio.Task[Any]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self.table.writers:
            if writer is not None:
                writer.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        seat = self._joined % PLAYERS
        self._joined += 1
        self.table.writers[seat] = writer
        writer.write(self.table.snapshot(seat))  # like the host's state after welcome
        buffer = bytearray()
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                buffer.extend(data)
                while len(buffer) >= HEADER.size:
                    (length,) = HEADER.unpack_from(buffer)
                    if len(buffer) < HEADER.size + length:
                        break
                    message = msgpack.unpackb(bytes(buffer[HEADER.size : HEADER.size + length]))
                    del buffer[: HEADER.size + length]
                    self.table.fan_out(seat, message)
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            self.table.writers[seat] = None
            writer.close()
            if task is not None:
                self._tasks.discard(task)
