"""Seat views: what one seat may see, in the form that goes on the wire.

The leak tests walk whole seeded matches for every table size and look at the msgpack
bytes of every seat's view after every action: no card of another hand and no undealt
card may appear in them, ever.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

import msgpack
import pytest

from pitchnet import views
from pitchnet.cards import JOKER_DECK, Card, CardParseError, deck, shuffled_deck
from pitchnet.rules import DEFAULT_RULES, PRESETS, HouseRules, Match, Phase, RulesError, Settings
from pitchnet.views import SeatView, ViewError, public_result, seat_view, spectator_view
from tests.strategies import CONFIG_IDS, CONFIGS, legal_actions

WIRE_LIMIT = 2048


def packed(view: SeatView) -> bytes:
    body: bytes = msgpack.packb(view.to_wire())
    return body


def card_strings(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Card]]:
    """Every string in a decoded wire value (keys too) that reads as a card, with its path."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from card_strings(key, (*path, "<key>"))
            yield from card_strings(item, (*path, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from card_strings(item, (*path, index))
    elif isinstance(value, str | bytes):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        try:
            card = Card.parse(text)
        except CardParseError:
            return
        yield path, card


def match_states(
    players: int,
    partnership: bool,
    seed: int,
    max_hands: int = 40,
    target: int = 7,
    rules: HouseRules = DEFAULT_RULES,
) -> Iterator[Match]:
    """A whole seeded match of random legal play (at most `max_hands` hands), yielding the
    match before the first deal and after every deal and every action."""
    rng = Random(seed)
    settings = Settings(players, partnership, target, rules)
    match = Match(settings, dealer=rng.randrange(players))
    yield match
    while match.phase is not Phase.MATCH_OVER and match.hand_number < max_hands:
        match.deal(shuffled_deck(rng, joker=rules.has_joker))
        yield match
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            rng.choice(legal_actions(match)).apply_to(match)
            yield match


@pytest.mark.parametrize("rules", [DEFAULT_RULES, PRESETS["joker"].rules], ids=["52", "joker"])
@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
def test_a_seat_never_sees_another_hand_or_the_undealt_cards(
    players: int, partnership: bool, rules: HouseRules
) -> None:
    """With the joker too: whether it was dealt, and to whom, is as hidden as any card."""
    views_checked = 0
    previous_played: set[Card] = set()
    hand_seen = None
    seed = 1000 + players + 10 * partnership
    states = match_states(players, partnership, seed, max_hands=8, target=21, rules=rules)
    for match in states:
        hand = match.hand
        if hand is not hand_seen and hand_seen is not None:
            previous_played = {card for t in hand_seen.tricks for _, card in t.plays}
        hand_seen = hand
        played = set()
        if hand is not None:
            played = {card for t in hand.tricks for _, card in t.plays}
            played |= {card for _, card in hand.trick}
        for seat in range(players):
            own = set(hand.hands[seat]) if hand is not None else set()
            wire = msgpack.unpackb(packed(seat_view(match, seat)))
            last = wire.pop("last_result")
            for path, card in card_strings(wire):
                assert card in own or card in played, (seat, path, card)
            # The summary is of this hand once it is over, else of the one before.
            summarised = played if hand is not None and hand.complete else previous_played
            for path, card in card_strings(last):
                assert card in summarised, (seat, "last_result", path, card)
            # The same at the byte level, whatever the shape: no hidden card's text at all.
            hidden = set(deck(rules.has_joker)) - own - played
            raw = msgpack.packb(wire)
            leaked = [str(card) for card in hidden if str(card).encode() in raw]
            assert not leaked, (seat, leaked)
            views_checked += 1
    assert hand_seen is not None and hand_seen.complete
    assert views_checked > 8 * 7 * players


def assert_public_only(wire: dict[str, Any], played: set[Card], summarised: set[Card]) -> None:
    """A frame's view (or a spectator's) names no card but those played face up."""
    wire = dict(wire)
    last = wire.pop("last_result")
    for path, card in card_strings(wire):
        assert card in played, ("spectator", path, card)
    for path, card in card_strings(last):
        assert card in summarised, ("spectator", "last_result", path, card)
    raw = msgpack.packb(wire)
    leaked = [str(card) for card in set(JOKER_DECK) - played if str(card).encode() in raw]
    assert not leaked, leaked


@pytest.mark.parametrize("rules", [DEFAULT_RULES, PRESETS["joker"].rules], ids=["52", "joker"])
@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
def test_a_spectator_sees_no_hand_at_all(
    players: int, partnership: bool, rules: HouseRules
) -> None:
    checked, previous_played, hand_seen = 0, set[Card](), None
    states = match_states(players, partnership, 77 + players, max_hands=6, target=21, rules=rules)
    for match in states:
        hand = match.hand
        if hand is not hand_seen and hand_seen is not None:
            previous_played = {card for t in hand_seen.tricks for _, card in t.plays}
        hand_seen = hand
        played: set[Card] = set()
        if hand is not None:
            played = {card for t in hand.tricks for _, card in t.plays} | {c for _, c in hand.trick}
        view = spectator_view(match)
        assert view.spectator and view.hand == [] and not view.my_turn
        assert view.legal_bids == [] and view.legal_plays == []
        summarised = played if hand is not None and hand.complete else previous_played
        assert_public_only(msgpack.unpackb(packed(view)), played, summarised)
        assert SeatView.from_wire(view.to_wire()) == view
        checked += 1
    assert checked > 50 and hand_seen is not None


@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
def test_view_holds_own_hand_counts_and_public_table(players: int, partnership: bool) -> None:
    for match in match_states(players, partnership, seed=7 + players, max_hands=6):
        hand = match.hand
        for seat in range(players):
            view = seat_view(match, seat)
            assert view.seat == seat and view.players == players
            assert view.phase == match.phase.value and view.turn == match.turn
            assert view.scores == match.scores and view.winner == match.winner
            assert view.dealer == match.dealer and view.hand_number == match.hand_number
            if hand is None:
                assert view.hand == [] and view.hand_counts == [0] * players
                continue
            assert sorted(view.cards) == sorted(hand.hands[seat])
            assert view.hand_counts == [len(cards) for cards in hand.hands]
            assert set(view.playable) == match.legal_plays(seat)
            assert view.legal_bids == list(match.legal_bids(seat))
            assert view.my_turn == (match.turn == seat)
            assert view.bids == [(s, b) for s, b in hand.bids]
            assert view.trick == [(s, str(card)) for s, card in hand.trick]
            assert len(view.tricks) == len(hand.tricks)
            assert sum(view.tricks_won) == len(hand.tricks)
            if match.last_result is not None:
                assert view.last_result == public_result(match.last_result)


@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
def test_views_round_trip_through_msgpack_and_stay_small(players: int, partnership: bool) -> None:
    """Every view of a few seeded hands survives to_wire -> msgpack -> from_wire unchanged,
    and none is 2 KB or more (the worst case is the end of a 7-player hand: six tricks of
    seven cards plus the hand summary)."""
    largest = checked = 0
    for match in match_states(players, partnership, seed=99 + players, max_hands=3):
        for seat in range(players):
            view = seat_view(match, seat)
            data = packed(view)
            largest = max(largest, len(data))
            again = SeatView.from_wire(msgpack.unpackb(data))
            assert again == view
            assert again.to_wire() == view.to_wire()
            checked += 1
    assert checked > 20 * players
    assert 0 < largest < WIRE_LIMIT


def test_worst_case_view_with_extreme_scores_stays_under_two_kilobytes() -> None:
    rng = Random(11)
    match = Match(Settings(7, target=21), dealer=0, scores=[-(10**6)] * 7)
    match.deal(shuffled_deck(rng))
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        rng.choice(legal_actions(match)).apply_to(match)
    sizes = [len(packed(seat_view(match, seat))) for seat in range(7)]
    assert match.hand is not None and len(seat_view(match, 0).tricks) == 6
    assert max(sizes) < WIRE_LIMIT


def test_seat_view_refuses_a_seat_that_is_not_at_the_table() -> None:
    match = Match(Settings(3))
    for seat in (-1, 3, 10):
        with pytest.raises(ValueError):
            seat_view(match, seat)


# ---- from_wire refuses what is not a view ---------------------------------------------------


def a_wire_view() -> dict[str, Any]:
    """A view in the middle of a trick, partnership table, after one finished hand."""
    for match in match_states(4, True, seed=21):
        if match.last_result is not None and match.hand and match.hand.trick and match.hand.tricks:
            return seat_view(match, 1).to_wire()
    raise AssertionError("the seeded match never reached such a state")


def test_the_sample_view_is_accepted() -> None:
    wire = a_wire_view()
    assert SeatView.from_wire(wire).to_wire() == wire
    assert wire["trick"] and wire["tricks"] and wire["last_result"]


@pytest.mark.parametrize("data", [None, [], "view", b"view", 3, [["seat", 0]]])
def test_from_wire_refuses_non_maps(data: Any) -> None:
    with pytest.raises(ViewError):
        SeatView.from_wire(data)


MALFORMED: list[tuple[str, Any]] = [
    ("seat", "1"),
    ("seat", True),
    ("seat", None),
    ("seat", 4),
    ("seat", -1),
    ("players", 8),
    ("players", 1),
    ("players", "4"),
    ("target", 7.0),
    ("hand_number", None),
    ("dealer", "0"),
    ("dealer", 9),
    ("phase", "lunch"),
    ("phase", None),
    ("partnership", "yes"),
    ("turn", "1"),
    ("turn", 7),
    ("high_bid", "2"),
    ("pitcher", 1.5),
    ("winner", "0"),
    ("trump", "X"),
    ("trump", 3),
    ("hand", "ASKS"),
    ("hand", ["ZZ"]),
    ("hand", [12]),
    ("hand_counts", [6, 6, "6", 6]),
    ("hand_counts", [6, 6]),
    ("bids", [[0]]),
    ("bids", [["0", 2]]),
    ("bids", [[0, "pass"]]),
    ("bids", "none"),
    ("trick", [[0, "ZZ"]]),
    ("trick", [[0]]),
    ("trick", ["AS"]),
    ("tricks", [{"leader": 0, "plays": [[0, "1X"]], "winner": 0}]),
    ("tricks", [{"leader": 0, "winner": 0}]),
    ("tricks", ["trick"]),
    ("tricks", [{"leader": 9, "plays": [], "winner": 0}]),
    ("tricks", [{"leader": 0, "plays": [], "winner": None}]),
    ("tricks", [{"leader": 0, "plays": "AS", "winner": 0}]),
    ("tricks", [{"leader": 0, "plays": 3, "winner": 0}]),
    ("winner", 2),
    ("winner", True),
    ("tricks_won", [0, "1", 0, 0]),
    ("scores", [0, "1"]),
    ("scores", [0]),
    ("scores", None),
    ("legal_bids", ["pass"]),
    ("legal_plays", ["AS", None]),
    ("last_result", "none"),
    ("step", "3"),
    ("step", None),
    ("play_rule", 3),
    ("play_rule", ["must follow"]),
]


@pytest.mark.parametrize(("field", "value"), MALFORMED, ids=[f"{f}={v!r}" for f, v in MALFORMED])
def test_from_wire_refuses_malformed_fields(field: str, value: Any) -> None:
    wire = a_wire_view()
    wire[field] = value
    with pytest.raises(ViewError):
        SeatView.from_wire(wire)


OPTIONAL = {"rules", "step", "play_rule", "play_meaning", "spectator"}
"""View fields an older host did not send (the view reads them as their defaults)."""


@pytest.mark.parametrize("field", sorted(set(a_wire_view()) - OPTIONAL))
def test_from_wire_refuses_a_missing_field(field: str) -> None:
    wire = a_wire_view()
    del wire[field]
    with pytest.raises(ViewError, match=field):
        SeatView.from_wire(wire)


def test_a_view_from_an_older_host_has_no_step_or_play_rule() -> None:
    wire = {k: v for k, v in a_wire_view().items() if k not in ("step", "play_rule")}
    view = SeatView.from_wire(wire)
    assert (view.step, view.play_rule) == (0, None)


def test_a_view_without_rules_reads_as_the_defaults() -> None:
    """A host from before house rules sends no `rules`: its table plays the rule book."""
    wire = a_wire_view()
    assert wire["rules"]["joker"] == "off"
    del wire["rules"]
    assert SeatView.from_wire(wire).rules == {}


def test_the_view_names_the_turn_and_the_hosts_reason_for_a_dimmed_card() -> None:
    """`step` is the hand's step (moves echo it); `play_rule` is the sentence the host
    refuses a play of a held card outside `legal_plays` with, for the seat to play only."""
    explained = 0
    for match in match_states(4, False, seed=3):
        hand = match.hand
        for seat in range(4):
            view = seat_view(match, seat)
            assert view.step == (hand.step if hand else 0)
            refused = [c for c in view.hand if c not in view.legal_plays]
            if view.legal_plays and refused:
                with pytest.raises(RulesError) as why:
                    match.check_play(seat, Card.parse(refused[0]))
                assert view.play_rule == why.value.message
                explained += 1
            else:
                assert view.play_rule is None
    assert explained > 0


@pytest.mark.parametrize("rules", [DEFAULT_RULES, PRESETS["joker"].rules], ids=["52", "joker"])
@pytest.mark.parametrize(("players", "partnership"), CONFIGS, ids=CONFIG_IDS)
def test_kept_parts_of_the_views_are_what_a_fresh_build_gives(
    players: int, partnership: bool, rules: HouseRules
) -> None:
    """`split_views` keeps the public entries that last a trick and each waiting seat's
    part between moves: after every action of whole matches, what it gives (and every
    `seat_view`) is exactly what the views build with nothing kept, and the kept parts
    are the same objects while a trick is in progress."""
    mid_trick = 0
    states = match_states(players, partnership, 77 + players, max_hands=6, target=21, rules=rules)
    for match in states:
        settled, public, private = views.split_views(match)
        kept = [{**p, **settled, **public} for p in private]
        seat_views = [seat_view(match, seat).to_wire() for seat in range(players)]
        again = views.split_views(match)
        assert again[0] is settled  # nothing changed: the same map, packed once
        fresh_settled, fresh_public, fresh_private = built_afresh(match)
        assert kept == [{**p, **fresh_settled, **fresh_public} for p in fresh_private]
        assert seat_views == [seat_view(match, seat).to_wire() for seat in range(players)]
        mid_trick += match.hand is not None and bool(match.hand.trick)
    assert mid_trick > 6 * 3  # states where the kept parts were in use


def built_afresh(match: Match) -> Any:
    """`split_views` with nothing kept, leaving what is kept as it was (so the next
    move's views still come from parts kept since earlier moves)."""
    kept = {kept_for: dict(parts) for kept_for, parts in views._KEPT.items()}
    views._KEPT.clear()
    try:
        return views.split_views(match)
    finally:
        views._KEPT.clear()
        views._KEPT.update(kept)


def test_the_settled_part_is_rebuilt_when_a_trick_is_taken() -> None:
    """Within a trick the settled map is the same object; taking the trick makes a new
    one that shows it (and a play that leaves the trick open does not)."""
    match = Match(Settings(players=4, partnership=True, target=11))
    match.deal(shuffled_deck(Random(5)))
    while match.phase is Phase.BIDDING:
        legal_actions(match)[-1].apply_to(match)
    first = views.split_views(match)[0]
    legal_actions(match)[0].apply_to(match)  # the trick's first card: still open
    assert views.split_views(match)[0] is first
    while match.hand is not None and len(match.hand.tricks) == 0:
        legal_actions(match)[0].apply_to(match)
    taken = views.split_views(match)[0]
    assert taken is not first
    assert len(taken["tricks"]) == 1 and sum(taken["tricks_won"]) == 1
    assert first["tricks"] == [] and sum(first["tricks_won"]) == 0


def test_the_settled_part_is_rebuilt_when_a_hand_is_thrown_in() -> None:
    """With `all_pass: redeal` a hand everyone passed ends with no trick taken and no new
    deal: its result alone changes the settled entries, and they show it."""
    match = Match(
        Settings(players=4, partnership=True, target=11, rules=HouseRules(all_pass="redeal"))
    )
    match.deal(shuffled_deck(Random(8)))
    before = views.split_views(match)[0]
    assert before["last_result"] is None
    while match.phase is Phase.BIDDING:
        match.bid(match.turn, None)  # type: ignore[arg-type]
    after = views.split_views(match)[0]
    assert after is not before
    assert after["last_result"] is not None and after["last_result"]["redeal"] is True
