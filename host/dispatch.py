"""The wire's side of a table: a `hello` checked, a seated player's message turned into
the table's command.

The table (host/table.py) takes domain commands (`sit_down`, `bid`, `play`, `ready`,
...) and knows no message, version, password or proof. The referee hands this module
what came over the wire: it checks what is about the protocol (the version, the table
id, the password and seat-token proofs over the connection's challenge) and calls the
one command a message stands for. A refusal is a `ProtocolError` or the table's
`RulesError`, each with the code the client words (PROTOCOL.md).
"""

from __future__ import annotations

from host.seats import NoSeat
from host.table import Table
from pitchnet.protocol import (
    PROTOCOL_VERSION,
    BidMsg,
    Hello,
    Leave,
    Message,
    PlayMsg,
    ProtocolError,
    Purpose,
    Ready,
    SeatKind,
    Sit,
    Start,
    proves,
)


def check_version(version: int) -> None:
    """Refuse a `hello` of another protocol version with a sentence its player can act on.
    Raises ProtocolError("version", fatal)."""
    if version < PROTOCOL_VERSION:
        raise ProtocolError(
            "version",
            f"This table speaks protocol {PROTOCOL_VERSION} and your pitchnet speaks "
            f"{version}, which would send your seat token and password in clear: "
            "update pitchnet to sit here.",
            fatal=True,
            params={"why": "old", "table": PROTOCOL_VERSION, "yours": version},
        )
    if version > PROTOCOL_VERSION:
        raise ProtocolError(
            "version",
            f"This table speaks protocol {PROTOCOL_VERSION}, you sent {version}: "
            "the host needs a newer pitchnet.",
            fatal=True,
            params={"why": "new", "table": PROTOCOL_VERSION, "yours": version},
        )


def _check_password(table: Table, hello: Hello, nonce: str) -> None:
    """The password, proven over `nonce` (never sent), if the table has one."""
    password = table.options.password
    if password is not None and not proves(
        hello.password_proof, password, nonce, table.id, Purpose.PASSWORD
    ):
        raise ProtocolError("bad_password", "Wrong password for this table.", fatal=True)


def join(table: Table, hello: Hello, nonce: str = "") -> int:
    """Seat the sender of `hello`: a new seat (`Table.sit_down`), or its own back by
    proving its token over `nonce`, the challenge this connection was sent. Returns the
    seat; raises ProtocolError (fatal) when it may not sit."""
    check_version(hello.version)
    if hello.table_id and hello.table_id != table.id:
        raise ProtocolError(
            "wrong_table", "That seat belongs to another table.", fatal=True, params={"why": "seat"}
        )
    if hello.seat_proof:
        return _rejoin(table, hello.seat_proof, nonce)
    _check_password(table, hello, nonce)
    try:
        return table.sit_down(hello.name, hello.seat_key)
    except NoSeat as exc:  # no seat for them: the connection has nothing left to do
        raise ProtocolError(exc.code, exc.message, fatal=True, params=exc.params) from None


def _rejoin(table: Table, seat_proof: str, nonce: str) -> int:
    """The seat whose token `seat_proof` proves, its player back (`Table.come_back`)."""

    def proven(token: str) -> bool:
        return proves(seat_proof, token, nonce, table.id, Purpose.SEAT)

    for index, seat in enumerate(table.seats):
        if seat.claim_token and proven(seat.claim_token):
            return index  # a newcomer waiting for the next hand, back again
        if seat.kind == SeatKind.HUMAN and proven(seat.token):
            table.come_back(index)
            return index
    if any(proven(old) for old in table.void_tokens):
        raise ProtocolError(
            "reclaimed",
            "Your seat was taken back on another device (another player vouched for "
            "it); this device no longer holds it. You can watch instead.",
            fatal=True,
        )
    raise ProtocolError("bad_token", "That seat token is not valid at this table.", fatal=True)


def check_watcher(table: Table, hello: Hello, nonce: str = "") -> None:
    """May the sender of `hello` watch? Same checks as a player, minus a seat (the
    password proven over `nonce`). Raises ProtocolError (fatal) if not."""
    check_version(hello.version)
    if hello.table_id and hello.table_id != table.id:
        raise ProtocolError("wrong_table", "That is another table.", fatal=True)
    if not table.options.spectators:
        raise ProtocolError("no_spectators", "This table does not take spectators.", fatal=True)
    _check_password(table, hello, nonce)


def act(table: Table, seat: int, message: Message) -> bool:
    """Carry out one message from the player at `seat` as the table's command. Returns
    False if nothing changed: a duplicate (an id already applied), or a `start` or
    `ready` that has nothing left to do, which is then neither journaled nor broadcast.
    Raises RulesError or ProtocolError, the table unchanged."""
    if isinstance(message, BidMsg):
        return table.bid(seat, message.bid, message.id, (message.hand, message.step))
    if isinstance(message, PlayMsg):
        return table.play(seat, message.card, message.id, (message.hand, message.step))
    if isinstance(message, Ready):
        return table.ready(seat, message.id, message.rotate)
    if isinstance(message, Sit):
        return table.change_seat(seat, message.seat, message.id)
    if isinstance(message, Start):
        return table.start(seat, message.id)
    if isinstance(message, Leave):
        return table.leave(seat)
    if not table.admits(seat, getattr(message, "id", None)):
        return False  # refused as the table refuses any action: a duplicate first
    raise ProtocolError("unexpected", f"{message.TYPE!r} is not an action")
