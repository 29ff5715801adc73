"""The nested shapes typed once (`Trick`, `HandResult`): one to-wire and one from-wire each,
shared by the view, the `hand` event and the client; and the view's rules as an object."""

from __future__ import annotations

from dataclasses import fields
from random import Random
from typing import Any

import msgpack
import pytest

from host.server import HostConfig
from host.table import TableOptions
from pitchnet.cards import Card, Suit, shuffled_deck
from pitchnet.events import HandScored, events_from_wire
from pitchnet.rules import PRESETS, HandResult, Match, Phase, Settings, Trick
from pitchnet.schema import ProtocolError
from pitchnet.views import seat_view
from tests.strategies import legal_actions


def finished(seed: int, preset: str = "standard") -> Match:
    """A 4-player match (of `preset`) just after its first hand was scored."""
    rules = PRESETS[preset].rules
    rng = Random(seed)
    match = Match(Settings(4, rules=rules), dealer=0)
    match.deal(shuffled_deck(rng, joker=rules.has_joker))
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        rng.choice(legal_actions(match)).apply_to(match)
    return match


@pytest.mark.parametrize("preset", ["standard", "joker"])
@pytest.mark.parametrize("seed", range(6))
def test_a_result_reads_back_as_itself_through_msgpack(seed: int, preset: str) -> None:
    result = finished(seed, preset).last_result
    assert result is not None
    wire = msgpack.unpackb(msgpack.packb(result.to_wire()))
    assert HandResult.from_wire(wire) == result
    if not result.redeal:
        assert isinstance(HandResult.from_wire(wire).trump, Suit)


def test_the_hand_event_carries_the_result_s_own_map() -> None:
    result = finished(3).last_result
    assert result is not None
    wire = HandScored.of(result).to_wire()
    assert wire == {"kind": "hand", **result.to_wire()}
    assert list(wire)[1:] == [f.name for f in fields(HandResult)]
    assert events_from_wire([wire]) == [HandScored(result)]


def test_a_view_holds_the_rules_own_tricks_and_result() -> None:
    match = finished(5)
    view = seat_view(match, 2)
    assert view.last_result is not None and view.last_result is match.last_result
    assert match.hand is not None and view.tricks == match.hand.tricks
    assert all(isinstance(card, Card) for trick in view.tricks for _, card in trick.plays)
    wire = view.to_wire()
    assert wire["tricks"] == [trick.to_wire() for trick in view.tricks]
    assert wire["last_result"] == view.last_result.to_wire()


BAD_TRICKS: list[Any] = [
    {"leader": 0, "plays": [[0, "ZZ"]], "winner": 0},
    {"leader": 0, "plays": [[0]], "winner": 0},
    {"leader": 0, "plays": [[0, "AS", 1]], "winner": 0},
    {"leader": 0, "plays": [["0", "AS"]], "winner": 0},
    {"leader": 0, "plays": [[True, "AS"]], "winner": 0},
    {"leader": 0, "plays": "AS", "winner": 0},
    {"leader": 0, "plays": []},
    [0, [], 0],
]


@pytest.mark.parametrize("data", BAD_TRICKS, ids=[repr(d) for d in BAD_TRICKS])
def test_a_malformed_trick_is_refused(data: Any) -> None:
    with pytest.raises(ProtocolError):
        Trick.from_wire(data)


@pytest.mark.parametrize(
    ("field", "value"),
    [("trump", "X"), ("trump", 3), ("high_card", "1X"), ("scores", [0, "1"]), ("made", 1)],
)
def test_a_malformed_result_is_refused(field: str, value: Any) -> None:
    result = finished(1).last_result
    assert result is not None
    wire = result.to_wire()
    wire[field] = value
    with pytest.raises(ProtocolError):
        HandResult.from_wire(wire)


def test_a_view_s_rules_read_as_an_object_leaving_out_what_is_unknown() -> None:
    view = seat_view(finished(2, "joker"), 0)
    assert view.house_rules == PRESETS["joker"].rules and view.house_rules.top_bid == 5
    view.rules = {**view.rules, "newer_option": "on", "low": "sometimes"}
    assert view.house_rules.has_joker and view.house_rules.low == "captor"
    view.rules = {"min_bid": True, "joker": ["on"]}  # wrong types: the rule book
    assert view.house_rules.top_bid == 4 and not view.house_rules.has_joker


def test_the_host_config_is_the_table_options_and_the_process_s_own() -> None:
    config = HostConfig(players=5, target=11, bots=2, coach=False, port=0, seed=3)
    options = config.table_options()
    assert type(options) is TableOptions
    assert options == TableOptions(players=5, target=11, bots=2, coach=False)
    assert options.settings == Settings(5, False, 11, options.rules)


def test_the_hosting_windows_config_is_made_of_host_config_fields() -> None:
    """A window that hosts passes `HostingConfig` (the setup screen's `TableSetup` and the
    process's part) across the seam, where `HostedTable.open` makes a `HostConfig` of
    it by field name: each field must be one of HostConfig's, of a type it accepts."""
    import typing

    from client.hosting import HostingConfig, TableSetup
    from pitchnet.house_rules import HouseRules

    host = typing.get_type_hints(HostConfig)
    ours = {**typing.get_type_hints(TableSetup), **typing.get_type_hints(HostingConfig)}
    del ours["web_port"], ours["setup"]
    for name, kind in ours.items():
        assert name in host, name
        theirs = set(typing.get_args(host[name])) or {host[name]}
        assert (set(typing.get_args(kind)) or {kind}) <= theirs | {type(None)}, (name, kind)
    setup = TableSetup(name="Den", players=5, target=11, rules=HouseRules(joker="on"))
    chosen = HostingConfig(setup=setup, interface="127.0.0.1", port=0, seed=3).host_fields()
    config = HostConfig(**chosen)  # type: ignore[arg-type]
    assert (config.name, config.players, config.target, config.seed) == ("Den", 5, 11, 3)
    assert config.rules == setup.rules and config.port == 0 and config.bot_level == "normal"
