"""Host latency and throughput on loopback, against a bare msgpack relay measured in the same run.

What is measured (clients always live in ANOTHER process than the server, started with
multiprocessing "spawn"; everything binds 127.0.0.1):

(a) Latency: one table, four clients in one child process. Lock-step: when all four hold
    the newest state, the client whose turn it is sends its action and records
    time.perf_counter(); each client stamps the moment the bytes of the next state reach
    it (before decoding); the sample is the LAST of the four stamps minus the send time.
    Both ends are read from the same clock in the same process. Actions are random legal
    bids, plays and readies (seeded), so whole hands and matches are played.
(b) Throughput: 50 tables at once, 200 bot clients in one child process, each acting as
    soon as its own state says it is its turn (first legal choice of a seeded RNG). The
    server process counts applied actions (one broadcast each) over a fixed window after a
    warm-up. On this 2-core machine the measured unit is ONE process hosting 50
    HostServers (one listener each) - a harsher test than the real deployment of one
    `pitchnet host` process per table, since all 50 tables share one core and one loop.

Two floors, from benchmarks/relay_floor.py: bare asyncio relays with no game logic that
decode one action frame and answer with a freshly packed msgpack snapshot to each of the
4 seats, driven by the same kind of clients in the same way.
- "floor" (light): ~250-byte filler snapshots and no ack (the original floor).
- "same" (same bytes): the host's own frames - each seat's real `state` map from a
  recorded seeded match (0.7-1.3 KB) - and an ack to the sender in the same write.
The goals are ratios to a floor; the script prints the host against both. Latency blocks
alternate floor, same, host so that machine noise hits all three alike.

The host runs with HostConfig(limits=Limits(messages_per_second=1e9, burst=10**9)) so that
its per-connection token bucket (100 msg/s, burst 400 by default) never throttles the bots;
every other setting is the default (heartbeats on, journal on if this host has one, in a
temporary directory).

Run: uv run python benchmarks/latency.py [--actions N] [--tables N] [--window S] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import functools
import io
import multiprocessing
import os
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

import msgpack  # noqa: E402
from relay_floor import RelayServer, snapshot_size  # noqa: E402

from host.limits import Limits  # noqa: E402
from host.server import HostConfig, HostServer  # noqa: E402
from host.snapshots import Snapshots  # noqa: E402
from host.table import Table, TableOptions  # noqa: E402
from host.tables import deck_source  # noqa: E402
from pitchnet.protocol import (  # noqa: E402
    PROTOCOL_VERSION,
    BidMsg,
    FrameDecoder,
    Hello,
    Message,
    PlayMsg,
    Pong,
    Ready,
)

LOOPBACK = "127.0.0.1"
FLOORS = ("floor", "same")
"""The light relay (~250-byte snapshots, no ack) and the same-bytes relay (the host's own
frames and its ack); see relay_floor.py."""
KINDS = (*FLOORS, "host")
PLAYERS = 4
STEP_TIMEOUT = 10.0
"""Longest wait for one action's fan-out before the run is declared stuck."""
CHILD_GRACE = 60.0
"""Extra time a child process gets beyond its own bound before it is killed."""


# ---- client side (runs in the child process) -------------------------------------------------


class Client(asyncio.Protocol):
    """One connection. Stamps bytes the moment the event loop reads them from the socket,
    and decodes them in a later callback: the four seats of a table share this process,
    so a stamp taken after decoding would charge one seat's decoding to the next (on a real
    table each seat decodes on its own machine, in parallel)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.decoder = FrameDecoder()
        self.seq = -1
        self.seq_time = 0.0
        self.state: dict[str, Any] | None = None
        self.seat: int | None = None
        self.next_id = 0
        self.errors: list[dict[str, Any]] = []
        self.closed = False
        self.changed = asyncio.Event()
        self.on_state: Callable[[Client], None] | None = None
        self._arrived: list[tuple[float, bytes]] = []

    @classmethod
    async def connect(cls, port: int) -> Client:
        loop = asyncio.get_running_loop()
        _, client = await loop.create_connection(cls, LOOPBACK, port)
        return client

    def send(self, message: Message | dict[str, Any]) -> None:
        assert self.transport is not None
        if isinstance(message, Message):
            self.transport.write(message.encode())
        else:
            body = msgpack.packb(message)
            self.transport.write(len(body).to_bytes(4, "big") + body)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if not self._arrived:
            asyncio.get_running_loop().call_soon(self._decode)
        self._arrived.append((time.perf_counter(), data))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.changed.set()

    def _decode(self) -> None:
        arrived, self._arrived = self._arrived, []
        for stamp, data in arrived:
            for payload in self.decoder.feed(data):
                self._on_payload(payload, stamp)

    def _on_payload(self, payload: dict[str, Any], stamp: float) -> None:
        kind = payload.get("type")
        if kind == "ping":
            self.send(Pong(t=payload["t"]))
        elif kind == "welcome":
            self.seat = payload["seat"]
            self.next_id = payload.get("last_id", 0)
        elif kind == "error":
            self.errors.append(payload)
        elif kind == "state":
            self.seq, self.seq_time, self.state = payload["seq"], stamp, payload
            if self.seat is None:
                self.seat = payload.get("seat")
            self.changed.set()
            if self.on_state is not None:
                self.on_state(self)


async def _until(clients: list[Client], condition: Callable[[], bool], timeout: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if any(c.closed for c in clients):
            raise ConnectionError("a connection closed during the benchmark")
        left = deadline - loop.time()
        if left <= 0:
            raise TimeoutError("no progress within the step timeout")
        for c in clients:
            c.changed.clear()
        waits = [asyncio.ensure_future(c.changed.wait()) for c in clients]
        _, pending = await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
        for w in pending:
            w.cancel()


def host_action(client: Client, rng: random.Random) -> Message | None:
    """What this seat does now according to its own latest state, or None."""
    state = client.state
    if state is None or state["view"] is None:
        return None
    view = state["view"]
    seat = view["seat"]
    if view["phase"] in ("hand_over", "match_over"):
        if not state["table"]["seats"][seat]["ready"]:
            return Ready(id=client.new_id())
        return None
    if view["turn"] != seat:
        return None
    if view["phase"] == "bidding":
        return BidMsg(id=client.new_id(), bid=rng.choice(view["legal_bids"]))
    return PlayMsg(id=client.new_id(), card=rng.choice(view["legal_plays"]))


async def _seat_clients(kind: str, port: int, names: str) -> list[Client]:
    clients = []
    for i in range(PLAYERS):
        client = await Client.connect(port)
        if kind == "host":  # at once: a pong to the host's first ping must not come first
            client.send(Hello(version=PROTOCOL_VERSION, name=f"{names}{i}"))
        clients.append(client)
    return clients


async def latency_clients(kind: str, port: int, actions: int, seconds: float, seed: int) -> dict:
    """Lock-step actions on one table; returns the latency samples in seconds."""
    rng = random.Random(seed)
    clients = await _seat_clients(kind, port, "L")
    try:
        if kind == "host":
            await _until(clients, lambda: all(c.state and c.state["view"] for c in clients), 10)
        else:
            await _until(clients, lambda: all(c.seq >= 0 for c in clients), 10)
        await _until(clients, lambda: len({c.seq for c in clients}) == 1, STEP_TIMEOUT)
        samples: list[float] = []
        deadline = time.perf_counter() + seconds
        while len(samples) < actions and time.perf_counter() < deadline:
            before = clients[0].seq
            if kind == "host":
                moves = [(c, host_action(c, rng)) for c in clients]
                actor, message = next((c, m) for c, m in moves if m is not None)
                sent: Message | dict[str, Any] = message
            else:
                actor = next(c for c in clients if c.seat == before % PLAYERS)
                sent = {"type": "play", "id": before + 1, "card": "TD"}
            started = time.perf_counter()
            actor.send(sent)
            await _until(clients, lambda b=before: all(c.seq > b for c in clients), STEP_TIMEOUT)
            samples.append(max(c.seq_time for c in clients) - started)
            if any(c.errors for c in clients):
                raise RuntimeError(f"the host refused an action: {clients[0].errors[:1]}")
        frame_bytes = len(msgpack.packb(clients[0].state)) + 4
        return {"samples": samples, "frame_bytes": frame_bytes}
    finally:
        for c in clients:
            c.close()


async def throughput_clients(kind: str, ports: list[int], seconds: float, seed: int) -> dict:
    """Every seat acts as soon as its own state says so, for `seconds`; returns counts."""
    rng = random.Random(seed)
    sent = 0
    acted: dict[int, Any] = {}

    def react(client: Client) -> None:
        nonlocal sent
        state = client.state
        assert state is not None
        if kind == "host":
            view = state["view"]
            if view is None:
                return
            key = (view["hand_number"], len(view["bids"]), len(view["tricks"]), len(view["trick"]))
            if acted.get(id(client)) == key:
                return
            message = host_action(client, rng)
            if message is None:
                return
            acted[id(client)] = key
            client.send(message)
        elif state["turn"] == client.seat:
            client.send({"type": "play", "id": state["seq"] + 1, "card": "TD"})
        else:
            return
        sent += 1

    clients: list[Client] = []
    for port in ports:
        table = await _seat_clients(kind, port, "T")
        for c in table:
            c.on_state = react
        clients.extend(table)
    if kind != "host":  # every seat holds the first snapshot: seat 0 starts the chain
        await _until(clients, lambda: all(c.seq >= 0 for c in clients), 30)
        for c in clients:
            if c.seat == 0:
                react(c)
    started, cpu, sent_before = time.perf_counter(), time.process_time(), sent
    end = started + seconds
    while time.perf_counter() < end and not any(c.closed for c in clients):
        await asyncio.sleep(0.2)  # a benchmark's run time, not synchronisation
    cpu = time.process_time() - cpu
    busy = cpu / (time.perf_counter() - started)
    closed = sum(c.closed for c in clients)
    errors = sum(len(c.errors) for c in clients)
    for c in clients:
        c.close()
    return {
        "sent": sent,
        "closed": closed,
        "errors": errors,
        "clients": len(clients),
        "client_cpu": busy,
        "client_cpu_us": cpu / max(1, sent - sent_before) * 1e6,
    }


def _child(job: str, args: tuple, conn: Any) -> None:
    func = {"latency": latency_clients, "throughput": throughput_clients}[job]
    try:
        conn.send(("ok", asyncio.run(func(*args))))
    except Exception as exc:  # report, don't hang the parent
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


# ---- server side (this process) --------------------------------------------------------------


async def in_child(job: str, args: tuple, bound: float) -> dict:
    """Run a client job in a spawned process while this loop keeps serving."""
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(job, args, send), daemon=True)
    proc.start()
    send.close()
    loop = asyncio.get_running_loop()
    try:
        ready = await loop.run_in_executor(None, receive.poll, bound + CHILD_GRACE)
        if not ready:
            raise TimeoutError(f"the {job} child gave no answer in time")
        status, value = receive.recv()
    finally:
        await loop.run_in_executor(None, proc.join, 10)
        if proc.is_alive():
            proc.kill()
    if status != "ok":
        raise RuntimeError(f"{job} child failed: {value}")
    return value


def host_config(seed: int, state_dir: Path, journal: bool) -> HostConfig:
    options: dict[str, Any] = {
        "interface": LOOPBACK,
        "port": 0,
        "advertise": False,
        "players": PLAYERS,
        "seed": seed,
        "bot_delay": 0.0,
        "state_dir": state_dir,
        "limits": Limits(messages_per_second=1e9, burst=10**9),
    }
    if "journal" in {f.name for f in dataclasses.fields(HostConfig)}:
        options["journal"] = journal
    return HostConfig(**options)


@functools.cache
def recorded_states(seed: int = 1) -> list[list[dict[str, Any]]]:
    """Every broadcast of a seeded 4-player match, refereed in-process by the host's own
    `Table` (no sockets): for each change, the four `state` maps the host sends. The
    "same bytes" floor relays these, so it moves exactly the host's kind of frames."""
    table = Table(
        "bench0", "Bench", TableOptions(players=PLAYERS, bots=PLAYERS - 1), deck_source(seed)
    )
    human = table.sit_down("Human")
    snapshots = Snapshots(table)
    table.seats[human].substitute = True  # a bot plays this seat too
    recording = []
    while table.state != "over":
        frames = snapshots.frames(table.take_events())
        recording.append([msgpack.unpackb(frame[4:]) for frame in frames])
        if not table.act_for_bot():  # the hand is over: the human is ready for the next
            table.ready(human, table.seats[human].last_id + 1)
    return recording


class Servers:
    """`count` tables of one kind, each with its own listener, and a count of actions."""

    def __init__(self, kind: str, count: int, state_dir: Path, journal: bool) -> None:
        self.kind, self.count = kind, count
        self.state_dir, self.journal = state_dir, journal
        self.hosts: list[HostServer] = []
        self.relays: list[RelayServer] = []
        self.applied = 0

    def _count(self, events: list[dict[str, Any]]) -> None:
        self.applied += 1

    async def __aenter__(self) -> Servers:
        for i in range(self.count):
            if self.kind == "host":
                server = HostServer(host_config(1000 + i, self.state_dir, self.journal))
                await server.start()
                server.on_broadcast.append(self._count)
                self.hosts.append(server)
            else:
                relay = RelayServer(recorded_states() if self.kind == "same" else None)
                await relay.start()
                self.relays.append(relay)
        return self

    async def __aexit__(self, *exc: object) -> None:
        for server in self.hosts:
            await server.close()
        for relay in self.relays:
            await relay.close()

    @property
    def ports(self) -> list[int]:
        return [s.port for s in self.hosts] or [r.port for r in self.relays]

    @property
    def actions(self) -> int:
        return self.applied + sum(r.table.relayed for r in self.relays)


async def measure_latency(kind: str, actions: int, seconds: float, seed: int, ctx: dict) -> dict:
    async with Servers(kind, 1, ctx["state_dir"], ctx["journal"]) as servers:
        cpu = time.process_time()
        got = await in_child(
            "latency", (kind, servers.ports[0], actions, seconds, seed), seconds + 20
        )
        got["cpu"] = time.process_time() - cpu
        return got


async def measure_throughput(kind: str, tables: int, warmup: float, window: float, ctx: dict):
    async with Servers(kind, tables, ctx["state_dir"], ctx["journal"]) as servers:
        run_for = warmup + window + 3.0
        child = asyncio.ensure_future(
            in_child("throughput", (kind, servers.ports, run_for, 7), run_for + 30)
        )
        await asyncio.sleep(warmup)  # benchmark timing: let every table get going
        profiler = cProfile.Profile() if ctx["profile"] and kind == "host" else None
        start_count, start, cpu = servers.actions, time.perf_counter(), time.process_time()
        if profiler:
            profiler.enable()
        await asyncio.sleep(window)
        if profiler:
            profiler.disable()
        done, elapsed = servers.actions - start_count, time.perf_counter() - start
        cpu = time.process_time() - cpu
        info = await child
        if profiler:
            _print_profile(profiler)
        return {
            "rate": done / elapsed,
            "actions": done,
            "seconds": elapsed,
            "cpu": cpu / elapsed,
            "cpu_us": cpu / max(1, done) * 1e6,
            **info,
        }


def _print_profile(profiler: cProfile.Profile) -> None:
    for order in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).strip_dirs().sort_stats(order).print_stats(22)
        print(f"\n--- host process profile during the throughput window, by {order} ---")
        print(out.getvalue())


def _quantile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms"


async def main_async(args: argparse.Namespace) -> int:
    ctx = {"state_dir": Path(args.state_dir), "journal": not args.no_journal, "profile": False}
    print(
        f"pitchnet host latency benchmark - {time.strftime('%Y-%m-%d %H:%M')}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, pid {os.getpid()}"
    )
    print(f"floor snapshot frame: {snapshot_size() + 4} bytes; journal: {ctx['journal']}")
    lat: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
    frame_bytes = 0
    per_block = max(1, args.actions // args.rounds)
    for block in range(args.rounds):
        for kind in KINDS:
            got = await measure_latency(kind, per_block, args.seconds, seed=block, ctx=ctx)
            lat[kind].extend(got["samples"][args.skip :])
            cpu[kind].append(got["cpu"] / max(1, len(got["samples"])))
            if kind == "host":
                frame_bytes = got["frame_bytes"]
    recording = [len(msgpack.packb(state)) + 4 for states in recorded_states() for state in states]
    print(
        f"host state frame (seat 0, last sample): {frame_bytes} bytes; same-bytes floor frames: "
        f"{min(recording)}-{max(recording)} bytes, median {statistics.median(recording):.0f}"
    )
    print("\n(a) action -> last of 4 seats holding the new state, 1 table, lock-step")
    for kind in KINDS:
        s = lat[kind]
        print(
            f"  {kind:5}: n={len(s):5}  median {_ms(statistics.median(s))}  "
            f"p99 {_ms(_quantile(s, 0.99))}  mean {_ms(statistics.fmean(s))}  "
            f"server CPU per action {statistics.median(cpu[kind]) * 1e6:.0f} us"
        )
    for floor in FLOORS:
        med_ratio = statistics.median(lat["host"]) / statistics.median(lat[floor])
        p99_ratio = _quantile(lat["host"], 0.99) / _quantile(lat[floor], 0.99)
        print(f"  host/{floor}: median x{med_ratio:.2f} (goal <= 1.5), p99 x{p99_ratio:.2f}")

    print(f"\n(b) actions per second, {args.tables} tables at once, {args.tables * 4} bot clients")
    rates: dict[str, list[float]] = {kind: [] for kind in KINDS}
    cpu_us: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for _ in range(args.throughput_rounds):
        for kind in KINDS:
            got = await measure_throughput(kind, args.tables, args.warmup, args.window, ctx)
            rates[kind].append(got["rate"])
            cpu_us[kind].append(got["cpu_us"])
            print(
                f"  {kind:5}: {got['rate']:7.0f} actions/s ({got['actions']} in "
                f"{got['seconds']:.1f} s); CPU per action: server {got['cpu_us']:.0f} us "
                f"(busy {got['cpu']:.0%}), clients {got['client_cpu_us']:.0f} us "
                f"(busy {got['client_cpu']:.0%}); errors {got['errors']}, "
                f"dropped {got['closed']}/{got['clients']}"
            )
    if not args.throughput_rounds:
        print("  not measured (--throughput-rounds 0)")
        return 0
    best = {k: statistics.median(v) for k, v in rates.items()}
    work = {k: statistics.median(v) for k, v in cpu_us.items()}
    print("  median of rounds: " + ", ".join(f"{k} {best[k]:.0f}/s" for k in KINDS))
    for floor in FLOORS:
        print(
            f"  host/{floor}: throughput x{best['host'] / best[floor]:.2f} (goal >= 0.6); "
            f"server CPU per action {work[floor]:.0f} vs {work['host']:.0f} us "
            f"(x{work['host'] / work[floor]:.1f})"
        )
    if args.profile:
        ctx["profile"] = True
        print("\nprofiling one more host throughput window (slower; not for quoting)")
        await measure_throughput("host", args.tables, args.warmup, args.window, ctx)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=3000, help="latency samples per side")
    parser.add_argument("--rounds", type=int, default=3, help="alternating latency blocks")
    parser.add_argument("--skip", type=int, default=20, help="warm-up samples dropped per block")
    parser.add_argument("--seconds", type=float, default=60.0, help="time bound per block")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--window", type=float, default=8.0)
    parser.add_argument("--throughput-rounds", type=int, default=2)
    parser.add_argument("--no-journal", action="store_true", help="host without its journal")
    parser.add_argument("--profile", action="store_true", help="cProfile the host at the end")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pitchnet-bench-") as state_dir:
        args.state_dir = state_dir
        return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
