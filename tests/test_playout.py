"""The search's lean model of a hand agrees with the engine, move by move and point by point."""

from __future__ import annotations

import random

import pytest

from pitchnet.cards import shuffled_deck
from pitchnet.house_rules import OPTIONS, PRESETS, HouseRules
from pitchnet.playout import Tally, code_of, legal, table_for, text_of, winner_of, with_trump
from pitchnet.rules import Match, Phase, Settings

TABLES = [(players, False) for players in range(2, 8)] + [(4, True)]


def _random_rules(rng: random.Random) -> HouseRules:
    return HouseRules.from_wire(
        {name: rng.choice(values) for name, values in OPTIONS.items() if name != "target"}
    )


RULES = [
    *(preset.rules for preset in PRESETS.values()),
    *(
        HouseRules.from_wire({name: values[1]})
        for name, values in OPTIONS.items()
        if name != "target"
    ),
    *(_random_rules(random.Random(n)) for n in range(4)),
]


@pytest.mark.parametrize(("players", "partnership"), TABLES)
def test_lean_model_matches_the_engine_on_random_hands(players: int, partnership: bool) -> None:
    _check_against_engine(players, partnership, HouseRules(), hands=60)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.short() or "standard")
def test_lean_model_matches_the_engine_under_every_option(rules: HouseRules) -> None:
    for players, partnership in ((3, False), (4, True), (5, False)):
        _check_against_engine(players, partnership, rules, hands=25)


def _check_against_engine(players: int, partnership: bool, rules: HouseRules, hands: int) -> None:
    rng = random.Random(f"{players}{partnership}{rules.short()}")
    settings = Settings(players, partnership, rules=rules)
    table = table_for(players, partnership, settings.target, rules)
    sides = table.sides_by_seat()
    checked = 0
    for number in range(hands):
        match = Match(settings, dealer=number % players)
        match.deal(shuffled_deck(rng, joker=rules.has_joker))
        while match.phase is Phase.BIDDING:
            seat = match.turn
            assert seat is not None
            match.bid(seat, rng.choice(match.legal_bids(seat)))
        hand = match.hand
        assert hand is not None
        if match.phase is not Phase.PLAYING:
            continue  # thrown in: everyone passed under all_pass: redeal
        tally = Tally(table.sides)
        while match.phase is Phase.PLAYING:
            seat = match.turn
            assert seat is not None
            engine_legal = sorted(str(card) for card in match.legal_plays(seat))
            if hand.trump is not None:
                trump = "CDHS".index(hand.trump.value)
                codes = [with_trump(code_of(str(c)), trump) for c in hand.hands[seat]]
                trick = [(s, with_trump(code_of(str(c)), trump)) for s, c in hand.trick]
                lean = sorted(text_of(c) for c in legal(codes, trick, trump, table.must_follow))
                assert lean == engine_legal
                checked += 1
            card = rng.choice(sorted(match.legal_plays(seat)))
            done = match.play(seat, card)
            if done is not None:
                assert hand.trump is not None  # a trick was played: trump is named
                trump = "CDHS".index(hand.trump.value)
                plays = [(s, with_trump(code_of(str(c)), trump)) for s, c in done.plays]
                assert winner_of(plays, trump) == done.winner
                tally.take(plays, sides[done.winner], trump, table)
        result = match.results[-1]
        assert tuple(tally.earned()) == result.earned
        assert tally.game == list(result.game_points)
    assert checked > hands * 4


def test_card_codes_round_trip() -> None:
    for text in ("2C", "TD", "JH", "AS", "JK"):
        assert text_of(code_of(text)) == text
    assert text_of(with_trump(code_of("JK"), 2)) == "JK"
    assert with_trump(code_of("JK"), 2) >> 4 == 2  # the joker plays as a trump
