"""The one validator: an untrusted map becomes a dataclass, every field checked against
its annotation.

Every shape read from the wire goes through here: messages (`protocol.parse_message`),
the table (`TableInfo`), a seat's view (`SeatView`), the nested shapes of the rules it
holds (`Trick`, `HandResult`) and events. The annotations are the schema, so a field
cannot be checked one way here and declared another way there: `int` means an int (a
bool is not one), `list[int]` a list of ints, `tuple[int, ...]` or `tuple[int, Card]` an
array read back as a tuple, a dataclass a map of its own fields (checked the same way),
an enum one of its values (read back as the enum), a `Card` its text ("TD"). What a type
cannot say (a seat within the table) a shape says in a `check()` method, which
`from_map` calls once the fields are in.

It lives apart from `protocol.py` only so that `views.py` can use it while `protocol.py`
names `SeatView` in the `state` message; `protocol.py` re-exports all of it.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import MISSING, fields, is_dataclass
from enum import Enum, StrEnum
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from pitchnet.cards import Card, CardParseError

MAX_NAME = 24
"""Longest display or table name, in characters."""
MAX_ID = 2**53 - 1
"""Largest action id (in size): every JavaScript number up to it is an exact integer."""
STRING_LIMITS = {
    "name": MAX_NAME,
    "token": 64,
    "table_id": 64,
    "card": 2,
    "nonce": 64,
    "challenge": 64,
    "seat_proof": 64,
    "seat_key": 64,
    "password_proof": 64,
    "proof": 64,
    "reaction": 16,
}
"""Per-field limits on strings, by field name (every string is under `MAX_STR` anyway)."""
_LIMITED = frozenset({"id", *STRING_LIMITS})
"""The fields `_check_value` checks beyond their type (a range or a length)."""

_Shape = TypeVar("_Shape")


class ProtocolError(Exception):
    """The peer sent something the protocol does not allow. `fatal` means the
    connection is closed after the error frame is sent."""

    def __init__(
        self, code: str, message: str, *, fatal: bool = False, params: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.fatal = fatal
        self.params = params
        """What the code means beyond itself, for the client to word (as `RulesError`)."""


_Convert = Callable[[str, Any], Any]
"""Checks what lies inside a value whose own type is already checked, and returns the
value to keep (the same object unless something in it is rebuilt, a shape or an enum)."""
_Field = tuple[str, tuple[type, ...], _Convert | None, bool]
"""A field's name, the types its value may have, its inner check, and whether required."""


def _allowed_types(annotation: Any) -> tuple[type, ...]:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        return tuple(t for arg in get_args(annotation) for t in _allowed_types(arg))
    if annotation is None or annotation is type(None):
        return (type(None),)
    if annotation is Any:
        return (object,)
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return (str, annotation)
    if annotation is Card or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        return (str,)  # a card's text ("TD"), a suit's letter: read back as the object
    if is_dataclass(annotation):
        return (dict,)
    if origin is tuple:
        return (list, tuple)  # an array on the wire: read back as a tuple
    return (origin or annotation,)


def _accepts(allowed: tuple[type, ...], value: Any) -> bool:
    kind = type(value)
    return kind in allowed or (kind is int and float in allowed) or object in allowed


def _inner(annotation: Any) -> _Convert | None:
    """The check of what is inside a value of this annotation, or None if its type says all."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        options = [(_allowed_types(arg), _inner(arg)) for arg in get_args(annotation)]
        if all(convert is None for _, convert in options):
            return None

        def one_of(name: str, value: Any) -> Any:
            for allowed, convert in options:
                if _accepts(allowed, value):
                    return value if convert is None else convert(name, value)
            return value

        return one_of
    if origin is list:
        (item,) = get_args(annotation) or (Any,)
        return None if item is Any else _each(item)
    if origin is tuple:
        return _tuple(annotation)
    if annotation is Card:
        return _card
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        members = annotation._value2member_map_
        enum_name = annotation.__name__

        def member(name: str, value: str) -> Any:
            found = members.get(value)
            if found is None:
                raise ProtocolError("bad_message", f"field {name!r} is not a {enum_name}")
            return found

        return member
    if is_dataclass(annotation) and isinstance(annotation, type):
        shape = annotation
        return lambda name, value: from_map(shape, value)
    return None


def _each(item: Any) -> _Convert:
    """An array of `item`s: each checked (the call skipped for one already of its type,
    unless its field has limits), converted where `item` reads back as an object."""
    item_types, item_convert = _allowed_types(item), _inner(item)

    def each(name: str, value: list[Any]) -> Any:
        if name in _LIMITED:
            for item_value in value:
                _check_value(name, item_value, item_types)
        else:  # only the type is left to check: skip the call for what has it
            for item_value in value:
                if type(item_value) not in item_types:
                    _check_value(name, item_value, item_types)
        if item_convert is None:
            return value
        return [item_convert(name, item_value) for item_value in value]

    return each


def _tuple(annotation: Any) -> _Convert:
    """`tuple[X, ...]` (any length) or `tuple[A, B]` (that many, each its own type): an
    array on the wire, each item checked, read back as a tuple."""
    args = get_args(annotation)
    if len(args) == 2 and args[1] is Ellipsis:
        items_of = _each(args[0])
        return lambda name, value: tuple(items_of(name, value))
    items = [(_allowed_types(arg), _inner(arg)) for arg in args]

    def fixed(name: str, value: list[Any]) -> Any:
        if len(value) != len(items):
            raise ProtocolError("bad_message", f"field {name!r} must hold {len(items)} items")
        limited = name in _LIMITED
        out = []
        for part, (allowed, convert) in zip(value, items, strict=True):
            if limited or type(part) not in allowed:
                _check_value(name, part, allowed)
            out.append(part if convert is None else convert(name, part))
        return tuple(out)

    return fixed


def _card(name: str, value: str) -> Card:
    try:
        return Card.parse(value)
    except CardParseError:
        raise ProtocolError("bad_message", f"field {name!r} is not a card") from None


def _schema(cls: type) -> list[_Field]:
    hints = get_type_hints(cls)
    return [
        (
            f.name,
            _allowed_types(hints[f.name]),
            _inner(hints[f.name]),
            f.default is MISSING and f.default_factory is MISSING,
        )
        for f in fields(cls)
    ]


_SCHEMAS: dict[type, list[_Field]] = {}
"""Each shape's fields, worked out the first time the shape is read."""


_CHECKS: dict[type, Callable[[Any], None]] = {}
"""The shapes' own `check` methods, for those that have one (noted with their schema)."""


def schema(cls: type) -> list[_Field]:
    found = _SCHEMAS.get(cls)
    if found is None:
        found = _SCHEMAS[cls] = _schema(cls)
        check = getattr(cls, "check", None)
        if callable(check):
            _CHECKS[cls] = check
    return found


def _check_value(name: str, value: Any, allowed: tuple[type, ...]) -> None:
    kind = type(value)
    if not _accepts(allowed, value):
        wanted = " or ".join("nil" if t is type(None) else t.__name__ for t in allowed)
        raise ProtocolError("bad_message", f"field {name!r} must be {wanted}")
    if name == "id" and kind is int and not -MAX_ID <= value <= MAX_ID:
        raise ProtocolError("bad_message", "field 'id' must lie within -(2^53-1) to 2^53-1")
    limit = STRING_LIMITS.get(name)
    if kind is str and limit is not None and len(value) > limit:
        raise ProtocolError("bad_message", f"field {name!r} is longer than {limit} characters")


def build(cls: type[_Shape], data: dict[str, Any], label: str) -> _Shape:
    """`cls` from a map known to be one; `label` names the shape in a missing field's error."""
    values: dict[str, Any] = {}
    for name, allowed, convert, required in schema(cls):
        if name not in data:
            if required:
                raise ProtocolError("bad_message", f"{label} needs {name!r}")
            continue
        value = data[name]
        if type(value) not in allowed or name in _LIMITED:  # else nothing more to check
            _check_value(name, value, allowed)
        values[name] = value if convert is None else convert(name, value)
    shape = cls(**values)
    check = _CHECKS.get(cls)
    if check is not None:
        check(shape)
    return shape


def tagged_map(shape: Any, key: str, tag: str) -> dict[str, Any]:
    """A slots dataclass's wire map: `{key: tag}` (a message's type, an event's kind, a
    journal entry's op), then its fields as they are (plain data, so not copied)."""
    wire: dict[str, Any] = {key: tag}
    names: tuple[str, ...] = shape.__slots__  # the subclass's fields (its base has none)
    for name in names:
        wire[name] = getattr(shape, name)
    return wire


def plain_map(shape: Any) -> dict[str, Any]:
    """A slots dataclass's wire map, field by field in their order: the to-wire side of
    `from_map` for shapes holding cards, enums and tuples (`plain`)."""
    return {name: plain(getattr(shape, name)) for name in shape.__slots__}


def plain(value: Any) -> Any:
    """A value as the wire carries it: a card as its text, an enum as its value, a tuple
    or list as a list of plain values; ints, strs, bools and None as they are."""
    kind = type(value)
    if kind is Card:
        return value.text
    if kind is tuple or kind is list:
        return [plain(item) for item in value]
    if isinstance(value, Enum) and not isinstance(value, str):
        return value.value
    return value


def from_map(cls: type[_Shape], data: Any) -> _Shape:
    """An instance of the dataclass `cls` from an untrusted map, each field checked
    against its annotation (the one validator for every shape on the wire); extra keys
    are ignored. Raises ProtocolError("bad_message") with the reason."""
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", f"{cls.__name__} must be a map")
    return build(cls, data, cls.__name__)
