"""What the search reads from the bids and passes, how it names trump in a playout, and
when it may stop sampling early."""

from __future__ import annotations

import random

import pytest

from pitchnet.bots import make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.handvalue import strength_for
from pitchnet.playout import Table, code_of, with_trump
from pitchnet.rules import Match, Phase, Settings
from pitchnet.search import (
    PLAUSIBLE_SLACK,
    Knowledge,
    bid_bounds,
    first_lead,
    first_lead_denies,
    settled,
)
from pitchnet.views import seat_view


def test_a_pass_caps_the_hand_and_a_bid_brackets_it() -> None:
    table = Table()  # 4 players, dealer steals at the high bid
    bounds = bid_bounds([(1, None), (2, 2), (3, None), (0, 3)], seat=0, dealer=0, table=table)
    slack = PLAUSIBLE_SLACK
    assert bounds == [
        (1, None, strength_for(1) + slack),  # first to speak passed: not worth a 1
        (2, strength_for(2) - slack, strength_for(3) + slack),  # a 2: worth 2, not 3
        (3, None, strength_for(3) + slack),  # passed over a 2: not worth a 3
    ]  # our own bid (seat 0, the dealer) says nothing we do not know


def test_the_dealers_forced_bid_says_nothing_but_a_steal_does() -> None:
    table = Table()
    forced = bid_bounds([(1, None), (2, None), (3, None), (0, 2)], seat=1, dealer=0, table=table)
    assert [bounds for bounds in forced if bounds[0] == 0] == []  # bids the least, whatever
    # A steal says the dealer's hand is worth the bid, and nothing of how much more (the
    # dealer bids the least that takes the contract).
    stole = bid_bounds([(1, 3), (2, None), (3, None), (0, 3)], seat=1, dealer=0, table=table)
    assert (0, strength_for(3) - PLAUSIBLE_SLACK, float("inf")) in stole
    passed = bid_bounds([(1, 3), (2, None), (3, None), (0, None)], seat=2, dealer=0, table=table)
    assert (0, None, strength_for(3) + PLAUSIBLE_SLACK) in passed  # could have stolen at 3


@pytest.mark.parametrize("partnership", [False, True])
def test_the_real_deal_always_fits_what_normal_bots_bid(partnership: bool) -> None:
    """The bounds read the bidding model exactly as `normal` bids: its real hands never
    fall outside them (a misfit would make the search rule out the truth)."""
    rng = random.Random(5)
    normal = make_bot("normal")
    checked = 0
    for number in range(60):
        match = Match(Settings(4, partnership=partnership), dealer=number % 4)
        match.deal(shuffled_deck(rng))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            view = seat_view(match, seat)
            if match.phase is Phase.PLAYING:
                knowledge = Knowledge.of(view)
                trump = knowledge.trump
                assert match.hand is not None
                hands = match.hand.hands
                real = [[code_of(str(c)) for c in hand] for hand in hands]
                if trump is not None:
                    real = [[with_trump(c, trump) for c in hand] for hand in real]
                assert knowledge.misfit(real) == 0.0
                checked += 1
            normal.decide(view).apply_to(match)
    assert checked > 300


def test_a_playout_names_trump_with_a_trump() -> None:
    spade = 3
    ace, jack, five, two = (spade * 16 + rank for rank in (14, 11, 5, 2))
    heart_king = 2 * 16 + 13
    assert first_lead([heart_king, jack, five], spade) == five  # the jack is kept
    assert first_lead([heart_king, jack, two], spade) == jack  # unguarded but for a two
    assert first_lead([jack, ace, heart_king], spade) == ace


def test_the_pitchers_first_lead_denies_the_trumps_above_it() -> None:
    """A pitcher leads its highest trump (`first_lead`): a king led denies the ace, a
    five denies all above it but the jack (kept back), the joker every natural spade."""
    spade = 3

    def denied(lead: str, seat: int = 2) -> set[str]:
        found = first_lead_denies([[(1, lead), (2, "2H")]], seat, spade)
        assert found is not None and found[0] == 1
        return {
            text
            for text in ("AS", "KS", "QS", "JS", "TS", "6S", "2S", "AH")
            if (found[1] >> with_trump(code_of(text), spade)) & 1
        }

    assert denied("KS") == {"AS"}
    assert denied("5S") == {"AS", "KS", "QS", "TS", "6S"}
    assert denied("3S") == {"AS", "KS", "QS", "JS", "TS", "6S"}
    assert denied("JK") == {"AS", "KS", "QS", "JS", "TS", "6S", "2S"}
    assert first_lead_denies([[(1, "KS")]], 1, spade) is None  # our own lead says nothing new
    assert first_lead_denies([[]], 2, None) is None  # no trump yet


def test_the_search_stops_early_only_on_a_clear_lead() -> None:
    rng = random.Random(2)
    noise = [rng.gauss(0, 1) for _ in range(24)]
    clear = [[n + 2.0 for n in noise], [rng.gauss(0, 1) for _ in range(24)]]
    assert settled(clear, 24)
    assert not settled(clear, 16)  # too few deals yet
    close = [[n + 0.05 for n in noise], [rng.gauss(0, 1) + n for n in noise]]
    assert not settled(close, 24)
    same = [[1.0] * 24, [1.0] * 24]
    assert settled(same, 24)  # alike in every deal: either will do
