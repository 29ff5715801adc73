"""The codec on its own, no sockets: framing, the decoder's limits, and the schema checks.

The host and the client both trust this module to turn hostile bytes into either a map
or a `ProtocolError` with a code, so these tests feed it split, merged, oversize,
non-map, garbage and deeply nested input and check the code each one earns.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import MISSING, fields
from random import Random
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pitchnet.cards import shuffled_deck
from pitchnet.protocol import (
    ACTIONS,
    CLIENT_MESSAGES,
    HEADER,
    HOST_MESSAGES,
    MAX_CONTAINER,
    MAX_DEPTH,
    MAX_FRAME,
    MAX_STR,
    PROTOCOL_VERSION,
    STRING_LIMITS,
    Ack,
    Away,
    BidMsg,
    Bye,
    Challenge,
    ErrorMsg,
    FrameDecoder,
    Hello,
    Leave,
    Message,
    PackedEntries,
    Ping,
    PlayMsg,
    Pong,
    ProtocolError,
    React,
    Reacted,
    Ready,
    Reclaim,
    ReclaimAsked,
    ReclaimStatus,
    SeatInfo,
    SeatKind,
    Sit,
    Start,
    State,
    TableInfo,
    TableState,
    Vouch,
    Welcome,
    _too_deep,
    answer,
    frame,
    parse_client_message,
    parse_host_message,
    state_frames,
    unpack_payload,
)
from pitchnet.rules import Match, Phase, Settings
from pitchnet.views import SeatView, seat_view
from tests.profiles import examples
from tests.strategies import legal_actions

TABLE = TableInfo(
    id="a1b2c3d4e5f6",
    name="Den",
    state=TableState.LOBBY,
    players=2,
    partnership=False,
    target=7,
    seats=[
        SeatInfo(name="Ann", kind=SeatKind.HUMAN, connected=True),
        SeatInfo("", SeatKind.EMPTY, False),
    ],
    starter=0,
)


def a_view_after_a_trick() -> SeatView:
    """Seat 0's view of a seeded two-player hand, one trick taken and the next begun."""
    rng = Random(5)
    match = Match(Settings(2), dealer=0)
    match.deal(shuffled_deck(rng))
    while match.phase in (Phase.BIDDING, Phase.PLAYING):
        hand = match.hand
        if hand is not None and hand.tricks and hand.trick:
            return seat_view(match, 0)
        rng.choice(legal_actions(match)).apply_to(match)
    raise AssertionError("the seeded hand never reached a second trick")


VIEW = a_view_after_a_trick()

CLIENT_EXAMPLES: list[Message] = [
    Hello(version=1, name="Ann"),
    Hello(
        version=2,
        name="Ann",
        table_id="a1b2",
        seat_proof="s" * 64,
        password_proof="p" * 64,
        challenge="c" * 32,
    ),
    Hello(version=2, name="Eve", watch=True),
    Start(id=1),
    Sit(id=6, seat=2),
    BidMsg(id=2, bid=None),
    BidMsg(id=3, bid=4),
    PlayMsg(id=4, card="TD"),
    Ready(id=5),
    Leave(),
    Away(),
    Reclaim(seat=2),
    Vouch(seat=2, yes=True),
    Ping(t=12.5),
    Pong(t=12.5),
]

HOST_EXAMPLES: list[Message] = [
    Challenge(version=2, nonce="n" * 32, table_id="a1b2c3d4e5f6"),
    Welcome(
        version=2,
        table_id="a1b2c3d4e5f6",
        table_name="Den",
        seat=0,
        heartbeat=1.0,
        last_id=7,
        proof="h" * 64,
    ),
    Welcome(
        version=1,
        table_id="a1b2c3d4e5f6",
        table_name="Den",
        seat=0,
        token="x" * 32,
        heartbeat=1.0,
        last_id=7,
    ),
    State(seq=3, table=TABLE, view=None, events=[{"kind": "join", "seat": 0}]),
    State(seq=4, table=TABLE, view=VIEW, events=[{"kind": "play", "seat": 0, "card": "AS"}]),
    Ack(id=9, duplicate=True),
    ErrorMsg(code="not_your_turn", message="It is seat 1's turn to bid.", id=4),
    ErrorMsg(code="too_big", message="frame too big", fatal=True),
    Bye(reason="The host is shutting down."),
    ReclaimAsked(seat=2, name="Carol", asker="carol", points=5),
    ReclaimStatus(seat=2, status="waiting", message="Ann must confirm that you are Carol."),
    Ping(t=1.0),
    Pong(t=1.0),
]
# Reactions (pitchnet/reactions.py), kept apart from the lists above.
CLIENT_EXAMPLES.append(React(reaction="gg"))
HOST_EXAMPLES.append(Reacted(reaction="gg", name="Ann", seat=2))


def _body(value: Any) -> bytes:
    body: bytes = msgpack.packb(value, use_bin_type=True)
    return body


def _framed(value: Any) -> bytes:
    body = _body(value)
    return HEADER.pack(len(body)) + body


def _code(call: Any, *args: Any) -> tuple[str, bool]:
    with pytest.raises(ProtocolError) as caught:
        call(*args)
    return caught.value.code, caught.value.fatal


def _feed_all(decoder: FrameDecoder, data: bytes) -> list[dict[str, Any]]:
    return list(decoder.feed(data))


# ---- framing -------------------------------------------------------------------------------


def test_a_frame_is_a_big_endian_length_and_a_msgpack_map() -> None:
    data = Start(id=258).encode()
    assert data[:4] == (len(data) - 4).to_bytes(4, "big")
    assert msgpack.unpackb(data[4:]) == {"type": "start", "id": 258}


def test_frames_split_byte_by_byte_come_out_whole_and_in_order() -> None:
    decoder = FrameDecoder()
    stream = b"".join(m.encode() for m in CLIENT_EXAMPLES)
    out: list[dict[str, Any]] = []
    for i in range(len(stream)):
        out.extend(decoder.feed(stream[i : i + 1]))
    assert out == [m.to_wire() for m in CLIENT_EXAMPLES]
    assert decoder.pending == 0


def test_several_frames_in_one_chunk_all_come_out() -> None:
    decoder = FrameDecoder()
    first, second, third = (m.encode() for m in HOST_EXAMPLES[:3])
    out = _feed_all(decoder, first + second + third[:5])
    assert out == [m.to_wire() for m in HOST_EXAMPLES[:2]]
    assert decoder.pending == 5
    assert _feed_all(decoder, third[5:]) == [HOST_EXAMPLES[2].to_wire()]
    assert decoder.pending == 0


def test_an_oversize_length_is_refused_from_the_header_alone() -> None:
    decoder = FrameDecoder()
    assert _feed_all(decoder, HEADER.pack(MAX_FRAME + 1)[:3]) == []
    assert _code(_feed_all, decoder, HEADER.pack(MAX_FRAME + 1)[3:]) == ("too_big", True)
    assert decoder.pending == 0


def test_an_oversize_frame_with_its_body_following_is_not_kept() -> None:
    decoder = FrameDecoder()
    data = HEADER.pack(2**32 - 1) + b"\x00" * 4096
    assert _code(_feed_all, decoder, data) == ("too_big", True)
    assert decoder.pending == 0


def test_the_largest_allowed_frame_is_buffered_and_then_decoded() -> None:
    filler = ["x" * MAX_STR] * 120
    body = _body({"type": "ping", "t": 1.0, "pad": filler})
    assert len(body) <= MAX_FRAME
    decoder = FrameDecoder()
    data = HEADER.pack(len(body)) + body
    peak = 0
    for start in range(0, len(data), 1000):
        out = _feed_all(decoder, data[start : start + 1000])
        peak = max(peak, decoder.pending)
    assert out and out[0]["pad"] == filler
    assert peak <= HEADER.size + MAX_FRAME


def test_frame_refuses_to_build_an_oversize_frame() -> None:
    with pytest.raises(ValueError):
        frame({"type": "ping", "pad": ["x" * 500] * 200})


@pytest.mark.parametrize(
    "value",
    [[1, 2, 3], "hello", 7, None, True, 1.5],
    ids=["list", "str", "int", "nil", "bool", "float"],
)
def test_a_payload_that_is_not_a_map_is_a_fatal_bad_frame(value: Any) -> None:
    assert _code(_feed_all, FrameDecoder(), _framed(value)) == ("bad_frame", True)


@pytest.mark.parametrize(
    "body",
    [
        b"\xc1",  # never used in msgpack
        b"\xc1\xc1\xc1\xc1",
        b"\x81",  # a map with one entry and nothing in it
        b"\x80\x80",  # a map then extra data
        b"\xde\xff\xff",  # a map16 of 65535 entries, truncated
        b"",  # an empty frame
    ],
    ids=["c1", "c1x4", "truncated-map", "extra-data", "map16-truncated", "empty"],
)
def test_garbage_is_a_fatal_bad_frame(body: bytes) -> None:
    data = HEADER.pack(len(body)) + body
    assert _code(_feed_all, FrameDecoder(), data) == ("bad_frame", True)


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key"},
        {"type": "ping", "t": b"binary"},
        {"type": "ping", "t": msgpack.ExtType(1, b"x")},
        {"type": "ping", "list": list(range(MAX_CONTAINER + 1))},
        {f"k{i}": i for i in range(MAX_CONTAINER + 1)},
        {"type": "ping", "s": "x" * (MAX_STR + 1)},
    ],
    ids=["int-key", "bin", "ext", "long-array", "big-map", "long-string"],
)
def test_values_the_codec_never_accepts_are_fatal_bad_frames(value: Any) -> None:
    assert _code(unpack_payload, _body(value)) == ("bad_frame", True)


def test_an_empty_bin_gets_through_the_codec_but_never_the_schema() -> None:
    """max_bin_len=0 still lets a zero-length bin through (as b"", even as a map key);
    wherever the schema wants a str, a bytes value is a bad message."""
    decoded: dict[Any, Any] = unpack_payload(_body({b"": 1}))  # a bytes key, as it came
    assert decoded == {b"": 1}
    payload = unpack_payload(_body({"type": "play", "id": 1, "card": b""}))
    assert _code(parse_client_message, payload) == ("bad_message", False)
    assert _code(parse_client_message, {b"": 1}) == ("bad_message", False)


def test_containers_and_strings_at_the_limit_are_accepted() -> None:
    value = {"type": "ping", "list": list(range(MAX_CONTAINER)), "s": "x" * MAX_STR}
    assert unpack_payload(_body(value)) == value


def _nested(depth: int) -> dict[str, Any]:
    """A map whose containers nest `depth` deep, the map itself counting as one."""
    value: Any = None
    for _ in range(depth - 1):
        value = [value]
    return {"type": "ping", "t": 1.0, "deep": value} if depth > 1 else {"type": "ping"}


def test_nesting_up_to_the_limit_is_accepted_and_one_more_is_a_bad_frame() -> None:
    assert unpack_payload(_body(_nested(MAX_DEPTH))) == _nested(MAX_DEPTH)
    assert _code(unpack_payload, _body(_nested(MAX_DEPTH + 1))) == ("bad_frame", True)
    deep_map = {"type": "ping", "a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {}}}}}}}}}
    assert _code(unpack_payload, _body(deep_map)) == ("bad_frame", True)


def test_a_real_state_frame_fits_the_depth_limit() -> None:
    state = State(seq=1, table=TABLE, view=VIEW, events=[])
    assert VIEW.tricks and VIEW.trick and VIEW.last_result is None
    (payload,) = _feed_all(FrameDecoder(), state.encode())
    assert parse_host_message(payload) == state


def _depth(value: Any) -> int:
    """Containers on the deepest path, counted the obvious (recursive) way."""
    if isinstance(value, dict):
        value = list(value.values())
    if not isinstance(value, list):
        return 0
    return 1 + max((_depth(child) for child in value), default=0)


_nested_values = st.recursive(
    st.none() | st.integers(-5, 5) | st.text(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=40,
)


@settings(max_examples=examples(300))
@given(_nested_values)
def test_the_depth_check_agrees_with_a_recursive_count(value: Any) -> None:
    wrapped = {"type": "x", "v": value}
    assert _too_deep(wrapped) == (_depth(wrapped) > MAX_DEPTH)


@pytest.mark.parametrize("size", [0, 1, 15, 16, 300])
def test_state_frames_splice_maps_of_every_header_size(size: int) -> None:
    """The shared and private parts are packed apart and spliced into one view map; the
    map header must be right on both sides of msgpack's 15-entry boundary."""
    public = {f"k{i}": i for i in range(size)}
    private = [{"seat": 0, "hand": ["TD"]}, {"seat": 1, "hand": []}]
    frames = state_frames(7, {"name": "T"}, [{"kind": "x"}], public, private)
    for seat, data in enumerate(frames):
        assert HEADER.unpack_from(data) == (len(data) - HEADER.size,)
        assert msgpack.unpackb(data[HEADER.size :]) == {
            "type": "state",
            "seq": 7,
            "table": {"name": "T"},
            "view": {**private[seat], **public},
            "events": [{"kind": "x"}],
        }
    [empty] = state_frames(1, {}, [], None, [{}])
    assert list(FrameDecoder().feed(empty)) == [
        {"type": "state", "seq": 1, "table": {}, "view": None, "events": []}
    ]


def test_a_seats_packed_part_is_kept_while_the_same_map_comes_back() -> None:
    """`PackedEntries` packs a private map once per object: the same object again is
    not repacked, and a seat whose part changed (a new map) gets the new part."""
    packed = PackedEntries()
    calm, mover = {"seat": 0, "hand": ["TD"]}, {"seat": 1, "hand": ["QS", "2C"]}
    state_frames(1, {}, [], {"p": 1}, [calm, mover], packed)
    kept = packed.of(0, calm)
    moved = {"seat": 1, "hand": ["2C"]}
    frames = state_frames(2, {}, [], {"p": 2}, [calm, moved], packed)
    assert packed.of(0, calm) is kept
    assert [msgpack.unpackb(f[HEADER.size :])["view"] for f in frames] == [
        {**calm, "p": 2},
        {**moved, "p": 2},
    ]
    assert packed.of(0, {**calm, "hand": []}) != kept  # equal keys, new object: repacked


def test_nesting_too_deep_is_a_bad_frame_not_a_crash() -> None:
    body = b"\x81\xa1a" + b"\x91" * 5000 + b"\xc0"  # {"a": [[[...[nil]...]]]}
    assert len(body) < MAX_FRAME
    assert _code(_feed_all, FrameDecoder(), HEADER.pack(len(body)) + body) == ("bad_frame", True)


def test_a_bad_frame_does_not_swallow_the_frames_after_it() -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError):
        _feed_all(decoder, _framed([1]) + Ping(t=1.0).encode())
    assert _feed_all(decoder, b"") == [{"type": "ping", "t": 1.0}]


# ---- messages ------------------------------------------------------------------------------


@pytest.mark.parametrize("message", CLIENT_EXAMPLES, ids=lambda m: m.TYPE)
def test_every_client_message_round_trips_through_a_frame(message: Message) -> None:
    (payload,) = _feed_all(FrameDecoder(), message.encode())
    assert payload["type"] == message.TYPE
    assert parse_client_message(payload) == message


@pytest.mark.parametrize("message", HOST_EXAMPLES, ids=lambda m: m.TYPE)
def test_every_host_message_round_trips_through_a_frame(message: Message) -> None:
    (payload,) = _feed_all(FrameDecoder(), message.encode())
    assert parse_host_message(payload) == message


def test_every_message_type_has_an_example() -> None:
    assert {m.TYPE for m in CLIENT_EXAMPLES} == set(CLIENT_MESSAGES)
    assert {m.TYPE for m in HOST_EXAMPLES} == set(HOST_MESSAGES)
    assert {cls.TYPE for cls in ACTIONS} == {"start", "sit", "bid", "play", "ready"}


def test_optional_fields_take_their_defaults_and_extra_fields_are_ignored() -> None:
    hello = parse_client_message({"type": "hello", "version": 1, "name": "Ann", "x": [1]})
    assert hello == Hello(version=1, name="Ann", table_id=None, seat_proof=None)
    ack = parse_host_message({"type": "ack", "id": 3})
    assert ack == Ack(id=3, duplicate=False)
    welcome = parse_host_message(
        {k: v for k, v in HOST_EXAMPLES[1].to_wire().items() if k != "last_id"}
    )
    assert isinstance(welcome, Welcome) and welcome.last_id == 0


def _required_fields(message: Message) -> list[str]:
    return [
        f.name for f in fields(message) if f.default is MISSING and f.default_factory is MISSING
    ]


MISSING_CASES = [
    pytest.param(message, name, parse, id=f"{message.TYPE}-{name}")
    for examples, parse in (
        (CLIENT_EXAMPLES, parse_client_message),
        (HOST_EXAMPLES, parse_host_message),
    )
    for message in {m.TYPE: m for m in examples}.values()
    for name in _required_fields(message)
]


@pytest.mark.parametrize(("message", "name", "parse"), MISSING_CASES)
def test_a_missing_required_field_is_a_bad_message(
    message: Message, name: str, parse: Callable[[dict[str, Any]], Message]
) -> None:
    payload = message.to_wire()
    del payload[name]
    assert _code(parse, payload) == ("bad_message", False)


WRONG_TYPES = [
    ({"type": "hello", "version": "1", "name": "Ann"}, "version"),
    ({"type": "hello", "version": True, "name": "Ann"}, "version"),
    ({"type": "hello", "version": 1.0, "name": "Ann"}, "version"),
    ({"type": "hello", "version": 1, "name": 5}, "name"),
    ({"type": "hello", "version": 1, "name": None}, "name"),
    ({"type": "hello", "version": 1, "name": "Ann", "seat_proof": 5}, "seat_proof"),
    ({"type": "start", "id": "1"}, "id"),
    ({"type": "start", "id": True}, "id"),
    ({"type": "start", "id": None}, "id"),
    ({"type": "bid", "id": 1, "bid": True}, "bid"),
    ({"type": "bid", "id": 1, "bid": "2"}, "bid"),
    ({"type": "bid", "id": 1, "bid": 2.0}, "bid"),
    ({"type": "play", "id": 1, "card": ["T", "D"]}, "card"),
    ({"type": "play", "id": 1, "card": None}, "card"),
    ({"type": "ready", "id": 1.5}, "id"),
    ({"type": "ping", "t": "now"}, "t"),
    ({"type": "ping", "t": False}, "t"),
]


@pytest.mark.parametrize(("payload", "name"), WRONG_TYPES, ids=lambda v: repr(v)[:40])
def test_a_mistyped_field_is_a_bad_message_naming_it(payload: dict[str, Any], name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_client_message(payload)
    assert (caught.value.code, caught.value.fatal) == ("bad_message", False)
    assert repr(name) in caught.value.message


def test_an_int_is_accepted_where_a_float_is_expected() -> None:
    assert parse_client_message({"type": "ping", "t": 3}) == Ping(t=3)
    welcome = parse_host_message({**HOST_EXAMPLES[1].to_wire(), "heartbeat": 1})
    assert isinstance(welcome, Welcome) and welcome.heartbeat == 1


HOST_WRONG_TYPES = [
    ({"type": "ack", "id": 1, "duplicate": 1}, "duplicate"),
    ({"type": "error", "code": "x", "message": "m", "fatal": "yes"}, "fatal"),
    ({"type": "error", "code": 3, "message": "m"}, "code"),
    ({"type": "state", "seq": 1, "table": [], "view": None}, "table"),
    ({"type": "state", "seq": 1, "table": TABLE.to_wire(), "view": []}, "view"),
    ({"type": "state", "seq": 1, "table": TABLE.to_wire(), "view": None, "events": {}}, "events"),
    ({"type": "state", "seq": 1, "table": {**TABLE.to_wire(), "state": "lunch"}}, "state"),
    (
        {
            "type": "state",
            "seq": 1,
            "table": TABLE.to_wire(),
            "view": VIEW.to_wire() | {"hand": [1]},
        },
        "hand",
    ),
    ({"type": "bye", "reason": None}, "reason"),
]


@pytest.mark.parametrize(("payload", "name"), HOST_WRONG_TYPES, ids=lambda v: repr(v)[:40])
def test_a_mistyped_host_field_is_a_bad_message(payload: dict[str, Any], name: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        parse_host_message(payload)
    assert caught.value.code == "bad_message"
    assert repr(name) in caught.value.message


def _message_with(name: str, value: str) -> tuple[Callable[[dict[str, Any]], Any], dict[str, Any]]:
    if name == "card":
        return parse_client_message, {"type": "play", "id": 1, "card": value}
    if name == "reaction":
        return parse_client_message, {"type": "react", "reaction": value}
    if name == "nonce":
        return parse_host_message, {**HOST_EXAMPLES[0].to_wire(), name: value}
    if name in ("token", "proof"):
        return parse_host_message, {**HOST_EXAMPLES[1].to_wire(), name: value}
    return parse_client_message, {"type": "hello", "version": 1, "name": "Ann", name: value}


@pytest.mark.parametrize("name", sorted(STRING_LIMITS))
def test_strings_are_limited_per_field_in_characters(name: str) -> None:
    limit = STRING_LIMITS[name]
    parse, at_limit = _message_with(name, "é" * limit)
    assert getattr(parse(at_limit), name) == "é" * limit
    parse, payload = _message_with(name, "é" * (limit + 1))
    assert _code(parse, payload) == ("bad_message", False)


def test_a_string_over_the_frame_wide_limit_never_reaches_the_schema() -> None:
    body = _body({"type": "bye", "reason": "x" * (MAX_STR + 1)})
    assert _code(unpack_payload, body) == ("bad_frame", True)


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"type": "dance"}, "unknown_type"),
        ({"type": ""}, "unknown_type"),
        ({"type": "welcome", **HOST_EXAMPLES[1].to_wire()}, "unknown_type"),
        ({"type": "ack", "id": 1}, "unknown_type"),
        ({}, "bad_message"),
        ({"type": 1}, "bad_message"),
        ({"type": None, "id": 1}, "bad_message"),
    ],
    ids=["dance", "empty", "host-type", "ack", "no-type", "int-type", "nil-type"],
)
def test_the_type_decides_the_code(payload: dict[str, Any], code: str) -> None:
    assert _code(parse_client_message, payload) == (code, False)


def test_client_only_types_are_unknown_to_a_client_parser_of_host_frames() -> None:
    for kind in ("hello", "start", "bid", "play", "ready", "leave"):
        assert _code(parse_host_message, {"type": kind, "id": 1}) == ("unknown_type", False)


# ---- the table in a state message ----------------------------------------------------------


def test_a_table_round_trips() -> None:
    wire = TABLE.to_wire()
    assert TableInfo.from_wire(msgpack.unpackb(msgpack.packb(wire))) == TABLE
    assert TABLE.taken == 1


def _table_with(**changes: Any) -> dict[str, Any]:
    return {**TABLE.to_wire(), **changes}


def _seat_with(**changes: Any) -> dict[str, Any]:
    return {**TABLE.to_wire()["seats"][0], **changes}


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "table",
        {k: v for k, v in TABLE.to_wire().items() if k != "seats"},
        _table_with(seats={"0": {}}),
        _table_with(seats=["Ann"]),
        _table_with(seats=[{"name": "Ann", "kind": "human"}]),
        _table_with(seats=[_seat_with(kind="ghost")]),
        _table_with(seats=[_seat_with(connected=1)]),
        _table_with(seats=[_seat_with(name="x" * 25)]),
        _table_with(seats=[_seat_with(away="long")]),
        _table_with(state="paused"),
        _table_with(players="4"),
        _table_with(players=True),
        _table_with(target=None),
        _table_with(starter="0"),
        _table_with(name="n" * 25),
        _table_with(password=1),
        {k: v for k, v in TABLE.to_wire().items() if k != "id"},
    ],
    ids=lambda d: repr(d)[-50:],
)
def test_a_malformed_table_is_a_bad_message(data: Any) -> None:
    assert _code(TableInfo.from_wire, data) == ("bad_message", False)


def test_a_table_may_leave_out_defaulted_fields_and_add_unknown_ones() -> None:
    wire = {k: v for k, v in TABLE.to_wire().items() if k not in ("password", "grace")}
    wire["seats"] = [{"name": "Ann", "kind": "human", "connected": True, "colour": "red"}]
    info = TableInfo.from_wire({**wire, "future": 1})
    assert info.password is False and info.grace == 60.0
    assert info.seats == [SeatInfo(name="Ann", kind=SeatKind.HUMAN, connected=True)]


# ---- anything at all -------------------------------------------------------------------------


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


_frames_of_anything = st.lists(
    st.one_of(
        st.binary(max_size=64),
        st.binary(max_size=48).map(lambda b: HEADER.pack(len(b)) + b),
        st.recursive(
            st.none()
            | st.booleans()
            | st.integers(min_value=-(2**63), max_value=2**64 - 1)
            | st.floats()
            | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.text(max_size=4), inner, max_size=4)
            ),
            max_leaves=12,
        ).map(_framed),
    ),
    max_size=8,
).map(b"".join)


@settings(max_examples=examples(300), deadline=None)
@given(data=_frames_of_anything, cuts=st.lists(st.integers(min_value=0), max_size=12))
def test_any_bytes_in_any_chunks_yield_only_maps_or_protocol_errors(
    data: bytes, cuts: list[int]
) -> None:
    decoder = FrameDecoder()
    for chunk in _chunks(data, cuts):
        try:
            for payload in decoder.feed(chunk):
                assert isinstance(payload, dict)
                try:
                    parse_client_message(payload)
                    parse_host_message(payload)
                except ProtocolError as exc:
                    assert exc.code in ("bad_message", "unknown_type")
        except ProtocolError as exc:
            assert exc.code in ("bad_frame", "too_big") and exc.fatal
            decoder = FrameDecoder()  # a fatal error ends the connection: start afresh
        assert decoder.pending <= HEADER.size + MAX_FRAME


@pytest.mark.parametrize(
    "change",
    [{"seat": 9}, {"hand": ["ZZ"]}, {"bids": [[0, "pass"]]}, {"scores": [0]}],
    ids=["seat", "card", "bid", "scores"],
)
def test_a_state_whose_view_breaks_what_a_type_cannot_say_is_a_bad_message(
    change: dict[str, Any],
) -> None:
    """The one validator runs the view's own `check` inside a `state` too."""
    payload = {**State(seq=1, table=TABLE, view=VIEW).to_wire(), "view": VIEW.to_wire() | change}
    assert parse_host_message({**payload, "view": VIEW.to_wire()}) is not None
    assert _code(parse_host_message, payload) == ("bad_message", False)


class CountingBudget:
    """A decode budget of so many payload bytes in all, that notes every charge."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.charged: list[float] = []

    def allow(self, cost: float = 1.0) -> bool:
        self.charged.append(cost)
        if cost > self.left:
            return False
        self.left -= int(cost)
        return True


def test_whole_frames_read_one_at_a_time_are_charged_and_cut_off_like_any_other() -> None:
    """A read that is exactly one whole frame (most are) is decoded straight from the
    bytes read, with the same budget charge, the same refusal once the budget is spent,
    and nothing left buffered; a frame split over reads goes through the buffer."""
    one = frame({"type": "ping", "t": 1.5})
    body = len(one) - HEADER.size
    budget = CountingBudget(2 * body)
    decoder = FrameDecoder(budget=budget)
    assert list(decoder.feed(one)) == [{"type": "ping", "t": 1.5}]
    assert list(decoder.feed(one[:3])) == [] and decoder.pending == 3
    assert list(decoder.feed(one[3:])) == [{"type": "ping", "t": 1.5}]
    assert decoder.pending == 0 and budget.charged == [body, body]
    with pytest.raises(ProtocolError) as refused:
        list(decoder.feed(one))
    assert (refused.value.code, refused.value.fatal) == ("rate_limited", True)
    assert decoder.pending == 0


def test_a_client_with_a_seat_token_sends_no_password_proof() -> None:
    """Issue 27 item 3: the host does not ask a player proving a seat for the password,
    so a reconnecting client sends no proof of it for an impostor to crack offline."""
    challenge = Challenge(PROTOCOL_VERSION, "n" * 32, "t1")
    back = answer(challenge, "Ann", token="t" * 32, password="c4t")
    assert back.seat_proof and back.password_proof is None
    new = answer(challenge, "Ann", password="c4t")
    assert new.seat_proof is None and new.password_proof
    watcher = answer(challenge, "Ann", token="t" * 32, password="c4t", watch=True)
    assert watcher.password_proof  # a watcher is always asked for it
