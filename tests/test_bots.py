"""Computer players: always legal, deterministic, decide from the view alone, play sensibly."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from pitchnet.bots import (
    BOT_KINDS,
    EasyBot,
    NormalBot,
    RandomBot,
    SearchBot,
    make_bot,
)
from pitchnet.cards import Card, Suit, parse_cards, shuffled_deck
from pitchnet.handvalue import best_suit, bid_for
from pitchnet.house_rules import OPTIONS, PRESETS, HouseRules
from pitchnet.rules import Action, Match, Phase, Settings
from pitchnet.search import Budget
from pitchnet.simulate import simulate
from pitchnet.views import SeatView, seat_view

TABLES = [(players, False) for players in range(2, 8)] + [(4, True)]


def _play_checked(
    settings: Settings,
    kinds: Sequence[str],
    seed: int,
    matches: int,
    budget: Budget | None = None,
    max_hands: int = 1000,
) -> int:
    """Play seeded matches, checking every decision against the view and the engine.
    Returns the number of decisions checked."""
    rng = random.Random(seed)
    bots = [make_bot(kind, rng.getrandbits(32), budget) for kind in kinds]
    decisions = 0
    for number in range(matches):
        match = Match(settings, dealer=number % settings.players)
        while match.phase is not Phase.MATCH_OVER and match.hand_number < max_hands:
            match.deal(shuffled_deck(rng, joker=settings.rules.has_joker))
            while match.phase in (Phase.BIDDING, Phase.PLAYING):
                seat = match.turn
                assert seat is not None
                view = seat_view(match, seat)
                decision = bots[seat].decide(view)
                if match.phase is Phase.BIDDING:
                    assert decision.kind == "bid"
                    assert decision.bid in view.legal_bids
                    assert decision.bid in match.legal_bids(seat)
                else:
                    assert decision.kind == "play"
                    assert decision.card is not None
                    assert str(decision.card) in view.legal_plays
                    assert decision.card in match.legal_plays(seat)
                decision.apply_to(match)  # raises RulesError if illegal
                decisions += 1
    return decisions


@pytest.mark.parametrize(("players", "partnership"), TABLES)
def test_bots_only_make_legal_moves(players: int, partnership: bool) -> None:
    settings = Settings(players, partnership)
    kinds = ["normal", "random"] * 4
    decisions = _play_checked(settings, kinds[:players], seed=players * 10 + partnership, matches=6)
    assert decisions > 100


@pytest.mark.parametrize(("players", "partnership"), TABLES)
def test_heuristic_only_table_is_legal(players: int, partnership: bool) -> None:
    settings = Settings(players, partnership)
    assert _play_checked(settings, ["normal"] * players, seed=99 + players, matches=4) > 100


def _views_of_a_match(seed: int, players: int = 4) -> list[SeatView]:
    """Every view a bot was asked to decide from in one seeded heuristic match."""
    rng = random.Random(seed)
    bot = NormalBot()
    match = Match(Settings(players))
    views = []
    while match.phase is not Phase.MATCH_OVER:
        match.deal(shuffled_deck(rng))
        while match.phase in (Phase.BIDDING, Phase.PLAYING):
            seat = match.turn
            assert seat is not None
            view = seat_view(match, seat)
            views.append(view)
            bot.decide(view).apply_to(match)
    return views


def test_heuristic_is_deterministic_and_needs_only_the_wire_view() -> None:
    views = _views_of_a_match(seed=4)
    first, second = NormalBot(), NormalBot()
    for view in views:
        decision = first.decide(view)
        assert first.decide(view) == decision
        assert second.decide(view) == decision
        # The view as it travels (plain data) is all the bot needs.
        assert second.decide(SeatView.from_wire(view.to_wire())) == decision


def test_bots_module_cannot_reach_the_match() -> None:
    """Bots see the table only through a SeatView: the module holds no Match or Hand."""
    import pitchnet.bots as bots_module

    names = vars(bots_module)
    assert "Match" not in names and "Hand" not in names and "rules" not in names


def test_random_bot_is_reproducible_from_its_seed() -> None:
    views = _views_of_a_match(seed=5)
    same_a, same_b, other = make_bot("random", 7), make_bot("random", 7), make_bot("random", 8)
    a = [same_a.decide(view) for view in views]
    assert a == [same_b.decide(view) for view in views]
    assert a != [other.decide(view) for view in views]


def test_random_bot_uses_every_option() -> None:
    """Uniform among the legal options: over many tries each option is chosen."""
    view = _situation(
        ["AS 9S 4S KD 3H 5C", "2C 5D 7H 8S 3C 4D", "QS 8D 6H 7C TC JD", "KS 2D 8H 6C 4H TD"],
        dealer=0,
        actions=[],
    )
    bot = RandomBot(random.Random(3))
    chosen = {bot.decide(view).bid for _ in range(200)}
    assert chosen == set(view.legal_bids)


def test_make_bot_knows_every_kind_and_refuses_others() -> None:
    assert set(BOT_KINDS) == {"easy", "normal", "hard", "random"}
    assert isinstance(make_bot("normal", None), NormalBot)
    assert isinstance(make_bot("heuristic", None), NormalBot)  # the old name
    assert isinstance(make_bot("easy", 1), EasyBot)
    assert isinstance(make_bot("hard", 1), SearchBot)
    assert isinstance(make_bot("random", 1), RandomBot)
    with pytest.raises(ValueError, match="unknown bot kind"):
        make_bot("clever", 1)


def test_a_bot_refuses_to_decide_out_of_turn() -> None:
    match = Match(Settings(4), dealer=0)
    match.deal(shuffled_deck(random.Random(1)))
    view = seat_view(match, 2)  # seat 1 bids first
    with pytest.raises(ValueError, match="not seat 2's turn"):
        NormalBot().decide(view)


def test_heuristic_beats_random_clearly() -> None:
    """Fair share is 25%: over 200 seeded games the heuristic seat must win over half."""
    result = simulate(Settings(4), ["normal", "random", "random", "random"], 200, seed=2026)
    assert result.unfinished == 0
    assert result.seat_wins[0] / 200 > 0.5


def test_heuristic_team_beats_random_team() -> None:
    kinds = ["normal", "random", "normal", "random"]
    result = simulate(Settings(4, partnership=True), kinds, 100, seed=11)
    assert result.team_wins[0] / 100 > 0.75


# ---- specific situations ---------------------------------------------------------------------


def _situation(
    hands: list[str],
    dealer: int,
    actions: list[tuple[int, str | int | None]],
    partnership: bool = False,
    scores: list[int] | None = None,
    rules: HouseRules | None = None,
) -> SeatView:
    """The view of the seat to move after these actions: an int or None is a bid,
    a two-letter string a play."""
    settings = Settings(len(hands), partnership, rules=rules or HouseRules())
    match = Match(settings, dealer=dealer, scores=scores)
    match.start_hand([parse_cards(hand.split()) for hand in hands])
    for seat, action in actions:
        if isinstance(action, str):
            match.play(seat, Card.parse(action))
        else:
            match.bid(seat, action)
    assert match.turn is not None
    return seat_view(match, match.turn)


def _play(view: SeatView) -> str:
    decision = NormalBot().decide(view)
    assert decision.kind == "play" and decision.card is not None
    return str(decision.card)


def _bid(view: SeatView) -> int | None:
    decision = NormalBot().decide(view)
    assert decision.kind == "bid"
    return decision.bid


def test_does_not_overtake_partners_winning_card() -> None:
    view = _situation(
        [
            "AS KH 9C 8C 7C 6C",
            "7S 3H 9D 8D 7D 6D",
            "6S AH 4H QS 5C 4C",
            "8S 2H 9H 5D 4D 3D",
        ],
        dealer=3,
        partnership=True,
        actions=[
            *[(0, 2), (1, None), (2, None), (3, None)],
            *[(0, "AS"), (1, "7S"), (2, "6S"), (3, "8S")],
            *[(0, "KH"), (1, "3H")],
        ],
    )
    assert view.seat == 2
    assert {"AH", "QS", "4H"} <= set(view.legal_plays)  # could overtake by suit or by trump
    assert _play(view) == "4H"


def test_feeds_a_ten_to_partners_safe_trick() -> None:
    view = _situation(
        [
            "9S KH 9C 8C 7C 6C",
            "8S 7H 9D 8D 7D 6D",
            "2C TH AH 4H 5C 4C",
            "AS 5H 3D 3C 4D 5D",
        ],
        dealer=3,
        partnership=True,
        actions=[
            *[(0, 2), (1, None), (2, None), (3, None)],
            *[(0, "9S"), (1, "8S"), (2, "2C"), (3, "AS")],
            *[(3, "5H"), (0, "KH"), (1, "7H")],
        ],
    )
    assert view.seat == 2  # last to play: partner's king cannot be beaten after us
    assert _play(view) == "TH"


JACK_HANDS = [
    "8C 7C 6C 5C 4C 3C",
    "9S KS 9D 8D 7D 6D",
    "JS 5S 2H 3H 4H 6H",
    "8S 7H 8H 9H TH QH",
]


@pytest.mark.parametrize("lead", ["9S", "KS"])
def test_saves_the_jack_when_an_opponent_could_capture_it(lead: str) -> None:
    view = _situation(
        JACK_HANDS,
        dealer=0,
        actions=[(1, 2), (2, None), (3, None), (0, None), (1, lead)],
    )
    assert view.seat == 2 and "JS" in view.legal_plays
    assert _play(view) == "5S"


def test_plays_the_jack_when_it_surely_wins() -> None:
    hands = [
        "JS 5S 2H 3H 4H 6H",
        "9S KD 9D 8D 7D 6D",
        "8C 7C 6C 5C 4C 3C",
        "8S 7H 8H 9H TH QH",
    ]
    view = _situation(
        hands,
        dealer=0,
        actions=[(1, 2), (2, None), (3, None), (0, None), (1, "9S"), (2, "3C"), (3, "8S")],
    )
    assert view.seat == 0  # last to play, and the jack beats the nine
    assert _play(view) == "JS"


def test_captures_an_opponents_ten() -> None:
    hands = [
        "QS 3S 2H 3H 4H 6H",
        "TS KD 9D 8D 7D 6D",
        "8C 7C 6C 5C 4C 3C",
        "4S 7H 8H 9H TH QH",
    ]
    view = _situation(
        hands,
        dealer=0,
        actions=[(1, 2), (2, None), (3, None), (0, None), (1, "TS"), (2, "3C"), (3, "4S")],
    )
    assert _play(view) == "QS"


def test_banks_its_own_ten_when_the_trick_is_safe() -> None:
    hands = [
        "TS QS 7S 3H 4H 6H",
        "4S KD 9D 8D 7D 6D",
        "5S 7C 6C 5C 4C 3C",
        "6S 7H 8H 9H TH QH",
    ]
    view = _situation(
        hands,
        dealer=0,
        actions=[(1, 2), (2, None), (3, None), (0, None), (1, "4S"), (2, "5S"), (3, "6S")],
    )
    assert _play(view) == "TS"


def test_throws_a_low_off_suit_card_on_an_opponents_trick() -> None:
    hands = [
        "2D TC AC 3H 4H 6H",
        "AS KD 9D 8D 7D 6D",
        "5S 7C 6C 5C 4C 3C",
        "6S 7H 8H 9H TH QH",
    ]
    view = _situation(
        hands,
        dealer=0,
        actions=[(1, 2), (2, None), (3, None), (0, None), (1, "AS"), (2, "5S"), (3, "6S")],
    )
    assert _play(view) == "2D"  # no trump: anything goes, and the two of diamonds is worthless


def test_pitcher_names_its_best_suit_leading_its_highest_card() -> None:
    hands = ["AS 9S 4S KD 3H 5C", "2C 5D 7H 9H 3C 4D", "QH 8D 6H 7C TC JD", "KH 2D 8H 6C 4H TD"]
    view = _situation(hands, dealer=0, actions=[(1, None), (2, None), (3, None)])
    assert view.seat == 0 and view.legal_bids == [2, 3, 4]
    view = _situation(hands, dealer=0, actions=[(1, None), (2, None), (3, None), (0, 2)])
    assert view.trump is None and _play(view) == "AS"


def test_pitcher_does_not_lead_an_unguarded_jack() -> None:
    hands = ["JH 7H 5H 2C 9D 4S", "2S 5D 7D 9S 3C 4D", "QS 8D 6S 7C TC JD", "KS 2D 8S 6C 4C TD"]
    view = _situation(hands, dealer=0, actions=[(1, None), (2, None), (3, None), (0, 2)])
    assert _play(view) == "7H"


WEAK = "4C 5D 7H 9S 6C 8D"


def test_dealer_forced_bid_is_obeyed() -> None:
    hands = [WEAK, "AS KS QS 7D 3H 5H", "KD QD TD 8H 3S 4S", "AH KH 9H 2C TC JC"]
    view = _situation(hands, dealer=0, actions=[(1, None), (2, None), (3, None)])
    assert None not in view.legal_bids
    assert _bid(view) == 2


def test_weak_hand_passes() -> None:
    hands = ["AS KS QS 7D 3H 5H", WEAK, "KD QD TD 8H 3S 4S", "AH KH 9H 2C TC JC"]
    view = _situation(hands, dealer=0, actions=[])
    assert view.seat == 1
    assert _bid(view) is None


STRONG = "AS KS JS 2S 9D 4C"
HUGE = "AS KS QS JS 3S 2S"


def test_strong_dealer_steals_the_bid() -> None:
    hands = [STRONG, "AH KH QH 8D 3H 5H", "KD QD TD 8H 3D 4D", "2H 7H 9H 6C TC JC"]
    view = _situation(hands, dealer=0, actions=[(1, 3), (2, None), (3, None)])
    assert view.legal_bids == [None, 3, 4]
    assert _bid(view) == 3


def test_bids_four_only_with_a_very_strong_hand() -> None:
    others = ["AH KH QH 8D 3H 5H", "KD QD TD 8H 3D 4D", "2H 7H 9H 6C TC JC"]
    # Strong but not overwhelming: it opens 3, and facing a 3 it passes rather than pitch.
    strong = _situation([others[0], others[1], STRONG, others[2]], dealer=1, actions=[])
    assert strong.seat == 2 and _bid(strong) == 3
    view = _situation([others[0], others[1], STRONG, others[2]], dealer=0, actions=[(1, 3)])
    assert view.seat == 2 and view.legal_bids == [None, 4]
    assert _bid(view) is None
    view = _situation([others[0], others[1], HUGE, others[2]], dealer=0, actions=[(1, 3)])
    assert _bid(view) == 4


def test_partner_does_not_outbid_a_partner_without_a_clearly_better_hand() -> None:
    hands = ["KH 7H 9C 8C 7C 6C", "AS KS 9S 8D 3H 5H", "9D 8H 3D 4D 5D 6D", "2H QH 9H 6H TC JC"]
    actions: list[tuple[int, str | int | None]] = [(1, 2), (2, None)]
    against = _situation(hands, dealer=0, actions=actions)
    assert against.seat == 3 and _bid(against) == 3  # over an opponent's 2 it bids 3
    view = _situation(hands, dealer=0, actions=actions, partnership=True)
    assert view.seat == 3 and view.side_of(1) == view.side_of(3)
    assert _bid(view) is None  # over its partner's 2 it lets the partner play


def test_strength_model_orders_hands_sensibly() -> None:
    weak = best_suit(parse_cards(WEAK.split()), 4, False)[1]
    strong = best_suit(parse_cards(STRONG.split()), 4, False)[1]
    huge = best_suit(parse_cards(HUGE.split()), 4, False)
    assert weak < strong < huge[1] and huge[0] is Suit.SPADES
    assert bid_for(0.0) == 0 and bid_for(huge[1]) == 4


def test_decision_converts_to_an_engine_action() -> None:
    card = Card.parse("TD")
    assert Action.of_play(2, card).card == card
    assert Action.of_bid(1, None).bid is None


def test_normal_does_not_throw_a_counter_into_an_opponents_trick() -> None:
    """An opponent's ten is winning the clubs, and the seat after us may still hold a
    trump: the ace would take the trick only if nobody trumps it, and would hand its
    4 trick points over if somebody did. The seven will do."""
    view = _situation(
        [
            "AH 2C 3D 4D 5D 6D",
            "3H TC 8S 7S 6S 5S",
            "4H AC 9C 7C 9S 8D",
            "5H KH QS JS TS 2S",
        ],
        dealer=3,
        actions=[
            *[(0, 2), (1, None), (2, None), (3, None)],
            *[(0, "AH"), (1, "3H"), (2, "4H"), (3, "5H")],
            *[(0, "2C"), (1, "TC")],
        ],
    )
    assert view.seat == 2 and set(view.legal_plays) == {"AC", "9C", "7C"}
    assert _play(view) == "7C"


def test_normal_takes_the_ten_when_nobody_after_it_can_trump() -> None:
    """The same trick, but the last seat has shown it holds no trump: the ace is safe."""
    view = _situation(
        [
            "AH 2C 3D 4D 5D 6D",
            "3H TC 8S 7S 6S 5S",
            "4H AC 9C 7C 9S 8D",
            "KD QS JS TS 2S 3S",
        ],
        dealer=3,
        actions=[
            *[(0, 2), (1, None), (2, None), (3, None)],
            *[(0, "AH"), (1, "3H"), (2, "4H"), (3, "KD")],
            *[(0, "2C"), (1, "TC")],
        ],
    )
    assert _play(view) == "AC"


@pytest.mark.parametrize(("players", "partnership"), [(3, False), (4, True), (6, False)])
def test_every_level_is_legal(players: int, partnership: bool) -> None:
    settings = Settings(players, partnership)
    kinds = ["easy", "normal", "hard", "random", "easy", "hard"][:players]
    # Legality does not depend on how long `hard` thinks: half its default budget.
    budget = Budget(samples=Budget().samples // 2)
    assert _play_checked(settings, kinds, seed=players, matches=2, budget=budget) > 40


def test_easy_is_reproducible_and_makes_mistakes() -> None:
    views = [v for v in _views_of_a_match(seed=6) if len(v.legal_plays) > 1]
    easy, normal = make_bot("easy", 3), make_bot("normal")
    chosen = [easy.decide(v) for v in views]
    assert chosen == [make_bot("easy", 3).decide(v) for v in views]
    differs = sum(a != normal.decide(v) for a, v in zip(chosen, views, strict=True))
    assert 0 < differs < len(views)


EVERY_OPTION = [
    *(preset.rules for preset in PRESETS.values()),
    *(
        HouseRules.from_wire({name: values[1]})
        for name, values in OPTIONS.items()
        if name != "target"
    ),
    HouseRules(low="dealt", joker="on", follow="must_follow", min_bid=2, all_pass="redeal"),
    HouseRules(smudge="on", joker="on", dealer_steal="off"),
]


@pytest.mark.parametrize("rules", EVERY_OPTION, ids=lambda r: r.short() or "standard")
def test_every_level_is_legal_under_every_house_rule(rules: HouseRules) -> None:
    """Each level at one table, over many seeded hands (a match cut at 8 hands)."""
    for players, partnership in ((4, False), (4, True), (3, False)):
        settings = Settings(players, partnership, rules=rules)
        kinds = ["hard", "normal", "easy", "random"][:players]
        seed = sum(map(ord, rules.short())) + players + partnership
        checked = _play_checked(settings, kinds, seed, 3, Budget(samples=4), max_hands=8)
        assert checked > 30


# ---- house rules: sensible, not only legal ----------------------------------------------------


def test_smudge_on_makes_a_strong_hand_go_for_the_top_bid() -> None:
    hands = ["AH KH QH 8D 3H 5H", "KD QD TD 8H 3D 4D", STRONG, "2H 7H 9H 6C TC JC"]
    smudge = HouseRules(smudge="on")
    assert _bid(_situation(hands, dealer=1, actions=[])) == 3
    assert _bid(_situation(hands, dealer=1, actions=[], rules=smudge)) == 4
    behind = _situation(hands, dealer=1, actions=[], rules=smudge, scores=[0, 0, -2, 0])
    assert _bid(behind) == 3  # a negative score cannot smudge: no reason to risk 4


def test_the_joker_is_valued_and_five_is_bid_only_holding_it() -> None:
    joker = HouseRules(joker="on")
    plain = parse_cards(["AS", "KS", "JS", "2S", "9D", "4C"])
    with_joker = parse_cards(["AS", "KS", "JS", "2S", "9D", "JK"])
    assert best_suit(with_joker, 4, False, joker)[1] > best_suit(plain, 4, False, joker)[1]
    assert bid_for(5.0, joker, joker=False) == 4
    assert bid_for(5.0, joker, joker=True) == 5
    assert bid_for(5.0, HouseRules(), joker=True) == 4


@pytest.mark.parametrize("kind", ["normal", "easy", "hard"])
def test_bids_of_five_come_only_from_a_hand_holding_the_joker(kind: str) -> None:
    settings = Settings(4, rules=HouseRules(joker="on"))
    rng = random.Random(kind)
    bot = make_bot(kind, 1, Budget(samples=6))
    asked = 0
    for number in range(150):
        match = Match(settings, dealer=number % 4)
        match.deal(shuffled_deck(rng, joker=True))
        while match.phase is Phase.BIDDING:
            seat = match.turn
            assert seat is not None
            view = seat_view(match, seat)
            action = bot.decide(view) if 5 in view.legal_bids else NormalBot().decide(view)
            asked += 5 in view.legal_bids
            if action.bid == 5:
                assert "JK" in view.hand
            action.apply_to(match)
    assert asked > 300  # 5 was on offer that often; it was bid only holding the joker


def test_a_huge_hand_with_the_joker_bids_five() -> None:
    others = ["AH KH QH 8D 3H 5H", "KD QD TD 8H 3D 4D", "2H 7H 9H 6C TC JC"]
    hands = [others[0], others[1], "AS KS QS JS 2S JK", others[2]]
    view = _situation(hands, dealer=1, actions=[], rules=HouseRules(joker="on"))
    assert view.legal_bids[-1] == 5
    assert _bid(view) == 5
    plain = _situation([*hands[:2], "AS KS QS JS 3S 2S", *hands[3:]], dealer=1, actions=[])
    assert _bid(plain) == 4


def test_under_low_dealt_the_two_of_trump_is_thrown_not_kept() -> None:
    """The pitcher's ace of trump wins the trick; we must follow with the two or the nine.
    Under `low: captor` the two thrown here would be the pitcher's Low, so the nine goes;
    under `low: dealt` the two is our Low wherever it goes, and the nine is worth keeping."""
    hands = [
        "AH 2C 3D 4D 5D 6D",
        "3H 8S 7S 6S 5S 4S",
        "4H 2C 3C 4C 5C 6C".replace("2C", "7C"),
        "2H 9H KD 9S 7D 8D",
    ]
    actions: list[tuple[int, str | int | None]] = [
        *[(0, 2), (1, None), (2, None), (3, None)],
        *[(0, "AH"), (1, "3H"), (2, "4H")],
    ]
    captor = _situation(hands, dealer=3, actions=actions)
    dealt = _situation(hands, dealer=3, actions=actions, rules=HouseRules(low="dealt"))
    assert set(captor.legal_plays) == {"2H", "9H"}
    assert _play(captor) == "9H"
    assert _play(dealt) == "2H"
