"""The search bot (`hard`): it decides from its own view only, and its budget is honoured."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from pitchnet.bots import SearchBot, make_bot
from pitchnet.cards import Card, shuffled_deck
from pitchnet.playout import text_of
from pitchnet.rules import Action, Match, Phase, RulesError, Settings
from pitchnet.search import Budget, Clock, Knowledge
from pitchnet.views import SeatView, seat_view

SMALL = Budget(samples=12)


def _history(seed: int, settings: Settings) -> tuple[Match, list[Action], list[int]]:
    """One seeded hand played by normal bots; returns the match (finished hand), every
    action in order, and the seat asked at each step."""
    rng = random.Random(seed)
    match = Match(settings, dealer=seed % settings.players)
    match.deal(shuffled_deck(rng))
    normal = make_bot("normal")
    actions: list[Action] = []
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        seat = match.turn
        assert seat is not None
        action = normal.decide(seat_view(match, seat))
        action.apply_to(match)
        actions.append(action)
    return match, actions, [a.seat for a in actions]


def _replay(
    settings: Settings, dealer: int, hands: list[list[Card]], actions: list[Action]
) -> Match:
    match = Match(settings, dealer=dealer)
    match.start_hand(hands)
    for action in actions:
        action.apply_to(match)
    return match


def _other_deal(match: Match, seat: int, upto: int, rng: random.Random) -> list[list[Card]] | None:
    """The same hand with the cards `seat` cannot see dealt differently: an unplayed card
    of another seat traded with another seat's or with an undealt card. None if this
    trade makes an earlier play illegal (a shown void would be contradicted)."""
    hand = match.hand
    assert hand is not None
    dealt = [list(cards) for cards in hand.dealt]
    played = {card for trick in hand.tricks for _, card in trick.plays} | {
        card for _, card in hand.trick
    }
    others = [s for s in range(match.settings.players) if s != seat]
    a = rng.choice(others)
    mine = [c for c in dealt[a] if c not in played]
    if not mine:
        return None
    card = rng.choice(mine)
    undealt = [c for c in shuffled_deck(rng) if all(c not in d for d in dealt)]
    b = rng.choice([*others, None])
    if b is None or b == a:
        swap = undealt[0]
    else:
        theirs = [c for c in dealt[b] if c not in played]
        if not theirs:
            return None
        swap = rng.choice(theirs)
        dealt[b][dealt[b].index(swap)] = card
    dealt[a][dealt[a].index(card)] = swap
    return dealt


def same_view_pairs(seed: int, settings: Settings) -> Iterator[tuple[SeatView, SeatView]]:
    """Pairs of views, one every third step of a seeded hand, each shown to one seat by two
    deals whose hidden cards differ (asserted): what a bot or the coach is given to prove
    that it decides from the view alone."""
    full, actions, _ = _history(seed, settings)
    assert full.hand is not None
    rng = random.Random(seed)
    for upto in range(0, len(actions), 3):
        seat = actions[upto].seat
        original = _replay(
            settings, full.dealer, [list(h) for h in full.hand.dealt], actions[:upto]
        )
        for _ in range(20):
            dealt = _other_deal(original, seat, upto, rng)
            if dealt is None:
                continue
            try:
                other = _replay(settings, full.dealer, dealt, actions[:upto])
            except RulesError:
                continue
            view = seat_view(original, seat)
            if seat_view(other, seat) != view:
                continue
            assert other.hand is not None and original.hand is not None
            assert other.hand.hands != original.hand.hands
            yield view, seat_view(other, seat)
            break


@pytest.mark.parametrize("seed", range(6))
def test_the_same_view_gives_the_same_choice_whatever_the_hidden_cards(seed: int) -> None:
    """Two different deals that show one seat the same view: the search decides alike.
    The hidden cards differ (asserted), so a bot that peeked would tell them apart."""
    compared = 0
    for view, other in same_view_pairs(seed, Settings(4, partnership=seed % 2 == 1)):
        assert SearchBot(seed, SMALL).decide(view) == SearchBot(seed, SMALL).decide(other)
        compared += 1
    assert compared >= 4


def test_sampled_deals_respect_everything_public() -> None:
    """Every sampled deal gives each other seat the right number of cards, none we hold
    or saw played, and none of a suit it showed it lacks."""
    rng = random.Random(3)
    settings = Settings(4)
    full, actions, _ = _history(11, settings)
    assert full.hand is not None
    dealt = [list(h) for h in full.hand.dealt]
    for upto in range(len(actions)):
        match = _replay(settings, full.dealer, dealt, actions[:upto])
        seat = actions[upto].seat
        view = seat_view(match, seat)
        knowledge = Knowledge.of(view)
        played = {card.text for t in view.tricks for _, card in t.plays} | {
            text for _, text in view.trick
        }
        for _ in range(5):
            hands = knowledge.sample(rng)
            assert sorted(hands[seat]) == sorted(knowledge.hand)
            seen = set()
            for other in range(4):
                assert len(hands[other]) == view.hand_counts[other]
                if other == seat:
                    continue
                for code in hands[other]:
                    assert not (knowledge.voids[other] >> (code >> 4)) & 1
                    seen.add(code)
            assert not seen & set(knowledge.hand)
            assert len(seen) == sum(view.hand_counts) - len(view.hand)
            assert not {text_of(code) for code in seen} & played


def test_a_seat_that_trumped_or_discarded_shows_a_void() -> None:
    hands = [
        "AS 2C 3D 4D 5D 6D",
        "3S TC 8S 7S 6S 5S",
        "4S AC 9C 7C 9H 8D",
        "5H KH QH JH TH 2H",
    ]
    match = Match(Settings(4), dealer=3)
    match.start_hand([[Card.parse(t) for t in hand.split()] for hand in hands])
    for seat, amount in [(0, 2), (1, None), (2, None), (3, None)]:
        match.bid(seat, amount)
    for seat, text in [(0, "AS"), (1, "3S"), (2, "4S"), (3, "5H")]:
        match.play(seat, Card.parse(text))
    knowledge = Knowledge.of(seat_view(match, 0))
    spades = 1 << 3
    assert knowledge.voids[3] & spades  # no spade on a spade (trump) lead
    assert not knowledge.voids[1] & spades and not knowledge.voids[2] & spades


def test_the_time_budget_stops_the_search() -> None:
    ticks = iter([0.0, 0.1, 0.2, 5.0, 6.0])
    clock = Clock(Budget(samples=100, seconds=1.0), now=lambda: next(ticks))
    assert clock.more(0) and clock.more(1) and clock.more(2)
    assert not clock.more(3)  # the clock read 5.0: past the 1 s budget
    assert not Clock(Budget(samples=2)).more(2)  # the count stops it too


def test_hard_is_reproducible_from_its_seed_and_view() -> None:
    match, actions, _ = _history(4, Settings(4))
    assert match.hand is not None
    dealt = [list(h) for h in match.hand.dealt]
    views: list[SeatView] = []
    for upto in range(0, len(actions), 2):
        views.append(
            seat_view(_replay(Settings(4), match.dealer, dealt, actions[:upto]), actions[upto].seat)
        )
    first = [SearchBot(1, SMALL).decide(v) for v in views]
    assert first == [SearchBot(1, SMALL).decide(v) for v in views]
    assert first == [SearchBot(1, SMALL).decide(SeatView.from_wire(v.to_wire())) for v in views]
