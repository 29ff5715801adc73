"""Decks for every eye: the four-colour deck stays distinct under simulated colour
blindness, hearts and diamonds differ in a 16-colour terminal, every card shows its suit,
and a terminal that cannot draw the glyphs gets ASCII mode by itself."""

from __future__ import annotations

import argparse

import pytest
from rich.color import Color, ColorSystem

from client.main import options_from_args, wants_ascii
from client.text import DECKS, card_text
from pitchnet.cards import FULL_DECK, Suit
from tests.colour_vision import closest_pair, delta_e

FOREGROUND = {True: "#e0e0e0", False: "#1e1e1e"}


def deck_colours(deck: str, dark: bool) -> dict[str, str]:
    out = {}
    for suit, style in DECKS[deck, dark].items():
        hexes = [word for word in style.split() if word.startswith("#")]
        out[suit.name] = hexes[0] if hexes else FOREGROUND[dark]
    return out


@pytest.mark.parametrize("dark", [True, False], ids=["dark", "light"])
@pytest.mark.parametrize("vision", ["normal", "deuteranopia", "protanopia"])
def test_the_four_colour_deck_stays_apart(dark: bool, vision: str) -> None:
    distance, a, b = closest_pair(deck_colours("four", dark), vision)
    assert distance >= 25, (a, b, distance)  # ΔE76 of 25: plainly different colours


def test_the_simulation_can_tell_red_from_green_only_with_normal_vision() -> None:
    """The check can fail: a red/green pair that normal eyes see apart collapses."""
    assert delta_e("#d00000", "#00a000") > 80
    assert delta_e("#d00000", "#808000", "deuteranopia") < 25


@pytest.mark.parametrize("dark", [True, False], ids=["dark", "light"])
def test_hearts_and_diamonds_differ_in_sixteen_colours(dark: bool) -> None:
    colours = deck_colours("four", dark)
    hearts = Color.parse(colours["HEARTS"]).downgrade(ColorSystem.STANDARD)
    diamonds = Color.parse(colours["DIAMONDS"]).downgrade(ColorSystem.STANDARD)
    assert hearts.number != diamonds.number


@pytest.mark.parametrize("ascii_only", [False, True])
def test_every_card_shows_its_suit(ascii_only: bool) -> None:
    for card in FULL_DECK:
        shown = card_text(card, ascii_only).plain
        assert card.suit is not None  # the full deck has no joker
        mark = card.suit.value if ascii_only else card.suit.symbol
        assert shown.endswith(mark)
    assert len({Suit.HEARTS.symbol, Suit.DIAMONDS.symbol}) == 2


@pytest.mark.parametrize(
    ("term", "expected"),
    [("linux", True), ("vt100", True), ("vt220", True), ("xterm-256color", False), (None, False)],
)
def test_a_terminal_without_glyphs_gets_ascii(
    term: str | None, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert wants_ascii(term) is expected
    if term is None:
        monkeypatch.delenv("TERM", raising=False)
    else:
        monkeypatch.setenv("TERM", term)
    args = argparse.Namespace(command="join", name="Ann", address=None)
    assert options_from_args(args).ascii_only is expected
