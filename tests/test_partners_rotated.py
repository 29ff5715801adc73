"""Play again with partners rotated: at the end of a partnership match the players say
`ready` with `rotate`; if most of them asked, the new match seats everyone by
`ROTATION` (each player gets a new partner), the journal records it so a resumed table
sits the same way, and the referee moves each connection with its player and welcomes
it to its new seat (tests/pair.py, injected time, no sockets)."""

from __future__ import annotations

from host.entries import MatchBegun, PartnersRotated, ReadySaid
from host.table import Table, TableOptions
from host.tables import deck_source
from pitchnet.protocol import ROTATION, BidMsg, PlayMsg, Ready
from pitchnet.rules import Phase
from tests.pair import PairClient, RefereePair
from tests.table_doubles import RecordingJournal

NAMES = ("Ann", "Bob", "Cat", "Dan")


def partnership_pair(seed: int = 5) -> tuple[RefereePair, list[PairClient]]:
    """Four people in partnership play, target 7."""
    options = TableOptions(players=4, partnership=True, target=7, bots=0)
    journal = RecordingJournal()
    table = Table("rot1", "Rotating", options, deck_source(seed), journal)
    pair = RefereePair(table)
    pair.journal = journal  # the table's journal (the pair made its own, unused)
    clients = [pair.join(name, f"10.0.0.{i + 1}:1") for i, name in enumerate(NAMES)]
    assert pair.table.state == "playing"
    return pair, clients


def seat_of(client: PairClient) -> int:
    return int(client.of_type("welcome")[-1]["seat"])


def play_to_match_end(pair: RefereePair, clients: list[PairClient]) -> None:
    """Everyone plays their first legal move (and says plain ready after each hand)."""
    by_seat = {seat_of(c): c for c in clients}
    ids = {seat: 100 for seat in by_seat}
    for _ in range(5000):
        match = pair.table.match
        assert match is not None
        if match.phase is Phase.MATCH_OVER:
            return
        if match.phase is Phase.HAND_OVER:
            for seat, client in by_seat.items():
                if not pair.table.seats[seat].ready:
                    ids[seat] += 1
                    pair.send(client, Ready(id=ids[seat]))
            continue
        turn = match.turn
        assert turn is not None
        ids[turn] += 1
        bids = match.legal_bids(turn)
        move = (
            BidMsg(id=ids[turn], bid=bids[0])
            if bids
            else PlayMsg(id=ids[turn], card=str(sorted(match.legal_plays(turn))[0]))
        )
        pair.send(by_seat[turn], move)
    raise AssertionError("the match never ended")


def say_ready(pair: RefereePair, clients: list[PairClient], rotate: list[bool]) -> None:
    for client, wanted in zip(clients, rotate, strict=True):
        pair.send(client, Ready(id=10_000, rotate=wanted))


def test_partners_rotated_moves_every_player_and_their_connection() -> None:
    pair, clients = partnership_pair()
    play_to_match_end(pair, clients)
    before = {NAMES[i]: seat_of(c) for i, c in enumerate(clients)}
    partner_before = {name: pair.table.seats[(seat + 2) % 4].name for name, seat in before.items()}
    welcomes = [len(c.of_type("welcome")) for c in clients]
    say_ready(pair, clients, [True, True, False, True])  # three of four ask
    table = pair.table
    assert table.match is not None and table.match.phase is Phase.BIDDING
    assert table.match.hand_number == 1  # a new match
    for i, client in enumerate(clients):
        name, old = NAMES[i], before[NAMES[i]]
        new = ROTATION.index(old)
        assert len(client.of_type("welcome")) == welcomes[i] + 1  # told its new seat
        assert seat_of(client) == new and table.seats[new].name == name
        assert pair.referee.holders[new].id == client.conn
        partner = table.seats[(new + 2) % 4].name
        assert partner != partner_before[name]  # everyone has a new partner
        # The connection acts for the new seat: its snapshot shows that seat's hand.
        state = client.last_state
        assert state["view"]["seat"] == new
    assert any(isinstance(e, PartnersRotated) for e in pair.journal.written)
    rotated = [e for e in pair.journal.written if isinstance(e, PartnersRotated)]
    assert rotated == [PartnersRotated(list(ROTATION))]
    entries = pair.journal.written
    at = entries.index(rotated[0])
    assert isinstance(entries[at + 1], MatchBegun)  # in the same change as the new match
    assert {"kind": "rotate", "order": list(ROTATION)} in clients[0].last_state["events"]


def test_a_resumed_table_sits_as_the_journal_rotated_it() -> None:
    pair, clients = partnership_pair()
    play_to_match_end(pair, clients)
    say_ready(pair, clients, [True, True, True, True])
    options = TableOptions(players=4, partnership=True, target=7, bots=0)
    resumed = Table("rot1", "Rotating", options, deck_source(5), seat_bots=False)
    resumed.replay(list(pair.journal.written))
    assert [s.name for s in resumed.seats] == [s.name for s in pair.table.seats]
    assert [s.token for s in resumed.seats] == [s.token for s in pair.table.seats]
    assert resumed.match is not None and resumed.match.hand_number == 1


def test_a_tie_or_a_minority_keeps_the_seats() -> None:
    pair, clients = partnership_pair()
    play_to_match_end(pair, clients)
    before = [seat_of(c) for c in clients]
    say_ready(pair, clients, [True, True, False, False])  # two against two
    assert pair.table.match is not None and pair.table.match.hand_number == 1
    assert [seat_of(c) for c in clients] == before
    assert not any(isinstance(e, PartnersRotated) for e in pair.journal.written)
    assert [e.rotate for e in pair.journal.written if isinstance(e, ReadySaid)][-4:] == [
        True,
        True,
        False,
        False,
    ]


def test_the_votes_show_to_everyone_and_a_changed_mind_counts() -> None:
    pair, clients = partnership_pair()
    play_to_match_end(pair, clients)
    ann = seat_of(clients[0])
    pair.send(clients[0], Ready(id=10_000, rotate=True))
    seats = clients[1].last_state["table"]["seats"]
    assert seats[ann]["rotate"] and seats[ann]["ready"]
    pair.send(clients[0], Ready(id=10_001, rotate=False))  # changed her mind
    assert not clients[1].last_state["table"]["seats"][ann]["rotate"]


def test_rotate_outside_partnership_play_is_plain_ready() -> None:
    pair = RefereePair(players=2)
    clients = [pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")]
    play_to_match_end(pair, clients)
    before = [seat_of(c) for c in clients]
    for i, client in enumerate(clients):
        pair.send(client, Ready(id=10_000 + i, rotate=True))
    assert pair.table.match is not None and pair.table.match.hand_number == 1
    assert [seat_of(c) for c in clients] == before
    assert not any(isinstance(e, PartnersRotated) for e in pair.journal.written)


def test_a_rotation_settled_at_resume_moves_no_connection_twice() -> None:
    """Every ready was journaled but not the new match (a host stopped in between):
    the resumed table rotates when it settles, before any connection exists, and the
    players who come back are welcomed to their new seats and stay there."""
    pair, clients = partnership_pair()
    play_to_match_end(pair, clients)
    tokens = {NAMES[i]: c.of_type("welcome")[-1]["token"] for i, c in enumerate(clients)}
    old = {NAMES[i]: seat_of(c) for i, c in enumerate(clients)}
    options = TableOptions(players=4, partnership=True, target=7, bots=0)
    entries = list(pair.journal.written)
    for i in range(4):
        seat = old[NAMES[i]]
        entries.append(ReadySaid(seat, 10_000, rotate=True))
    resumed = Table("rot1", "Rotating", options, deck_source(5), seat_bots=False)
    resumed.replay(entries)
    assert resumed.settle()
    back = RefereePair(resumed)
    for name in NAMES:
        client = back.join(name, "10.0.1.1:1", token=tokens[name])
        assert seat_of(client) == ROTATION.index(old[name])
        assert back.referee.holders[seat_of(client)] is not None
    assert {seat: p.id for seat, p in back.referee.holders.items()} == {
        seat_of(c): c.conn for c in back.clients.values() if c.of_type("welcome")
    }
