"""Cards as small immutable values with a two-character text form ("TD", "AS", "JK").

The text form is what travels on the wire, sits in the journal and appears in
the rules vectors, so parsing and printing live here and nowhere else. The joker of
five-point Pitch (RULES.md, "Five-point Pitch") is a card too: rank 1, no suit, text
"JK". It has no suit of its own: which suit it counts as (trump) is the engine's call.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import total_ordering
from random import Random

RANK_LETTERS = "23456789TJQKA"
"""Rank letters from lowest (2) to highest (ace); a rank's value is its index + 2."""

RANK_NAMES = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}

GAME_POINTS = {10: 10, 14: 4, 13: 3, 12: 2, 11: 1}
"""Trick points toward the Game point: ten 10, ace 4, king 3, queen 2, jack 1."""

JACK = 11
JOKER_RANK = 1
"""The joker's rank: below every 2, so it sorts first and is the lowest trump."""
JOKER_TEXT = "JK"


class CardParseError(ValueError):
    """Text that is not a card, such as "1X". Kept apart from rules errors."""


@total_ordering
class Suit(Enum):
    """The four suits; the value is the letter used in the text form. Ordered C < D < H < S
    so that `Card` (ordered by rank, then suit) can sort any hand."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    # Hash by identity, in C: Enum's own __hash__ is Python code, and suits are looked
    # up in dicts often (a card's hash at construction, bots' and views' tables).
    __hash__ = object.__hash__

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self.value < other.value

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def plural(self) -> str:
        """The suit's name as used in sentences: "hearts"."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Suit:
        try:
            return cls(text.upper())
        except (ValueError, AttributeError):
            raise CardParseError(f"{text!r} is not a suit (use C, D, H or S)") from None


_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card. Ordered by rank, then suit, so sorting a hand is natural.
    `suit` is None only for the joker (`JOKER`), which is the one card of rank 1."""

    rank: int
    suit: Suit | None
    _hash: int = field(init=False, repr=False, compare=False)
    text: str = field(init=False, repr=False, compare=False)
    """The two-character form ("TD", "JK"): what the wire, the journal and `str()` give.
    Computed once (Enum.value is Python code): views write it dozens of times a move."""
    hand_order: tuple[str, int] = field(init=False, repr=False, compare=False)
    """How a player holds a hand: grouped by suit, high cards first, the joker last (a
    sort key, kept with the card because views sort every hand after every move)."""

    def __post_init__(self) -> None:
        if self.suit is None or self.rank == JOKER_RANK:
            if (self.rank, self.suit) != (JOKER_RANK, None):
                raise CardParseError("only the joker (rank 1) has no suit")
            object.__setattr__(self, "_hash", JOKER_RANK)
            object.__setattr__(self, "text", JOKER_TEXT)
            object.__setattr__(self, "hand_order", ("Z", -JOKER_RANK))
            return
        if not 2 <= self.rank <= 14:
            raise CardParseError(f"rank {self.rank} is outside 2..14")
        # Computed once: sets and dicts of cards (legal plays, deck and deal checks) hash
        # cards on every action, and the generated hash built a tuple each time. Plain
        # ints, so the hash is the same in every process (and in a pickle).
        object.__setattr__(self, "_hash", self.rank * 4 + _SUIT_INDEX.get(self.suit, 0))
        object.__setattr__(self, "text", RANK_LETTERS[self.rank - 2] + self.suit.value)
        object.__setattr__(self, "hand_order", (self.suit.value, -self.rank))

    def __hash__(self) -> int:
        return self._hash

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse the two-character form, rank then suit: "TD", "as", "2c"; "JK" is the joker."""
        if type(text) is str:
            known = _BY_TEXT.get(text)  # the wire and the journal write the canonical form
            if known is not None:
                return known
        if not isinstance(text, str) or len(text) != 2:
            raise CardParseError(f"{text!r} is not a card (expected two characters like 'TD')")
        if text.upper() == JOKER_TEXT:
            return JOKER
        rank_letter, suit_letter = text[0].upper(), text[1]
        rank_index = RANK_LETTERS.find(rank_letter)
        if rank_index < 0:
            raise CardParseError(f"{text!r} is not a card: {rank_letter!r} is not a rank")
        return cls(rank_index + 2, Suit.parse(suit_letter))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"

    @property
    def game_points(self) -> int:
        """Trick points toward Game (the joker counts 0)."""
        return GAME_POINTS.get(self.rank, 0)

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @property
    def name(self) -> str:
        """A spoken name: "ten of diamonds", "joker"."""
        if self.suit is None:
            return "joker"
        return f"{RANK_NAMES[self.rank]} of {self.suit.plural}"

    def pretty(self, ascii_only: bool = False) -> str:
        """Rank and suit symbol as a player reads them ("10♦", "A♠"), or with the suit's
        letter for ASCII terminals ("10D"). A ten is "10", never the wire's "T", which
        players took for a letter of its own. The joker is "J★", or "JK" in ASCII."""
        if self.suit is None:
            return JOKER_TEXT if ascii_only else JOKER_SYMBOL
        rank = "10" if self.rank == 10 else RANK_LETTERS[self.rank - 2]
        return rank + (self.suit.value if ascii_only else self.suit.symbol)


JOKER_SYMBOL = "J★"
JOKER = Card(JOKER_RANK, None)
"""The joker of five-point Pitch: in the deck only when the table plays `joker: on`."""

FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in Suit for rank in range(2, 15))
"""The 52 natural cards. `deck()` is the deck a table plays with (with the joker or not)."""
JOKER_DECK: tuple[Card, ...] = (*FULL_DECK, JOKER)

_BY_TEXT = {str(card): card for card in JOKER_DECK}
"""Each card by its canonical text, so `Card.parse` of what the host itself wrote (every
play on the wire and in the journal) is a lookup, not a new card and its checks."""


def deck(joker: bool = False) -> tuple[Card, ...]:
    """The cards a table plays with: the 52, and the joker too with `joker: on`.
    The one place that says what a deck holds (shuffling, checking, bots' unseen cards)."""
    return JOKER_DECK if joker else FULL_DECK


_DECK_SETS = {False: frozenset(FULL_DECK), True: frozenset(JOKER_DECK)}


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [Card.parse(text) for text in texts]


def shuffled_deck(rng: Random | None = None, *, joker: bool = False) -> list[Card]:
    """A freshly shuffled deck (53 cards with `joker`). Production passes no `rng` and
    gets `secrets.SystemRandom`; tests and `--seed` pass a seeded `random.Random`."""
    cards = list(deck(joker))
    (rng or secrets.SystemRandom()).shuffle(cards)
    return cards


def validate_deck(cards: Sequence[Card], *, joker: bool = False) -> None:
    """Refuse a deck that is not exactly `deck(joker)` in some order (a corrupt journal)."""
    expected = _DECK_SETS[joker]
    if len(cards) != len(expected) or set(cards) != expected:
        raise ValueError(f"a deck must hold each of the {len(expected)} cards exactly once")
