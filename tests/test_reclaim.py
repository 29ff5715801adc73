"""A player whose device died takes her own seat back from another device, once another
person at the table vouches for her; someone else typing her name does not (host/reclaims.py,
SECURITY.md "A seat on a new device"). Sans-IO, by injected time (tests/pair.py)."""

from __future__ import annotations

from typing import Any

from host.reclaims import WAIT
from host.table import Table
from pitchnet.protocol import BidMsg, Leave, PlayMsg, Reclaim, SeatKind, Vouch
from tests.pair import PairClient, RefereePair


def three_playing() -> tuple[RefereePair, list[PairClient]]:
    """Ann (the creator), Bob and Carol at a three-seat table, the match on."""
    pair = RefereePair(players=3, grace=30.0)
    clients = [
        pair.join("Ann", "10.0.0.1:1"),
        pair.join("Bob", "10.0.0.2:1"),
        pair.join("Carol", "10.0.0.3:1"),
    ]
    assert pair.table.state == "playing"
    return pair, clients


def watcher(pair: RefereePair, name: str, peer: str) -> PairClient:
    client = pair.open(peer)
    reply = pair.send(client, pair.hello(client, name, watch=True))
    assert reply[0]["type"] == "welcome" and reply[0]["spectator"]
    return client


def statuses(client: PairClient) -> list[tuple[int, str]]:
    return [(p["seat"], p["status"]) for p in client.of_type("reclaim_status")]


def carol_away(pair: RefereePair, clients: list[PairClient]) -> tuple[str, list[str], int]:
    """Carol's device dies mid-hand: her old token, her hand, her side's points."""
    token = clients[2].of_type("welcome")[0]["token"]
    hand = list(clients[2].last_state["view"]["hand"])
    pair.lose(clients[2], "reset")
    assert not pair.table.seats[2].connected
    match = pair.table.match
    assert match is not None
    return token, hand, match.scores[2]


def test_the_creator_vouches_and_carol_has_her_own_seat_and_hand_back() -> None:
    pair, clients = three_playing()
    old_token, hand, points = carol_away(pair, clients)
    pair.advance(31.0)  # past the grace period: a bot stands in
    assert pair.table.seats[2].substitute
    carol = watcher(pair, "carol", "10.0.0.9:1")
    pair.send(carol, Reclaim(seat=2))
    assert statuses(carol) == [(2, "waiting")]
    assert "Ann must confirm that you are Carol" in carol.of_type("reclaim_status")[0]["message"]
    asked = clients[0].of_type("reclaim_asked")
    assert [(a["seat"], a["name"], a["asker"], a["points"]) for a in asked] == [
        (2, "Carol", "carol", points)
    ]
    assert clients[1].of_type("reclaim_asked") == []  # the creator is here: only she is asked
    pair.send(clients[0], Vouch(seat=2, yes=True))
    assert statuses(carol)[-1] == (2, "granted")
    welcome = carol.of_type("welcome")[-1]
    assert welcome["seat"] == 2 and not welcome["spectator"]
    assert welcome["token"] and welcome["token"] != old_token
    assert pair.referee.seated()[2] == carol.conn
    seat = pair.table.seats[2]
    assert seat.name == "Carol" and seat.connected and not seat.substitute
    assert [s.kind for s in pair.table.seats].count(SeatKind.HUMAN) == 3  # no second seat, no ghost
    view = carol.last_state["view"]
    assert view is not None and view["seat"] == 2
    assert set(view["hand"]) <= set(hand) and view["hand"]  # her hand (the bot may have played)
    assert statuses(clients[0])[-1] == (2, "over")
    # The new device acts for the seat.
    match = pair.table.match
    assert match is not None
    if match.turn == 2:
        bids = match.legal_bids(2)
        move: Any = (
            BidMsg(id=1, bid=bids[0])
            if bids
            else PlayMsg(id=1, card=str(sorted(match.legal_plays(2))[0]))
        )
        assert carol.of_type("ack") == []
        pair.send(carol, move)
        assert carol.of_type("ack")


def test_the_old_device_coming_back_hears_its_seat_was_taken_back() -> None:
    pair, clients = three_playing()
    old_token, _, _ = carol_away(pair, clients)
    carol = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(carol, Reclaim(seat=2))
    pair.send(clients[0], Vouch(seat=2, yes=True))
    old = pair.open("10.0.0.3:2")
    reply = pair.send(old, pair.hello(old, "Carol", token=old_token))
    assert [(p["code"], p["fatal"]) for p in reply if p["type"] == "error"] == [("reclaimed", True)]
    assert "taken back on another device" in reply[-1]["message"]
    assert pair.referee.seated()[2] == carol.conn


def test_someone_else_typing_her_name_is_refused_and_watches_on() -> None:
    pair, clients = three_playing()
    carol_away(pair, clients)
    impostor = watcher(pair, "Carol", "10.0.0.66:1")
    pair.send(impostor, Reclaim(seat=2))
    pair.send(clients[0], Vouch(seat=2, yes=False))
    status = impostor.of_type("reclaim_status")[-1]
    assert status["status"] == "refused" and "go on watching" in status["message"]
    assert "Ann said you are not Carol" in status["message"]
    assert impostor.of_type("welcome")[-1]["spectator"]
    assert pair.referee.peers[impostor.conn].spectator
    assert 2 not in pair.referee.seated()
    # Asking again on the same connection does not ask Ann again.
    asked = len(clients[0].of_type("reclaim_asked"))
    pair.send(impostor, Reclaim(seat=2))
    assert impostor.of_type("reclaim_status")[-1]["status"] == "refused"
    assert len(clients[0].of_type("reclaim_asked")) == asked
    # Nor does another connection, for a while: nobody can keep a dialog on Ann's screen.
    other = watcher(pair, "Carol", "10.0.0.67:1")
    pair.send(other, Reclaim(seat=2))
    assert "ask again in 30 s" in other.of_type("reclaim_status")[-1]["message"]
    assert len(clients[0].of_type("reclaim_asked")) == asked
    pair.advance(31)
    pair.send(other, Reclaim(seat=2))
    assert other.of_type("reclaim_status")[-1]["status"] == "waiting"
    assert len(clients[0].of_type("reclaim_asked")) == asked + 1


def test_no_answer_in_time_refuses() -> None:
    pair, clients = three_playing()
    carol_away(pair, clients)
    asker = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=2))
    pair.advance(WAIT - 1)
    assert statuses(asker) == [(2, "waiting")]
    pair.advance(2)
    assert statuses(asker)[-1] == (2, "refused")
    assert "Nobody confirmed it in time" in asker.of_type("reclaim_status")[-1]["message"]
    assert statuses(clients[0])[-1] == (2, "over")
    assert 2 not in pair.referee.seated()


def test_without_the_creator_the_players_here_are_asked() -> None:
    pair, clients = three_playing()
    pair.lose(clients[0])  # the creator's device goes too
    carol_away(pair, clients)
    pair.pong()
    asker = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=2))
    assert len(clients[1].of_type("reclaim_asked")) == 1
    pair.send(clients[1], Vouch(seat=2, yes=True))
    assert statuses(asker)[-1] == (2, "granted")


def test_nobody_here_to_vouch_refuses_with_what_to_do() -> None:
    pair = RefereePair(players=2, grace=30.0)
    clients = [pair.join("Ann", "10.0.0.1:1"), pair.join("Carol", "10.0.0.3:1")]
    pair.lose(clients[0])
    pair.lose(clients[1])
    asker = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=1))
    status = asker.of_type("reclaim_status")[-1]
    assert status["status"] == "refused" and "Nobody else at this table" in status["message"]
    assert "Ask again" in status["message"]


def test_a_seat_whose_player_is_here_cannot_be_asked_for_and_a_player_cannot_ask() -> None:
    pair, clients = three_playing()
    asker = watcher(pair, "Bob", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=1))
    assert statuses(asker) == [(1, "refused")]
    assert clients[0].of_type("reclaim_asked") == []
    # A vouch nobody asked for changes nothing and is answered.
    reply = pair.send(clients[1], Vouch(seat=2, yes=True))
    assert [p["code"] for p in reply if p["type"] == "error"] == ["reclaim_over"]


def test_carol_coming_back_on_her_old_device_settles_the_request() -> None:
    pair, clients = three_playing()
    token, _, _ = carol_away(pair, clients)
    asker = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=2))
    pair.join("Carol", "10.0.0.3:2", token=token)
    assert statuses(asker)[-1] == (2, "refused")
    assert statuses(clients[0])[-1] == (2, "over")


def test_the_new_token_survives_a_resume_from_the_journal() -> None:
    pair, clients = three_playing()
    old_token, _, _ = carol_away(pair, clients)
    asker = watcher(pair, "Carol", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=2))
    pair.send(clients[0], Vouch(seat=2, yes=True))
    token = asker.of_type("welcome")[-1]["token"]
    table = pair.table
    resumed = Table("pair1", "Pair", table.options, table.deal_deck, seat_bots=False)
    resumed.replay(list(pair.journal.written))
    assert resumed.seats[2].token == token
    assert resumed.void_tokens == [old_token]
    assert resumed.creator_token == table.creator_token
    again = RefereePair(resumed)
    client = again.open("10.0.0.9:2")
    reply = again.send(client, again.hello(client, "Carol", token=token))
    assert reply[0]["type"] == "welcome" and reply[0]["seat"] == 2


def test_the_name_shown_to_those_asked_is_cleaned() -> None:
    pair, clients = three_playing()
    carol_away(pair, clients)
    asker = watcher(pair, "Ca\x1b[2Jrol\u202e", "10.0.0.9:1")
    pair.send(asker, Reclaim(seat=2))
    [asked] = clients[0].of_type("reclaim_asked")
    assert asked["asker"] and all(ch.isprintable() for ch in asked["asker"])
    assert "\x1b" not in asked["asker"]


def test_a_namesake_is_not_given_a_second_seat_but_watches_and_may_ask() -> None:
    """The evening in issue 24: Carol's phone died; on another device she was seated as
    "Carol 2" in a free seat beside her own. Now she is told her seat is kept, watches,
    and asks for her own."""
    pair = RefereePair(players=4, grace=30.0)
    clients = [
        pair.join(name, f"10.0.0.{n}:1") for n, name in enumerate(["Ann", "Bob", "Carol", "Dan"])
    ]
    assert pair.table.state == "playing"
    pair.send(clients[3], Leave())  # Dan's seat: a bot's for nobody, free to a newcomer
    pair.lose(clients[2], "reset")
    newcomer = pair.open("10.0.0.9:1")
    reply = pair.send(newcomer, pair.hello(newcomer, "CAROL"))
    assert [(p["code"], p["fatal"]) for p in reply if p["type"] == "error"] == [
        ("table_full", True)
    ]
    assert "Carol's seat is kept for its player" in reply[-1]["message"]
    # A look-alike spelling ("а" is Cyrillic) is her name too, not "Cаrol 2" beside her.
    lookalike = pair.open("10.0.0.8:1")
    reply = pair.send(lookalike, pair.hello(lookalike, "C\u0430rol"))
    assert [(p["code"], p["fatal"]) for p in reply if p["type"] == "error"] == [
        ("table_full", True)
    ]
    assert [s.name for s in pair.table.seats][:3] == ["Ann", "Bob", "Carol"]
    assert not any(s.claim_token for s in pair.table.seats)  # no "Carol 2" anywhere
    # Another name still takes the free seat.
    other = pair.open("10.0.0.10:1")
    reply = pair.send(other, pair.hello(other, "Eve"))
    assert reply[0]["type"] == "welcome" and reply[0]["seat"] == 3
    carol = watcher(pair, "Carol", "10.0.0.9:2")
    pair.send(carol, Reclaim(seat=2))
    pair.send(clients[0], Vouch(seat=2, yes=True))
    assert carol.of_type("welcome")[-1]["seat"] == 2
