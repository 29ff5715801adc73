"""The client's connection decisions (client/session.py) against the real referee,
through the same in-memory pair as the host's tests: no sockets, no waits, the pair's
clock handed to both ends. What a `Connection` would write goes to the referee as
bytes, and what the referee sends back is fed to the session frame by frame."""

from __future__ import annotations

import base64
import random
from typing import Any

import pytest

from client.connection import Connection
from client.messages import Disconnected, News, Welcomed
from client.session import (
    BACK_TO_OUR_TABLE,
    IMPOSTOR,
    LOBBY_SEAT_FREED,
    STILL_TRYING,
    UNKNOWN_SEAT,
    After,
    ClientSession,
    HostClosed,
    Lost,
    Moved,
    Refused,
)
from client.tokens import SavedSeat
from pitchnet.i18n import _
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    BidMsg,
    Bye,
    Challenge,
    ErrorMsg,
    Welcome,
)
from tests.pair import PairClient, RefereePair

ADDRESS = ("10.0.0.9", 7000)
Ending = HostClosed | Moved | Refused | Lost


class Player:
    """A `Connection`'s session, its news, and its current link to a pair's referee."""

    def __init__(self, pair: RefereePair, name: str, **options: Any) -> None:
        self.pair = pair
        self.news: list[News] = []
        connection = Connection(*ADDRESS, name, self.news.append, **options)
        self.session: ClientSession = connection.session
        self.keys: list[str] = []
        """The seat keys the session offered, in order (seeded: a test is repeatable)."""
        seeded = random.Random(name)

        def make_key(size: int) -> str:
            self.keys.append(base64.urlsafe_b64encode(seeded.randbytes(size)).decode().rstrip("="))
            return self.keys[-1]

        self.session.make_key = make_key
        self.link: PairClient | None = None
        self._read = 0

    def connect(self, pair: RefereePair | None = None) -> Ending | None:
        """Open a link (to `pair`, or the player's own) and let both ends talk until
        quiet; returns what ended the link, if it ended."""
        pair = pair or self.pair
        self.link = pair.open(f"10.0.0.{len(pair.clients) + 20}:1")
        self.link.answer_pings = False  # the session answers its own pings
        self._read = 0
        self.session.opened(pair.now, nonce="ab" * 16)
        return self.talk(pair)

    def talk(self, pair: RefereePair | None = None) -> Ending | None:
        """Carry frames both ways until neither end has more to say."""
        pair = pair or self.pair
        assert self.link is not None
        for _round in range(100):
            fresh = self.link.received[self._read :]
            self._read += len(fresh)
            try:
                for payload in fresh:
                    self.session.receive(payload, pair.now)
            except (HostClosed, Moved, Refused, Lost) as ended:
                return ended
            data = self.session.data_to_send()
            if data and self.link.closed is None:
                pair.send_bytes(self.link, data)
            elif not fresh:
                return None
        raise AssertionError("the two ends never went quiet")

    def drop(self) -> After:
        """The link breaks under both ends; what the session decides next."""
        assert self.link is not None
        assert self.talk() is None  # what the host said before the drop was heard
        self.pair.lose(self.link, "reset")
        return self.session.after(Lost("The link dropped."), self.pair.now)

    def said(self, kind: type[News]) -> list[Any]:
        return [n for n in self.news if isinstance(n, kind)]


def test_a_newcomer_sits_with_the_key_it_offered_and_is_told_so() -> None:
    pair = RefereePair(players=3)
    ann = Player(pair, "Ann")
    assert ann.connect() is None
    assert ann.session.connected and ann.session.seat == 0
    assert ann.session.token == ann.keys[0]  # the key offered in hello, taken by the host
    assert pair.table.seats[0].name == "Ann"
    welcomed = ann.said(Welcomed)
    assert len(welcomed) == 1 and welcomed[0].connection is ann.session.owner


def test_a_dropped_player_comes_back_to_the_same_seat_and_a_move_sent_meanwhile_counts_once() -> (
    None
):
    pair = RefereePair(players=2)
    ann, bob = Player(pair, "Ann"), Player(pair, "Bob")
    ann.connect(), bob.connect()
    assert pair.table.state == "playing"
    match = pair.table.match
    assert match is not None and match.turn is not None
    mover = (ann, bob)[match.turn]
    seat = match.turn
    then = mover.drop()
    assert not then.stop and 0 < then.delay <= 1.2
    assert mover.said(Disconnected)[-1].retrying
    bids = match.legal_bids(seat)
    assert bids, "a match begins with the bidding"
    # The player bids while the link is down: nothing goes out, the move is pending.
    action = mover.session.bid(bids[0])
    assert mover.session.data_to_send() == b"" and mover.session.pending == [action]
    steps_before = match.hand.step if match.hand else 0
    assert mover.connect() is None
    assert mover.session.seat == seat and mover.session.pending == []
    assert pair.table.seats[seat].connected
    assert match.hand is not None and match.hand.step == steps_before + 1
    # Sent again (as if the ack had been lost): the referee applies an id once.
    assert mover.link is not None
    pair.send(mover.link, BidMsg(id=action, bid=bids[0]))
    assert match.hand.step == steps_before + 1


def test_a_host_that_does_not_know_our_seat_is_not_believed_and_the_token_is_kept() -> None:
    pair = RefereePair(players=2)
    ann, bob = Player(pair, "Ann"), Player(pair, "Bob")
    ann.connect(), bob.connect()
    token = ann.session.token
    ann.drop()
    stranger = RefereePair(players=2)  # same table id, never heard of Ann's token
    ended = ann.connect(stranger)
    assert isinstance(ended, Refused) and ann.session.refusal in ("bad_token", "wrong_table")
    then = ann.session.after(ended, stranger.now)
    assert not then.stop and ann.session.token == token
    last = ann.said(Disconnected)[-1]
    assert last.retrying and _(UNKNOWN_SEAT) in last.reason and _(STILL_TRYING) in last.reason
    assert ann.connect() is None and ann.session.seat == 0  # the real table takes it back


def test_a_welcome_without_the_proof_of_our_token_is_an_impostor_never_tried_again() -> None:
    pair = RefereePair(players=2)
    ann, bob = Player(pair, "Ann"), Player(pair, "Bob")
    ann.connect(), bob.connect()
    ann.drop()
    ann.session.host, ann.session.port = ("10.0.0.66", 7000)
    ann.session.opened(pair.now, nonce="cd" * 16)
    challenge = Challenge(version=PROTOCOL_VERSION, nonce="ef" * 16, table_id="pair1")
    ann.session.receive(challenge.to_wire(), pair.now)
    assert ann.session.data_to_send()  # it answered with a hello (our proofs, not secrets)
    welcome = Welcome(
        version=PROTOCOL_VERSION,
        table_id="pair1",
        table_name="Pair",
        seat=0,
        heartbeat=1.0,
        proof="00" * 32,
    )
    with pytest.raises(Refused) as raised:
        ann.session.receive(welcome.to_wire(), pair.now)
    assert str(raised.value) == _(IMPOSTOR) and ann.session.refusal == "impostor"
    then = ann.session.after(raised.value, pair.now)
    assert not then.stop
    assert (ann.session.host, ann.session.port) == ADDRESS  # back to where it welcomed us
    assert ("10.0.0.66", 7000) in ann.session.impostors
    ann.session.relocated(("10.0.0.66", 7000))  # the finder points there again: ignored
    assert (ann.session.host, ann.session.port) == ADDRESS


def test_a_lobby_that_freed_our_seat_takes_us_back_as_a_newcomer_and_says_so() -> None:
    pair = RefereePair(players=3)
    ann = Player(pair, "Ann")
    ann.connect()
    ann.drop()  # a lobby frees the seat of whoever drops off
    assert pair.table.seats[0].kind == "empty"
    ended = ann.connect()
    assert isinstance(ended, Refused)
    then = ann.session.after(ended, pair.now)
    assert then == After(stop=False) and ann.session.token is None
    assert ann.connect() is None and ann.session.connected
    assert ann.said(Welcomed)[-1].note == _(LOBBY_SEAT_FREED)


def test_remembered_tokens_are_tried_in_turn_then_a_newcomer_sits_and_none_is_forgotten() -> None:
    pair = RefereePair(players=3)
    saved = SavedSeat("pair1", "Ann", *ADDRESS, token="lost-1", kept=("lost-2",))
    ann = Player(pair, "Ann", remembered=saved)
    tried = []
    for _attempt in range(3):
        tried.append(ann.session.token)
        ended = ann.connect()
        if ended is None:
            break
        assert ann.session.after(ended, pair.now) == After(stop=False)
    assert tried == ["lost-1", "lost-2", None]
    assert ann.session.connected and ann.session.seat == 0
    assert set(ann.session.kept_tokens) == {"lost-1", "lost-2"}


def test_a_silent_host_is_dead_after_the_limit_and_a_live_one_is_pinged() -> None:
    pair = RefereePair(players=3)
    ann = Player(pair, "Ann", dead_after=3.0)
    ann.connect()
    ann.session.tick(pair.now + 0.1, 1.0)
    assert b"ping" in ann.session.data_to_send()
    ann.session.tick(pair.now + 0.5, 1.0)
    assert ann.session.data_to_send() == b""  # the next ping waits a heartbeat
    with pytest.raises(Lost):
        ann.session.tick(pair.now + 3.2, 1.0)


def test_a_move_the_host_could_not_record_goes_again_a_second_later() -> None:
    pair = RefereePair(players=3)
    ann = Player(pair, "Ann")
    ann.connect()
    action = ann.session.start()
    sent = ann.session.data_to_send()
    error = ErrorMsg(code="journal", message="The host could not write.", id=action)
    ann.session.receive(error.to_wire(), pair.now)
    assert ann.session.pending == [action]
    ann.session.tick(pair.now + 0.5, 1.0)
    assert b"start" not in ann.session.data_to_send()
    ann.session.tick(pair.now + 1.0, 1.0)
    assert sent in ann.session.data_to_send()


def test_after_trying_for_the_give_up_time_the_player_is_told_the_seat_is_remembered() -> None:
    pair = RefereePair(players=2)
    ann, bob = Player(pair, "Ann", give_up_after=60.0), Player(pair, "Bob")
    ann.connect(), bob.connect()
    assert not ann.drop().stop
    assert not ann.session.after(OSError(111, "refused"), pair.now + 59).stop
    assert ann.session.after(OSError(111, "refused"), pair.now + 60).stop
    last = ann.said(Disconnected)[-1]
    assert not last.retrying and "remembered" in last.reason and ann.session.token
    assert "could not be reached" in last.reason  # not "went away": it may be our Wi-Fi


def test_the_host_ending_the_table_stops_without_retrying_and_keeps_the_token() -> None:
    pair = RefereePair(players=3)
    ann = Player(pair, "Ann")
    ann.connect()
    bye = Bye(reason="The host closed the table.", code="closed")
    with pytest.raises(HostClosed) as raised:
        ann.session.receive(bye.to_wire(), pair.now)
    assert ann.session.after(raised.value, pair.now).stop
    assert ann.said(Disconnected)[-1].closed and ann.session.token == ann.keys[0]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (ErrorMsg("bad_token", "not valid here", fatal=True), UNKNOWN_SEAT),
        (ErrorMsg("wrong_table", "another table", fatal=True), UNKNOWN_SEAT),
        # The host's code, worded by the client (not the host's sentence), not believed.
        (ErrorMsg("table_full", "full", fatal=True), "Every seat at this table is taken."),
        (Bye("closed", code="closed"), "The host closed the table."),
        (Bye("moved", code="moved", address="10.0.0.8:9", table_id="t2"), "The table moved."),
    ],
    ids=lambda value: getattr(value, "code", ""),
)
def test_a_reconnect_believes_no_refusal_from_a_host_found_elsewhere_that_proved_nothing(
    answer: ErrorMsg | Bye, said: str
) -> None:
    """Our table drops; looked up by its id, another address answers our returning
    `hello` with a refusal (or "closed", or "moved") before proving anything. Anyone can
    send that: the token is kept, the player is told, that address is never tried again,
    and the table's own address takes the seat back with its proof."""
    pair = RefereePair(players=2)
    ann, bob = Player(pair, "Ann"), Player(pair, "Bob")
    ann.connect(), bob.connect()
    token = ann.session.token
    assert not ann.drop().stop
    elsewhere = ("10.0.0.66", 7000)
    ann.session.relocated(elsewhere)
    ann.session.opened(pair.now, nonce="cd" * 16)
    challenge = Challenge(version=PROTOCOL_VERSION, nonce="ef" * 16, table_id="pair1")
    ann.session.receive(challenge.to_wire(), pair.now)
    assert b"seat_proof" in ann.session.data_to_send()  # proofs of the token, never it
    with pytest.raises((Refused, HostClosed, Moved)) as raised:
        ann.session.receive(answer.to_wire(), pair.now)
    then = ann.session.after(raised.value, pair.now)
    assert not then.stop and ann.session.token == token
    assert f"{_(said)} {_(BACK_TO_OUR_TABLE)}" == ann.said(Disconnected)[-1].reason
    assert (ann.session.host, ann.session.port) == ADDRESS
    assert elsewhere in ann.session.impostors
    assert ann.connect() is None and ann.session.seat == 0
    assert ann.said(Welcomed)[-1].welcome.proof is not None
