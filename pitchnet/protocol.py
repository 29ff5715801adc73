"""The wire protocol, sans-IO: framing, message schema, encode/decode and validation.

A frame is a 4-byte big-endian length followed by one msgpack map with a `type`
string. Messages are small frozen dataclasses, one per type; their annotations
*are* the schema, so validation cannot drift from the classes. Every decoding
failure becomes a `ProtocolError` with a code, never a stray exception, so the
I/O layers can answer a misbehaving peer without crashing. PROTOCOL.md is the
human-readable contract for all of this.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol

import msgpack  # ships no type hints: pyproject.toml lets mypy skip it

from pitchnet.house_rules import HouseRules, RulesConfigError
from pitchnet.schema import (
    MAX_ID,
    MAX_NAME,
    STRING_LIMITS,
    ProtocolError,
    build,
    from_map,
    tagged_map,
)
from pitchnet.views import SeatView

__all__ = ["MAX_ID", "MAX_NAME", "STRING_LIMITS", "ProtocolError", "from_map"]
"""Besides what is defined here: the one validator's names (pitchnet/schema.py)."""

PROTOCOL_VERSION = 3
"""3: secrets are proven over a host nonce (`challenge`), never sent (1 and 2 sent them in
clear; 2 added the house rules). Every table speaks exactly this version: see PROTOCOL.md."""


def can_join(version: int) -> bool:
    """Whether this pitchnet can sit at a table that speaks `version`: only its own, since
    an older table would take its secrets in clear and a newer one it cannot read."""
    return version == PROTOCOL_VERSION


def version_problem(version: int) -> str | None:
    """Why a table that speaks `version` cannot be joined from here, as a sentence (None
    when it can)."""
    if version < PROTOCOL_VERSION:
        return (
            f"That table runs an older pitchnet (protocol {version}, this one speaks "
            f"{PROTOCOL_VERSION}), which takes seat tokens and passwords in clear; "
            "ask its host to update pitchnet."
        )
    if version > PROTOCOL_VERSION:
        return (
            f"That table speaks protocol {version}; this client speaks {PROTOCOL_VERSION}. "
            "Update pitchnet on one side."
        )
    return None


SERVICE_TYPE = "_pitchnet._tcp.local."
DEFAULT_PORT = 7373
"""Where a host listens unless told otherwise (and where a bare address is dialled)."""

MAX_FRAME = 64 * 1024
"""Largest payload a host may send (a `state` frame); a larger length is refused
before buffering."""
MAX_CLIENT_FRAME = 4 * 1024
"""Largest payload the host takes from a seated client: every client message is under
700 bytes, and what a frame costs to decode grows with its length (a 64 KiB frame of
nested empty arrays costs the host about 12 ms, a 4 KiB one under 1 ms)."""
MAX_HELLO_FRAME = 1024
"""Largest payload the host takes before `hello` has seated the connection."""
HEADER = struct.Struct(">I")
MAX_STR = 512
"""Longest string inside any message (per-field limits are tighter, see `STRING_LIMITS`)."""
MAX_CONTAINER = 256
"""Most items in any msgpack array or map of a host frame (a seat view needs far fewer)."""
MAX_CLIENT_CONTAINER = 16
"""Most items in any array or map of a client frame (a `hello` has 9 keys)."""
MAX_DEPTH = 8
"""Deepest nesting of arrays and maps in a frame (a seat view needs 5)."""
MAX_PASSWORD = 128
"""Longest table password, in characters (the clients' prompts take no more)."""
NONCE_BYTES = 16
SEAT_KEY_BYTES = 24
"""A newcomer's `seat_key`: as many random bytes as the host's own seat tokens."""
"""Random bytes in each nonce (sent as 32 hex digits)."""


class Purpose(StrEnum):
    """What a proof is for, mixed into it so one proof never stands in for another."""

    SEAT = "seat"
    PASSWORD = "password"
    HOST = "host"


def prove(secret: str, nonce: str, table_id: str, purpose: Purpose) -> str:
    """HMAC-SHA256 of `secret` over the nonce, the table and the purpose, in hex. The
    secret itself never goes on the wire: a proof is only good for the one nonce, so a
    recorded `hello` (or one an impostor collected with its own nonce) is worthless
    anywhere else."""
    message = "\0".join((nonce, table_id, str(purpose))).encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def proves(proof: str | None, secret: str, nonce: str, table_id: str, purpose: Purpose) -> bool:
    """True if `proof` is `prove(secret, ...)`, compared in constant time."""
    if not proof or not secret:
        return False
    return hmac.compare_digest(proof.encode(), prove(secret, nonce, table_id, purpose).encode())


# ---- framing ---------------------------------------------------------------------------------


def frame(payload: dict[str, Any]) -> bytes:
    """Pack one map into a length-prefixed frame."""
    body: bytes = msgpack.packb(payload, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ValueError(f"frame of {len(body)} bytes exceeds {MAX_FRAME}")
    return HEADER.pack(len(body)) + body


def unpack_payload(body: bytes, max_container: int = MAX_CONTAINER) -> dict[str, Any]:
    """Decode one frame's payload into a map, with every limit enforced. msgpack's
    unpacker checks the string, bin, ext and container lengths while it decodes, so an
    oversized item is refused before it is built; the frame's length bounds how many
    items there can be in all."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=MAX_STR,
            max_bin_len=0,
            max_array_len=max_container,
            max_map_len=max_container,
            max_ext_len=0,
        )
    except Exception as exc:  # msgpack raises many types; all mean the same to us
        raise ProtocolError("bad_frame", f"undecodable frame: {exc}", fatal=True) from None
    if not isinstance(value, dict):
        raise ProtocolError("bad_frame", "a frame must hold a map", fatal=True)
    if _too_deep(value):
        raise ProtocolError("bad_frame", f"a frame nests deeper than {MAX_DEPTH}", fatal=True)
    return value


def _too_deep(value: Any) -> bool:
    """True if containers nest deeper than MAX_DEPTH. Walks one level at a time, keeping
    only the containers (every client runs this on every state it receives)."""
    level = [value]
    for _ in range(MAX_DEPTH):
        level = [
            child
            for item in level
            for child in (item.values() if type(item) is dict else item)
            if type(child) is dict or type(child) is list
        ]
        if not level:
            return False
    return True


class DecodeBudget(Protocol):
    """How many payload bytes a peer may still have decoded (host/limits.py)."""

    def allow(self, cost: float = 1.0) -> bool: ...


class FrameDecoder:
    """Accumulates bytes and yields complete payload maps. The buffer never holds more
    than one header plus one frame of at most `max_frame` bytes. With a `budget`, each
    frame's length is charged to it before the frame is decoded: a peer that sends more
    than the budget allows is cut off (`rate_limited`, fatal) before it costs more."""

    def __init__(
        self,
        max_frame: int = MAX_FRAME,
        *,
        max_container: int = MAX_CONTAINER,
        budget: DecodeBudget | None = None,
    ) -> None:
        self.max_frame = max_frame
        self.max_container = max_container
        self.budget = budget
        self._buffer = bytearray()

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a complete frame."""
        return len(self._buffer)

    def discard(self) -> None:
        """Forget whatever is buffered (its connection is closing)."""
        self._buffer.clear()

    def feed(self, data: bytes) -> Iterator[dict[str, Any]]:
        if not self._buffer and len(data) > HEADER.size:
            (length,) = HEADER.unpack_from(data)
            if length == len(data) - HEADER.size and length <= self.max_frame:
                # Nothing buffered and exactly one whole frame: most reads are one
                # message, decoded from the bytes as they came (no copy through the buffer).
                self._charge(length)
                yield unpack_payload(data[HEADER.size :], self.max_container)
                return
        self._buffer.extend(data)
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if length > self.max_frame:
                self._buffer.clear()
                raise ProtocolError(
                    "too_big", f"frame of {length} bytes exceeds {self.max_frame}", fatal=True
                )
            end = HEADER.size + length
            if len(self._buffer) < end:
                return
            self._charge(length)
            body = bytes(self._buffer[HEADER.size : end])
            del self._buffer[:end]
            yield unpack_payload(body, self.max_container)

    def _charge(self, length: int) -> None:
        """Charge a frame's length to the budget before it is decoded; past the budget
        the peer is cut off, and nothing it sent stays buffered."""
        if self.budget is not None and not self.budget.allow(length):
            self._buffer.clear()
            raise ProtocolError(
                "rate_limited", "Too much data; slow down.", fatal=True, params={"why": "data"}
            )


# ---- messages --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Message:
    """Base of every message; `TYPE` is the value of the `type` key on the wire."""

    TYPE: ClassVar[str] = ""

    def to_wire(self) -> dict[str, Any]:
        """A shallow map: the fields are already plain data, so no deep copy is made."""
        return tagged_map(self, "type", self.TYPE)

    def encode(self) -> bytes:
        return frame(self.to_wire())


# Client -> host ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hello(Message):
    """The client's answer to `challenge`. With `seat_proof` (its seat token, proven over
    the host's nonce) it asks for its seat back; `password_proof` proves the password
    the same way; `challenge` is the client's own nonce, which the host's `welcome` must
    answer with proof that it knows the seat's token."""

    TYPE: ClassVar[str] = "hello"
    version: int
    name: str
    table_id: str | None = None
    seat_proof: str | None = None
    password_proof: str | None = None
    challenge: str | None = None
    watch: bool = False
    """Watch without a seat (a spectator sees what is public and no hand at all)."""
    seen: list[int] | None = None
    """With `seat_proof`: how far this client had seen the game at this table, as
    `[table.match, *view.progress]` of the last state it got (PROTOCOL.md section 7)."""
    seat_key: str | None = None
    """A newcomer's own choice of seat token (32 URL-safe characters from a secure
    random source), held before it says hello: a host that journals the new seat and
    dies before its `welcome` arrives has seated it with a token the client holds, so
    the client proves it on its next hello and sits again (issue 27). Without one, the
    host chooses the token, as older clients expect."""


@dataclass(frozen=True, slots=True)
class Start(Message):
    """Start now, bots filling the empty seats (only the table's first player may)."""

    TYPE: ClassVar[str] = "start"
    id: int


@dataclass(frozen=True, slots=True)
class Sit(Message):
    """In the lobby, move to another open seat (`seat` counts from 0); in partnership
    play that is how a player picks a side. Answered by a fresh `welcome`."""

    TYPE: ClassVar[str] = "sit"
    id: int
    seat: int


@dataclass(frozen=True, slots=True)
class BidMsg(Message):
    """A bid (nil = pass). `hand` and `step`, from the view it answers, name the turn:
    a bid resent after a reconnect into a later turn is refused as `stale`."""

    TYPE: ClassVar[str] = "bid"
    id: int
    bid: int | None
    hand: int | None = None
    step: int | None = None


@dataclass(frozen=True, slots=True)
class PlayMsg(Message):
    """A card to play; `hand` and `step` as for `bid`."""

    TYPE: ClassVar[str] = "play"
    id: int
    card: str
    hand: int | None = None
    step: int | None = None


ROTATION = (0, 3, 1, 2)
"""Partners rotated, for the four seats of partnership play: new seat i is taken by
whoever sat in seat ROTATION[i]. Seat 1 keeps its place and everyone else moves one
round, so each player gets a new partner (three rotations run through every pairing)."""


@dataclass(frozen=True, slots=True)
class Ready(Message):
    """Done reading the hand summary (or the match result): deal on. At the end of a
    partnership match, `rotate` asks to play again with partners rotated (see
    `ROTATION`): the new match rotates them if most of the players who said `ready`
    asked for it."""

    TYPE: ClassVar[str] = "ready"
    id: int
    rotate: bool = False


@dataclass(frozen=True, slots=True)
class Leave(Message):
    """Give the seat up for good (a bot takes it over if a match is on)."""

    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True)
class Away(Message):
    """Going now, on purpose, but perhaps back soon (a browser tab closed, which cannot be
    told from a reload): a bot plays the seat at once, without the grace period a lost
    connection gets, and the seat's token still brings its player back. Not an action:
    no id, no ack; the host answers `bye {code: "away"}` and closes."""

    TYPE: ClassVar[str] = "away"


@dataclass(frozen=True, slots=True)
class React(Message):
    """A quick reaction (an id of `pitchnet.reactions.Reaction`, never free text). Not an
    action: no id, no ack, not journaled; the host relays it as `reacted` or refuses it."""

    TYPE: ClassVar[str] = "react"
    reaction: str


@dataclass(frozen=True, slots=True)
class Reclaim(Message):
    """A watcher asks for the seat of a player who is away (lost the connection): they
    say it is their own, from another device. Another person at the table must vouch
    for them (`reclaim_asked`, `vouch`); the answer comes as `reclaim_status`."""

    TYPE: ClassVar[str] = "reclaim"
    seat: int


@dataclass(frozen=True, slots=True)
class Vouch(Message):
    """A seated player's answer to `reclaim_asked`: `yes` if the watcher asking for
    `seat` is its player."""

    TYPE: ClassVar[str] = "vouch"
    seat: int
    yes: bool


# Both ways -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ping(Message):
    TYPE: ClassVar[str] = "ping"
    t: float


@dataclass(frozen=True, slots=True)
class Pong(Message):
    TYPE: ClassVar[str] = "pong"
    t: float


# Host -> client ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Challenge(Message):
    """The host's first frame: a fresh nonce for this connection that every proof in the
    client's `hello` must cover, and the table the proofs are for."""

    TYPE: ClassVar[str] = "challenge"
    version: int
    nonce: str
    table_id: str


@dataclass(frozen=True, slots=True)
class Welcome(Message):
    """The handshake's answer: the seat, and for a new player its secret token (keep it
    to come back). A seat won back by proof gets no token (the client has it) but
    `proof`: the token proven over the client's `challenge`, so the client knows this
    host is the table it sat at."""

    TYPE: ClassVar[str] = "welcome"
    version: int
    table_id: str
    table_name: str
    seat: int
    heartbeat: float
    token: str | None = None
    last_id: int = 0
    """The last action id applied for this seat: a restarted client numbers on from it."""
    spectator: bool = False
    """Watching, not seated (`seat` and `token` mean nothing then)."""
    proof: str | None = None


@dataclass(frozen=True, slots=True)
class State(Message):
    """A snapshot: the table (seats, names, lobby/playing/over) and this seat's view.
    `seq` grows with every change; `events` says what happened since the last one (read
    one by one with `events_from_wire`: one the client cannot read is left out of the log,
    never the snapshot). The host packs its frames itself (`state_frames`), to the map
    this message's `to_wire` makes."""

    TYPE: ClassVar[str] = "state"
    seq: int
    table: TableInfo
    view: SeatView | None
    events: list[Any] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        view = None if self.view is None else self.view.to_wire()
        return {
            "type": self.TYPE,
            "seq": self.seq,
            "table": self.table.to_wire(),
            "view": view,
            "events": self.events,
        }


@dataclass(frozen=True, slots=True)
class Ack(Message):
    """An action was applied (or had already been: `duplicate`)."""

    TYPE: ClassVar[str] = "ack"
    id: int
    duplicate: bool = False


def _without_no_params(message: ErrorMsg | Bye | ReclaimStatus) -> dict[str, Any]:
    """A message's map with `params` left out when there are none: a code that says it
    all costs no bytes more than before, and reads the same to older clients."""
    wire = tagged_map(message, "type", message.TYPE)
    if wire.get("params") is None:
        del wire["params"]
    return wire


@dataclass(frozen=True, slots=True)
class ErrorMsg(Message):
    """A refusal. `code` and `params` are its meaning, which a client words in its own
    player's language (client/meanings.py); `message` is the same in English, for
    clients that predate the codes (PROTOCOL.md, "Codes, not sentences")."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    id: int | None = None
    fatal: bool = False
    params: dict[str, Any] | None = None
    """Plain values (str, int, bool, nil, lists of them): a seat (counted from 0), a bid,
    a suit's letter, a card's text; `why` tells apart the cases of one code."""

    def to_wire(self) -> dict[str, Any]:
        return _without_no_params(self)


@dataclass(frozen=True, slots=True)
class Bye(Message):
    """The host is closing this connection or shutting down."""

    TYPE: ClassVar[str] = "bye"
    reason: str
    code: str = "shutdown"
    """"closed": the host's person ended the table on purpose (do not retry; the
    table may be resumed later and joined again); "shutdown": the host is stopping
    but expects to be back (keep retrying);
    "replaced": another connection took this seat over; "moved": this lobby closed
    in favour of an older one at `address` (join it); "left": the player gave the
    seat up with `leave`; "away": the player went with `away`, keeping the token (do not
    retry after any of these)."""
    address: str | None = None
    """With code "moved": "host:port" of the table everyone here moves to."""
    table_id: str | None = None
    """With code "moved": that table's id."""
    params: dict[str, Any] | None = None
    """What the code means beyond itself (`why` for a case of it), as in `ErrorMsg`;
    `reason` is the same in English, for older clients."""

    def to_wire(self) -> dict[str, Any]:
        return _without_no_params(self)


@dataclass(frozen=True, slots=True)
class Reacted(Message):
    """Someone at the table reacted: `seat` (None for a spectator) and their `name`,
    sent to every seat and watcher alike. Not game state: a client that misses one
    misses nothing of the game."""

    TYPE: ClassVar[str] = "reacted"
    reaction: str
    name: str
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class ReclaimAsked(Message):
    """To the people asked to vouch: a watcher who calls themselves `asker` asks for
    `seat`, whose player `name` is away (with `points`, their side's score). Answer with
    `vouch` within `wait` seconds; no answer refuses."""

    TYPE: ClassVar[str] = "reclaim_asked"
    seat: int
    name: str
    asker: str
    points: int = 0
    wait: float = 60.0


@dataclass(frozen=True, slots=True)
class ReclaimStatus(Message):
    """Where a `reclaim` of `seat` stands, with the sentence to show: "waiting" (to the
    asker: who was asked), "granted" (to the asker, before the `welcome` to its seat),
    "refused" (to the asker: why, and that they go on watching), and "over" (to those
    asked to vouch: the question is settled, close it)."""

    TYPE: ClassVar[str] = "reclaim_status"
    seat: int
    status: str
    message: str
    params: dict[str, Any] | None = None
    """Its meaning, for the client to word (PROTOCOL.md, `reclaim_status`): the seat's
    player's `name`; with "refused", `why`; `message` is the same in English."""

    def to_wire(self) -> dict[str, Any]:
        return _without_no_params(self)


def answer(
    challenge: Challenge,
    name: str,
    *,
    token: str | None = None,
    password: str | None = None,
    table_id: str | None = None,
    nonce: str | None = None,
    watch: bool = False,
    seen: list[int] | None = None,
    seat_key: str | None = None,
) -> Hello:
    """The `hello` that answers `challenge`: the seat token and the password proven over
    its nonce (never sent), and `nonce`, the client's own challenge to the host."""
    table = challenge.table_id
    return Hello(
        PROTOCOL_VERSION,
        name,
        table_id=table_id,
        seat_proof=prove(token, challenge.nonce, table, Purpose.SEAT) if token else None,
        # A seat proven needs no password (the host does not ask): none is sent for
        # an impostor to try a word list against. A watcher is always asked for it.
        password_proof=prove(password, challenge.nonce, table, Purpose.PASSWORD)
        if password and (watch or not token)
        else None,
        challenge=nonce,
        watch=watch,
        seen=seen if token else None,
        seat_key=None if token or watch else seat_key,
    )


CLIENT_MESSAGES: dict[str, type[Message]] = {
    m.TYPE: m
    for m in (Hello, Start, Sit, BidMsg, PlayMsg, Ready, Leave, Away, Reclaim, Vouch, Ping, Pong)
}
HOST_MESSAGES: dict[str, type[Message]] = {
    m.TYPE: m
    for m in (
        Challenge,
        Welcome,
        State,
        Ack,
        ErrorMsg,
        Bye,
        ReclaimAsked,
        ReclaimStatus,
        Ping,
        Pong,
    )
}
# Reactions sit apart from the lists above (see pitchnet/reactions.py).
CLIENT_MESSAGES[React.TYPE] = React
HOST_MESSAGES[Reacted.TYPE] = Reacted
ACTIONS = (Start, Sit, BidMsg, PlayMsg, Ready)
"""Messages that carry a client id and are applied at most once per id."""


def parse_message(payload: dict[str, Any], registry: dict[str, type[Message]]) -> Message:
    """Turn a decoded map into its message, checking type, fields and their types (the
    one validator, pitchnet/schema.py, down to the table and the view inside a `state`).
    Unknown extra fields are ignored, so newer peers can add optional ones."""
    kind = payload.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "a message needs a 'type' string")
    cls = registry.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}")
    return build(cls, payload, f"{kind!r}")


def parse_client_message(payload: dict[str, Any]) -> Message:
    return parse_message(payload, CLIENT_MESSAGES)


def parse_host_message(payload: dict[str, Any]) -> Message:
    return parse_message(payload, HOST_MESSAGES)


# ---- one broadcast's state frames, packed once where the seats agree ---------------------------


class PackedEntries:
    """The packed entries of the maps a broadcast splices into its frames, kept for each
    slot (a seat, or `SETTLED_SLOT`) while the same map object comes back: the views
    share one object for a seat whose part has not changed (`views._waiting_private`)
    and for the public entries that last a trick (`views._settled`), so each is packed
    once rather than after every move. Identity is a safe key because this
    holds the maps it packed: none is freed and its id reused meanwhile. One per table."""

    def __init__(self) -> None:
        self._held: dict[int, tuple[dict[str, Any], bytes]] = {}

    def of(self, slot: int, mapping: dict[str, Any]) -> bytes:
        held = self._held.get(slot)
        if held is not None and held[0] is mapping:
            return held[1]
        packed = _map_entries(mapping)
        self._held[slot] = (mapping, packed)
        return packed


def state_frames(
    seq: int,
    table: dict[str, Any] | bytes,
    events: list[Any],
    public_view: dict[str, Any] | None,
    private_views: list[dict[str, Any]],
    packed: PackedEntries | None = None,
    settled: dict[str, Any] | None = None,
) -> list[bytes]:
    """Every seat's `state` frame for one broadcast. Frame i decodes to the same map as
    `State(seq, table, {**private_views[i], **settled, **public_view}, events).encode()`
    (view None when `public_view` is None). A msgpack map's entries may come in any
    order, so all that the seats share (type, seq, table, events and the public part of
    the view) is packed once, first, and only each seat's private entries are packed per
    seat. `table` may come already packed (`pack_map`): the host keeps it packed between
    the changes that alter it, since most moves do not; `packed` does the same for the
    private maps and for `settled`, the public entries that last a whole trick."""
    packed_table = table if isinstance(table, bytes) else pack_map(table)
    shared = b"".join(
        (_STATE_HEAD, _packb(seq), _TABLE_KEY, packed_table, _EVENTS_KEY, _packb(events), _VIEW_KEY)
    )
    if public_view is None:
        return [_framed(shared, b"\xc0")] * len(private_views)
    entries = packed.of if packed is not None else _unkept_entries
    public, size = _map_entries(public_view), len(public_view)
    if settled:
        public, size = entries(SETTLED_SLOT, settled) + public, size + len(settled)
    # `_framed` inlined: a call per frame cost 3% of the host's instructions per move
    # (benchmarks/host_instructions.py).
    common, frames = len(shared) + len(public), []
    for slot, private in enumerate(private_views):
        head, own = _map_header(size + len(private)), entries(slot, private)
        length = common + len(head) + len(own)
        if length > MAX_FRAME:
            raise ValueError(f"frame of {length} bytes exceeds {MAX_FRAME}")
        frames.append(b"".join((HEADER.pack(length), shared, head, public, own)))
    return frames


def _framed(*parts: bytes) -> bytes:
    """One frame of these parts of its payload, in one copy."""
    length = sum(map(len, parts))
    if length > MAX_FRAME:
        raise ValueError(f"frame of {length} bytes exceeds {MAX_FRAME}")
    return b"".join((HEADER.pack(length), *parts))


SETTLED_SLOT = -1
"""`PackedEntries`' slot for the settled public entries (the seats' are 0 and up)."""


def pack_map(mapping: dict[str, Any]) -> bytes:
    """A map packed as a `state` frame packs it, to hand to `state_frames` in its place."""
    return _packb(mapping)


def _packb(value: Any) -> bytes:
    packed: bytes = msgpack.packb(value, use_bin_type=True)  # msgpack's hints say Any
    return packed


_STATE_HEAD = b"\x85" + msgpack.packb("type") + msgpack.packb("state") + msgpack.packb("seq")
"""A `state` map's header (five entries: type, seq, table, events, view) and its type."""
_TABLE_KEY, _EVENTS_KEY, _VIEW_KEY = (msgpack.packb(key) for key in ("table", "events", "view"))


def _map_header(size: int) -> bytes:
    if size <= 15:
        return bytes([0x80 | size])
    if size <= 0xFFFF:
        return b"\xde" + size.to_bytes(2, "big")
    return b"\xdf" + size.to_bytes(4, "big")


def _unkept_entries(slot: int, mapping: dict[str, Any]) -> bytes:
    return _map_entries(mapping)


def _map_entries(mapping: dict[str, Any]) -> bytes:
    """A map's packed keys and values without its header, to splice into a bigger map."""
    return _packb(mapping)[len(_map_header(len(mapping))) :]


# ---- the table part of a `state` message ------------------------------------------------------


BOT_SUFFIX = " (bot)"
"""What the host adds to the name of a player who left, for the bot that plays on in
their seat ("Bob (bot)"); a late-comer named Bob is given that seat back by it."""


class SeatKind(StrEnum):
    """Who holds a seat (`SeatInfo.kind` on the wire)."""

    EMPTY = "empty"
    HUMAN = "human"
    BOT = "bot"


class TableState(StrEnum):
    """Where a table is (`TableInfo.state` on the wire, `state` in the advert)."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"


TABLE_STATES = tuple(TableState)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits in a seat. `substitute` is true while a bot plays for an absent human;
    `away` is how many seconds that human has been gone (0 when connected)."""

    name: str
    kind: SeatKind
    connected: bool
    substitute: bool = False
    away: float = 0.0
    ready: bool = False
    claimed_by: str = ""
    """A newcomer who takes this bot-played seat when the next hand is dealt."""
    rotate: bool = False
    """Said `ready` at a partnership match's end asking for partners rotated."""


@dataclass(frozen=True, slots=True)
class TableInfo:
    """The public facts of a table: sent in every `state` and summarised in the advert."""

    id: str
    name: str
    state: TableState
    players: int
    partnership: bool
    target: int
    seats: list[SeatInfo]
    starter: int | None
    password: bool = False
    grace: float = 60.0
    substitute: bool = True
    """Whether a bot plays for a player away longer than `grace` seconds."""
    waiting_for: list[int] = field(default_factory=list)
    """Between hands: the seats the table waits for (people not yet ready)."""
    waiting: float = 0.0
    """Seconds the table has been waiting (in the lobby: since it opened)."""
    ready_left: float | None = None
    """Seconds until the next hand is dealt regardless (None: no limit, or not waiting)."""
    spectators: int = 0
    """How many people are watching."""
    rules: dict[str, Any] = field(default_factory=dict)
    """The house rules, every option named (`HouseRules.to_wire()`); {} from an older host."""
    match: int = 0
    """Matches started at this table (1 during the first; 0 in the first lobby)."""
    pitchers: list[str] = field(default_factory=list)
    """This match's hands so far: who pitched each, by the name their seat had then (""
    for a hand thrown in); [] from an older host."""
    bot_level: str = ""
    """How well the table's bots play (`easy`, `normal`, `hard`); "" from an older host."""
    coach: bool = True
    """Whether the table lets players ask the coach what the `hard` bot would do."""
    turn_timer: float = 0.0
    """Seconds a person has for a bid or a card before a bot moves for them (0: none)."""
    reactions: bool = True
    """Whether the table relays quick reactions (`react`) at all."""
    spectator_reactions: bool = False
    """Whether spectators may send reactions too (they always see them)."""

    def to_wire(self) -> dict[str, Any]:
        wire = {name: getattr(self, name) for name in self.__slots__}
        wire["seats"] = [{n: getattr(seat, n) for n in seat.__slots__} for seat in self.seats]
        return wire

    @property
    def house_rules(self) -> HouseRules | None:
        """The rules as an object; None if the host sent rules this client does not know."""
        try:
            return HouseRules.from_wire(self.rules)
        except RulesConfigError:
            return None

    @property
    def taken(self) -> int:
        return sum(seat.kind != SeatKind.EMPTY for seat in self.seats)

    @classmethod
    def from_wire(cls, data: Any) -> TableInfo:
        """Rebuild from a host's frame, which the client treats as untrusted."""
        return from_map(cls, data)
