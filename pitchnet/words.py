"""Cards and suits in words, in the language in use: "hearts", "a heart", "the ace of
hearts". The faces drawn on the table stay universal (A K Q J 10 and the suit symbols);
these are for sentences (a refusal, the coach). A value that is not a suit or a card
raises ValueError (the caller words the sentence another way)."""

from __future__ import annotations

from pitchnet.cards import Card, CardParseError, Suit
from pitchnet.i18n import _, number


def suit_plural(code: object) -> str:
    """ "hearts" for "H": a suit named as players name the cards of it."""
    try:
        suit = Suit.parse(code) if isinstance(code, str) else None
    except CardParseError:
        suit = None
    names = {
        Suit.CLUBS: _("clubs"),
        Suit.DIAMONDS: _("diamonds"),
        Suit.HEARTS: _("hearts"),
        Suit.SPADES: _("spades"),
    }
    if suit is None:
        raise ValueError("not a suit")
    return names[suit]


def suit_singular(code: object) -> str:
    """ "a heart" for "H"."""
    plural = suit_plural(code)  # raises for an unknown suit
    names = {
        _("clubs"): _("a club"),
        _("diamonds"): _("a diamond"),
        _("hearts"): _("a heart"),
        _("spades"): _("a spade"),
    }
    return names[plural]


def card_name(code: object) -> str:
    """ "the ace of hearts": a card in words (the faces stay universal elsewhere)."""
    try:
        card = Card.parse(code) if isinstance(code, str) else None
    except CardParseError:
        card = None
    if card is None:
        raise ValueError("not a card")
    if card.suit is None:
        return _("the joker")
    ranks = {
        14: _("ace"),
        13: _("king"),
        12: _("queen"),
        11: _("jack"),
        10: _("ten"),
    }
    rank = ranks.get(card.rank) or number(card.rank)
    return _("the {rank} of {suit}", rank=rank, suit=suit_plural(card.suit.value))
