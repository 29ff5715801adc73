"""Which refusals are strikes: one table (host/strikes.py), what PROTOCOL.md says, what
the product can raise, and what a connection meets.

The table is the referee's only source: a refusal is a strike or not by its code, not by
the exception class that carried it. These tests keep the document and the code from
drifting apart again (section 10 once listed `seat_taken`, `bad_seat`, `not_in_lobby`
and `not_yet` as strikes while the host never counted them).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from host.strikes import STRIKES, is_strike
from pitchnet.protocol import Sit
from tests.pair import RefereePair

ROOT = Path(__file__).resolve().parent.parent
NOT_STRIKES_LEAD = "never counted as strikes"
STRIKES_LEAD = "count as strikes"


def _section(title: str) -> str:
    text = (ROOT / "PROTOCOL.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _tables(section: str) -> dict[str, set[str]]:
    """Each markdown table of the section, keyed by the paragraph before it: the codes
    in its first column (a cell may name several)."""
    tables: dict[str, set[str]] = {}
    rows: set[str] | None
    lead, rows = "", None
    for line in [*section.splitlines(), ""]:
        if line.startswith("|"):
            if rows is None:
                rows = tables[lead] = set()
            first = line.split("|")[1]
            if not set(first.strip()) <= {"-"}:
                rows.update(re.findall(r"`([a-z_]+)`", first))
        else:
            if rows is not None:
                lead, rows = "", None
            if line.strip():
                lead = f"{lead} {line.strip()}".strip()
    return tables


def _table_led_by(tables: dict[str, set[str]], words: str) -> set[str]:
    [codes] = [codes for lead, codes in tables.items() if words in lead]
    return codes


def test_protocol_md_lists_exactly_the_strikes_the_referee_counts() -> None:
    tables = _tables(_section("10. Errors"))
    documented_strikes = _table_led_by(tables, STRIKES_LEAD)
    documented_refusals = _table_led_by(tables, NOT_STRIKES_LEAD)
    assert documented_strikes == {code for code, strike in STRIKES.items() if strike}
    assert documented_refusals == {code for code, strike in STRIKES.items() if not strike}


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _code_given(node: ast.Call) -> str | None:
    """The code a refusal call names: the first argument of `RulesError(...)` or of a
    non-fatal `ProtocolError(...)`, the second of the referee's `_refused(peer, code,
    ...)`; None for any other call."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    fatal = any(k.arg == "fatal" and getattr(k.value, "value", False) for k in node.keywords)
    at = {"RulesError": 0, "ProtocolError": 0, "_refused": 1}.get(name)
    if at is None or fatal or len(node.args) <= at:
        return None
    return _text(node.args[at])


def _raised_codes() -> set[str]:
    """Every code the product gives a refusal a seated connection can meet: what each
    refusal call names (`_code_given`), and the codes `_why_...` helpers return."""
    codes: set[str] = set()
    sources = ["pitchnet/rules.py", "pitchnet/schema.py", "pitchnet/protocol.py"]
    sources += ["host/table.py", "host/referee.py", "host/dispatch.py"]
    for source in sources:
        tree = ast.parse((ROOT / source).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (code := _code_given(node)):
                codes.add(code)
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_why"):
                returned = [r.value for r in ast.walk(node) if isinstance(r, ast.Return)]
                tuples = [value.elts[0] for value in returned if isinstance(value, ast.Tuple)]
                codes.update(code for first in tuples if (code := _text(first)))
    return codes


def test_every_refusal_the_product_can_send_is_in_the_table() -> None:
    raised = _raised_codes()
    assert {"not_your_turn", "no_steal", "seat_taken", "bad_card", "watching"} <= raised
    # hand_in_progress guards the table's own deal; no client message reaches it.
    assert raised - {"hand_in_progress"} <= set(STRIKES), raised - set(STRIKES)


def test_an_unlisted_code_errs_on_the_hosts_side() -> None:
    assert "no_such_code" not in STRIKES and is_strike("no_such_code")


def test_losing_a_race_for_a_seat_is_never_a_strike() -> None:
    """Two people click the same free seat; the loser's client may retry as often as it
    likes (and a `sit` to one's own seat is `bad_seat`): refused, never struck out."""
    pair = RefereePair(players=3)
    ann, bob = pair.join("Ann", "10.0.0.1:1"), pair.join("Bob", "10.0.0.2:1")
    tries = pair.limits.max_strikes + 2
    for n in range(tries):
        seat = 1 if n % 2 else 0  # Bob's seat, then Ann's own
        answer = pair.send(ann, Sit(id=n + 1, seat=seat))
        code = "seat_taken" if seat == 1 else "bad_seat"
        assert [(p["code"], p["fatal"], p["id"]) for p in answer] == [(code, False, n + 1)]
    assert pair.referee.peers[ann.conn].strikes == 0 and ann.closed is None
    assert bob.closed is None and pair.table.seats[0].name == "Ann"
