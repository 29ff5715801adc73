"""The floor for benchmarks/latency.py: a bare asyncio msgpack relay with no game logic.

It does the host's fan-out and nothing else: a "table" is four connections; every frame
one of them sends (4-byte big-endian length + msgpack map) is decoded, the table's
sequence number goes up by one, and each of the four gets its own freshly packed
~250-byte msgpack snapshot frame. No handshake, no validation, no views, no heartbeats,
no journal. Whatever the real host spends beyond this is the price of being a referee.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import msgpack

HEADER = struct.Struct(">I")
PLAYERS = 4
PAD = "x" * 170
"""Brings a snapshot to about 250 bytes (checked by `snapshot_size`)."""


def snapshot(seq: int, seat: int) -> bytes:
    """One seat's frame: the new sequence number, whose turn it is, and filler."""
    body = msgpack.packb(
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
    return HEADER.pack(len(body)) + body


def snapshot_size() -> int:
    return len(snapshot(123456, 3))


class RelayTable:
    """Four seats; any frame from any seat is answered by a snapshot to every seat."""

    def __init__(self) -> None:
        self.writers: list[asyncio.StreamWriter | None] = [None] * PLAYERS
        self.seq = 0
        self.relayed = 0

    def fan_out(self) -> None:
        self.seq += 1
        self.relayed += 1
        for seat, writer in enumerate(self.writers):
            if writer is not None:
                writer.write(snapshot(self.seq, seat))


class RelayServer:
    """One listener per table, like one HostServer per table."""

    def __init__(self) -> None:
        self.table = RelayTable()
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
        writer.write(snapshot(self.table.seq, seat))  # like the host's state after welcome
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
                    msgpack.unpackb(bytes(buffer[HEADER.size : HEADER.size + length]))
                    del buffer[: HEADER.size + length]
                    self.table.fan_out()
        except (ConnectionError, asyncio.CancelledError):
            return
        finally:
            self.table.writers[seat] = None
            writer.close()
            if task is not None:
                self._tasks.discard(task)
