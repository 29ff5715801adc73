"""`pitchnet simulate`: output tables, reproducibility and argument errors."""

from __future__ import annotations

import re

import pytest

from pitchnet import simulate as simulate_module
from pitchnet.cli import main
from pitchnet.rules import Settings
from pitchnet.simulate import parse_kinds, simulate


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["simulate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _seat_rows(out: str) -> dict[int, tuple[str, int]]:
    """seat -> (bot kind, wins) from the per-seat table."""
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 5 and fields[0].isdigit() and fields[-1].endswith("%"):
            seat = int(fields[0])
            rows[seat] = (fields[-4], int(fields[-3]))
    return rows


def test_prints_win_rates_per_seat_and_kind(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "--players", "4", "--games", "20", "--bots", "heuristic,random", "--seed", "1"
    )
    assert code == 0 and err == ""
    assert out.startswith("20 games, 4 players, target 7, seed 1")
    rows = _seat_rows(out)
    assert [rows[seat][0] for seat in range(4)] == ["heuristic", "random", "heuristic", "random"]
    assert sum(wins for _, wins in rows.values()) == 20  # one winner per game
    kinds = {
        m.group(1): m.groups()[1:]
        for m in re.finditer(r"^(\w+)\s+(\d+)\s+(\d+)\s+(\d+)", out, re.M)
    }
    assert kinds["heuristic"][0] == "2" and kinds["heuristic"][2] == "40"
    assert kinds["random"][0] == "2" and kinds["random"][2] == "40"
    heuristic_wins = rows[0][1] + rows[2][1]
    assert int(kinds["heuristic"][1]) == heuristic_wins


def test_same_seed_same_output(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("--players", "3", "--games", "10", "--bots", "random", "--seed", "5")
    first = _run(capsys, *args)
    second = _run(capsys, *args)
    other = _run(capsys, "--players", "3", "--games", "10", "--bots", "random", "--seed", "6")
    assert first == second
    assert first[1] != other[1]


def test_unseeded_run_uses_the_production_shuffle(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--players", "2", "--games", "3", "--bots", "heuristic,random")
    assert code == 0
    assert "unseeded (production shuffle)" in out
    assert sum(wins for _, wins in _seat_rows(out).values()) == 3


def test_partnership_counts_a_win_for_both_partners(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        "--players",
        "4",
        "--partnership",
        "--games",
        "12",
        "--bots",
        "heuristic,random",
        "--seed",
        "3",
    )
    assert code == 0 and "partnership" in out.splitlines()[0]
    rows = _seat_rows(out)
    assert rows[0][1] == rows[2][1] and rows[1][1] == rows[3][1]
    assert rows[0][1] + rows[1][1] == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "heuristic,clever"], "unknown bot kind clever"),
        (["--bots", "heuristic,,random"], "comma-separated"),
        (["--games", "0"], "--games must be at least 1"),
        (["--games", "-3"], "--games must be at least 1"),
        (["--players", "3", "--partnership"], "partnership play needs exactly 4 players"),
    ],
)
def test_bad_arguments_exit_2_with_a_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = _run(capsys, *args)
    assert code == 2
    assert out == ""
    assert message in err and "Traceback" not in err


def test_argparse_refuses_an_impossible_table(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["simulate", "--players", "9"])
    assert exit_info.value.code == 2
    assert "the players are 2 to 7" in capsys.readouterr().err


def test_kinds_repeat_to_fill_the_table() -> None:
    assert parse_kinds("heuristic,random", 5) == ["heuristic", "random"] * 2 + ["heuristic"]
    assert parse_kinds(" random ", 2) == ["random", "random"]
    with pytest.raises(ValueError):
        parse_kinds("", 4)


def test_starting_dealer_rotates_and_every_game_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    dealers: list[int] = []
    real = simulate_module.play_match

    def recording(settings, bots, dealer, deck_rng):  # type: ignore[no-untyped-def]
        dealers.append(dealer)
        return real(settings, bots, dealer, deck_rng)

    monkeypatch.setattr(simulate_module, "play_match", recording)
    result = simulate(Settings(3), ["heuristic", "random", "random"], 7, seed=8)
    assert dealers == [0, 1, 2, 0, 1, 2, 0]
    assert result.unfinished == 0
    assert sum(result.seat_wins) == 7
    assert result.hands >= 7


def _duplicate_rows(out: str) -> dict[str, list[str]]:
    rows = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 6 and fields[1].isdigit() and fields[4].endswith("%"):
            rows[fields[0]] = fields[1:]
    return rows


def test_duplicate_reports_points_and_wins_with_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("--duplicate", "--games", "6", "--bots", "normal,random", "--seed", "4")
    code, out, err = _run(capsys, *args)
    assert code == 0 and err == ""
    assert out.startswith("duplicate: 6 deals x 4 seatings = 24 matches, 4 players")
    rows = _duplicate_rows(out)
    assert set(rows) == {"normal", "random"}
    assert rows["normal"][0] == "2" and rows["random"][0] == "2"
    for fields in rows.values():
        low, high = (float(x) for x in fields[2].split(".."))
        assert low <= float(fields[1]) <= high
    assert float(rows["normal"][1]) > float(rows["random"][1])
    lead = re.search(
        r"^normal - random: ([+-][\d.]+) points/hand \(95% CI ([+-][\d.]+)\.\.", out, re.M
    )
    assert lead is not None and float(lead.group(1)) > float(lead.group(2))
    # Reproducible with the seed; another seed deals other cards.
    assert _run(capsys, *args) == (code, out, err)
    assert _run(capsys, *args[:-1], "5")[1] != out


def test_duplicate_seats_every_kind_in_every_seat() -> None:
    from pitchnet.duplicate import duplicate

    result = duplicate(Settings(3), ["normal", "random", "random"], 2, seed=1)
    assert result.seatings == 3 and len(result.per_deal) == 2
    for tallies in result.per_deal:
        assert tallies["normal"].matches == 3 and tallies["random"].matches == 6
        # Each match has exactly one winning seat: 3 matches per deal.
        assert tallies["normal"].wins + tallies["random"].wins == 3


def test_duplicate_plays_the_house_rules_it_is_given() -> None:
    from pitchnet.duplicate import duplicate
    from pitchnet.rules import HouseRules

    settings = Settings(4, target=10, rules=HouseRules(joker="on", smudge="on"))
    result = duplicate(settings, ["normal", "easy", "easy", "easy"], 2, seed=3)
    assert all(t["normal"].matches == 4 for t in result.per_deal)
    assert result.unfinished == 0 and result.hands > 8


def test_duplicate_with_the_search_bot_is_reproducible_with_a_count_budget(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("--duplicate", "--games", "1", "--bots", "hard,normal", "--samples", "3", "--seed", "9")
    first = _run(capsys, *args)
    assert first[0] == 0 and first[1].startswith("duplicate: 1 deals x 4 seatings")
    assert _run(capsys, *args) == first
