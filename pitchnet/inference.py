"""What the public cards show about the hidden ones: the suits a seat has shown it lacks.

Every bot that reasons about the other hands reads this one account of what a
failure to follow proves, so the levels cannot disagree about it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pitchnet.views import SeatView

SUITS = "CDHS"
JOKER_TEXT = "JK"


def suit_of(text: str, trump: str | None) -> str:
    """A card's suit letter as it plays: the joker is a trump."""
    if text == JOKER_TEXT:
        return trump or "S"
    return text[1]


def shown_voids(
    tricks: Sequence[Sequence[Sequence[Any]]], trump: str | None, must_follow: bool
) -> dict[int, set[str]]:
    """The suits each seat has shown it holds none of, from the plays of each trick
    (`[seat, card]` in play order). Leading shows nothing. On a trump lead, a card that
    is not trump shows no trump is held (nor the joker, a trump). On any other lead, a
    card of a third suit shows the suit led is not held; a trump shows it too only
    under `must_follow`, since trumping is otherwise allowed while holding the suit."""
    voids: dict[int, set[str]] = {}
    if trump is None:
        return voids
    for plays in tricks:
        if not plays:
            continue
        led = suit_of(plays[0][1], trump)
        for seat, text in plays[1:]:
            suit = suit_of(text, trump)
            if suit == led:
                continue
            if suit != trump or must_follow or led == trump:
                voids.setdefault(seat, set()).add(led)
    return voids


def trick_plays(view: SeatView) -> list[list[tuple[int, str]]]:
    """The plays of every trick of the view's hand as `(seat, card text)`, the one being
    played last."""
    done = [[(seat, card.text) for seat, card in trick.plays] for trick in view.tricks]
    return [*done, view.trick]
