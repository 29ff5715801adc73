"""Issue 25's sentences: what a person reads at a match end, in the lobby, and the
commands printed for them (which must run as printed in their setup)."""

from __future__ import annotations

import dataclasses

from client.demo import scene
from client.model import GameState
from client.screens.summary import waiting_text


def _game(name: str, **table_fields: object) -> GameState:
    table, view = scene(name)
    game = GameState()
    game.seat = 0
    game.table = dataclasses.replace(table, **table_fields)  # type: ignore[arg-type]
    game.view = view
    return game


def test_a_match_end_waits_for_everyone_and_names_no_deadline() -> None:
    game = _game("match_over", waiting_for=[0], ready_left=None)
    text = waiting_text(game).plain
    assert text.startswith("A new match starts when everyone says play again.")
    assert "either way" not in text


def test_between_hands_the_ready_limit_is_said() -> None:
    game = _game("hand_over", waiting_for=[0], ready_left=12.0)
    text = waiting_text(game).plain
    assert text.startswith("Waiting for: ")
    assert text.endswith("The next hand is dealt in 12 s either way.")
