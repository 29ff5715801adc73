"""A seeded 4-bot match on a loopback host, in peace and under a decode-cost attack.

Issue 11, item 2: a frame of nested empty arrays is valid msgpack that costs its decoder
far more per byte than any real message (12 ms for 64 KiB on this machine), so two
connections that never say hello could stall a match. This script times the same
seeded match (four bot clients, host bots acting at once) with and without two such
attackers, measured in one run, alternating peace and attack so machine noise hits both.

Three processes (multiprocessing "spawn"), everything on 127.0.0.1:
- this one hosts the table (HostServer, default limits, journal in a temporary dir);
- one child plays the four seats (tests/netclient.py's bot player);
- one child runs the attackers, from 127.0.0.2: 2 connections that never send hello, each writing
  ping frames padded with arrays of empty arrays at 100 a second each, and
  reconnecting 50 ms after the host cuts them off. `--frame` is their payload
  size: 65,536 - 8 (the attack of the issue) or 1,016 (the largest a host accepts
  before hello since item 2).

The figure is the match's wall time (first hello to the last seat seeing match_over);
the goal is attack/peace <= 1.5 (medians of `--rounds` each).

Run: uv run python benchmarks/decode_attack.py [--rounds N] [--frame BYTES]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import queue
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import msgpack  # noqa: E402

from host.server import HostConfig, HostServer  # noqa: E402
from pitchnet.protocol import HEADER  # noqa: E402

SEED = 9
ATTACKERS = 2
FRAMES_PER_SECOND = 100
"""Each attacker sends at the host's message rate (100 a second), as the issue's attack
did: faster, and any host's rate limit cuts it off."""
RECONNECT_PAUSE = 0.05
"""A cut-off attacker is back 50 ms later (a tighter loop measures how fast this
machine's kernel accepts connections, which no host can change)."""
ATTACKER_ADDRESS = "127.0.0.2"
"""The attackers connect from another loopback address than the players, as they would
from another machine on the LAN (the host's limits count per address)."""


def _array_header(n: int) -> bytes:
    return bytes([0x90 | n]) if n <= 15 else b"\xdc" + n.to_bytes(2, "big")


def nested_ping(size: int, fanout: int) -> bytes:
    """A valid ping frame of at most `size` payload bytes whose extra field is a tree of
    arrays of `fanout` arrays ... of empty arrays: the costliest frame to decode per byte
    that keeps within `fanout` items a container (256 items in 64 KiB frames before
    item 2; 16 items in client frames since)."""
    head = msgpack.packb({"type": "ping", "t": 1.0})
    prefix = b"\x83" + head[1:] + msgpack.packb("x")
    budget = size - len(prefix) - 3
    subtree = b"\x90"
    while len(_array_header(fanout)) + fanout * len(subtree) <= budget:
        subtree = _array_header(fanout) + subtree * fanout
    children = min(fanout, budget // len(subtree))
    body = prefix + _array_header(children) + subtree * children
    return HEADER.pack(len(body)) + body


# ---- the players -----------------------------------------------------------------------------


def players_main(port: int, start: multiprocessing.Event, done: multiprocessing.Queue) -> None:
    from tests.netclient import RawClient, play_as_bot

    async def run() -> float:
        clients = [RawClient(*await asyncio.open_connection("127.0.0.1", port)) for _ in range(4)]
        began = time.perf_counter()
        for i, client in enumerate(clients):
            await client.hello(f"Bot{i}")
        finals = await asyncio.gather(*(play_as_bot(c) for c in clients))
        took = time.perf_counter() - began
        assert all(f.winner is not None for f in finals)
        for client in clients:
            await client.close()
        return took

    start.wait()
    done.put(asyncio.run(run()))


# ---- the attackers ---------------------------------------------------------------------------


def attackers_main(port: int, size: int, stop: multiprocessing.Event, stats: multiprocessing.Queue):
    data = nested_ping(size, 255 if size > 2048 else 15)

    async def one(counter: list[int]) -> None:
        while not stop.is_set():
            try:
                _, writer = await asyncio.open_connection(
                    "127.0.0.1", port, local_addr=(ATTACKER_ADDRESS, 0)
                )
            except OSError:
                await asyncio.sleep(RECONNECT_PAUSE)
                continue
            counter[1] += 1
            try:
                while not stop.is_set() and not writer.is_closing():
                    writer.write(data)
                    await writer.drain()
                    counter[0] += len(data)
                    await asyncio.sleep(1 / FRAMES_PER_SECOND)
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
            await asyncio.sleep(RECONNECT_PAUSE)

    async def run() -> list[int]:
        counter = [0, 0]
        tasks = [asyncio.create_task(one(counter)) for _ in range(ATTACKERS)]
        while not stop.is_set():
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return counter

    stats.put(asyncio.run(run()))


# ---- one match -------------------------------------------------------------------------------


async def one_match(
    state_dir: Path, attack_size: int | None, target: int, cap: float
) -> tuple[float, list[int] | None, float]:
    ctx = multiprocessing.get_context("spawn")
    config = HostConfig(
        interface="127.0.0.1",
        port=0,
        advertise=False,
        seed=SEED,
        target=target,
        bot_delay=0.0,
        state_dir=state_dir,
    )
    async with HostServer(config) as server:
        start, stop = ctx.Event(), ctx.Event()
        done, stats = ctx.Queue(), ctx.Queue()
        players = ctx.Process(target=players_main, args=(server.port, start, done))
        players.start()
        attackers = None
        if attack_size is not None:
            attackers = ctx.Process(
                target=attackers_main, args=(server.port, attack_size, stop, stats)
            )
            attackers.start()
        loop = asyncio.get_running_loop()
        await asyncio.sleep(1.0)  # both children up (spawn imports take a moment)
        cpu = time.process_time()
        start.set()
        try:
            took = await loop.run_in_executor(None, done.get, True, cap)
        except queue.Empty:  # stalled: count it as the cap, stop the players
            took = cap
            players.terminate()
        cpu = time.process_time() - cpu
        stop.set()
        sent = await loop.run_in_executor(None, stats.get) if attackers else None
        await loop.run_in_executor(None, players.join)
        if attackers:
            await loop.run_in_executor(None, attackers.join)
    return took, sent, cpu


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--frame", type=int, default=65536 - 8)
    parser.add_argument(
        "--cap", type=float, default=120.0, help="seconds before a match counts as stalled"
    )
    parser.add_argument("--target", type=int, default=21, help="points to win (21: ~15 hands)")
    args = parser.parse_args()
    peace, attack = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for round_number in range(args.rounds):
            took, _, peace_cpu = await one_match(Path(tmp), None, args.target, args.cap)
            peace.append(took)
            took, sent, attack_cpu = await one_match(Path(tmp), args.frame, args.target, args.cap)
            attack.append(took)
            assert sent is not None
            print(
                f"round {round_number + 1}: peace {peace[-1]:.2f} s, attack {attack[-1]:.2f} s "
                f"(attackers wrote {sent[0] / 1e6:.1f} MB over {sent[1]} connections; host CPU "
                f"{peace_cpu:.2f} s in peace, {attack_cpu:.2f} s under attack)",
                flush=True,
            )
    ratio = statistics.median(attack) / statistics.median(peace)
    print(
        f"frame {args.frame} B: peace median {statistics.median(peace):.2f} s, attack median "
        f"{statistics.median(attack):.2f} s, ratio {ratio:.2f} (goal <= 1.5)"
    )


if __name__ == "__main__":
    asyncio.run(main())
