"""Unit tests of the rules engine (pitchnet.rules) on hand-built deals from RULES.md."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from random import Random

import pytest

from pitchnet.cards import FULL_DECK, Card, Suit, parse_cards, shuffled_deck
from pitchnet.rules import (
    Action,
    Hand,
    Match,
    Phase,
    RulesError,
    Settings,
    deal_hands,
    trick_winner,
)
from pitchnet.vectors import RESULT_FIELDS, parse_action, vector_settings
from tests.strategies import match_state, play_hand
from tests.table_doubles import phase_of

# The published vectors' standard deal: four players, dealer 3, so seat 0 bids first.
HANDS = [
    ["AS", "4C", "5C", "6D", "7D", "8H"],
    ["QS", "JS", "2C", "3D", "4H", "5H"],
    ["2S", "4S", "9C", "9D", "3H", "7C"],
    ["TC", "TD", "TH", "KC", "KD", "8D"],
]
# Vector 000: seat 0 bids 1 and leads the ace of spades; every point goes to a different seat.
BIDS_000: list[tuple[int, int | None]] = [(0, 1), (1, None), (2, None), (3, None)]
PLAYS_000 = [
    (0, "AS"), (1, "QS"), (2, "4S"), (3, "8D"),
    (0, "4C"), (1, "2C"), (2, "9C"), (3, "TC"),
    (3, "TD"), (0, "6D"), (1, "3D"), (2, "9D"),
    (3, "TH"), (0, "8H"), (1, "4H"), (2, "2S"),
    (2, "3H"), (3, "KC"), (0, "5C"), (1, "JS"),
    (1, "5H"), (2, "7C"), (3, "KD"), (0, "7D"),
]  # fmt: skip


def c(text: str) -> Card:
    return Card.parse(text)


def new_match(scores: list[int] | None = None, **settings: object) -> Match:
    match = Match(Settings(**settings), dealer=3, scores=scores)  # type: ignore[arg-type]
    match.start_hand([parse_cards(hand) for hand in HANDS])
    return match


def bid_all(match: Match, bids: list[tuple[int, int | None]] = BIDS_000) -> None:
    for seat, amount in bids:
        match.bid(seat, amount)


def play_all(match: Match, plays: list[tuple[int, str]]) -> None:
    for seat, text in plays:
        match.play(seat, c(text))


# ---- settings ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"players": 1},
        {"players": 8},
        {"players": 3, "partnership": True},
        {"players": 6, "partnership": True},
        {"target": 9},
        {"target": 0},
    ],
)
def test_settings_refuse_impossible_tables(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Settings(**kwargs)  # type: ignore[arg-type]


def test_settings_sides() -> None:
    assert Settings(5).sides == 5
    teams = Settings(4, partnership=True)
    assert teams.sides == 2
    assert [teams.side_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert [Settings(3).side_of(seat) for seat in range(3)] == [0, 1, 2]


def test_match_refuses_bad_dealer_or_scores() -> None:
    with pytest.raises(ValueError):
        Match(Settings(4), dealer=4)
    with pytest.raises(ValueError):
        Match(Settings(4), scores=[0, 0])
    with pytest.raises(ValueError):
        Match(Settings(4, partnership=True), scores=[0, 0, 0, 0])


# ---- queries -------------------------------------------------------------------------------


def test_queries_through_a_hand() -> None:
    match = new_match()
    hand = match.hand
    assert hand is not None
    assert match.phase is Phase.BIDDING
    assert match.turn == 0
    assert match.legal_bids(0) == (None, 1, 2, 3, 4)
    assert match.legal_bids(1) == ()
    assert match.legal_plays(0) == frozenset()
    match.bid(0, 2)
    assert match.turn == 1
    assert match.legal_bids(1) == (None, 3, 4)
    match.bid(1, None)
    match.bid(2, None)
    assert match.legal_bids(3) == (None, 2, 3, 4)  # the dealer may steal at 2
    match.bid(3, None)
    assert hand.bids == [(0, 2), (1, None), (2, None), (3, None)]
    assert hand.high_bid == 2 and hand.pitcher == 0
    assert phase_of(match) is Phase.PLAYING and match.turn == 0
    assert hand.trump is None
    assert match.legal_plays(0) == frozenset(parse_cards(HANDS[0]))
    match.play(0, c("AS"))
    assert hand.trump is Suit.SPADES
    assert hand.trick == [(0, c("AS"))]
    assert match.turn == 1
    assert hand.leader == 0
    assert match.legal_plays(1) == {c("QS"), c("JS")}
    assert match.legal_plays(2) == frozenset()
    assert match.scores == [0, 0, 0, 0]


def test_legal_plays_supports_in() -> None:
    match = new_match()
    bid_all(match)
    match.play(0, c("AS"))
    legal = match.legal_plays(1)
    assert c("QS") in legal
    assert c("JS") in legal
    assert c("2C") not in legal
    assert c("AD") not in legal


def test_any_card_when_void_in_the_suit_led() -> None:
    match = new_match()
    bid_all(match)
    play_all(match, PLAYS_000[:3])
    assert match.legal_plays(3) == frozenset(parse_cards(HANDS[3]))


def test_trumping_is_allowed_while_able_to_follow() -> None:
    match = new_match()
    bid_all(match)
    play_all(match, PLAYS_000[:12])  # seat 3 won the third trick and leads next
    play_all(match, [(3, "TH"), (0, "8H")])
    assert match.legal_plays(1) == {c("4H"), c("5H"), c("JS")}
    match.play(1, c("JS"))  # trump though holding hearts
    assert match.hand is not None and match.hand.trick[-1] == (1, c("JS"))


def test_trick_winner_highest_trump_else_highest_of_suit_led() -> None:
    plays = [(0, c("9H")), (1, c("AH")), (2, c("2S")), (3, c("KC"))]
    assert trick_winner(plays, Suit.SPADES) == 2
    assert trick_winner(plays, Suit.DIAMONDS) == 1  # no trump: the ace of the suit led
    assert trick_winner(plays, Suit.CLUBS) == 3  # the only trump wins, though low
    assert trick_winner([(2, c("3D")), (0, c("AS"))], Suit.HEARTS) == 2  # off-suit never wins


# ---- refusals ------------------------------------------------------------------------------


def test_must_follow_error_has_code_and_sentence() -> None:
    match = new_match()
    bid_all(match)
    play_all(match, PLAYS_000[:12])
    play_all(match, [(3, "TH"), (0, "8H"), (1, "4H")])
    assert match.legal_plays(2) == {c("3H"), c("2S")}
    with pytest.raises(RulesError) as refused:
        match.play(2, c("7C"))
    assert refused.value.code == "must_follow"
    assert refused.value.message == "You must follow hearts or play a trump (spades)."
    assert str(refused.value) == refused.value.message


def test_trump_led_error() -> None:
    match = new_match()
    bid_all(match)
    match.play(0, c("AS"))
    with pytest.raises(RulesError) as refused:
        match.play(1, c("2C"))
    assert refused.value.code == "must_follow"
    assert refused.value.message == "Trump was led: you must play spades."


@pytest.mark.parametrize(
    ("bids", "bad", "code", "message"),
    [
        ([], (2, None), "not_your_turn", "It is seat 1's turn to bid."),
        ([], (0, 5), "bad_bid", "A bid is pass, 1, 2, 3 or 4."),
        ([], (0, 0), "bad_bid", "A bid is pass, 1, 2, 3 or 4."),
        ([], (0, True), "bad_bid", "A bid is pass, 1, 2, 3 or 4."),
        ([], (0, "2"), "bad_bid", "A bid is pass, 1, 2, 3 or 4."),
        ([(0, 2)], (1, 2), "bid_too_low", "You must pass or bid more than 2."),
        (
            [(0, 3), (1, None), (2, None)],
            (3, 2),
            "bid_too_low",
            "The dealer must pass or bid at least 3.",
        ),
        (
            [(0, None), (1, None), (2, None)],
            (3, None),
            "dealer_must_bid",
            "Everyone passed: the dealer must bid at least 2.",
        ),
        (
            [(0, None), (1, None), (2, None)],
            (3, 1),
            "dealer_must_bid",
            "Everyone passed: the dealer must bid at least 2, not 1.",
        ),
        ([(0, 4)], (1, None), "not_bidding", "The bidding is over."),
        ([(0, 1), (1, None), (2, None), (3, None)], (0, 2), "not_bidding", "The bidding is over."),
    ],
)  # fmt: skip
def test_bid_refusals(
    bids: list[tuple[int, int | None]], bad: tuple[int, object], code: str, message: str
) -> None:
    match = new_match()
    bid_all(match, bids)
    before = match_state(match)
    with pytest.raises(RulesError) as refused:
        match.bid(*bad)  # type: ignore[arg-type]
    assert (refused.value.code, refused.value.message) == (code, message)
    assert match_state(match) == before


@pytest.mark.parametrize(
    ("plays", "bad", "code"),
    [
        ([], (1, "QS"), "not_your_turn"),
        ([], (0, "AH"), "not_in_hand"),
        ([], (0, "QS"), "not_in_hand"),  # another seat's card
        ([(0, "AS")], (1, "2C"), "must_follow"),
        ([(0, "AS")], (0, "4C"), "not_your_turn"),  # the same seat twice
        ([(0, "AS")], (1, "AS"), "not_in_hand"),  # a card already played
        ([*PLAYS_000[:12], (3, "TH"), (0, "8H"), (1, "4H")], (2, "7C"), "must_follow"),
    ],
)
def test_play_refusals(plays: list[tuple[int, str]], bad: tuple[int, str], code: str) -> None:
    match = new_match()
    bid_all(match)
    play_all(match, plays)
    before = match_state(match)
    with pytest.raises(RulesError) as refused:
        match.play(bad[0], c(bad[1]))
    assert refused.value.code == code
    assert refused.value.message
    assert match_state(match) == before


def test_play_refused_during_bidding_and_bid_refused_during_play() -> None:
    match = new_match()
    with pytest.raises(RulesError) as refused:
        match.play(0, c("AS"))
    assert refused.value.code == "not_playing"
    bid_all(match)
    with pytest.raises(RulesError) as refused:
        match.bid(0, 2)
    assert refused.value.code == "not_bidding"


def test_nothing_is_accepted_before_the_first_deal() -> None:
    match = Match(Settings(4))
    before = match_state(match)
    assert match.phase is Phase.HAND_OVER and match.turn is None
    assert match.legal_bids(1) == () and match.legal_plays(1) == frozenset()
    attempts: list[Callable[[], object]] = [lambda: match.bid(1, 2), lambda: match.play(1, c("AS"))]
    for attempt in attempts:
        with pytest.raises(RulesError) as refused:
            attempt()
        assert refused.value.code == "no_hand"
    assert match_state(match) == before


def test_illegal_actions_leave_hand_and_match_untouched() -> None:
    """A deep snapshot of the whole match is equal before and after each refusal, at
    several points of a hand."""
    match = new_match(scores=[1, 2, 3, 4])
    attempts: list[tuple[int, object]] = [
        (0, 5), (1, 1), (0, c("AS")), (3, None), (2, c("2S")), (0, True), (-1, 1), (9, c("AS")),
    ]  # fmt: skip
    steps = [*BIDS_000, *PLAYS_000]
    for step, (seat, what) in enumerate(steps):
        before = match_state(match)
        for bad_seat, bad in attempts:
            if bad in match.legal_plays(bad_seat) or (
                type(bad) is not bool and bad in match.legal_bids(bad_seat)
            ):
                continue
            with pytest.raises(RulesError):
                if isinstance(bad, Card):
                    match.play(bad_seat, bad)
                else:
                    match.bid(bad_seat, bad)  # type: ignore[arg-type]
            assert match_state(match) == before, (step, bad_seat, bad)
        if step < len(BIDS_000):
            match.bid(seat, what)  # type: ignore[arg-type]
        else:
            match.play(seat, c(what))  # type: ignore[arg-type]
    assert match.phase is Phase.HAND_OVER


def test_hand_refuses_bad_deals() -> None:
    cards = parse_cards(["AS", "KS", "QS", "JS", "TS", "9S"])
    with pytest.raises(ValueError):
        Hand(Settings(2), 0, [cards, cards])  # a card dealt twice
    with pytest.raises(ValueError):
        Hand(Settings(2), 0, [cards])  # too few seats
    with pytest.raises(ValueError):
        Hand(Settings(2), 0, [cards, cards[:5]])  # too few cards


# ---- whole hands ---------------------------------------------------------------------------


def test_vector_000_by_hand() -> None:
    match = new_match()
    bid_all(match)
    tricks = []
    for seat, text in PLAYS_000:
        trick = match.play(seat, c(text))
        if trick is not None:
            tricks.append(trick)
    assert [t.winner for t in tricks] == [0, 3, 3, 2, 1, 1]
    assert [t.leader for t in tricks] == [0, 0, 3, 3, 2, 1]
    result = match.last_result
    assert result is not None
    assert (result.high, result.low, result.jack, result.game) == (0, 2, 1, 3)
    assert result.high_card == c("AS") and result.low_card == c("2S")
    assert result.game_points == (6, 7, 10, 20)
    assert result.earned == (1, 1, 1, 1)
    assert result.made
    assert match.scores == [1, 1, 1, 1]
    assert match.phase is Phase.HAND_OVER
    assert match.winner is None and match.turn is None


def test_non_pitcher_reaching_target_does_not_win_and_play_goes_on() -> None:
    match = new_match(scores=[5, 6, 0, 0])
    bid_all(match)
    play_all(match, PLAYS_000)
    assert match.scores == [6, 7, 1, 1]  # seat 1 has the target but did not pitch
    assert match.winner is None
    assert match.phase is Phase.HAND_OVER
    match.deal(shuffled_deck(Random(1)))
    assert phase_of(match) is Phase.BIDDING


def test_pitcher_reaching_target_wins_and_the_match_is_over() -> None:
    match = new_match(scores=[6, 0, 0, 0])
    bid_all(match)
    play_all(match, PLAYS_000)
    assert match.scores == [7, 1, 1, 1]
    assert match.winner == 0
    assert match.last_result is not None and match.last_result.winner == 0
    assert match.phase is Phase.MATCH_OVER
    assert match.turn is None
    before = match_state(match)
    for attempt in (
        lambda: match.deal(shuffled_deck(Random(1))),
        lambda: match.bid(1, None),
        lambda: match.play(1, c("AS")),
    ):
        with pytest.raises(RulesError) as refused:
            attempt()
        assert refused.value.code == "match_over"
    assert match_state(match) == before


def test_pitcher_set_back_below_target_does_not_win() -> None:
    match = new_match(scores=[7, 0, 0, 0])
    bid_all(match, [(0, 2), (1, None), (2, None), (3, None)])
    play_all(match, PLAYS_000)
    assert match.last_result is not None and not match.last_result.made
    assert match.scores == [5, 1, 1, 1]
    assert match.winner is None


def test_target_is_a_setting() -> None:
    match = new_match(scores=[6, 0, 0, 0], target=11)
    bid_all(match)
    play_all(match, PLAYS_000)
    assert match.scores[0] == 7 and match.winner is None


# ---- dealing -------------------------------------------------------------------------------


def test_deal_three_at_a_time_left_of_the_dealer() -> None:
    deck = list(FULL_DECK)  # 2C 3C ... AC 2D ... AD 2H ... AS: a known order
    match = Match(Settings(4), dealer=0)
    hand = match.deal(deck)
    texts = [[str(card) for card in cards] for cards in hand.hands]
    assert texts == [
        ["JC", "QC", "KC", "TD", "JD", "QD"],
        ["2C", "3C", "4C", "AC", "2D", "3D"],
        ["5C", "6C", "7C", "4D", "5D", "6D"],
        ["8C", "9C", "TC", "7D", "8D", "9D"],
    ]
    assert match.turn == 1


def test_deal_for_seven_players_uses_42_cards() -> None:
    deck = shuffled_deck(Random(3))
    hands = deal_hands(deck, Settings(7), dealer=6)
    assert [len(h) for h in hands] == [6] * 7
    assert hands[0] == [*deck[0:3], *deck[21:24]]
    assert hands[6] == [*deck[18:21], *deck[39:42]]
    assert set(deck[42:]).isdisjoint(card for h in hands for card in h)


def test_dealer_rotates_each_hand() -> None:
    rng = Random(5)
    match = Match(Settings(3), dealer=2)
    dealers, first_bidders = [], []
    for _ in range(5):
        hand = match.deal(shuffled_deck(rng))
        dealers.append(hand.dealer)
        first_bidders.append(match.turn)
        play_hand(match, rng)
        if match.winner is not None:
            break
    assert dealers == [2, 0, 1, 2, 0][: len(dealers)]
    assert first_bidders == [(d + 1) % 3 for d in dealers]
    assert len(dealers) >= 3
    assert match.hand_number == len(dealers)


def test_cannot_deal_during_a_hand() -> None:
    match = Match(Settings(4))
    match.deal(shuffled_deck(Random(1)))
    before = match_state(match)
    with pytest.raises(RulesError) as refused:
        match.deal(shuffled_deck(Random(2)))
    assert refused.value.code == "hand_in_progress"
    assert match_state(match) == before


@pytest.mark.parametrize("deck", [list(FULL_DECK[:51]), [*FULL_DECK[:51], FULL_DECK[0]]])
def test_bad_deck_is_refused_and_the_dealer_does_not_move(deck: list[Card]) -> None:
    rng = Random(4)
    match = Match(Settings(4), dealer=1)
    match.deal(shuffled_deck(rng))
    play_hand(match, rng)
    before = match_state(match)
    with pytest.raises(ValueError):
        match.deal(deck)
    assert match_state(match) == before
    assert match.dealer == 1


def test_action_records_apply_to_a_match() -> None:
    match = new_match()
    for seat, amount in BIDS_000:
        Action.of_bid(seat, amount).apply_to(match)
    Action.of_play(0, c("AS")).apply_to(match)
    assert match.hand is not None and match.hand.trick == [(0, c("AS"))]
    with pytest.raises(RulesError):
        Action.of_play(1, c("2C")).apply_to(match)


# ---- the vectors, beyond what the runner checks --------------------------------------------

VECTOR_PATHS = sorted((Path(__file__).parent / "vectors").glob("*.json"))
ILLEGAL = [p for p in VECTOR_PATHS if "illegal_action" in json.loads(p.read_text())["expect"]]


@pytest.mark.parametrize("path", ILLEGAL, ids=[p.stem for p in ILLEGAL])
def test_illegal_vector_refusal_leaves_the_state_unchanged(path: Path) -> None:
    vector = json.loads(path.read_text())
    match = Match(vector_settings(vector), dealer=vector["dealer"], scores=vector["scores"])
    match.start_hand([parse_cards(hand) for hand in vector["hands"]])
    *legal, illegal = [parse_action(raw) for raw in vector["actions"]]
    assert len(legal) == vector["expect"]["illegal_action"]
    for action in legal:
        action.apply_to(match)
    before = match_state(match)
    with pytest.raises(RulesError) as refused:
        illegal.apply_to(match)
    assert refused.value.code and refused.value.message
    assert match_state(match) == before


def test_complete_vectors_expect_every_field() -> None:
    """A vector that leaves a field out would let the engine get it wrong unnoticed."""
    for path in VECTOR_PATHS:
        vector = json.loads(path.read_text())
        expect, rules = vector["expect"], vector.get("rules", {})
        if "illegal_action" in expect:
            continue
        if expect.get("redeal"):
            assert set(expect) == {"redeal", "scores"}, path.name
            continue
        optional = {name for name in ("joker", "smudge") if rules.get(name) == "on"}
        assert set(expect) == {*RESULT_FIELDS, *optional}, path.name


def test_own_vectors_exist() -> None:
    own = [p for p in VECTOR_PATHS if p.name[0] == "1"]
    assert len(own) >= 5


def test_turn_refusals_name_the_seat_as_people_count_it() -> None:
    """Players read the host's sentence as it is; the table shows seats from 1, not 0."""
    match = new_match()
    bid_all(match)
    assert match.hand is not None
    turn = match.hand.turn
    assert turn is not None
    with pytest.raises(RulesError) as refused:
        match.play((turn + 1) % 4, c("QS"))
    assert refused.value.message == f"It is seat {turn + 1}'s turn to play."
