"""The client under house rules: the joker drawn (and `JK` in ASCII), bids to 5, the hand
summary's Joker point, smudge and thrown-in hand, the host's refusal sentence, and the
rules shown in the lobby and the help."""

from __future__ import annotations

import random
from typing import Any

from rich.console import Console

from client.model import GameState, describe_event, refusal, rules_text
from client.screens.lobby import lobby_title
from client.screens.summary import summary_body
from client.text import card_text
from client.widgets.bidbar import BID_LABELS
from pitchnet.cards import JOKER, shuffled_deck
from pitchnet.events import HandScored
from pitchnet.protocol import SeatInfo, SeatKind, TableInfo, TableState
from pitchnet.rules import PRESETS, HouseRules, Match, Phase, Settings
from pitchnet.views import SeatView, seat_view


def rendered(text: object) -> str:
    console = Console(width=200, color_system=None, record=True)
    console.print(text)
    return console.export_text().rstrip("\n")


def _table(rules: HouseRules, target: int = 7) -> TableInfo:
    seats = [SeatInfo(name=f"P{i}", kind=SeatKind.HUMAN, connected=True) for i in range(4)]
    return TableInfo(
        id="t1",
        name="Den",
        state=TableState.PLAYING,
        players=4,
        partnership=False,
        target=target,
        seats=seats,
        starter=0,
        rules=rules.to_wire(),
    )


def _game(match: Match, seat: int = 0) -> GameState:
    game = GameState(seat=seat, table_name="Den", table=_table(match.settings.rules))
    game.view = SeatView.from_wire(seat_view(match, seat).to_wire())
    return game


def _finished_hand(rules: HouseRules, want: Any, seed_range: int = 400) -> Match:
    """A match whose last hand, played at random, gives a result `want` accepts."""
    for seed in range(seed_range):
        rng = random.Random(seed)
        match = Match(Settings(4, rules=rules))
        match.deal(shuffled_deck(rng, joker=rules.has_joker))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            if match.phase is Phase.BIDDING:
                match.bid(seat, rng.choice(match.legal_bids(seat)))
            else:
                match.play(seat, rng.choice(sorted(match.legal_plays(seat))))
        if match.last_result is not None and want(match.last_result):
            return match
    raise AssertionError("no seed gave the hand wanted")


def test_the_joker_is_drawn_as_a_joker_and_as_jk_in_ascii() -> None:
    assert rendered(card_text("JK", ascii_only=True)) == "JK"
    assert rendered(card_text(JOKER)) == "J★"
    assert card_text("JK").style != card_text("JS").style


def test_the_bid_bar_can_offer_five() -> None:
    assert 5 in BID_LABELS


def test_the_summary_shows_the_joker_point() -> None:
    match = _finished_hand(PRESETS["joker"].rules, lambda r: r.joker is not None)
    result = match.last_result
    assert result is not None and result.joker is not None
    body = rendered(summary_body(_game(match)))
    assert "Joker" in body and "J★" in body
    who = "You" if result.joker == 0 else f"P{result.joker}"
    joker_line = next(line for line in body.splitlines() if line.startswith("Joker"))
    assert joker_line.split()[-1] == who.split()[-1]


def test_the_summary_says_the_joker_was_not_dealt() -> None:
    match = _finished_hand(PRESETS["joker"].rules, lambda r: r.joker is None)
    body = rendered(summary_body(_game(match)))
    joker_line = next(line for line in body.splitlines() if line.startswith("Joker"))
    assert joker_line.rstrip().endswith("not dealt")


def test_the_summary_of_a_plain_table_has_no_joker_line() -> None:
    match = _finished_hand(HouseRules(), lambda r: True)
    assert "Joker" not in rendered(summary_body(_game(match)))


def test_the_summary_and_the_log_say_a_smudge() -> None:
    match = _finished_hand(PRESETS["smudge"].rules, lambda r: r.smudge)
    result = match.last_result
    assert result is not None
    game = _game(match)
    assert "a smudge! That wins the match." in rendered(summary_body(game))
    line = describe_event(game, HandScored.of(result))
    assert line is not None and rendered(line).endswith("a smudge!")


def test_the_summary_and_the_log_say_a_hand_was_thrown_in() -> None:
    rules = PRESETS["strict"].rules
    match = Match(Settings(4, rules=rules), dealer=3, scores=[1, 2, 3, 4])
    match.deal(shuffled_deck(random.Random(1)))
    for seat in range(4):
        match.bid(seat, None)
    result = match.last_result
    assert result is not None and result.redeal
    game = _game(match)
    body = rendered(summary_body(game))
    assert "everyone passed. The hand is thrown in: nobody scores." in body
    assert "High" not in body and "Before" in body
    line = describe_event(game, HandScored.of(result))
    assert line is not None
    assert rendered(line) == "Everyone passed: the hand is thrown in, nobody scores."


def test_a_refused_card_shows_the_hosts_sentence() -> None:
    view = SeatView.from_wire(
        {
            **seat_view(Match(Settings(4)), 0).to_wire(),
            "phase": "playing",
            "turn": 0,
            "hand": ["2H", "3C"],
            "legal_plays": ["2H"],
            "play_rule": "You must follow suit: you hold a heart.",
        }
    )
    assert refusal(view, "3C") == "You must follow suit: you hold a heart."
    assert refusal(view, "2H") is None


def test_the_rules_text_names_the_preset_and_each_rule() -> None:
    game = GameState(table=_table(PRESETS["strict"].rules))
    text = rendered(rules_text(game))
    assert text.splitlines()[0] == "House rules: strict, to 7"
    assert "you must follow suit if you can" in text and "the lowest bid is 2" in text
    standard = rendered(rules_text(GameState(table=_table(HouseRules()))))
    assert standard.startswith("House rules: standard, to 7")
    newer = TableInfo.from_wire({**_table(HouseRules()).to_wire(), "rules": {"wild": "on"}})
    assert rendered(rules_text(GameState(table=newer))) == "House rules: wild=on"


def test_the_lobby_title_names_the_rules() -> None:
    game = GameState(table_name="Den", table=_table(PRESETS["joker"].rules, target=10))
    title = rendered(lobby_title(game))
    assert title.endswith("to 10 points  rules: joker (F2 lists them)")
    custom = GameState(table_name="Den", table=_table(HouseRules(low="dealt", smudge="on")))
    assert "rules: low dealt smudge (F2 lists them)" in rendered(lobby_title(custom))
