"""Translated words on the table measured and cut as terminals draw them (issue 30):
by cells, never by code points (a Telugu line has more code points than cells), and
between letters, never inside one (a Telugu consonant keeps its vowel sign)."""

from __future__ import annotations

import re
from functools import partial

from rich.cells import cell_len
from rich.text import Text

from client.model import GameState
from client.widgets.felt import felt_text, shorten
from client.widths import clusters, count_spacing_marks, cut
from pitchnet.i18n import _, use
from tests.pilot import dealt_scene

TELUGU_WORD = re.compile(r"[\u0c00-\u0c7f]+")


def _felt(lang: str, width: int, height: int) -> list[str]:
    count_spacing_marks()
    use(lang)
    table, view, _events = dealt_scene("playing")
    return felt_text(GameState(seat=0, table=table, view=view), width, height).plain.split("\n")


def test_a_cut_keeps_whole_letters_and_counts_cells() -> None:
    count_spacing_marks()
    assert clusters("తెలుగుభాష") == ["తె", "లు", "గు", "భా", "ష"]
    assert clusters("క్షమించు") == ["క్ష", "మిం", "చు"]  # a conjunct is one letter
    assert [cut(Text("తెలుగుభాష"), w).plain for w in (1, 2, 3, 4, 7)] == [
        "తె",
        "తె",
        "తెలు",
        "తెలు",
        "తెలుగుభాష",
    ]
    assert cut(Text("Šarūnė Žąsė"), 6).plain == "Šarūnė"
    assert shorten("తెలుగుభాష", 4, []) == "తెలు…"
    assert shorten("తెలుగుభాష", 3, []) == "తె…"  # never "తెల…", a ల without its ు


def test_a_telugu_table_shows_whole_words_and_every_number() -> None:
    """Every Telugu word on the felt is whole (one the catalog has, or cut before an
    ellipsis), every line exactly as wide as the felt, and in the boxed seats of 80x24
    each seat's tricks count shows after the word for tricks."""
    count_spacing_marks()
    use("te")
    words = {
        word
        for message in (
            _("pass"),
            _("bid {bid}", bid=1),
            _("tricks {n}", n=0),
            _("score {n}", n=0),
            _("{n} pt", n=0),
            _("{n} pts", n=0),
            _("bot"),
            _("(you)"),
            _("Trump {suit}", suit=""),
            _("Trick {n}", n=0),
            _("led {card}", card=""),
            _("So far"),
            _("High"),
            _("Low"),
            _("Jack"),
            _("Game"),
        )
        for word in TELUGU_WORD.findall(message)
    }
    for width, height in ((80, 18), (60, 14), (40, 10)):
        lines = _felt("te", width, height)
        assert all(cell_len(line) == width for line in lines), (width, lines)
        for line in lines:
            for match in TELUGU_WORD.finditer(line):
                whole = match.group() in words
                cut_short = line[match.end() : match.end() + 1] == "…"
                assert whole or cut_short, (width, match.group(), "\n".join(lines))
    drawn = "\n".join(_felt("te", 80, 18))
    assert drawn.count(_("tricks {n}", n=0)) + drawn.count(_("tricks {n}", n=1)) == 4, drawn


def test_the_so_far_labels_stand_apart_from_their_cards_in_every_language() -> None:
    """The tally's labels are one column as wide as the widest in the language, and a
    space: "Aukštas 8♥", never "Aukštas8♥" (Lithuanian's "High" is seven cells)."""
    from client.widgets.felt import tally_lines

    count_spacing_marks()
    table, view, _events = dealt_scene("playing")
    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        use(lang)
        labels = [_(word) for word in ("High", "Low", "Jack", "Game")]
        lines = [line.plain for line in tally_lines(GameState(seat=0, table=table, view=view))]
        column = max(cell_len(label) for label in labels) + 1
        for label, line in zip(labels, lines[1:], strict=False):
            assert line.startswith(label), (lang, lines)
            assert cell_len(cut(Text(line), column).plain) == column, (lang, lines)
            assert cut(Text(line), column).plain == label + " " * (column - cell_len(label))


def test_the_hands_summary_shows_every_label_whole_in_every_language() -> None:
    """The summary's label column is as wide as its widest label: Lithuanian's
    "Aukštas", Croatian's and Tagalog's longer words were cut to five cells."""
    from client.screens.summary import summary_body
    from pitchnet.rules import PRESETS
    from tests.test_client_house_rules import _finished_hand, _game, rendered

    count_spacing_marks()
    match = _finished_hand(PRESETS["joker"].rules, lambda r: r.joker is not None)
    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        use(lang)
        body = rendered(summary_body(_game(match))).splitlines()
        for label in (_("High"), _("Low"), _("Jack"), _("Joker"), _("Game")):
            assert any(line.startswith(label + " ") for line in body), (lang, label, body)


async def test_the_setup_screens_labels_show_whole_in_every_language() -> None:
    """The setup form's label column is as wide as its widest label (Tagalog's "Mga
    patakaran ng mesa", Lithuanian's "Stalo pavadinimas" were cut at 16 cells), and the
    port beside the browsers' tick still shows."""
    from tests.pilot import play_on_an_empty_lan, screen_text, setup_shown, until

    for lang in ("tl", "lt", "te", "hr"):
        for size in ((80, 24), (60, 20)):
            app = play_on_an_empty_lan(lang=lang)
            async with app.run_test(size=size) as pilot:
                await until(pilot, partial(setup_shown, app), "the setup screen")
                await pilot.pause()
                shown = screen_text(app)
                labels = [
                    _("Table name"),
                    _("Players ({least}-{most})", least=2, most=7),
                    _("Partnership"),
                    _("House rules"),
                    _("Bots play"),
                    _("Browsers"),
                ]
                for label in labels:
                    assert f"│ {label} " in shown, (lang, size, label, shown)
                assert "8080" in shown, (lang, size, shown)


def test_every_seats_bid_shows_at_every_size_in_every_language() -> None:
    """A seat that bid shows its bid in the narrowest seats too (Lithuanian's
    "pasiūlymas 2" and its points did not fit a 60x20 or a phone's seat, and the bid
    was the part left out); the narrow form is the catalog's "pasiūl. 2"."""
    from pitchnet.i18n import pgettext

    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        for width, height in ((80, 18), (60, 14), (40, 11), (40, 9)):
            drawn = "\n".join(_felt(lang, width, height))
            for amount in (2, 3, 4):  # the scene's three bids (one seat passed)
                forms = {
                    _("bid {bid}", bid=amount),
                    pgettext("narrow seat", "bid {bid}", bid=amount),
                }
                forms |= {form.replace(" ", "") for form in forms}
                assert any(form in drawn for form in forms), (lang, width, amount, drawn)


def test_the_tally_keeps_a_blank_column_beside_a_seat() -> None:
    """The tally in a corner never runs on from a seat's words ("pass, 0 pts botLow",
    "pasiūl.4 0Žaidimas"): a blank column between them, as between a seat and a card."""
    from client.widgets.felt import tally_lines

    count_spacing_marks()
    for lang, players, (width, height) in (("en", 7, (60, 14)), ("lt", 4, (40, 11))):
        use(lang)
        table, view, _events = dealt_scene("playing", players=players)
        game = GameState(seat=0, table=table, view=view)
        lines = felt_text(game, width, height).plain.split("\n")
        labels = [line.plain.split()[0] for line in tally_lines(game)[1:]]
        for line in lines:
            for label in labels:
                at = line.find(label + " ")
                assert at <= 0 or line[at - 1] == " ", (lang, label, "\n".join(lines))


def test_a_reaction_is_measured_in_cells() -> None:
    """ "★ బాగా ఆడారు" is nine cells (twelve code points): it shows whole in nine."""
    from client.reactions import reaction_label
    from pitchnet.reactions import Reaction

    count_spacing_marks()
    use("te")
    full = reaction_label(Reaction.NICE)
    assert cell_len(full) < len(full)
    assert reaction_label(Reaction.NICE, width=cell_len(full)) == full


async def test_every_bid_button_shows_whole_at_40_columns_in_every_language() -> None:
    """The bid row at 40x15 with five bids to offer and the pitch: Lithuanian's "BID:"
    ("PASIŪLYMAS:") pushed the pitch button past the edge ("! Q", no suit). Every
    button shows whole, the prompt giving way first."""
    from client.app import ClientOptions, PitchApp
    from client.screens.table import TableScreen
    from client.text import card_text
    from client.widgets.bidbar import BID_LABELS
    from tests.pilot import screen_text, until
    from tests.pilot_app import PilotApp

    def on_table(app: PitchApp) -> bool:
        return isinstance(app.screen, TableScreen)

    table, view, events = dealt_scene("first_bid")
    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        app = PilotApp(ClientOptions(name="Ann", lang=lang), idle=True)
        async with app.run_test(size=(40, 15)) as pilot:
            app.game.seat = 0
            app.apply_state(1, table, view, events)
            await until(pilot, partial(on_table, app), "the table")
            await pilot.pause()
            row = next(line for line in screen_text(app).splitlines() if " ! " in line)
            for amount in view.legal_bids:
                assert f" {_(BID_LABELS[amount])} " in row, (lang, amount, row)
            assert card_text(view.hand[0], False).plain in row, (lang, row)


def test_a_bot_standing_in_is_said_whole_in_the_narrowest_seats_in_every_language() -> None:
    """At 40 columns a seat is ten cells: Lithuanian's "žaidžia botas" showed as
    "žaidžia bo"; the narrow form is the catalog's (narrow seat) "bot plays"."""
    import dataclasses

    from pitchnet.i18n import pgettext
    from pitchnet.protocol import SeatKind

    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        for width, height in ((80, 18), (60, 14), (40, 11)):
            count_spacing_marks()
            use(lang)
            table, view, _events = dealt_scene("playing")
            seats = list(table.seats)
            seats[2] = dataclasses.replace(
                seats[2], kind=SeatKind.HUMAN, name="Bob", connected=False, substitute=True
            )
            table = dataclasses.replace(table, seats=seats)
            drawn = felt_text(GameState(seat=0, table=table, view=view), width, height).plain
            forms = (_("bot plays"), pgettext("narrow seat", "bot plays"))
            assert any(form in drawn for form in forms), (lang, width, drawn)


def test_a_bots_countdown_is_said_whole_in_the_narrowest_seats_in_every_language() -> None:
    """The seat whose turn it is, its player away: the countdown reads whole, number and
    unit, at every size (at 40x15 the second game night's Lithuanian seat read "botas po
    5", its "s" cut); where the full form is too wide, the catalog's narrow one."""
    import dataclasses

    from pitchnet.i18n import pgettext
    from pitchnet.protocol import SeatKind

    for lang in ("en", "tl", "lt", "te", "hr", "da"):
        for width, height in ((80, 18), (60, 14), (40, 15), (40, 11)):
            count_spacing_marks()
            use(lang)
            table, view, _events = dealt_scene("playing")
            assert view is not None and view.turn is not None
            turn = view.turn
            seats = list(table.seats)
            seats[turn] = dataclasses.replace(
                seats[turn], kind=SeatKind.HUMAN, name="Bob", connected=False
            )
            table = dataclasses.replace(table, seats=seats, substitute=True, grace=58.0)
            me = (turn + 1) % len(seats)
            drawn = felt_text(GameState(seat=me, table=table, view=view), width, height).plain
            forms = (
                _("bot in {seconds}s", seconds=58),
                pgettext("narrow seat", "bot in {seconds}s", seconds=58),
            )
            assert any(form in drawn for form in forms), (lang, width, height, drawn)
