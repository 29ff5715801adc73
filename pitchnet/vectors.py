"""Run the language-neutral rules vectors (the JSON files in tests/vectors/) through the engine.

A vector is one hand with its expected outcome. `check_vector` returns the list of
mismatches ("field: expected X, got Y"), empty when the engine agrees; a malformed
file is reported as a mismatch with its reason, never as a traceback. A vector's
`rules` object names the house rules in force: an option or value this engine does
not know makes the vector malformed (refused), never silently played by the defaults.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pitchnet.cards import Card, CardParseError, parse_cards
from pitchnet.house_rules import RulesConfigError, split_target
from pitchnet.rules import Action, HandResult, Match, RulesError, Settings

RESULT_FIELDS = (
    "pitcher",
    "bid",
    "trump",
    "trick_winners",
    "high",
    "low",
    "jack",
    "game",
    "game_points",
    "earned",
    "made",
    "scores",
    "winner",
)
OPTIONAL_FIELDS = ("joker", "smudge")
"""Fields a vector gives only with the house rule of the same name on."""


class MalformedVector(ValueError):
    """The file is not a vector this runner can read."""


def parse_action(raw: Any) -> Action:
    if not isinstance(raw, dict) or not isinstance(raw.get("seat"), int):
        raise MalformedVector(f"action {raw!r} needs an integer 'seat'")
    if "bid" in raw:
        amount = raw["bid"]
        return Action.of_bid(raw["seat"], None if amount == "pass" else amount)
    if "play" in raw:
        return Action.of_play(raw["seat"], Card.parse(raw["play"]))
    raise MalformedVector(f"action {raw!r} is neither a bid nor a play")


def result_fields(result: HandResult) -> dict[str, Any]:
    """The result as a vector's `expect` spells it: its wire map (`HandResult.to_wire`),
    of which a vector gives `RESULT_FIELDS` and perhaps `OPTIONAL_FIELDS`."""
    return result.to_wire()


def vector_settings(vector: dict[str, Any]) -> Settings:
    """The match settings a vector plays under, its `rules` included. Raises
    RulesConfigError for an unknown option or value, MalformedVector for a bad target."""
    rules, rules_target = split_target(vector.get("rules", {}))
    if rules_target is not None and rules_target != vector["target"]:
        raise MalformedVector("'rules' names a target other than the vector's 'target'")
    return Settings(vector["players"], vector.get("partnership", False), vector["target"], rules)


def check_vector(vector: Any) -> list[str]:
    """Play the vector's hand and compare with its `expect`; return the mismatches."""
    try:
        return _check(vector)
    except RulesConfigError as exc:
        return [f"malformed vector: rules: {exc}"]
    except (MalformedVector, CardParseError, KeyError, TypeError, ValueError) as exc:
        return [f"malformed vector: {exc}"]


def _check(vector: Any) -> list[str]:
    if not isinstance(vector, dict):
        raise MalformedVector("a vector must be a JSON object")
    for key in ("players", "target", "dealer"):
        if type(vector.get(key)) is not int:
            raise MalformedVector(f"'{key}' must be an integer")
    if type(vector.get("partnership", False)) is not bool:
        raise MalformedVector("'partnership' must be true or false")
    settings = vector_settings(vector)
    match = Match(settings, dealer=vector["dealer"], scores=vector["scores"])
    match.start_hand([parse_cards(hand) for hand in vector["hands"]])
    actions = [parse_action(raw) for raw in vector["actions"]]
    expect = vector["expect"]
    if not isinstance(expect, dict):
        raise MalformedVector("'expect' must be an object")
    for index, action in enumerate(actions):
        try:
            action.apply_to(match)
        except RulesError as refusal:
            if expect.get("illegal_action") == index:
                return []
            return [f"action {index}: refused ({refusal.code}: {refusal.message})"]
    if "illegal_action" in expect:
        return [f"illegal_action: expected {expect['illegal_action']}, got none refused"]
    if match.last_result is None:
        return ["hand: expected it to complete, got it unfinished"]
    got = result_fields(match.last_result)
    if expect.get("redeal") is True:
        if not got["redeal"]:
            return ["redeal: expected the hand thrown in, got it played"]
        if "scores" in expect and expect["scores"] != got["scores"]:
            return [f"scores: expected {expect['scores']!r}, got {got['scores']!r}"]
        return []
    if got["redeal"]:
        return ["redeal: expected the hand played, got it thrown in"]
    return [
        f"{name}: expected {expect[name]!r}, got {got[name]!r}"
        for name in (*RESULT_FIELDS, *OPTIONAL_FIELDS)
        if name in expect and expect[name] != got[name]
    ]


def vector_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    """Vector files named directly, and every *.json in named folders, sorted."""
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(path.glob("*.json"))
        else:
            yield path


def _why(exc: BaseException) -> str:
    """Why a vector file did not read, in words (never "[Errno 2] ...")."""
    if isinstance(exc, FileNotFoundError):
        return "there is no such file"
    if isinstance(exc, IsADirectoryError):
        return "it is a folder"
    if isinstance(exc, PermissionError):
        return "it may not be read"
    if isinstance(exc, OSError):
        return (exc.strerror or "it could not be read").lower()
    if isinstance(exc, RecursionError):
        return "its JSON is nested too deep"
    return f"it is not JSON a vector can be read from ({exc})"


def run_files(paths: Iterable[str | Path], out: Any) -> tuple[int, int]:
    """Print `ok NAME` / `FAIL NAME: ...` per vector and the tally; return (passed, failed)."""
    passed = failed = 0
    for path in vector_files(paths):
        try:
            vector = json.loads(path.read_text(encoding="utf-8"))
            name = vector.get("name", path.stem) if isinstance(vector, dict) else path.stem
            problems = check_vector(vector)
        except (OSError, ValueError, RecursionError) as exc:
            # ValueError covers bad JSON, bad UTF-8 and numbers too long to convert;
            # RecursionError, JSON nested too deep.
            name, problems = path.stem, [f"unreadable: {_why(exc)}"]
        if problems:
            failed += 1
            print(f"FAIL {name}: {'; '.join(problems)}", file=out)
        else:
            passed += 1
            print(f"ok {name}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return passed, failed
