"""`pitchnet vectors PATH...`: one line per vector, a tally, exit 0 only if all pass, and a
malformed file reported as a failure with its reason, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pitchnet.cli import main

VECTOR_DIR = Path(__file__).parent / "vectors"
SAMPLE = VECTOR_DIR / "000-each-point-to-a-different-seat.json"


def run(capsys: pytest.CaptureFixture[str], *paths: Path | str) -> tuple[int, list[str], str]:
    status = main(["vectors", *map(str, paths)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


def sample() -> dict[str, Any]:
    vectors: dict[str, Any] = json.loads(SAMPLE.read_text())
    return vectors


def write(tmp_path: Path, name: str, content: Any) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_all_published_vectors_pass(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(VECTOR_DIR.glob("*.json"))
    status, lines, err = run(capsys, VECTOR_DIR)
    assert status == 0
    assert len(lines) == len(files) + 1
    assert all(line.startswith("ok ") for line in lines[:-1])
    assert lines[0] == "ok each-point-to-a-different-seat"
    assert lines[-1] == f"{len(files)} passed, 0 failed"
    assert err == ""


def test_files_and_folders_can_be_mixed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    write(tmp_path, "a", sample())
    status, lines, _ = run(capsys, tmp_path, SAMPLE)
    assert status == 0
    assert lines == [
        "ok each-point-to-a-different-seat",
        "ok each-point-to-a-different-seat",
        "2 passed, 0 failed",
    ]


def test_a_wrong_expectation_is_reported_field_by_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = sample()
    vector["name"] = "WRONG"
    vector["expect"]["bid"] = 3
    vector["expect"]["game"] = 1
    status, lines, err = run(capsys, write(tmp_path, "wrong", vector), SAMPLE)
    assert status == 1
    assert lines == [
        "FAIL WRONG: bid: expected 3, got 1; game: expected 1, got 3",
        "ok each-point-to-a-different-seat",
        "1 passed, 1 failed",
    ]
    assert "Traceback" not in err


def test_a_wrong_list_expectation(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    vector = sample()
    vector["expect"]["scores"] = [1, 1, 1, 2]
    status, lines, _ = run(capsys, write(tmp_path, "scores", vector))
    assert status == 1
    assert lines[0] == (
        "FAIL each-point-to-a-different-seat: scores: expected [1, 1, 1, 2], got [1, 1, 1, 1]"
    )


def test_an_unexpected_refusal_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = sample()
    vector["name"] = "refused"
    vector["actions"][5]["play"] = "3D"  # seat 1 holds spades: it must play one
    status, lines, _ = run(capsys, write(tmp_path, "refused", vector))
    assert status == 1
    assert lines[0].startswith("FAIL refused: action 5: refused (must_follow: ")


def test_an_expected_refusal_that_does_not_come_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = sample()
    vector["name"] = "legal"
    vector["actions"] = vector["actions"][:6]
    vector["expect"] = {"illegal_action": 5}
    status, lines, _ = run(capsys, write(tmp_path, "legal", vector))
    assert status == 1
    assert lines[0] == "FAIL legal: illegal_action: expected 5, got none refused"


def test_a_refusal_earlier_than_expected_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = sample()
    vector["name"] = "early"
    vector["actions"] = [{"seat": 1, "bid": 1}, *vector["actions"]]
    vector["expect"] = {"illegal_action": 3}
    status, lines, _ = run(capsys, write(tmp_path, "early", vector))
    assert status == 1
    assert lines[0].startswith("FAIL early: action 0: refused (not_your_turn: ")


def test_an_unfinished_hand_is_a_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    vector = sample()
    vector["name"] = "short"
    vector["actions"] = vector["actions"][:-1]
    status, lines, _ = run(capsys, write(tmp_path, "short", vector))
    assert status == 1
    assert lines[0] == "FAIL short: hand: expected it to complete, got it unfinished"


def _mutated(change: str) -> Any:
    vector = sample()
    vector["name"] = "bad"
    target, _, what = change.partition("=")
    if what == "<missing>":
        del vector[target]
    else:
        vector[target] = json.loads(what)
    return vector


MALFORMED: list[tuple[str, Any]] = [
    ("bad-json", '{"name": "x", "players": 4,'),
    ("not-json-at-all", "\x00\x01 binary"),
    ("empty-file", ""),
    ("a-list", "[1, 2, 3]"),
    ("a-string", '"vector"'),
    ("deeply-nested", "[" * 100_000 + "]" * 100_000),
    ("huge-number", '{"players": ' + "9" * 5000 + "}"),
    ("missing-hands", _mutated("hands=<missing>")),
    ("missing-actions", _mutated("actions=<missing>")),
    ("missing-expect", _mutated("expect=<missing>")),
    ("missing-players", _mutated("players=<missing>")),
    ("missing-scores", _mutated("scores=<missing>")),
    ("players-text", _mutated('players="four"')),
    ("players-too-many", _mutated("players=9")),
    ("players-float", _mutated("players=4.0")),
    ("target-eight", _mutated("target=8")),
    ("dealer-text", _mutated('dealer="3"')),
    ("dealer-out-of-range", _mutated("dealer=4")),
    ("partnership-text", _mutated('partnership="false"')),
    ("partnership-number", _mutated("partnership=1")),
    ("scores-wrong-length", _mutated("scores=[0, 0]")),
    ("hands-not-a-list", _mutated("hands=7")),
    ("hands-null", _mutated("hands=null")),
    ("hand-bad-card", _mutated('hands=[["ZZ","4C","5C","6D","7D","8H"],[],[],[]]')),
    ("hands-too-few", _mutated('hands=[["AS","4C","5C","6D","7D","8H"]]')),
    ("actions-not-a-list", _mutated("actions=3")),
    ("action-not-a-map", _mutated('actions=["bid 1"]')),
    ("action-no-seat", _mutated('actions=[{"bid": 1}]')),
    ("action-neither", _mutated('actions=[{"seat": 0, "call": 1}]')),
    ("action-bad-card", _mutated('actions=[{"seat": 0, "bid": 1}, {"seat": 1, "play": 12}]')),
    ("expect-not-a-map", _mutated("expect=[1]")),
]


@pytest.mark.parametrize(("name", "content"), MALFORMED, ids=[name for name, _ in MALFORMED])
def test_malformed_vectors_are_failures_not_tracebacks(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, content: Any
) -> None:
    path = write(tmp_path, name, content)
    status, lines, err = run(capsys, path, SAMPLE)
    assert status == 1
    assert len(lines) == 3
    reported = "bad" if isinstance(content, dict) else name
    assert lines[0].startswith(f"FAIL {reported}: ")
    assert len(lines[0]) > len(f"FAIL {reported}: ")
    assert lines[1] == "ok each-point-to-a-different-seat"
    assert lines[2] == "1 passed, 1 failed"
    assert "Traceback" not in err


def test_a_missing_file_is_a_failure(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, lines, _ = run(capsys, tmp_path / "nowhere.json")
    assert status == 1
    assert lines[0].startswith("FAIL nowhere: unreadable: ")
    assert lines[-1] == "0 passed, 1 failed"


def test_the_installed_command_exits_with_the_status(tmp_path: Path) -> None:
    vector = sample()
    vector["expect"]["winner"] = 0
    bad = write(tmp_path, "bad", vector)
    ok = subprocess.run(
        [sys.executable, "-m", "pitchnet", "vectors", str(SAMPLE)],
        capture_output=True,
        text=True,
        check=False,
    )
    failed = subprocess.run(
        [sys.executable, "-m", "pitchnet", "vectors", str(bad)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (ok.returncode, ok.stdout) == (
        0,
        "ok each-point-to-a-different-seat\n1 passed, 0 failed\n",
    )
    assert failed.returncode == 1
    assert failed.stdout.splitlines()[0] == (
        "FAIL each-point-to-a-different-seat: winner: expected 0, got None"
    )
    assert failed.stderr == ""


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ('partnership="false"', "'partnership' must be true or false"),
        ("players=4.0", "'players' must be an integer"),
        ("dealer=<missing>", "'dealer' must be an integer"),
    ],
)
def test_wrong_types_are_named_in_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, change: str, reason: str
) -> None:
    status, lines, _ = run(capsys, write(tmp_path, "typed", _mutated(change)))
    assert status == 1
    assert lines[0] == f"FAIL bad: malformed vector: {reason}"


@pytest.mark.parametrize(
    "rules",
    [
        {"jokers": "on"},
        {"joker": "yes"},
        {"min_bid": "2"},
        {"low": "dealt", "smudge": 1},
        ["joker"],
    ],
)
def test_a_vector_with_an_unknown_house_rule_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, rules: Any
) -> None:
    """Not played by the defaults: an option or value the engine does not know fails."""
    path = write(tmp_path, "odd-rules", {**sample(), "rules": rules})
    status, lines, _ = run(capsys, path)
    assert status == 1
    assert lines[0].startswith("FAIL each-point-to-a-different-seat: malformed vector: rules: ")
    assert lines[-1] == "0 passed, 1 failed"


def test_a_vector_with_known_default_rules_still_passes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(
        tmp_path, "default-rules", {**sample(), "rules": {"low": "captor", "joker": "off"}}
    )
    assert run(capsys, path)[0] == 0
