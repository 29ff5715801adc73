"""Would msgspec make the wire shapes typed and faster? A probe, not a dependency.

Measures, on the `state` frames of seeded 4-player matches (every seat's view after
every move, the events of the move, a four-seat table), in this process:

1. Packing: the host's maps (each seat's private part, the public part that changes
   every move, the part that lasts a trick) with msgpack's `packb`, as the host does,
   and with msgspec's msgpack encoder; and whether the bytes are the same.
2. Reading a frame on the client: msgpack's `unpackb` with the host's limits, then the
   one validator (`parse_host_message`: the table, the view and its nested shapes),
   against msgspec decoding the same bytes straight into typed Structs written to
   mirror those shapes (their own `check`s left out, so msgspec's figure is a floor).

Needs msgspec, which pitchnet does not depend on:
    uv run --with msgspec python benchmarks/msgspec_probe.py [--matches N] [--repeat N]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from random import Random
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]

import msgpack  # noqa: E402
import msgspec  # noqa: E402

from pitchnet.cards import shuffled_deck  # noqa: E402
from pitchnet.events import HandScored, Played  # noqa: E402
from pitchnet.protocol import (  # noqa: E402
    SeatInfo,
    SeatKind,
    State,
    TableInfo,
    TableState,
    parse_host_message,
    unpack_payload,
)
from pitchnet.rules import Match, Phase, Settings  # noqa: E402
from pitchnet.views import split_views  # noqa: E402
from tests.strategies import legal_actions  # noqa: E402


class TrickS(msgspec.Struct):
    leader: int
    plays: list[tuple[int, str]]
    winner: int


class ResultS(msgspec.Struct):
    pitcher: int | None
    bid: int | None
    trump: str | None
    trick_winners: list[int]
    high: int | None
    low: int | None
    jack: int | None
    game: int | None
    game_points: list[int]
    earned: list[int]
    made: bool
    scores_before: list[int]
    scores: list[int]
    winner: int | None
    high_card: str | None
    low_card: str | None
    joker: int | None = None
    smudge: bool = False
    redeal: bool = False


class ViewS(msgspec.Struct):
    seat: int
    players: int
    partnership: bool
    target: int
    phase: str
    hand_number: int
    dealer: int
    turn: int | None
    hand: list[str]
    hand_counts: list[int]
    bids: list[tuple[int, int | None]]
    high_bid: int | None
    pitcher: int | None
    trump: str | None
    trick: list[tuple[int, str]]
    tricks: list[TrickS]
    tricks_won: list[int]
    scores: list[int]
    legal_bids: list[int | None]
    legal_plays: list[str]
    last_result: ResultS | None
    winner: int | None
    score_history: list[list[int]]
    rules: dict[str, Any] = {}
    step: int = 0
    play_rule: str | None = None
    play_meaning: dict[str, Any] | None = None
    spectator: bool = False


class SeatS(msgspec.Struct):
    name: str
    kind: str
    connected: bool
    substitute: bool = False
    away: float = 0.0
    ready: bool = False
    claimed_by: str = ""
    rotate: bool = False


class TableS(msgspec.Struct):
    id: str
    name: str
    state: str
    players: int
    partnership: bool
    target: int
    seats: list[SeatS]
    starter: int | None
    password: bool = False
    grace: float = 60.0
    substitute: bool = True
    waiting_for: list[int] = []
    waiting: float = 0.0
    ready_left: float | None = None
    spectators: int = 0
    rules: dict[str, Any] = {}
    match: int = 0
    bot_level: str = ""
    coach: bool = True
    turn_timer: float = 0.0
    reactions: bool = True
    spectator_reactions: bool = False


class StateS(msgspec.Struct):
    type: str
    seq: int
    table: TableS
    view: ViewS | None
    events: list[dict[str, Any]] = []


def frames_of(matches: int) -> tuple[list[bytes], list[dict[str, Any]]]:
    """Every seat's `state` payload after every move of `matches` seeded matches (as
    msgpack bytes), and every map the host packs for them."""
    table = TableInfo(
        "bench",
        "Bench",
        TableState.PLAYING,
        4,
        False,
        7,
        [SeatInfo(f"Bot {n}", SeatKind.BOT, True) for n in range(4)],
        0,
    )
    bodies: list[bytes] = []
    maps: list[dict[str, Any]] = []
    for seed in range(matches):
        rng = Random(seed)
        match = Match(Settings(4), dealer=0)
        seq = 0
        while match.phase is not Phase.MATCH_OVER and match.hand_number < 8:
            match.deal(shuffled_deck(rng))
            while match.phase in (Phase.BIDDING, Phase.PLAYING):
                action = rng.choice(legal_actions(match))
                action.apply_to(match)
                seq += 1
                events = [Played(action.seat, str(action.card)).to_wire()] if action.card else []
                if match.phase is Phase.HAND_OVER and match.last_result is not None:
                    events.append(HandScored.of(match.last_result).to_wire())
                settled, public, private = split_views(match)
                maps += [settled, public, *private]
                for part in private:
                    view = {**part, **settled, **public}
                    state = State(seq, table, None, events).to_wire()
                    state["view"] = view
                    bodies.append(msgpack.packb(state, use_bin_type=True))
    return bodies, maps


def per_item(each: Callable[[Any], object], items: list[Any], repeat: int) -> float:
    """Microseconds per item: each chunk of 50 items timed `repeat` times and its best
    kept, so a run that lost the core to another process is left out."""
    total = 0.0
    for start in range(0, len(items), 50):
        chunk = items[start : start + 50]
        best = float("inf")
        for _ in range(repeat):
            began = time.perf_counter()
            for item in chunk:
                each(item)
            best = min(best, time.perf_counter() - began)
        total += best
    return total / len(items) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    bodies, maps = frames_of(args.matches)
    encoder = msgspec.msgpack.Encoder()
    same = all(encoder.encode(m) == msgpack.packb(m, use_bin_type=True) for m in maps)
    pack_now = per_item(lambda m: msgpack.packb(m, use_bin_type=True), maps, args.repeat)
    pack_msgspec = per_item(encoder.encode, maps, args.repeat)
    decoder = msgspec.msgpack.Decoder(StateS)
    typed = [decoder.decode(body) for body in bodies]
    assert all(t.view is not None for t in typed)
    read_now = per_item(lambda b: parse_host_message(unpack_payload(b)), bodies, args.repeat)
    unpack_only = per_item(unpack_payload, bodies, args.repeat)
    read_msgspec = per_item(decoder.decode, bodies, args.repeat)
    size = sum(map(len, bodies)) / len(bodies)
    print(
        f"{len(bodies)} state frames (mean {size:.0f} bytes), {len(maps)} packed maps; "
        f"best of {args.repeat} a chunk of 50; msgspec {msgspec.__version__},"
        f" msgpack {msgpack.version}"
    )
    print(
        f"pack a view part: msgpack {pack_now:.2f} us, msgspec {pack_msgspec:.2f} us;"
        f" same bytes: {same}"
    )
    print(
        f"read a state frame: msgpack + from_map {read_now:.1f} us (unpack alone"
        f" {unpack_only:.1f}), msgspec into Structs {read_msgspec:.1f} us"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
