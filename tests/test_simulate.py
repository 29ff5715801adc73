"""`pitchnet simulate`: output tables, reproducibility and argument errors."""

from __future__ import annotations

import io
import math
import random
import re
from collections.abc import Sequence

import pytest

from pitchnet import simulate as simulate_module
from pitchnet.bots import Bot
from pitchnet.cli import main
from pitchnet.duplicate import BidTally
from pitchnet.rules import Match, Settings
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

    def recording(
        settings: Settings, bots: Sequence[Bot], dealer: int, deck_rng: random.Random | None
    ) -> tuple[Match, int]:
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


# ---- how each kind bids (benchmarks/bots.py bidding) -------------------------------------------


def _auction(bids: list[int | None], dealer: int = 3, made: bool = True) -> dict[str, BidTally]:
    """One hand whose auction is `bids` (from left of the dealer), tallied by seat name."""
    from dataclasses import replace

    from pitchnet.cards import deck
    from pitchnet.duplicate import tally_auction
    from pitchnet.rules import Match, deal_hands

    match = Match(Settings(4), dealer=dealer)
    hand = match.start_hand(deal_hands(list(deck()), Settings(4), dealer))
    for amount in bids:
        assert hand.turn is not None
        match.bid(hand.turn, amount)
    kinds = ["s0", "s1", "s2", "s3"]
    tallies = {kind: BidTally() for kind in kinds}
    pitcher, bid = hand.pitcher, hand.high_bid
    # Only the auction's fields are read from the result; the rest is the hand not played.
    from pitchnet.rules import HandResult

    blank = HandResult(
        None, None, None, (), None, None, None, None, (0,) * 4, (0,) * 4, made,
        (0,) * 4, (0,) * 4, None, None, None,
    )  # fmt: skip
    tally_auction(hand, replace(blank, pitcher=pitcher, bid=bid), kinds, tallies)
    return dict(tallies)


def test_the_auction_tally_counts_bids_steals_and_sets() -> None:
    # Seats 0, 1, 2 then the dealer (3): 2, pass, 3, and the dealer steals at 3; set back.
    tallies = _auction([2, None, 3, 3], made=False)
    s0, s1, s2, s3 = (tallies[f"s{n}"] for n in range(4))
    assert (s0.bids, s1.bids, s2.bids, s3.bids) == ({2: 1}, {}, {3: 1}, {3: 1})
    assert all(t.chances == 1 for t in (s0, s1, s2, s3))
    assert (s3.steals, s3.steals_set, s3.outbids, s3.passes) == (1, 1, 0, 0)
    assert s3.pitched == {3: 1} and s3.set == {3: 1} and s2.pitched == {}
    # The dealer outbids and makes it; then a dealer who passes a bid.
    outbid = _auction([2, None, None, 3])["s3"]
    assert (outbid.outbids, outbid.outbids_set, outbid.steals, outbid.set) == (1, 0, 0, {})
    passed = _auction([None, 2, None, None])
    assert passed["s3"].passes == 1 and passed["s1"].pitched == {2: 1}
    # Everyone passed: the dealer must bid (2 at least), counted apart from a steal.
    forced = _auction([None, None, None, 2])["s3"]
    assert (forced.forced, forced.steals, forced.outbids, forced.pitched) == (1, 0, 0, {2: 1})


def test_duplicate_bidding_adds_up_and_workers_give_the_same_result() -> None:
    from pitchnet.duplicate import duplicate, report_bidding

    settings = Settings(4)
    one = duplicate(settings, ["normal", "easy", "easy", "easy"], 3, seed=11)
    two = duplicate(settings, ["normal", "easy", "easy", "easy"], 3, seed=11, workers=2)
    assert one.per_deal == two.per_deal and one.bidding == two.bidding
    # Every scored hand has exactly one pitcher; no hand is thrown in under standard rules.
    pitched = sum(sum(t.pitched.values()) for t in one.bidding.values())
    assert pitched == one.hands > 0
    for tally in one.bidding.values():
        assert all(tally.set.get(n, 0) <= count for n, count in tally.pitched.items())
    out = io.StringIO()
    report_bidding(one, out)
    rows = [line.split() for line in out.getvalue().splitlines() if line.startswith("normal")]
    total = next(row for row in rows if row[1] == "all")
    assert int(total[3]) == sum(one.bidding["normal"].pitched.values())


def test_the_wilson_interval() -> None:
    from pitchnet.duplicate import wilson

    low, high = wilson(0, 10)
    assert low == 0.0 and 0.27 < high < 0.29  # 0/10: 0..27.8%
    low, high = wilson(50, 100)
    assert 0.40 < low < 0.41 and 0.59 < high < 0.60
    assert all(map(math.isnan, wilson(0, 0)))
