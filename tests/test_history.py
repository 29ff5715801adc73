"""`pitchnet history` names seats and sides as players do: from 1, never from 0."""

from __future__ import annotations

import random
import re

from host import dispatch
from host.entries import BidMade, BotSeated, CardPlayed, Entry, HandDealt, HumanSeated, MatchBegun
from host.history import describe
from host.table import Table, TableOptions
from pitchnet.bots import make_bot
from pitchnet.cards import shuffled_deck
from pitchnet.protocol import PROTOCOL_VERSION, Hello
from pitchnet.rules import Match, Phase, Settings
from pitchnet.views import seat_view
from tests.table_doubles import RecordingJournal


def _journal_of_a_match(settings: Settings, seed: int) -> list[Entry]:
    """The entries a host would journal for one whole seeded match played by bots."""
    rng = random.Random(seed)
    bot = make_bot("heuristic")
    match = Match(settings, dealer=0)
    entries: list[Entry] = [MatchBegun(dealer=0)]
    while match.phase is not Phase.MATCH_OVER:
        assert match.hand_number < 200, "a bot match should end long before this"
        if match.phase is Phase.HAND_OVER:
            deck = shuffled_deck(rng)
            entries.append(HandDealt([str(card) for card in deck], match.hand_number + 1))
            match.deal(deck)
            continue
        turn = match.turn
        assert turn is not None
        decision = bot.decide(seat_view(match, turn))
        decision.apply_to(match)
        if decision.kind == "bid":
            entries.append(BidMade(turn, decision.bid))
        else:
            entries.append(CardPlayed(turn, str(decision.card)))
    return entries


def test_seats_are_numbered_from_one() -> None:
    settings = Settings(players=3)
    entries = [BotSeated(seat=2), *_journal_of_a_match(settings, seed=11)]
    text = "\n".join(describe(entries, {"players": 3}))
    assert "seat 0" not in text
    assert "seat 1 bids" in text or "seat 1 deals" in text
    assert "Bot (seat 3)" in text
    numbers = {int(n) for n in re.findall(r"seat (\d+)", text)}
    assert numbers == {1, 2, 3}
    winner = re.search(r"\*\*\* (.+) wins the match \*\*\*", text)
    assert winner is not None and winner.group(1) in ("seat 1", "seat 2", "Bot (seat 3)")
    assert re.search(r"scores: seat 1 -?\d+, seat 2 -?\d+, Bot \(seat 3\) -?\d+", text)


def test_partnership_sides_are_teams_a_and_b() -> None:
    settings = Settings(players=4, partnership=True)
    ann = HumanSeated(seat=0, name="Ann", token="t")
    entries = [ann, *_journal_of_a_match(settings, seed=5)]
    text = "\n".join(describe(entries, {"players": 4, "partnership": True}))
    assert "team 0" not in text and "team 1" not in text
    teams = r"scores: team A \(Ann & seat 3\) -?\d+, team B \(seat 2 & seat 4\) -?\d+"
    assert re.search(teams, text)
    assert re.search(r"\*\*\* team [AB] \(.+\) wins the match \*\*\*", text)


def test_bots_are_named_as_the_table_named_them() -> None:
    """The names players saw at the table ("Bot 1"), from the journal the host wrote."""

    journal = RecordingJournal()
    options = TableOptions(players=3, bots=2)
    table = Table("t1", "T", options, lambda key: shuffled_deck(random.Random(key)), journal)
    dispatch.join(table, Hello(version=PROTOCOL_VERSION, name="Ann"))
    shown = [seat.name for seat in table.seats]
    assert shown == ["Bot 1", "Bot 2", "Ann"]
    text = "\n".join(describe(journal.written, {"players": 3}))
    assert "Bot 1 deals" in text or "Bot 1 bids" in text, text
    assert "Bot (seat" not in text


def test_the_list_and_the_hands_name_whoever_plays_each_seat() -> None:
    """Game night's seat changes (issue 12) as the table made them: a lobby move, a
    newcomer taking a bot's seat at the next hand, a player leaving mid-match (a bot
    plays on as "<name> (bot)"). `history` names each seat's player at each point, and
    its list names the players the table had, never "seat 4" for someone who moved."""
    from host.history import table_lines
    from host.journal import SqliteJournal, journal_path, list_tables
    from pitchnet.protocol import Leave, Ready, Sit, Start
    from tests.table_doubles import play_out_hand
    from tests.test_table_seats import hello

    store = SqliteJournal(journal_path("feedfacecafe"), create=True)
    options = {"players": 4, "target": 21}
    store.set_meta(name="Den", options=options, finished=False)
    deck = lambda key: shuffled_deck(random.Random(key))  # noqa: E731
    table = Table("feedfacecafe", "Den", TableOptions(players=4, target=21), deck, store)
    ann = dispatch.join(table, hello("Ann"))
    bob = dispatch.join(table, hello("Bob"))
    dispatch.act(table, bob, Sit(id=1, seat=3))  # Bob moves from seat 2 to seat 4
    bob = 3
    cat = dispatch.join(table, hello("Cat"))  # seat 2, the one Bob left
    dispatch.act(table, ann, Start(id=1))  # Bot 1 takes seat 3
    assert dispatch.join(table, hello("Dee")) == 2  # mid-hand: Bot 1's seat, from the next hand
    dispatch.act(table, cat, Leave())  # Cat's seat is played by a bot from now on
    play_out_hand(table)
    for seat in (ann, bob):
        dispatch.act(table, seat, Ready(id=table.seats[seat].last_id + 1))
    assert table.match is not None and table.match.hand_number == 2
    seated = [seat.name for seat in table.seats]
    assert seated == ["Ann", "Cat (bot)", "Dee", "Bob"]
    play_out_hand(table)
    store.close()

    (line,) = list(table_lines(list_tables()))
    assert "4 seats: Ann, Cat (bot), Dee, Bob " in line, line
    text = "\n".join(describe(SqliteJournal(journal_path("feedfacecafe")).entries(), options))
    first, second = text.split("--- Hand 2")
    assert "seat 4" not in text and "seat 2" not in text
    assert "(Bob)" in first and "(Bot 1)" in first and "Dee" not in first
    assert "(Bob)" in second and "(Cat (bot))" in second and "(Dee)" in second
    assert "(Bot 1)" not in second


def test_a_damaged_journal_does_not_hide_the_other_tables_from_the_list() -> None:
    """`pitchnet history` lists every table: one whose entries stop fitting is said to
    be unreadable on its own line, and the others are listed as usual."""
    from host.history import table_lines
    from host.journal import SqliteJournal, journal_path, list_tables

    for table_id, name, last in (
        ("aaaa00000001", "Good", BotSeated(seat=1, name="Bot 1")),
        ("bbbb00000002", "Bad", BidMade(seat=7, value=2)),  # a seat a 2-seat table lacks
    ):
        store = SqliteJournal(journal_path(table_id), create=True)
        store.set_meta(name=name, options={"players": 2}, finished=False)
        store.record_all([HumanSeated(seat=0, name="Ann", token="t" * 32), last])
        store.close()
    lines = {line.split()[0]: line for line in table_lines(list_tables())}
    assert "2 seats: Ann, Bot 1  [never started (lobby)]" in lines["aaaa00000001"]
    assert lines["bbbb00000002"].endswith("[its record does not read back]")


def test_a_table_being_hosted_now_is_listed_as_such_and_never_offered_to_resume() -> None:
    """`pitchnet history` while a table is being played lists it (it said "No tables
    have been hosted on this computer yet"), as being hosted now, not as cut off; the
    tables a host could resume still leave it out."""
    from host.history import table_lines
    from host.journal import SqliteJournal, journal_path, list_tables, unfinished_tables

    live = SqliteJournal(journal_path("cccc00000003"), create=True)  # a host holds it
    try:
        live.set_meta(name="Live", options={"players": 2}, finished=False)
        live.record_all([HumanSeated(seat=0, name="Ann", token="t" * 32)])
        (line,) = list(table_lines(list_tables()))
        assert line.startswith("cccc00000003  'Live'"), line
        assert (
            "1 seats" not in line and "Ann" in line and "[being hosted now, in its lobby]" in line
        )
        skipped: list[str] = []
        assert list(unfinished_tables(skipped=skipped)) == []
        assert skipped == ["table cccc00000003 is being hosted already (its journal is in use)"]
    finally:
        live.close()
    assert [r.table_id for r in unfinished_tables()] == ["cccc00000003"]  # closed: resumable
