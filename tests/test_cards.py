"""Cards: the text form every other part of pitchnet relies on (wire, journal, vectors)."""

from __future__ import annotations

import dataclasses
from random import Random

import pytest

from pitchnet.cards import (
    FULL_DECK,
    JOKER_DECK,
    Card,
    CardParseError,
    Suit,
    parse_cards,
    shuffled_deck,
    validate_deck,
)
from pitchnet.rules import RulesError

ALL_TEXTS = [rank + suit for suit in "CDHS" for rank in "23456789TJQKA"]


def test_the_deck_has_52_distinct_cards() -> None:
    assert len(FULL_DECK) == 52
    assert len(set(FULL_DECK)) == 52
    assert sorted(str(card) for card in FULL_DECK) == sorted(ALL_TEXTS)


@pytest.mark.parametrize("text", ALL_TEXTS)
def test_parse_and_str_round_trip(text: str) -> None:
    card = Card.parse(text)
    assert str(card) == text
    assert Card.parse(str(card)) == card
    assert eval(repr(card), {"Card": Card}) == card


def test_parse_reads_rank_and_suit() -> None:
    card = Card.parse("TD")
    assert card.rank == 10
    assert card.suit is Suit.DIAMONDS
    assert Card.parse("AS") == Card(14, Suit.SPADES)
    assert Card.parse("2C") == Card(2, Suit.CLUBS)


def test_parse_accepts_lower_case() -> None:
    assert Card.parse("td") == Card.parse("TD")
    assert Card.parse("aS") == Card.parse("AS")


@pytest.mark.parametrize("text", ["1X", "T", "", "TDX", "XD", "TX", "10D", " TD", "T ", "♠A"])
def test_parse_refuses_text_that_is_not_a_card(text: str) -> None:
    with pytest.raises(CardParseError) as caught:
        Card.parse(text)
    message = str(caught.value)
    assert repr(text) in message or (len(text) == 2 and repr(text[1]) in message)


@pytest.mark.parametrize("value", [None, 12, b"TD", ["T", "D"], ("T", "D"), 2.5])
def test_parse_refuses_non_strings(value: object) -> None:
    with pytest.raises(CardParseError):
        Card.parse(value)  # type: ignore[arg-type]


def test_parse_error_names_the_bad_part() -> None:
    with pytest.raises(CardParseError, match="'1' is not a rank"):
        Card.parse("1X")
    with pytest.raises(CardParseError, match="not a suit"):
        Card.parse("TX")


def test_parse_error_is_a_value_error_not_a_rules_error() -> None:
    """Bad text is a syntax problem, kept apart from moves the rules refuse."""
    assert issubclass(CardParseError, ValueError)
    assert not issubclass(CardParseError, RulesError)


@pytest.mark.parametrize("rank", [0, 1, 15, -3])
def test_card_refuses_impossible_ranks(rank: int) -> None:
    with pytest.raises(CardParseError):
        Card(rank, Suit.HEARTS)


def test_cards_are_immutable_and_hashable() -> None:
    card = Card.parse("QH")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.rank = 3  # type: ignore[misc]
    assert {card, Card.parse("QH")} == {card}


def test_cards_order_by_rank_then_suit() -> None:
    assert Card.parse("2S") < Card.parse("3C") < Card.parse("AC")
    assert Card.parse("2C") < Card.parse("2S")
    assert max(Card.parse(t) for t in ["9H", "KH", "TH"]) == Card.parse("KH")


def test_sorting_cards_of_equal_rank_in_different_suits_works() -> None:
    """Regression: Suit was not orderable, so sorting a hand holding two 2s raised TypeError."""
    hand = parse_cards(["2S", "2C", "AH", "2D", "KH"])
    assert [str(c) for c in sorted(hand)] == ["2C", "2D", "2S", "KH", "AH"]
    assert sorted(FULL_DECK)[0] == Card.parse("2C")
    assert sorted(FULL_DECK)[-1] == Card.parse("AS")
    assert Card.parse("5H") > Card.parse("5D")
    assert Card.parse("5H") >= Card.parse("5H")


def test_suits_compare_only_with_suits() -> None:
    assert Suit.CLUBS < Suit.SPADES
    with pytest.raises(TypeError):
        _ = Suit.CLUBS < "S"


@pytest.mark.parametrize(
    ("text", "points"),
    [("TD", 10), ("AS", 4), ("KC", 3), ("QH", 2), ("JD", 1), ("9S", 0), ("2C", 0)],
)
def test_game_points(text: str, points: int) -> None:
    assert Card.parse(text).game_points == points


def test_names_and_pretty_forms() -> None:
    assert Card.parse("TD").name == "ten of diamonds"
    assert Card.parse("AS").name == "ace of spades"
    assert Card.parse("TD").pretty() == "10♦"  # players read "10", not the wire's "T"
    assert Card.parse("TD").pretty(ascii_only=True) == "10D"
    assert Card.parse("9D").pretty() == "9♦"
    assert Suit.HEARTS.plural == "hearts"


@pytest.mark.parametrize("text", ["", "X", "CD", None, 3])
def test_suit_parse_refuses_bad_letters(text: object) -> None:
    with pytest.raises(CardParseError):
        Suit.parse(text)  # type: ignore[arg-type]


def test_suit_parse() -> None:
    assert Suit.parse("h") is Suit.HEARTS
    assert Suit.parse("S") is Suit.SPADES


def test_parse_cards() -> None:
    assert parse_cards(["AS", "2C"]) == [Card.parse("AS"), Card.parse("2C")]
    with pytest.raises(CardParseError):
        parse_cards(["AS", "ZZ"])


def test_seeded_shuffle_is_reproducible_and_complete() -> None:
    first = shuffled_deck(Random(7))
    assert first == shuffled_deck(Random(7))
    assert first != shuffled_deck(Random(8))
    assert sorted(first) == sorted(FULL_DECK)


def test_production_shuffle_is_a_full_deck() -> None:
    deck = shuffled_deck()
    validate_deck(deck)
    assert set(deck) == set(FULL_DECK)


@pytest.mark.parametrize(
    "deck",
    [
        list(FULL_DECK)[:51],
        [*FULL_DECK[:51], FULL_DECK[0]],
        [*FULL_DECK, FULL_DECK[0]],
        [],
    ],
    ids=["51-cards", "duplicate", "53-cards", "empty"],
)
def test_validate_deck_refuses_wrong_decks(deck: list[Card]) -> None:
    with pytest.raises(ValueError, match="52 cards"):
        validate_deck(deck)


def test_every_card_parses_to_itself_and_carries_its_text_and_holding_order() -> None:
    """`Card.parse` of a card's own text (what the wire and the journal hold) is the
    deck's card itself; any other spelling is an equal card. `text` is `str()`, and
    `hand_order` sorts a hand by suit, high cards first, the joker last."""
    for card in JOKER_DECK:
        assert Card.parse(card.text) is card
        assert card.text == str(card)
        assert Card.parse(card.text.lower()) == card
    held = [Card.parse(t) for t in ("2C", "JK", "AS", "TC", "KS", "3H")]
    ordered = sorted(held, key=lambda card: card.hand_order)
    assert [card.text for card in ordered] == ["TC", "2C", "3H", "AS", "KS", "JK"]
