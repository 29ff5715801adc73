"""Property tests over random deals and random legal play, for every table size (2..7)
and for partnership play.

The deals and the play come from a `random.Random` seeded by a hypothesis integer, so a
failure shrinks to one seed that replays exactly. What is legal is decided by the
reference reading of RULES.md in tests/strategies.py, not by asking the engine.
"""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitchnet.cards import FULL_DECK, Card, Suit, shuffled_deck
from pitchnet.rules import TARGETS, Action, Hand, HandResult, Match, Phase, RulesError, Settings
from tests.strategies import (
    ALL_BIDS,
    CONFIG_IDS,
    CONFIGS,
    MAX_HANDS,
    deep_copy,
    legal_actions,
    match_state,
    ref_legal_bids,
    ref_legal_plays,
    ref_points,
    ref_trick_winner,
)

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


class Shadow:
    """One hand followed independently of the engine, from RULES.md alone."""

    def __init__(self, players: int, dealer: int, deck: list[Card]) -> None:
        self.players, self.dealer = players, dealer
        # Three cards at a time, starting left of the dealer, two rounds.
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        position = 0
        for _round in range(2):
            for offset in range(1, players + 1):
                seat = (dealer + offset) % players
                self.hands[seat] += deck[position : position + 3]
                position += 3
        self.dealt = [list(h) for h in self.hands]
        self.bids: list[tuple[int, int | None]] = []
        self.trump: Suit | None = None
        self.trick: list[tuple[int, Card]] = []
        self.turn: int | None = (dealer + 1) % players
        self.captured: list[list[Card]] = [[] for _ in range(players)]
        self.trick_winners: list[int] = []

    @property
    def bidding(self) -> bool:
        return bool(ref_legal_bids(self.players, self.dealer, self.bids))

    @property
    def pitcher(self) -> int:
        return [seat for seat, amount in self.bids if amount is not None][-1]

    @property
    def bid(self) -> int:
        return max(amount for _, amount in self.bids if amount is not None)

    def legal(self) -> set[tuple[int, object]]:
        """(seat, bid) or (seat, card) pairs the rules allow now."""
        if self.turn is None:
            return set()
        if self.bidding:
            return {(self.turn, b) for b in ref_legal_bids(self.players, self.dealer, self.bids)}
        cards = ref_legal_plays(self.hands[self.turn], [c for _, c in self.trick], self.trump)
        return {(self.turn, card) for card in cards}

    def apply(self, seat: int, what: object) -> None:
        if self.bidding:
            self.bids.append((seat, what))  # type: ignore[arg-type]
            self.turn = self.pitcher if not self.bidding else (seat + 1) % self.players
            return
        assert isinstance(what, Card)
        if self.trump is None:
            self.trump = what.suit
        self.hands[seat].remove(what)
        self.trick.append((seat, what))
        if len(self.trick) < self.players:
            self.turn = (seat + 1) % self.players
            return
        assert self.trump is not None  # the first card played named it
        winner = ref_trick_winner(self.trick, self.trump)
        self.trick_winners.append(winner)
        self.captured[winner] += [card for _, card in self.trick]
        self.trick = []
        self.turn = None if len(self.trick_winners) == 6 else winner


def _is_legal(legal: set[tuple[int, object]], seat: int, what: object) -> bool:
    # True == 1 for sets and tuples, but True is not a bid: only None and real ints are.
    if what is not None and not isinstance(what, Card) and type(what) is not int:
        return False
    return (seat, what) in legal


def _fingerprint(match: Match) -> tuple[object, ...]:
    hand = match.hand
    assert hand is not None
    return (
        match.phase,
        hand.turn,
        len(hand.bids),
        len(hand.trick),
        len(hand.tricks),
        tuple(map(len, hand.hands)),
        tuple(match.scores),
    )


def _attempt(match: Match, seat: int, what: object) -> None:
    if isinstance(what, Card):
        match.play(seat, what)
    else:
        match.bid(seat, what)  # type: ignore[arg-type]


def _check_every_action(match: Match, shadow: Shadow) -> None:
    """Every legal action is accepted (on a copy); every other one is refused with
    RulesError and changes nothing."""
    players = match.settings.players
    legal = shadow.legal()
    assert match.turn == shadow.turn
    for seat in range(players):
        expected_bids = {b for s, b in legal if s == seat and not isinstance(b, Card)}
        expected_plays = {c for s, c in legal if s == seat and isinstance(c, Card)}
        assert set(match.legal_bids(seat)) == expected_bids
        assert match.legal_plays(seat) == frozenset(expected_plays)
    before = match_state(match)
    fingerprint = _fingerprint(match)
    for seat in range(-1, players + 1):
        for what in (*ALL_BIDS, *FULL_DECK):
            if _is_legal(legal, seat, what):
                trial = deep_copy(match)
                _attempt(trial, seat, what)
                assert _fingerprint(trial) != fingerprint
                continue
            try:  # not pytest.raises: this runs ~100,000 times a test
                _attempt(match, seat, what)
            except RulesError as refused:
                assert refused.code and refused.message
            else:
                pytest.fail(f"seat {seat} {what!r} was accepted; legal: {sorted(map(repr, legal))}")
            assert _fingerprint(match) == fingerprint, (seat, what)
    assert match_state(match) == before


def _check_result(
    result: HandResult, hand: Hand, settings_: Settings, before: list[int], target: int
) -> None:
    """Points, the bid rule and the winner rule, for any finished hand."""
    sides = settings_.sides
    pitcher, bid, trump = result.pitcher, result.bid, result.trump
    assert pitcher is not None and bid is not None and trump is not None  # a hand played
    pitching_side = settings_.side_of(pitcher)
    # Each dealt card is played exactly once.
    played = Counter(card for trick in hand.tricks for _, card in trick.plays)
    assert played == Counter(card for cards in hand.dealt for card in cards)
    assert all(count == 1 for count in played.values())
    # Trick winners and points, recomputed from RULES.md.
    captured: list[list[Card]] = [[] for _ in range(settings_.players)]
    for trick in hand.tricks:
        winner = ref_trick_winner(trick.plays, trump)
        assert trick.winner == winner
        captured[winner] += [card for _, card in trick.plays]
    expected = ref_points(settings_, hand.dealt, captured, trump)
    for name, value in expected.items():
        assert getattr(result, name) == value, name
    # High and Low are always awarded; Jack and Game may not be: 2..4 points a hand.
    assert 2 <= sum(result.earned) <= 4
    assert all(points >= 0 for points in result.earned)
    # The bid rule.
    assert result.made == (result.earned[pitching_side] >= bid)
    assert list(result.scores_before) == before
    for side in range(sides):
        if side == pitching_side and not result.made:
            assert result.scores[side] == before[side] - bid
        else:
            assert result.scores[side] == before[side] + result.earned[side]
    # Only the pitcher's side can win, and it does once it has the target.
    won = result.scores[pitching_side] >= target
    assert result.winner == (pitching_side if won else None)


@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS, target=st.sampled_from(TARGETS))
def test_one_hand_every_action_checked(
    players: int, partnership: bool, seed: int, target: int
) -> None:
    """At every step of a random hand: exactly the legal actions are accepted, every other
    bid, card and seat is refused and leaves the match untouched, and the result obeys
    the rules."""
    rng = Random(seed)
    table = Settings(players, partnership, target)
    dealer = rng.randrange(players)
    scores = [rng.randint(-8, target + 3) for _ in range(table.sides)]
    match = Match(table, dealer=dealer, scores=scores)
    deck = shuffled_deck(rng)
    hand = match.deal(deck)
    shadow = Shadow(players, dealer, deck)
    assert [sorted(h) for h in hand.hands] == [sorted(h) for h in shadow.hands]
    while shadow.turn is not None:
        _check_every_action(match, shadow)
        seat, what = rng.choice(sorted(shadow.legal(), key=repr))
        _attempt(match, seat, what)
        shadow.apply(seat, what)
    _check_every_action(match, shadow)  # the hand is over: nothing is legal
    result = match.last_result
    assert result is not None
    assert result.pitcher == shadow.pitcher and result.bid == shadow.bid
    assert result.trump is shadow.trump
    assert list(result.trick_winners) == shadow.trick_winners
    _check_result(result, hand, table, scores, target)
    if result.winner is not None:
        assert match.phase is Phase.MATCH_OVER
        with pytest.raises(RulesError) as refused:
            match.deal(shuffled_deck(rng))
        assert refused.value.code == "match_over"
    else:
        assert match.phase is Phase.HAND_OVER


def _cautious_action(match: Match, rng: Random) -> Action:
    """A random legal action, passing 80% of the time when passing is allowed. Uniformly
    random bidding sets pitchers back so often that scores drift down for hundreds of
    hands; passing keeps matches to a length a test can afford."""
    actions = legal_actions(match)
    passes = [a for a in actions if a.kind == "bid" and a.bid is None]
    if passes and rng.random() < 0.8:
        return passes[0]
    return rng.choice(actions)


@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, target=st.sampled_from(TARGETS))
def test_whole_matches_follow_the_rules_and_end(
    players: int, partnership: bool, seed: int, target: int
) -> None:
    """Whole random matches: the dealer rotates, every hand obeys the point and bid rules,
    and the match ends, within a bounded number of hands, with the pitcher's side the winner."""
    rng = Random(seed)
    table = Settings(players, partnership, target)
    first_dealer = rng.randrange(players)
    match = Match(table, dealer=first_dealer)
    while match.phase is not Phase.MATCH_OVER:
        assert match.hand_number < MAX_HANDS, "the match did not end"
        before = list(match.scores)
        hand = match.deal(shuffled_deck(rng))
        assert hand.dealer == match.dealer == (first_dealer + match.hand_number - 1) % players
        assert match.turn == (hand.dealer + 1) % players
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            _cautious_action(match, rng).apply_to(match)
        result = match.last_result
        assert result is not None and len(match.results) == match.hand_number
        _check_result(result, hand, table, before, target)
    winner = match.winner
    assert winner is not None
    last = match.results[-1]
    assert last.pitcher is not None
    assert winner == table.side_of(last.pitcher)
    assert match.scores[winner] >= target
    assert all(result.winner is None for result in match.results[:-1])
