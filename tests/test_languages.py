"""Every player in their own language (issue 30): the host sends meanings, each client
words them; the language is chosen by --lang, remembered, or read from the system.

The catalogs are being translated as these tests are written, so the languages that
must read differently here speak a pseudo-translation (tests/pseudo.py): the template's
every message, marked and upper-cased, placeholders and plural forms kept."""

from __future__ import annotations

import dataclasses
from typing import Any

from textual.widgets import Button

from client.meanings import bye_words, error_words, meaning_words
from client.model import GameState, describe_event
from pitchnet.cli import build_parser, choose_language
from pitchnet.events import events_from_wire
from pitchnet.i18n import (
    choose,
    current,
    from_accept_language,
    from_environment,
    ngettext,
    normalise,
    use,
)
from pitchnet.protocol import Bye, ErrorMsg, PlayMsg, State, parse_host_message
from tests.netclient import RawClient, running_host


def test_a_locale_names_its_language() -> None:
    assert normalise("lt_LT.UTF-8") == "lt" and normalise("hr-HR") == "hr"
    assert normalise("fil_PH") == "tl" and normalise("TE") == "te"
    assert normalise("C") is None and normalise("fr_FR") is None and normalise("") is None
    assert from_environment({"LANG": "da_DK.UTF-8"}) == "da"
    assert from_environment({"LANG": "en_US.UTF-8", "LC_ALL": "hr_HR.UTF-8"}) == "hr"
    assert from_environment({"LANG": "de_DE", "LANGUAGE": "fr:te:en"}) == "te"
    assert from_environment({"LANG": "C", "LANGUAGE": "lt"}) is None  # as GNU gettext
    assert from_environment({}) is None and choose(None, "xx") == "en"


def test_a_browser_language_is_the_first_pitchnet_speaks() -> None:
    assert from_accept_language("fr-FR,lt;q=0.8,en;q=0.5") == "lt"
    assert from_accept_language("en;q=0.2, te;q=0.9") == "te"
    assert from_accept_language("hr;q=0, da") == "da"
    assert from_accept_language("") is None and from_accept_language(None) is None


def test_lang_is_chosen_first_then_remembered_then_the_system() -> None:
    environ = {"LANG": "da_DK.UTF-8"}
    assert choose_language(["play"], environ) == "da"  # nothing chosen yet: the system's
    assert choose_language(["play", "--lang", "lt"], environ) == "lt"
    assert choose_language(["join"], environ) == "lt"  # remembered
    assert choose_language(["history", "--lang=hr"], {}) == "hr"
    args = build_parser().parse_args(["play", "--lang", "te_IN"])
    assert args.lang == "te"


def test_plural_forms_follow_the_language(pseudo: set[str]) -> None:
    """Lithuanian has three forms: 1, 2-9 (not 12-19), and the rest (10, 11-19, 20...)."""
    pseudo.add("lt")
    use("lt")
    forms = [ngettext("{n} point", "{n} points", n) for n in (1, 2, 10, 21, 22, 12)]
    assert forms == ["⟪1 POINT⟫", "⟪2 POINTS⟫", "⟪10 POINTS⟫", "⟪21 POINT⟫", "⟪22 POINTS⟫",
                     "⟪12 POINTS⟫"]  # fmt: skip
    use("en")
    assert ngettext("{n} point", "{n} points", 21) == "21 points"


async def _state_with(client: RawClient, kind: str) -> dict[str, Any]:
    """The first `state` this client received whose events include one of `kind`."""
    found: list[dict[str, Any]] = []

    def seen() -> bool:
        found[:] = [
            p
            for p in client.received
            if p["type"] == "state" and any(e.get("kind") == kind for e in p["events"])
        ]
        return bool(found)

    while not seen():
        await client.next_payload()
    return found[0]


async def test_two_clients_get_the_same_frames_and_word_them_in_their_own_languages(
    pseudo: set[str],
) -> None:
    """Ann reads Lithuanian, Bob English, at one table: the host sends both the same
    events and the same refusal (a code and its parameters, no language), and each
    client words them in its own."""
    pseudo.add("lt")
    use("lt")  # the host's own process speaks Lithuanian: its frames do not
    async with running_host(players=2) as host:
        ann, bob = await RawClient.connect(host), await RawClient.connect(host)
        await ann.hello("Ann")
        await bob.hello("Bob")
        dealt_ann, dealt_bob = await _state_with(ann, "deal"), await _state_with(bob, "deal")
        assert dealt_ann["seq"] == dealt_bob["seq"]
        assert dealt_ann["events"] == dealt_bob["events"]  # the same events, to the byte
        assert dealt_ann["table"] == dealt_bob["table"]
        for client in (ann, bob):  # a card while the bidding is on: refused, and why
            client.send(PlayMsg(id=client.new_id(), card="AS"))
        refusals = [await client.expect("error") for client in (ann, bob)]
        for refusal in refusals:
            refusal.pop("id")
        assert refusals[0] == refusals[1]
        assert refusals[0]["code"] == "not_playing" and refusals[0]["params"] == {"why": "bidding"}
        assert refusals[0]["message"] == "The bidding is not over yet."  # for older clients
        await ann.close()
        await bob.close()

    state = parse_host_message(dealt_ann)
    assert isinstance(state, State)
    events = events_from_wire(dealt_ann["events"])
    refused = parse_host_message({"type": "error", **refusals[0]})
    assert isinstance(refused, ErrorMsg)
    worded = {}
    for lang, seat in (("lt", 0), ("en", 1)):
        use(lang)
        game = GameState(seat=seat, table=state.table, view=state.view)
        lines = [describe_event(game, event) for event in events]
        worded[lang] = ([line.plain for line in lines if line is not None], error_words(refused))
    lt_lines, lt_refusal = worded["lt"]
    en_lines, en_refusal = worded["en"]
    assert en_refusal == "The bidding is not over yet."
    assert lt_refusal == "⟪THE BIDDING IS NOT OVER YET.⟫"
    assert len(lt_lines) == len(en_lines) and lt_lines and lt_lines != en_lines
    assert any(line.startswith("⟪-- HAND 1") for line in lt_lines), lt_lines
    assert any(line.startswith("-- Hand 1") for line in en_lines), en_lines


def test_a_code_this_client_does_not_know_reads_as_the_hosts_sentence() -> None:
    newer = ErrorMsg(code="some_new_code", message="A newer host's \x1b[31msentence.")
    assert error_words(newer) == "A newer host's [31msentence."  # printable, never raw
    odd = ErrorMsg(code="seat_taken", message="Seat 3 is taken.", params={"seat": "x"})
    assert error_words(odd) == "Seat 3 is taken."  # parameters it cannot read: the text
    assert error_words(ErrorMsg(code="seat_taken", message="", params={"seat": 2})) == (
        "Seat 3 is taken."
    )
    moved = Bye(reason="moving", code="moved", address="10.0.0.2:7777")
    assert "10.0.0.2:7777" in bye_words(moved)


def test_a_dimmed_card_says_why_in_the_players_language(pseudo: set[str]) -> None:
    meaning = {"code": "must_follow", "why": "follow_or_trump", "led": "H", "trump": "S",
               "joker": True}  # fmt: skip
    english = "You must follow hearts or play a trump (spades or the joker)."
    assert meaning_words(meaning, "old text") == english
    pseudo.add("hr")
    use("hr")
    assert current() == "hr"
    assert meaning_words(meaning, "old text") == (
        "⟪YOU MUST FOLLOW ⟪HEARTS⟫ OR PLAY A TRUMP (⟪SPADES⟫ OR THE JOKER).⟫"
    )
    assert meaning_words(None, "An older host's text.") == "An older host's text."


async def test_the_setup_screen_and_the_lobby_speak_the_language_chosen(
    pseudo: set[str],
) -> None:
    """`pitchnet play --lang te` sets up a table in Telugu; the setup screen's Language
    row switches to Lithuanian (keeping the name typed), and the lobby follows."""
    from textual.widgets import Input, Select

    from tests.pilot import play_on_an_empty_lan, screen_text, setup_shown, until

    pseudo.update({"te", "lt"})
    app = play_on_an_empty_lan(5, lang="te")
    async with app.run_test(size=(80, 30)) as pilot:
        await until(pilot, lambda: setup_shown(app), "the setup screen")
        await until(pilot, lambda: "⟪HOST A TABLE HERE⟫" in screen_text(app), "Telugu")
        app.screen.query_one("#setup-name", Input).value = "Kitchen"
        app.screen.query_one("#setup-lang", Select).value = "lt"
        await until(pilot, lambda: current() == "lt", "Lithuanian chosen")
        await until(pilot, lambda: "⟪TABLE NAME⟫" in screen_text(app), "the form relabelled")
        assert app.screen.query_one("#setup-name", Input).value == "Kitchen"
        assert app.screen.query_one("#setup-lang", Select).value == "lt"
        app.screen.query_one("#setup-open", Button).press()
        await until(pilot, lambda: app.hosted is not None, "the table hosted here")
        await until(pilot, lambda: "⟪START WITH BOTS⟫" in screen_text(app), "the lobby")
        await until(pilot, lambda: "Kitchen" in screen_text(app), "the table's name")
        assert "Start with bots" not in screen_text(app)
        await app.close_network()
    assert choose_language(["play"], {}) == "lt"  # the choice is remembered


def test_telugu_is_measured_as_terminals_draw_it() -> None:
    """A spacing vowel sign (ు, category Mc) takes a cell in xterm.js and the terminals;
    a non-spacing one (ె, Mn) and the virama (్) take none. Rich counted both as none."""
    from rich.cells import cell_len

    from client.widths import count_spacing_marks

    count_spacing_marks()
    assert cell_len("తెలుగు") == 5  # త+ె, ల, ు, గ, ు
    assert cell_len("క్ష") == 2 and cell_len("Šarūnė") == 6 and cell_len("čćđšž") == 5
    assert cell_len("中") == 2  # wide characters stay wide


def test_telugu_names_keep_their_marks_and_the_felt_its_width() -> None:
    """A seat named in Telugu is drawn whole (no '?' for its marks), and every line of
    the felt is exactly as wide as the felt, so nothing after the name shifts."""
    from rich.cells import cell_len

    from client.demo import scene_with_events
    from client.widgets.felt import felt_text, shorten
    from client.widths import count_spacing_marks

    count_spacing_marks()

    table, view, _events = scene_with_events("playing", 7, 4)
    seats = list(table.seats)
    seats[1] = dataclasses.replace(seats[1], name="తెలుగు")
    seats[2] = dataclasses.replace(seats[2], name="Šarūnė Žąsė")
    game = GameState(seat=0, table=dataclasses.replace(table, seats=seats), view=view)
    for width, height in ((80, 18), (60, 14), (120, 30)):
        lines = felt_text(game, width, height).plain.split("\n")
        assert all(cell_len(line) == width for line in lines), (width, lines)
        drawn = "\n".join(lines)
        assert "తెలుగు" in drawn and "?" not in drawn, drawn
    assert shorten("తెలుగుభాష", 4, []) == "తెలు…"  # cut between cells, never in one


async def test_a_browser_is_asked_its_name_in_its_language_and_may_choose_another(
    pseudo: set[str],
) -> None:
    """The name page follows the browser's Accept-Language and offers every language;
    the one chosen there is the language its game is played in (the session's
    environment), and the play page's own sentences follow it."""
    import aiohttp

    from client.hosting import LANG_ENV
    from tests.browser import url, web_table

    pseudo.update({"lt", "hr"})
    headers = {"Accept-Language": "fr-FR,lt;q=0.9,en;q=0.5"}
    jar = aiohttp.CookieJar(unsafe=True)
    async with (
        web_table() as (_host, web),
        aiohttp.ClientSession(cookie_jar=jar, headers=headers) as client,
    ):
        async with client.get(url(web)) as response:
            page = await response.text()
        assert '<html lang="lt">' in page and "⟪YOUR NAME⟫" in page
        assert '<option value="lt" selected>Lietuvių</option>' in page
        assert all(f'value="{code}"' in page for code in ("en", "tl", "te", "hr", "da"))
        async with client.post(url(web) + "join", data={"name": "Ana", "lang": "hr"}):
            pass
        (identity,) = web.identities.values()
        assert identity.lang == "hr" and web._environment(identity)[LANG_ENV] == "hr"
        async with client.get(url(web)) as response:
            play = await response.text()
        assert '<html lang="hr">' in play and "⟪LOST THE CONNECTION TO THE TABLE." in play


def _codes_sent() -> set[str]:
    """Every code the product puts in an `error`: the first argument of each
    `RulesError`/`ProtocolError`/`NoSeat` (a newcomer the table cannot seat), the code
    of each referee `_refuse`/`_refused`/`_error` and `ErrorMsg(code=...)`, and the
    codes the rules' `_why_...` helpers return."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sources = ["pitchnet/rules.py", "pitchnet/schema.py", "pitchnet/protocol.py"]
    sources += ["host/table.py", "host/seats.py", "host/dispatch.py", "host/referee.py"]
    at = {"RulesError": 0, "ProtocolError": 0, "NoSeat": 0, "_refuse": 1, "_refused": 1}
    at["_error"] = 1
    codes: set[str] = set()
    for source in sources:
        for node in ast.walk(ast.parse((root / source).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                index = at.get(name)
                args = [*node.args, *(k.value for k in node.keywords if k.arg == "code")]
                if index is not None and len(node.args) > index:
                    args = [node.args[index]]
                elif name != "ErrorMsg":
                    continue
                codes |= {
                    a.value
                    for a in args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)
                }
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_why"):
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple):
                        first = ret.value.elts[0]
                        if isinstance(first, ast.Constant) and isinstance(first.value, str):
                            codes.add(first.value)
    return codes


def test_every_code_the_host_sends_is_worded_by_the_client() -> None:
    """A refusal the client cannot word would show the host's English to everyone:
    each code has its wording (client/meanings.py), or is a message the host could not
    read, said with the host's technical detail."""
    from client.meanings import ERRORS, UNREADABLE

    sent = _codes_sent()
    assert {"must_follow", "table_full", "version", "journal_loss", "bad_password"} <= sent
    unworded = sent - set(ERRORS) - UNREADABLE
    assert not unworded, unworded
