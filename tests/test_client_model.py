"""The client's pure parts: addresses, untrusted text, log sentences, refusals, settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from client.connection import BACKOFF_CAP, backoff_delay, parse_address
from client.demo import Scene, scene
from client.model import GameState, describe_event, refusal
from client.settings import choose_name, load_name
from client.text import card_text, plain
from client.tokens import SavedSeat
from pitchnet.cards import Card
from pitchnet.events import Played, events_from_wire
from pitchnet.protocol import SeatKind
from pitchnet.rules import Phase, RulesError
from pitchnet.text import printable
from tests.pilot import dealt


def rendered(text: object) -> str:
    console = Console(width=200, color_system=None, record=True)
    console.print(text)
    return console.export_text().rstrip("\n")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10.0.0.5", ("10.0.0.5", 7373)),
        ("10.0.0.5:9000", ("10.0.0.5", 9000)),
        ("laptop.local:7374", ("laptop.local", 7374)),
        ("[::1]:7000", ("::1", 7000)),
        ("[fe80::1]", ("fe80::1", 7373)),
    ],
)
def test_parse_address(text: str, expected: tuple[str, int]) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":7373", "host:0", "host:99999", "host:abc"])
def test_parse_address_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError):
        parse_address(text)


def test_backoff_grows_then_stays_near_a_second() -> None:
    delays = [backoff_delay(n) for n in range(10)]
    assert delays[0] < 0.2
    assert all(d <= BACKOFF_CAP * 1.1 for d in delays)
    assert delays[-1] >= BACKOFF_CAP * 0.9


def test_markup_in_a_name_is_shown_literally() -> None:
    assert rendered(plain("[red]x[/red]")) == "[red]x[/red]"
    assert rendered(plain("[bold]Bob")) == "[bold]Bob"


def test_escape_and_control_characters_are_dropped() -> None:
    assert printable("\x1b[31mEve\x07\u202e!") == "[31mEve!"
    assert printable("a" * 100, 24) == "a" * 24


def test_cards_draw_with_symbols_or_letters() -> None:
    assert rendered(card_text("TH")) == "10♥"  # a ten reads "10", never the wire's "T"
    assert rendered(card_text("TH", ascii_only=True)) == "10H"
    assert rendered(card_text("nonsense")) == "??"


def test_log_sentences_use_names_and_never_raise_on_garbage() -> None:
    table, view = scene("bidding")
    game = GameState(seat=0, table=table, view=view)
    wire = [
        {"kind": "bid", "seat": 1, "bid": 2},
        {"kind": "bid", "seat": 0, "bid": None},
        {"kind": "play", "seat": 2, "card": "QS"},
    ]
    lines = [describe_event(game, event) for event in events_from_wire(wire)]
    assert [rendered(line) for line in lines] == ["Bot 1 bids 2", "You pass", "Bot 2 plays Q♠"]
    garbage: list[Any] = [
        None,
        [],
        {"kind": "bid"},
        {"kind": "bid", "seat": "0", "bid": 1},
        {"kind": "bid", "seat": True, "bid": 1},
        {"kind": "trick", "winner": None},
        {"kind": "mystery", "seat": 1},
    ]
    assert events_from_wire(garbage) == []  # each left out, none raises
    assert events_from_wire({"kind": "bid"}) == []
    # Well formed but meaningless: the line is skipped, nothing raises.
    assert describe_event(game, Played(1, "ZZ")) is None


def test_an_unplayable_card_gets_the_reason() -> None:
    """Find, in seeded deals, a moment where seat 0 holds a card it may not play."""
    for seed in range(50):
        s = Scene(seed)
        s.deal()
        try:
            s.until(
                lambda m: (
                    m.phase is Phase.PLAYING
                    and m.turn == 0
                    and bool(m.hand.trick)
                    and len(m.legal_plays(0)) < len(m.hand.hands[0])
                )
            )
        except RuntimeError:
            continue
        view = s.view()
        illegal = next(c for c in view.hand if c not in view.legal_plays)
        reason = refusal(view, illegal)
        with pytest.raises(RulesError) as refused:  # what the host answers that play with
            s.match.check_play(0, Card.parse(illegal))
        assert reason == refused.value.message
        assert reason.startswith(("You must follow", "Trump was led"))
        assert refusal(view, view.legal_plays[0]) is None
        return
    pytest.fail("no seeded deal had an unplayable card for seat 0")


def test_a_card_the_view_gives_no_reason_for_goes_to_the_host() -> None:
    """In the bidding the view names no rule, so the client keeps no sentence of its own:
    the play goes to the host, which refuses it in its own words."""
    _, view = scene("bidding")
    assert view is not None and view.hand and view.legal_plays == []
    assert view.play_rule is None
    assert refusal(view, view.hand[0]) is None


def test_the_turn_prompt_names_the_keys_for_the_cards_held() -> None:
    """The number keys pick cards by slot, so the prompt offers only as many as we hold."""
    from client.widgets.bidbar import prompt_text

    for held in (6, 3, 1):
        s = Scene(7)
        s.deal()
        s.until(
            lambda m, held=held: (
                m.phase is Phase.PLAYING and m.turn == 0 and len(m.hand.hands[0]) == held
            )
        )
        game = GameState(seat=0, view=s.view())
        assert len(dealt(game).hand) == held
        words = prompt_text(game).plain
        numbers = "1" if held == 1 else f"1-{held}"
        assert f"pick with {numbers} or " in words, words


def test_name_is_remembered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    assert load_name() is None
    assert choose_name("  Ann\x1b  ") == "Ann"
    assert load_name() == "Ann"
    assert choose_name(None) == "Ann"


def test_default_name_is_the_login_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    monkeypatch.setattr("getpass.getuser", lambda: "zoe")
    assert choose_name(None) == "zoe"


def test_cli_arguments_choose_the_first_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from client.main import main, options_from_args
    from pitchnet.cli import build_parser

    monkeypatch.setenv("PITCHNET_CONFIG_DIR", str(tmp_path))
    parse = build_parser().parse_args
    joined = options_from_args(parse(["join", "10.0.0.2:7400", "--name", "Ann", "--ascii"]))
    assert (joined.mode, joined.address, joined.name, joined.ascii_only) == (
        "join",
        ("10.0.0.2", 7400),
        "Ann",
        True,
    )
    assert options_from_args(parse(["join"])).mode == "find"
    assert joined.password is None
    locked = options_from_args(parse(["join", "10.0.0.2", "--password", "sesame"]))
    assert locked.password == "sesame"
    assert options_from_args(parse(["play", "--password", "sesame"])).password == "sesame"
    played = options_from_args(parse(["play", "--interface", "127.0.0.1"]))
    assert (played.mode, played.interface, played.name) == ("play", "127.0.0.1", "Ann")
    assert main(parse(["join", "host:notaport"])) == 2


def found(seat: SavedSeat | None) -> SavedSeat:
    """A seat the store must hold (the test fails here if it holds none)."""
    assert seat is not None, "the token store holds no such seat"
    return seat


def test_seat_tokens_are_kept_by_table_and_name(tmp_path: Path) -> None:
    from client.tokens import SavedSeat, TokenStore

    store = TokenStore(tmp_path / "seats.json")
    assert store.find("Ann", table_id="t1") is None
    store.remember(SavedSeat("t1", "Ann", "10.0.0.2", 7373, "tok-ann"))
    store.remember(SavedSeat("t1", "Bob", "10.0.0.2", 7373, "tok-bob"))
    store.remember(SavedSeat("t1", "Ann", "10.0.0.2", 7373, "tok-ann-2"))
    assert found(store.find("Ann", table_id="t1")).token == "tok-ann-2"
    assert found(store.find("Bob", address=("10.0.0.2", 7373))).token == "tok-bob"
    assert store.find("Ann", address=("10.0.0.3", 7373)) is None
    assert store.find("Cat", table_id="t1") is None
    assert (tmp_path / "seats.json").stat().st_mode & 0o777 == 0o600
    store.forget("t1", "Ann")
    assert store.find("Ann", table_id="t1") is None
    assert store.find("Bob", table_id="t1") is not None


def test_a_seat_given_up_forgets_only_its_own_token(tmp_path: Path) -> None:
    """A token a host refused without proof is kept beside the newer one: giving up the
    seat of one forgets that one only (the other may be the real table's), and the entry
    then holds no seat (`find`), only tokens to join that table id with."""
    from client.tokens import MAX_KEPT, SavedSeat, TokenStore

    store = TokenStore(tmp_path / "seats.json")
    store.remember(SavedSeat("t1", "Ann", "h", 1, "newcomer", kept=("newcomer", "real")))
    assert found(store.find("Ann", table_id="t1")).tokens == ("newcomer", "real")
    store.forget("t1", "Ann", "unknown")
    assert found(store.find("Ann", table_id="t1")).tokens == ("newcomer", "real")
    store.forget("t1", "Ann", "newcomer")
    assert store.find("Ann", table_id="t1") is None  # no seat held there any more
    assert found(store.find("Ann", table_id="t1", given_up=True)).tokens == ("real",)
    store.forget("t1", "Ann", "real")
    assert store.find("Ann", table_id="t1", given_up=True) is None
    # Beyond MAX_KEPT older tokens, the first one ever kept and the newest stay.
    older = ("fourth", "third", "second", "first")
    store.remember(SavedSeat("t1", "Ann", "h", 1, "newest", kept=older))
    kept = found(store.find("Ann", table_id="t1")).kept
    assert len(kept) == MAX_KEPT and kept == (*older[: MAX_KEPT - 1], "first")


def test_a_damaged_token_file_is_ignored(tmp_path: Path) -> None:
    from client.tokens import SavedSeat, TokenStore

    path = tmp_path / "seats.json"
    path.write_text('[{"table_id": 1}, "junk", {"nonsense": true}')
    store = TokenStore(path)
    assert store.find("Ann", table_id="t1") is None
    store.remember(SavedSeat("t1", "Ann", "h", 1, "tok"))
    assert found(store.find("Ann", table_id="t1")).token == "tok"


def test_an_absent_player_shows_time_away_and_the_bot_countdown() -> None:
    from client.widgets.seats import presence
    from pitchnet.protocol import SeatInfo

    gone = SeatInfo(name="Bob", kind=SeatKind.HUMAN, connected=False, away=5.0)
    assert rendered(presence(gone)) == "away 5s"
    assert rendered(presence(gone, since=2.2)) == "away 7s"
    assert rendered(presence(gone, since=2.2, grace=60.0)) == "bot in 53s"
    assert rendered(presence(gone, since=99, grace=60.0)) == "bot in 0s"
    assert rendered(presence(SeatInfo("Bob", SeatKind.HUMAN, True))) == "here"
    assert (
        rendered(presence(SeatInfo("Bob", SeatKind.HUMAN, False, substitute=True))) == "bot plays"
    )


def test_a_viewer_without_the_seat_is_never_you() -> None:
    """A spectator, or a newcomer who claimed a seat a bot plays until the next hand (the
    host sends them the spectators' view), is never told that seat's bids are theirs:
    not in the header ("Bid 2: You"), the log, the seats, the felt or the prompt."""
    from client.model import bid_word, status_line, top_bid
    from client.widgets.bidbar import prompt_text
    from client.widgets.felt import felt_text
    from client.widgets.seats import seats_table
    from client.widgets.trick import trick_text
    from pitchnet.events import Bid
    from pitchnet.views import seat_view, spectator_view

    s = Scene(7)
    s.deal()
    s.until(lambda m: m.phase is Phase.PLAYING and m.turn == m.hand.pitcher != 0)
    watching = spectator_view(s.match)
    pitcher, bid = watching.pitcher, watching.high_bid
    assert pitcher is not None and bid is not None

    def texts(game: GameState) -> dict[str, str]:
        said = describe_event(game, Bid(pitcher, bid))
        return {
            "header": rendered(status_line(game)),
            "log": rendered(said),
            "seats": rendered(seats_table(game)),
            "felt": rendered(felt_text(game, 100, 30)),
            "trick": rendered(trick_text(game)),
            "prompt": rendered(prompt_text(game)),
        }

    table = s.table()
    player = texts(GameState(seat=pitcher, table=table, view=seat_view(s.match, pitcher)))
    assert f"Bid {bid}: You" in player["header"] and player["log"].startswith("You ")
    assert "you" in player["seats"] and "YOUR" in player["prompt"]  # the test can fail
    name = table.seats[pitcher].name
    claimant = GameState(seat=pitcher, table=table, view=watching)
    spectator = GameState(seat=None, table=table, view=watching, watching=True)
    for game in (claimant, spectator):
        assert game.me is None and game.who(pitcher) == name
        seen = texts(game)
        assert f"Bid {bid}: {name}" in seen["header"]
        # "Bot 3 bids 3", not "You bid 3"
        assert seen["log"] == f"{name} {bid_word(bid, top=top_bid(watching))}"
        for where, text in seen.items():
            assert "You" not in text and "you" not in text.replace("your", ""), (where, text)
            assert "YOUR" not in text, (where, text)


@pytest.mark.parametrize(("preset", "top"), [("standard", 4), ("joker", 5)])
def test_the_pitch_is_the_tables_top_bid(preset: str, top: int) -> None:
    """The log and the seats call the table's top bid a pitch (`HouseRules.top_bid`, read
    from the view's rules): 4 by the rule book, 5 with the joker, where 4 is a bid."""
    from random import Random

    from client.model import bid_word, top_bid
    from pitchnet.cards import shuffled_deck
    from pitchnet.events import Bid
    from pitchnet.rules import PRESETS, Match, Settings
    from pitchnet.views import seat_view

    rules = PRESETS[preset].rules
    match = Match(Settings(4, rules=rules), dealer=0)
    match.deal(shuffled_deck(Random(1), joker=rules.has_joker))
    game = GameState(seat=0, view=seat_view(match, 0))
    assert top_bid(game.view) == top
    other = 9 - top  # 5 at a rule-book table (not a bid there), 4 at a joker table
    said = {amount: rendered(describe_event(game, Bid(1, amount))) for amount in (top, other)}
    assert "pitches" in said[top] and f"bids {top}" in said[top], said
    assert "pitches" not in said[other], said
    assert bid_word(top, top=top) == f"pitches (bids {top})"
    assert bid_word(other, top=top) == f"bids {other}"


def test_the_pitch_gesture_leads_its_card_once_and_only_on_our_first_lead() -> None:
    """`PitchLead` waits out the auction, plays its card when the first lead is ours and
    the card legal, and is over after one look at a view past the auction either way."""
    from random import Random

    from client.gestures import PitchLead
    from pitchnet.cards import shuffled_deck
    from pitchnet.rules import Match, Settings
    from pitchnet.views import seat_view

    match = Match(Settings(4), dealer=3)
    match.deal(shuffled_deck(Random(4)))
    pitcher = match.turn
    assert pitcher is not None
    card = str(match.hand.hands[pitcher][0]) if match.hand is not None else ""
    gesture = PitchLead()
    gesture.begin(card)
    assert gesture.due(seat_view(match, pitcher), pitcher) is None  # the auction is on
    assert gesture.card == card
    match.bid(pitcher, 4)  # the top bid ends the auction: the pitcher leads
    view = seat_view(match, pitcher)
    assert view.phase == Phase.PLAYING and view.turn == pitcher
    assert gesture.due(view, pitcher) == card
    assert gesture.card is None and gesture.due(view, pitcher) is None  # once
    gesture.begin(card)
    assert gesture.due(view, (pitcher + 1) % 4) is None  # not our lead: over, no play
    assert gesture.card is None
    gesture.begin(card)
    gesture.cancel()
    assert gesture.due(view, pitcher) is None
