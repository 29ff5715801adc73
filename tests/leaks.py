"""The spectator leak check: a watcher's frames may name only cards played face up.

Every card of a hand is played in one of its six tricks, and every play is an event,
so a spectator that has seen the events up to a frame knows every card that frame may
name. Any other card-looking string in any frame it received is a leak (of a hand,
the undealt cards or the deck order).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pitchnet.cards import Card, CardParseError


def card_strings(value: Any) -> Iterator[str]:
    """Every string (keys too) in a decoded frame that reads as a card."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from card_strings(key)
            yield from card_strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from card_strings(item)
    elif isinstance(value, str):
        try:
            Card.parse(value)
        except CardParseError:
            return
        yield value


def spectator_leaks(frames: Iterable[dict[str, Any]]) -> list[tuple[int, str]]:
    """(frame number, card) for every card a spectator saw before it was played; also
    flags a spectator frame that holds a hand or legal moves. Empty means no leak."""
    played: set[str] = set()
    leaks: list[tuple[int, str]] = []
    count = 0
    for number, payload in enumerate(frames):
        if payload.get("type") != "state":
            continue
        count += 1
        view = payload.get("view")
        if count == 1 and view is not None:
            # Watching from mid-hand: what was played before it came is in the view's
            # public fields only; from the next frame on, every card must be an event.
            for key in ("trick", "tricks", "last_result"):
                played.update(card_strings(view.get(key)))
        for event in payload.get("events") or []:
            if isinstance(event, dict) and event.get("kind") == "play":
                played.add(str(event.get("card")))
        if view is not None:
            if view.get("spectator") is not True:
                leaks.append((number, "<not a spectator view>"))
            for key in ("hand", "legal_plays", "legal_bids"):
                if view.get(key):
                    leaks.append((number, f"<{key}>"))
        leaks.extend((number, card) for card in card_strings(payload) if card not in played)
    if count == 0:
        leaks.append((-1, "<no state frame at all>"))
    return leaks
