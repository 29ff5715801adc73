"""House rules (RULES.md, "House rules"): the options object, presets, and property tests
per option over random matches with random legal play.

Every property is checked against what RULES.md says, read here independently of the
engine (which cards are trumps, who was dealt what), so the engine is not checking itself.
"""

from __future__ import annotations

import itertools
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitchnet.bots import make_bot
from pitchnet.cards import JOKER, Card, Suit, deck, parse_cards, shuffled_deck, validate_deck
from pitchnet.house_rules import (
    OPTIONS,
    PRESETS,
    HouseRules,
    RulesConfigError,
    label,
    parse_short,
    resolve,
)
from pitchnet.rules import Action, Match, Phase, RulesError, Settings
from pitchnet.simulate import MAX_HANDS as SIMULATE_MAX_HANDS
from pitchnet.simulate import play_match
from tests.strategies import legal_actions, match_state
from tests.table_doubles import phase_of

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
TABLES = st.sampled_from([(2, False), (3, False), (4, False), (4, True), (5, False), (7, False)])
RULE_NAMES = [name for name in OPTIONS if name != "target"]
ANY_RULES = st.builds(HouseRules, **{name: st.sampled_from(OPTIONS[name]) for name in RULE_NAMES})
MAX_HANDS = 400


def c(text: str) -> Card:
    return Card.parse(text)


# ---- the options object and presets ------------------------------------------------------------


def test_defaults_are_the_rule_book() -> None:
    rules = HouseRules()
    assert rules.to_wire() == {
        name: values[0] for name, values in OPTIONS.items() if name != "target"
    }
    assert rules.changes() == {} and rules.short() == "" and rules.preset_name() == "standard"
    assert Settings().rules == rules
    assert rules.bids == (1, 2, 3, 4) and rules.top_bid == 4


def test_presets_are_those_of_rules_md() -> None:
    assert list(PRESETS) == ["standard", "classic", "smudge", "joker", "strict"]
    assert PRESETS["classic"].rules.changes() == {"low": "dealt"}
    assert PRESETS["smudge"].rules.changes() == {"dealer_steal": "off", "smudge": "on"}
    assert PRESETS["joker"].rules.changes() == {"joker": "on"} and PRESETS["joker"].target == 10
    assert PRESETS["strict"].rules.changes() == {
        "all_pass": "redeal",
        "min_bid": 2,
        "follow": "must_follow",
    }


def test_rule_overrides_the_preset() -> None:
    rules, target = resolve("joker", ["low=dealt", "target=15"])
    assert rules == HouseRules(joker="on", low="dealt") and target == 15
    rules, target = resolve("strict", ["min_bid=1"])
    assert rules.min_bid == 1 and rules.follow == "must_follow" and target is None
    assert resolve(None, []) == (HouseRules(), None)
    assert resolve("JOKER", []) == (HouseRules(joker="on"), 10)


@pytest.mark.parametrize(
    ("preset", "assignments"),
    [
        ("house", []),
        (None, ["jokers=on"]),
        (None, ["joker=yes"]),
        (None, ["joker"]),
        (None, ["min_bid=3"]),
        (None, ["target=9"]),
        (None, ["min_bid=two"]),
    ],
)
def test_unknown_options_and_values_are_refused_with_a_sentence(
    preset: str | None, assignments: list[str]
) -> None:
    with pytest.raises(RulesConfigError) as refused:
        resolve(preset, assignments)
    message = str(refused.value)
    assert message[0].isupper() and message.endswith(".")


@pytest.mark.parametrize(
    "data",
    [{"jokers": "on"}, {"joker": True}, {"min_bid": "2"}, {"min_bid": True}, {"target": 10}, []],
)
def test_from_wire_refuses_what_is_not_a_house_rule(data: object) -> None:
    with pytest.raises(RulesConfigError):
        HouseRules.from_wire(data)


@given(rules=ANY_RULES)
def test_wire_and_short_forms_round_trip(rules: HouseRules) -> None:
    assert HouseRules.from_wire(rules.to_wire()) == rules
    assert HouseRules.from_wire(rules.changes()) == rules
    assert parse_short(rules.short()) == rules
    assert len(rules.short()) < 120  # fits a TXT entry with room to spare


def test_labels() -> None:
    assert label(PRESETS["joker"].rules, 10) == "joker, to 10"
    assert label(HouseRules(), 7) == "standard, to 7"
    assert label(HouseRules(low="dealt", smudge="on"), 11) == "low dealt smudge, to 11"


# ---- the joker deck --------------------------------------------------------------------------


def test_the_joker_deck_has_53_unique_cards() -> None:
    cards = deck(joker=True)
    assert len(cards) == 53 == len(set(cards)) == len({str(card) for card in cards})
    assert JOKER in cards and JOKER not in deck()
    assert set(deck()) < set(cards)
    assert Card.parse("JK") is JOKER and Card.parse("jk") == JOKER and str(JOKER) == "JK"
    assert JOKER.pretty(ascii_only=True) == "JK" and JOKER.pretty() != "JK"
    assert JOKER.game_points == 0 and JOKER.name == "joker" and sorted(cards)[0] is JOKER
    shuffled = shuffled_deck(Random(3), joker=True)
    validate_deck(shuffled, joker=True)
    with pytest.raises(ValueError):
        validate_deck(shuffled)  # 53 cards at a table without the joker
    with pytest.raises(ValueError):
        validate_deck(list(deck()), joker=True)  # the joker missing
    with pytest.raises(ValueError):
        validate_deck([*deck()[:52], deck()[0]], joker=True)  # a card twice, no joker


def test_a_table_without_the_joker_refuses_it_dealt() -> None:
    match = Match(Settings(2))
    with pytest.raises(ValueError):
        match.start_hand([parse_cards(["JK", "2C", "3C", "4C", "5C", "6C"]), deck()[20:26]])


# ---- the sentences of refusals -----------------------------------------------------------------


def _strict_hand() -> Match:
    match = Match(Settings(2, rules=HouseRules(follow="must_follow", min_bid=2)), dealer=1)
    match.start_hand(
        [
            parse_cards(["AS", "2S", "KH", "3C", "4C", "5C"]),
            parse_cards(["QS", "7H", "8H", "9D", "TD", "JD"]),
        ]
    )
    return match


def test_must_follow_refusal_says_why() -> None:
    match = _strict_hand()
    with pytest.raises(RulesError) as refused:
        match.bid(0, 1)
    assert refused.value.code == "below_min_bid"
    assert refused.value.message == "Nobody may bid 1 at this table: the lowest bid is 2."
    match.bid(0, 2)
    match.bid(1, None)
    match.play(0, c("AS"))
    match.play(1, c("QS"))  # spades are trump; seat 0 wins
    match.play(0, c("KH"))
    before = match_state(match)
    with pytest.raises(RulesError) as refused:
        match.play(1, c("JD"))  # off suit while holding hearts
    assert refused.value.code == "must_follow"
    assert refused.value.message == "You must follow suit: you hold a heart."
    assert match_state(match) == before


# ---- random play under any rules ----------------------------------------------------------------


def _trumps(cards: list[Card], trump: Suit) -> list[Card]:
    return [card for card in cards if card.suit is trump or card.suit is None]


def _random_match(rules: HouseRules, players: int, partnership: bool, seed: int) -> Match:
    """A whole match of random legal play under `rules`, with every step checked by the
    `check` callbacks below; returns the finished (or cut off) match."""
    rng = Random(seed)
    match = Match(Settings(players, partnership, rules=rules), dealer=rng.randrange(players))
    while match.phase is not Phase.MATCH_OVER and match.hand_number < MAX_HANDS:
        before_scores, before_dealer = list(match.scores), match.dealer
        hand = match.deal(shuffled_deck(rng, joker=rules.has_joker))
        if match.hand_number > 1:
            assert hand.dealer == (before_dealer + 1) % players  # a thrown-in hand too
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            actions = legal_actions(match)
            passes = [a for a in actions if a.kind == "bid" and a.bid is None]
            action = passes[0] if passes and rng.random() < 0.7 else rng.choice(actions)
            _check_step(match, action)
            action.apply_to(match)
        result = match.last_result
        assert result is not None
        _check_result(match, hand.dealt, before_scores)
    return match


def _check_step(match: Match, action: Action) -> None:
    """Before `action` is applied: what the option says about the legal moves."""
    hand = match.hand
    assert hand is not None
    rules = match.settings.rules
    seat = action.seat
    if action.kind == "bid":
        legal = match.legal_bids(seat)
        assert all(b is None or rules.min_bid <= b <= rules.top_bid for b in legal)
        if seat == hand.dealer and hand.high_bid is not None:
            assert (hand.high_bid in legal) == (rules.dealer_steal == "on")
        if seat == hand.dealer and hand.high_bid is None:
            assert (None in legal) == (rules.all_pass == "redeal")
        return
    assert action.card is not None
    held = hand.hands[seat]
    if hand.trick and hand.trump is not None:
        led_card = hand.trick[0][1]
        led = hand.trump if led_card.suit is None else led_card.suit
        holds_led = any(card.suit is led for card in held)
        is_trump = action.card.suit is hand.trump or action.card.suit is None
        if led is not hand.trump and holds_led and rules.follow == "must_follow":
            assert action.card.suit is led, "a trump played while holding the suit led"
        if led is hand.trump and _trumps(held, hand.trump):
            assert is_trump, "trump led, a trump held, and something else played"
    if action.card.suit is None:
        assert rules.has_joker


def _check_result(match: Match, dealt: tuple[tuple[Card, ...], ...], before: list[int]) -> None:
    result = match.last_result
    assert result is not None
    rules, settings = match.settings.rules, match.settings
    if result.redeal:
        assert rules.all_pass == "redeal"
        assert list(result.scores) == before == list(match.scores), "a redeal changed a score"
        assert result.winner is None and match.winner is None
        return
    assert result.trump is not None and result.bid is not None and result.pitcher is not None
    natural = [card for cards in dealt for card in cards if card.suit is result.trump]
    dealt_to = {card: seat for seat, cards in enumerate(dealt) for card in cards}
    if natural:
        low_card = min(natural)
        assert result.low_card == low_card and result.high_card == max(natural)
        if rules.low == "dealt":
            assert result.low == dealt_to[low_card], "Low left its dealt holder"
    else:
        assert rules.has_joker and result.high is None and result.low is None
    if rules.has_joker and JOKER in dealt_to:
        assert result.joker is not None
    else:
        assert result.joker is None
    assert sum(result.earned) <= (5 if rules.has_joker else 4)
    side = settings.side_of(result.pitcher)
    smudged = (
        rules.smudge == "on"
        and result.made
        and result.bid == rules.top_bid
        and result.scores_before[side] >= 0
    )
    assert result.smudge == smudged
    if smudged:
        assert result.winner == side and match.phase is Phase.MATCH_OVER, "a smudge did not end it"
    reached = result.scores[side] >= settings.target
    assert (result.winner is not None) == (reached or smudged)


@settings(max_examples=40, deadline=None)
@given(rules=ANY_RULES, table=TABLES, seed=SEEDS)
def test_any_combination_of_options_plays_by_the_rules(
    rules: HouseRules, table: tuple[int, bool], seed: int
) -> None:
    match = _random_match(rules, *table, seed)
    assert match.winner is not None or match.hand_number == MAX_HANDS


@pytest.mark.parametrize(
    ("name", "value"),
    [(name, value) for name in RULE_NAMES for value in OPTIONS[name][1:]],
)
@settings(max_examples=15, deadline=None)
@given(table=TABLES, seed=SEEDS)
def test_each_option_alone(name: str, value: object, table: tuple[int, bool], seed: int) -> None:
    """Per option: must_follow never lets a trump be played while holding the suit led;
    low: dealt never moves Low from its dealt holder; a redeal changes no score; a smudge
    always ends the match; the joker deals from 53 cards (the checks in `_check_*`)."""
    rules = HouseRules.from_wire({name: value})
    match = _random_match(rules, *table, seed)
    assert match.winner is not None or match.hand_number == MAX_HANDS


@settings(max_examples=30, deadline=None)
@given(rules=ANY_RULES, seed=SEEDS)
def test_an_illegal_action_changes_nothing_under_any_rules(rules: HouseRules, seed: int) -> None:
    """Every bid and card not in the legal set is refused with a code and a sentence,
    and leaves the match exactly as it was."""
    rng = Random(seed)
    match = Match(Settings(3, rules=rules), dealer=rng.randrange(3))
    match.deal(shuffled_deck(rng, joker=rules.has_joker))
    candidates: list[object] = [None, 0, 1, 2, 3, 4, 5, 6, True, *deck(joker=True)]
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        seat = match.turn
        assert seat is not None
        legal = {(a.kind, a.bid if a.kind == "bid" else a.card) for a in legal_actions(match)}
        before = match_state(match)
        for what, other in itertools.product(candidates, (seat, (seat + 1) % 3)):
            kind = "play" if isinstance(what, Card) else "bid"
            if other == seat and (kind, what) in legal:
                continue
            with pytest.raises(RulesError) as refused:
                if kind == "play":
                    match.play(other, what)  # type: ignore[arg-type]
                else:
                    match.bid(other, what)  # type: ignore[arg-type]
            assert refused.value.code and refused.value.message.endswith(".")
            assert match_state(match) == before
        rng.choice(legal_actions(match)).apply_to(match)


def test_joker_bid_of_five_ends_the_auction_and_four_does_not() -> None:
    rules = HouseRules(joker="on")
    match = Match(Settings(4, rules=rules), dealer=3)
    match.deal(shuffled_deck(Random(1), joker=True))
    match.bid(0, 4)
    assert match.phase is Phase.BIDDING and match.legal_bids(1) == (None, 5)
    match.bid(1, None)
    match.bid(2, None)
    assert match.legal_bids(3) == (None, 4, 5)  # the dealer may steal a 4
    match.bid(3, 5)
    assert phase_of(match) is Phase.PLAYING and match.turn == 3


def test_redeal_passes_the_deal_left_and_scores_nothing() -> None:
    match = Match(Settings(3, rules=HouseRules(all_pass="redeal")), dealer=0, scores=[1, 2, 3])
    match.deal(shuffled_deck(Random(2)))
    for seat in (1, 2, 0):
        match.bid(seat, None)
    result = match.last_result
    assert result is not None and result.redeal and result.scores == (1, 2, 3)
    assert match.phase is Phase.HAND_OVER and match.turn is None
    with pytest.raises(RulesError):
        match.bid(1, 2)
    assert match.deal(shuffled_deck(Random(3))).dealer == 1


@settings(max_examples=25, deadline=None)
@given(rules=ANY_RULES, table=TABLES, seed=SEEDS)
def test_the_bots_play_legally_under_any_rules(
    rules: HouseRules, table: tuple[int, bool], seed: int
) -> None:
    """Heuristic and random bots, deciding from their views, play whole matches under
    every combination of options: an illegal choice would be refused (RulesError)."""
    players, partnership = table
    settings_ = Settings(players, partnership, rules=rules)
    kinds = ["heuristic", "random"] * 4
    bots = [make_bot(kind, seed) for kind in kinds[:players]]
    match, hands = play_match(settings_, bots, seed % players, Random(seed))
    assert match.winner is not None or hands == SIMULATE_MAX_HANDS
