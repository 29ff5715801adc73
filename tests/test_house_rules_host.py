"""House rules at a real table: a whole bot match per preset on a host over 127.0.0.1, the
rules in the table info, the views, the advert, the journal and `--resume`, the protocol
version a table speaks, and the command line."""

from __future__ import annotations

import asyncio
import random
from functools import partial
from typing import Any

import msgpack
import pytest

from host import dispatch
from host.advertise import Advert
from host.history import describe
from host.main import config_from_args
from host.snapshots import table_info
from host.table import Table, TableOptions
from host.tables import new_table, resume_table
from pitchnet.cards import Card, shuffled_deck
from pitchnet.cli import build_parser
from pitchnet.cli import main as cli_main
from pitchnet.protocol import PROTOCOL_VERSION, BidMsg, Hello, PlayMsg, ProtocolError, TableInfo
from pitchnet.rules import PRESETS, HouseRules, Phase, RulesError
from pitchnet.views import seat_view
from tests.netclient import RawClient, play_as_bot, running_host


@pytest.mark.parametrize("preset", list(PRESETS))
async def test_a_whole_bot_match_per_preset_on_a_real_host(preset: str) -> None:
    """Four bots over loopback play a match to its end under each preset; every frame
    carries the table's rules, and the joker table deals (and shows) the joker."""
    chosen = PRESETS[preset]
    target = chosen.target or 7
    async with running_host(seed=31, rules=chosen.rules, target=target) as server:
        clients = [await RawClient.connect(server) for _ in range(4)]
        for i, client in enumerate(clients):
            await client.hello(f"P{i}")
        finals = await asyncio.gather(*(play_as_bot(c) for c in clients))
    assert finals[0].winner is not None and finals[0].phase == "match_over"
    assert all(final.winner == finals[0].winner for final in finals)
    states = [p for p in clients[0].received if p["type"] == "state"]
    assert all(p["table"]["rules"] == chosen.rules.to_wire() for p in states)
    assert all(p["view"]["rules"] == chosen.rules.to_wire() for p in states if p["view"])
    assert all(p["table"]["target"] == target for p in states)
    results = [
        e for c in clients[:1] for p in c.received if p["type"] == "state" for e in p["events"]
    ]
    hands = [e for e in results if e.get("kind") == "hand"]
    assert hands, "no hand was scored"
    if chosen.rules.has_joker:
        seen = {
            card
            for client in clients
            for p in client.received
            if p["type"] == "state" and p["view"]
            for card in p["view"]["hand"]
        }
        assert "JK" in seen, "the joker was never dealt in a whole match"
        assert all("joker" in hand for hand in hands)
    else:
        assert all(hand["joker"] is None for hand in hands)
    for hand in hands:
        assert hand["smudge"] is False or (
            chosen.rules.smudge == "on" and hand["winner"] is not None
        )
        assert hand["redeal"] is False or chosen.rules.all_pass == "redeal"


def seeded_deck(seed: int, key: str) -> list[Card]:
    """The deck for deal `key` of the table seeded `seed`."""
    return shuffled_deck(random.Random(f"{seed}:{key}"))


def _strict_table() -> Table:
    options = TableOptions(players=2, rules=PRESETS["strict"].rules)
    return Table("t1", "Strict", options, lambda key: shuffled_deck(random.Random(key)))


def test_a_refused_card_under_must_follow_says_why_and_the_view_says_the_same() -> None:
    """The host's sentence is the one the client shows: the view carries it for the
    cards the seat may not play, and playing one is refused with the same words."""
    for seed in range(100):
        table = Table(
            "t1",
            "Strict",
            TableOptions(players=2, rules=PRESETS["strict"].rules),
            partial(seeded_deck, seed),
        )
        dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="A"))
        dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="B"))
        match = table.match
        assert match is not None
        next_id = 0
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            view = seat_view(match, seat)
            sentence = view.play_rule or ""
            if sentence.startswith("You must follow"):
                card = next(c for c in view.hand if c not in view.legal_plays)
                with pytest.raises(RulesError) as refused:
                    dispatch.act(table, seat, PlayMsg(id=next_id + 1, card=card))
                assert refused.value.code == "must_follow"
                assert refused.value.message == sentence
                suits = ("club", "diamond", "heart", "spade")
                assert sentence in {f"You must follow suit: you hold a {s}." for s in suits}
                return
            next_id += 1
            if view.phase == "bidding":
                bid = 2 if 2 in view.legal_bids else view.legal_bids[0]
                dispatch.act(table, seat, BidMsg(id=next_id, bid=bid))
            else:
                dispatch.act(table, seat, PlayMsg(id=next_id, card=view.legal_plays[0]))
    pytest.fail("no deal put a player in a must-follow spot")


def test_every_table_speaks_this_pitchnets_one_version_whatever_its_rules() -> None:
    """Since protocol 3 (secrets proven, never sent) no table speaks an older version:
    an older client would send its seat token and password in clear."""
    assert PROTOCOL_VERSION == 3
    for rules in (HouseRules(), PRESETS["classic"].rules, PRESETS["joker"].rules):
        table = Table(
            "t", "Den", TableOptions(rules=rules), lambda key: shuffled_deck(random.Random(key))
        )
        with pytest.raises(ProtocolError) as refused:
            dispatch.join(table, Hello(version=PROTOCOL_VERSION - 1, name="Old"))
        assert refused.value.code == "version" and refused.value.fatal
        assert dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="New")) == 0


@pytest.mark.parametrize("preset", ["classic", "joker"])
@pytest.mark.parametrize("old_version", [1, 2])
async def test_an_older_client_is_refused_with_a_sentence_at_every_table(
    preset: str, old_version: int
) -> None:
    async with running_host(rules=PRESETS[preset].rules, target=10) as server:
        old = await RawClient.connect(server)
        old.send(Hello(version=old_version, name="Old"))
        error = await old.expect("error")
        assert error["code"] == "version" and error["fatal"]
        assert error["message"] == (
            f"This table speaks protocol 3 and your pitchnet speaks {old_version}, which "
            "would send your seat token and password in clear: update pitchnet to sit here."
        )
        new = await RawClient.connect(server)
        assert (await new.hello("New"))["seat"] == 0


def test_the_advert_and_the_finder_label_carry_the_rules() -> None:
    rules = PRESETS["joker"].rules
    txt = Advert("abc", "Den", 1, 4, "lobby", target=10, rules=rules.short()).txt()
    assert txt["rules"] == "joker=on" and txt["target"] == "10" and txt["v"] == "3"
    assert all(len(value.encode()) < 255 for value in txt.values())
    from client.discovery import table_from_record

    found = table_from_record(
        "Den._pitchnet._tcp.local.",
        {k.encode(): v.encode() for k, v in txt.items()},
        7373,
        ["127.0.0.1"],
    )
    assert found.rules_label == "joker, to 10"
    old = {k.encode(): v.encode() for k, v in txt.items() if k not in ("rules", "target")}
    assert table_from_record("x", old, 7373, ["127.0.0.1"]).rules_label == "standard, to 7"
    odd = {**old, b"rules": b"wild=on"}
    assert table_from_record("x", odd, 7373, ["127.0.0.1"]).rules_label == "wild=on, to 7"


def test_the_table_info_carries_the_rules_and_reads_back() -> None:
    table = _strict_table()
    wire = msgpack.unpackb(msgpack.packb(table_info(table).to_wire()))  # as a client receives it
    assert wire["rules"] == PRESETS["strict"].rules.to_wire()
    info = TableInfo.from_wire(wire)
    assert info.house_rules == PRESETS["strict"].rules
    assert TableInfo.from_wire({**wire, "rules": {"joker": "maybe"}}).house_rules is None
    del wire["rules"]
    assert TableInfo.from_wire(wire).house_rules == HouseRules()  # a host before house rules


def test_the_journal_keeps_the_rules_for_resume_and_history(tmp_path: Any) -> None:
    rules = HouseRules(joker="on", low="dealt")
    options = TableOptions(players=3, target=10, rules=rules, bots=3)
    table, journal = new_table(options, "Den", seed=5, state_dir=tmp_path)
    assert journal is not None
    journal.close()
    resumed, store, _ = resume_table(table.id, tmp_path)
    try:
        assert resumed.settings.rules == rules and resumed.settings.target == 10
        assert len(resumed.deal_deck("1.1")) == 53
        lines = list(describe(store.entries(), store.meta("options")))
        assert lines[0].startswith("Rules: low dealt joker, to 10 (Low goes to the player it was")
    finally:
        store.close()


def _host_args(*argv: str) -> Any:
    return build_parser().parse_args(["host", *argv])


def test_host_rules_and_rule_flags() -> None:
    config = config_from_args(_host_args("--rules", "joker"))
    assert config.rules == HouseRules(joker="on") and config.target == 10
    config = config_from_args(
        _host_args("--rules", "joker", "--rule", "low=dealt", "--target", "15")
    )
    assert config.rules == HouseRules(joker="on", low="dealt") and config.target == 15
    config = config_from_args(_host_args("--rule", "smudge=on", "--rule", "target=11"))
    assert config.rules == HouseRules(smudge="on") and config.target == 11
    assert config_from_args(_host_args()).rules == HouseRules()
    assert config_from_args(_host_args()).target == 7


@pytest.mark.parametrize(
    "bad", [["--rule", "jokers=on"], ["--rule", "joker=maybe"], ["--rule", "joker"]]
)
def test_host_refuses_an_unknown_rule_with_a_sentence(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["host", "--interface", "127.0.0.1", "--port", "0", *bad]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pitchnet host: ") and "Traceback" not in err


def test_simulate_plays_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    for preset in PRESETS:
        assert cli_main(["simulate", "--games", "3", "--seed", "4", "--rules", preset]) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0].endswith(f"rules {preset}")
    assert (
        cli_main(["simulate", "--games", "2", "--seed", "4", "--rule", "follow=must_follow"]) == 0
    )
    assert "rules must follow" in capsys.readouterr().out
    assert cli_main(["simulate", "--rule", "nope=1"]) == 2


async def test_the_lobby_already_shows_the_rules() -> None:
    async with running_host(rules=PRESETS["smudge"].rules) as server:
        client = await RawClient.connect(server)
        await client.hello("A")
        state = await client.expect("state")
        assert state["view"] is None and state["table"]["state"] == "lobby"
        assert TableInfo.from_wire(state["table"]).house_rules == PRESETS["smudge"].rules
