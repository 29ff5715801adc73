"""`pitchnet simulate`: bot-only matches, to measure how the bots fare against each other.

Each bot decides from its own seat's view, exactly as it would at the host, so a
simulation exercises the same path as a real table without any I/O. With
`--seed` the deals and the random bots are reproducible; without it the deals
come from the production shuffle (`secrets.SystemRandom`).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from pitchnet.bots import ALIASES, BOT_KINDS, Bot, make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.cli import rules_from_args
from pitchnet.house_rules import label
from pitchnet.rules import Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.views import seat_view

MAX_HANDS = 10_000
"""A safety net: a match still unfinished after this many hands is counted as unfinished."""


@dataclass
class SimulationResult:
    settings: Settings
    kinds: list[str]  # bot kind by seat
    games: int
    seat_wins: list[int]
    hands: int = 0
    unfinished: int = 0
    team_wins: list[int] = field(default_factory=list)

    def kind_totals(self) -> dict[str, tuple[int, int, int]]:
        """Per bot kind: (seats, wins, seat-games), in the order kinds first appear."""
        totals: dict[str, tuple[int, int, int]] = {}
        for seat, kind in enumerate(self.kinds):
            seats, wins, played = totals.get(kind, (0, 0, 0))
            totals[kind] = (seats + 1, wins + self.seat_wins[seat], played + self.games)
        return totals


def parse_kinds(text: str, players: int) -> list[str]:
    """The comma list of bot kinds, repeated to fill every seat. Raises ValueError."""
    kinds = [part.strip() for part in text.split(",")]
    if not text.strip() or any(not kind for kind in kinds):
        raise ValueError(f"--bots needs a comma-separated list of {' or '.join(BOT_KINDS)}")
    unknown = sorted({kind for kind in kinds if kind not in BOT_KINDS and kind not in ALIASES})
    if unknown:
        raise ValueError(
            f"unknown bot kind {', '.join(unknown)} (choose from {', '.join(BOT_KINDS)})"
        )
    return [kinds[seat % len(kinds)] for seat in range(players)]


def play_match(
    settings: Settings, bots: Sequence[Bot], dealer: int, deck_rng: random.Random | None
) -> tuple[Match, int]:
    """Play one match to its end; return it and the number of hands dealt."""
    match = Match(settings, dealer=dealer)
    hands = 0
    while match.phase is not Phase.MATCH_OVER and hands < MAX_HANDS:
        match.deal(shuffled_deck(deck_rng, joker=settings.rules.has_joker))
        hands += 1
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            bots[seat].decide(seat_view(match, seat)).apply_to(match)
    return match, hands


def simulate(
    settings: Settings,
    kinds: Sequence[str],
    games: int,
    seed: int | None = None,
    budget: Budget | None = None,
) -> SimulationResult:
    """Play `games` matches, the starting dealer rotating one seat each match."""
    master = random.Random(seed) if seed is not None else None
    deck_rng = random.Random(master.getrandbits(64)) if master else None
    bots = [make_bot(kind, master.getrandbits(64) if master else None, budget) for kind in kinds]
    result = SimulationResult(settings, list(kinds), games, [0] * settings.players)
    result.team_wins = [0] * settings.sides
    for game in range(games):
        match, hands = play_match(settings, bots, game % settings.players, deck_rng)
        result.hands += hands
        if match.winner is None:
            result.unfinished += 1
            continue
        result.team_wins[match.winner] += 1
        for seat in range(settings.players):
            if settings.side_of(seat) == match.winner:
                result.seat_wins[seat] += 1
    return result


def _rate(wins: int, played: int) -> str:
    return f"{100.0 * wins / played:5.1f}%" if played else "    -"


def report(result: SimulationResult, out: TextIO, seed: int | None) -> None:
    """Print the per-seat and per-kind tables."""
    settings = result.settings
    mode = "partnership, " if settings.partnership else ""
    seeded = f"seed {seed}" if seed is not None else "unseeded (production shuffle)"
    rules = label(settings.rules, settings.target).rsplit(",", 1)[0]
    out.write(
        f"{result.games} games, {settings.players} players, {mode}target {settings.target}, "
        f"{seeded}, rules {rules}\n"
    )
    out.write(
        f"{result.hands} hands dealt ({result.hands / result.games:.1f} per game); "
        f"a fair share is {_rate(1, settings.sides).strip()} per "
        f"{'team' if settings.partnership else 'seat'}\n\n"
    )
    width = max(len("bot"), *(len(kind) for kind in result.kinds))
    header = f"{'seat':>4}  {'team':>4}  " if settings.partnership else f"{'seat':>4}  "
    out.write(f"{header}{'bot':<{width}}  {'wins':>6}  {'games':>6}  {'win rate':>8}\n")
    for seat, kind in enumerate(result.kinds):
        team = f"{settings.side_of(seat):>4}  " if settings.partnership else ""
        out.write(
            f"{seat:>4}  {team}{kind:<{width}}  {result.seat_wins[seat]:>6}  "
            f"{result.games:>6}  {_rate(result.seat_wins[seat], result.games):>8}\n"
        )
    out.write("\n")
    out.write(
        f"{'bot kind':<{max(width, 8)}}  {'seats':>5}  {'wins':>6}  {'seat-games':>10}  "
        f"{'win rate':>8}\n"
    )
    for kind, (seats, wins, played) in result.kind_totals().items():
        out.write(
            f"{kind:<{max(width, 8)}}  {seats:>5}  {wins:>6}  {played:>10}  "
            f"{_rate(wins, played):>8}\n"
        )
    if result.unfinished:
        out.write(
            f"\n{result.unfinished} matches were stopped unfinished after {MAX_HANDS} hands\n"
        )


def main(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point for `pitchnet simulate`. Exit 0, or 2 for bad arguments."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        if args.games < 1:
            raise ValueError("--games must be at least 1")
        if args.samples < 1:
            raise ValueError("--samples must be at least 1")
        rules, target = rules_from_args(args)
        settings = Settings(args.players, args.partnership, target, rules)
        kinds = parse_kinds(args.bots, settings.players)
    except ValueError as exc:
        err.write(f"pitchnet simulate: {exc}\n")
        return 2
    budget = Budget(args.samples, args.search_seconds)
    if args.duplicate:
        from pitchnet.duplicate import duplicate, report_duplicate

        report_duplicate(duplicate(settings, kinds, args.games, args.seed, budget), out, args.seed)
        return 0
    result = simulate(settings, kinds, args.games, args.seed, budget)
    report(result, out, args.seed)
    return 0
