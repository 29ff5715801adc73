"""The referee's work per action as a count of instructions, which a noisy machine does
not disturb (CPU time on these VMs varies by half between two runs of the same code).

It records once what four seats send in a seeded all-human match (hellos, bids, plays,
readies: the byte stream each connection would read), then, for this tree and each
`--against` tree, replays the first N actions of that stream into a fresh `Referee`
with its `Table` and SQLite journal (no sockets, no event loop) under valgrind's
cachegrind, once with A and once with B actions. (Instructions with B minus those with
A) / (B - A) is what one action costs from the frames read to the frames to send:
decoding, the referee, the rules, the journal's Python and SQLite's user-space code,
the views and the packing. Not counted: system calls (the journal's writes, the sends)
and what an instruction costs in time (cache misses), so compare trees with this and
confirm with `host_cost.py`. A tree must have `host/referee.py` (2026-12-01 on); every
replay checks that its table took every action. Needs `valgrind` (apt-get install
valgrind). Everything is in-process; nothing is networked.

Run: uv run python benchmarks/host_instructions.py [--against /path/to/checkout ...]
                                                   [--first 300] [--second 1300]
"""

from __future__ import annotations

import argparse
import os
import pickle
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from host_cost import tree_labels  # this folder's: each tree named by its commit

SEED = 7


def _referee(state_dir: Path) -> tuple[Any, Any]:
    """A fresh four-human table (seeded deck) with its journal in `state_dir`, and
    unthrottled limits."""
    from host.limits import Limits
    from host.referee import Pacing, Referee
    from host.table import TableOptions
    from host.tables import new_table

    table, journal = new_table(TableOptions(players=4, bots=0), "Bench", SEED, state_dir, True)
    limits = Limits(messages_per_second=1e9, burst=10**9)
    return Referee(table, limits, Pacing(0.0, 0.0), journal), limits


def _open_four(referee: Any, limits: Any, decoders: dict[int, Any]) -> Any:
    """Open four connections; returns the effects handler that seats their decoders."""
    from host.referee import Opened, Seated
    from host.server import hello_decoder, seat_decoder

    def carry_out(effects: list[Any], now: float) -> list[Any]:
        for effect in effects:
            if isinstance(effect, Seated):
                seat_decoder(decoders[effect.conn], limits, lambda: now)
        return effects

    carry_out(referee.start(1000.0), 1000.0)
    for conn in range(1, 5):
        decoders[conn] = hello_decoder(limits, lambda: 1000.0)
        carry_out(referee.handle(conn, Opened(f"127.0.0.1:{40000 + conn}"), 1000.0), 1000.0)
    return carry_out


def record(path: Path, actions: int, state_dir: Path) -> None:
    """Play `actions` random legal actions (seeded) and save what each seat sent."""
    from host.referee import Send, read_frames
    from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, FrameDecoder, Hello, PlayMsg, Ready

    rng = random.Random(SEED)
    referee, limits = _referee(state_dir)
    decoders: dict[int, Any] = {}
    carry_out = _open_four(referee, limits, decoders)
    readers = {conn: FrameDecoder() for conn in range(1, 5)}
    states: dict[int, dict[str, Any]] = {}
    stream: list[tuple[int, bytes, float]] = []
    ids = dict.fromkeys(range(1, 5), 0)

    def send(conn: int, data: bytes, now: float) -> None:
        stream.append((conn, data, now))
        for effect in carry_out(referee.handle(conn, read_frames(decoders[conn], data), now), now):
            if isinstance(effect, Send):
                for payload in readers[effect.conn].feed(effect.data):
                    if payload["type"] == "state":
                        states[effect.conn] = payload

    for conn in range(1, 5):
        send(conn, Hello(version=PROTOCOL_VERSION, name=f"P{conn}").encode(), 1000.0)
    now = 1000.0
    while len(stream) < 4 + actions:
        for conn, state in sorted(states.items()):
            view = state["view"]
            if view is None:
                continue
            seat, next_id = view["seat"], ids[conn] + 1
            if view["phase"] in ("hand_over", "match_over"):
                if not state["table"]["seats"][seat]["ready"]:
                    message: Any = Ready(id=next_id)
                    break
            elif view["turn"] == seat:
                if view["phase"] == "bidding":
                    message = BidMsg(id=next_id, bid=rng.choice(view["legal_bids"]))
                else:
                    message = PlayMsg(id=next_id, card=rng.choice(view["legal_plays"]))
                break
        else:
            raise SystemExit("nobody could act: the recording went wrong")
        now, ids[conn] = now + 0.001, next_id
        send(conn, message.encode(), now)
    path.write_bytes(pickle.dumps(stream))


def replay(path: Path, actions: int) -> None:
    """Feed the first `actions` actions of the recording into a fresh referee."""
    from host.referee import read_frames

    stream = pickle.loads(path.read_bytes())[: 4 + actions]
    with tempfile.TemporaryDirectory() as state_dir:
        referee, limits = _referee(Path(state_dir))
        decoders: dict[int, Any] = {}
        carry_out = _open_four(referee, limits, decoders)
        for conn, data, now in stream:
            carry_out(referee.handle(conn, read_frames(decoders[conn], data), now), now)
        if referee.table.seq < actions:
            raise SystemExit(f"the table took {referee.table.seq} of {actions} actions")


def _instructions(tree: Path, recording: Path, actions: int) -> int:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "cachegrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=cachegrind",
                "--cache-sim=no",
                f"--cachegrind-out-file={out}",
                sys.executable,
                str(Path(__file__).resolve()),
                "--replay",
                str(recording),
                str(actions),
            ],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
            check=False,
        )
        found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"the replay in {tree} failed:\n{done.stderr[-2000:]}")
        return int(found.group(1).replace(",", ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, action="append", default=[])
    parser.add_argument("--first", type=int, default=300, help="actions in the short replay")
    parser.add_argument("--second", type=int, default=1300, help="actions in the long replay")
    parser.add_argument("--replay", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.replay:
        sys.path.insert(0, str(Path.cwd()))
        replay(Path(args.replay[0]), int(args.replay[1]))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    here = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(here))
    trees = [here] + [tree.resolve() for tree in args.against]
    print(
        f"pitchnet referee instructions per action - {time.strftime('%Y-%m-%d %H:%M')}; "
        f"seeded four-human match, actions {args.first} and {args.second}, under cachegrind"
    )
    with tempfile.TemporaryDirectory() as scratch:
        recording = Path(scratch) / "stream.pickle"
        record(recording, args.second, Path(scratch))
        for tree, label in zip(trees, tree_labels(trees), strict=True):
            short = _instructions(tree, recording, args.first)
            long = _instructions(tree, recording, args.second)
            per_action = (long - short) / (args.second - args.first)
            print(f"  {label:>9}: {per_action:9,.0f} instructions per action")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
