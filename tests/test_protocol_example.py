"""PROTOCOL.md section 16 (the example exchange) against today's shapes: the example is
what a client writer copies, so a field added to a message, the table or the view must
appear in it (it once lacked `hello.seat_key` and the table's two reaction fields), and
the `hello` bytes it prints must be the bytes the protocol encodes."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from pitchnet.protocol import Hello, TableInfo, Welcome, frame
from pitchnet.views import SeatView

ROOT = Path(__file__).resolve().parent.parent


def _example() -> str:
    text = (ROOT / "PROTOCOL.md").read_text(encoding="utf-8")
    start = text.index("\n## 16. Example exchange")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _block(text: str, first: str, last: str) -> str:
    """The text from the first `first` to the first `last` after it, both included."""
    start = text.index(first)
    return text[start : text.index(last, start) + len(last)]


def _keys(block: str) -> set[str]:
    return set(re.findall(r'"([a-z_]+)":', block))


def _names(shape: type) -> set[str]:
    return {f.name for f in fields(shape)}


def test_the_example_frames_carry_every_field_of_todays_shapes() -> None:
    example = _example()
    hello = _block(example, 'C> {"type": "hello"', "}")
    welcome = _block(example, 'H> {"type": "welcome"', "}")
    table = _block(example, '"table": {"id"', '"match": 0}')
    view = _block(example, '"view": {"seat": 0', '"spectator": false}')
    assert _names(Hello) <= _keys(hello), _names(Hello) - _keys(hello)
    assert _names(Welcome) <= _keys(welcome), _names(Welcome) - _keys(welcome)
    assert _names(TableInfo) <= _keys(table), _names(TableInfo) - _keys(table)
    assert _names(SeatView) <= _keys(view), _names(SeatView) - _keys(view)


def test_the_example_hello_bytes_are_what_the_protocol_encodes() -> None:
    shown = _block(_example(), "The client's `hello`, in bytes", "\n```\n\n")
    code = shown.split("```")[1]
    hex_digits = "".join(re.findall(r"\b[0-9a-f]+\b", code))
    assert hex_digits == frame(Hello(version=3, name="Ann").to_wire()).hex()
