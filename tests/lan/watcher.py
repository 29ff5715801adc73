"""A spectator for the LAN tests: `python watcher.py HOST PORT OUT` connects with
`hello(watch=True)` and writes every frame it receives to OUT, one JSON map a line,
until the host closes the connection (a last line `{"type": "_cut"}` if the host cut it
instead). It answers pings, and sends nothing else."""

from __future__ import annotations

import asyncio
import json
import sys

from pitchnet.protocol import PROTOCOL_VERSION, FrameDecoder, Hello, Pong


async def watch(host: str, port: int, out_path: str) -> int:
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(Hello(PROTOCOL_VERSION, "Watcher", watch=True).encode())
    decoder = FrameDecoder()
    with open(out_path, "w", encoding="utf-8") as out:
        try:
            while data := await reader.read(65536):
                for payload in decoder.feed(data):
                    out.write(json.dumps(payload) + "\n")
                    out.flush()
                    if payload.get("type") == "ping":
                        writer.write(Pong(t=payload["t"]).encode())
        except ConnectionError:
            # The host cut us (a spectator that falls behind is cut like any connection).
            out.write(json.dumps({"type": "_cut"}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(watch(sys.argv[1], int(sys.argv[2]), sys.argv[3])))
