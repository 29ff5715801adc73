"""Words a speaker reads on the table (issue 30): two actions never share a word, and
nothing on the felt stays in English."""

from __future__ import annotations

import pytest

from pitchnet.i18n import _, use

LANGS = ("en", "tl", "lt", "te", "hr", "da")


@pytest.mark.parametrize("lang", LANGS)
def test_leave_and_quit_are_two_words(lang: str) -> None:
    """Leave gives the seat to a bot and goes back to the finder; Quit closes the
    program. Lithuanian and Tagalog said both with one word ("Išeiti", "Umalis")."""
    use(lang)
    pairs = [("Leave", "Quit"), ("Leave (y)", "Quit (y)"), ("leave the table (asks first)", "quit")]
    for leave, quit_ in pairs:
        left, quit_words = _(leave), _(quit_)
        assert left.split()[0].lower() != quit_words.split()[0].lower(), (lang, left, quit_words)


@pytest.mark.parametrize("lang", LANGS)
def test_the_players_own_seat_says_you_in_the_players_language(lang: str) -> None:
    from client.model import GameState
    from client.widgets.felt import felt_text
    from client.widths import count_spacing_marks
    from tests.pilot import dealt_scene

    count_spacing_marks()
    use(lang)
    table, view, _events = dealt_scene("playing")
    drawn = felt_text(GameState(seat=0, table=table, view=view), 80, 18).plain
    assert f"Ann {_('(you)')}" in drawn, drawn
    assert lang == "en" or "(you)" not in drawn, drawn


@pytest.mark.parametrize(
    "argv",
    [["--lang", "te", "history"], ["--lang=te", "history"], ["history", "--lang", "te"]],
    ids=["before", "before=", "after"],
)
def test_lang_is_taken_before_the_command_and_after_it(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    from pitchnet.cli import main
    from pitchnet.i18n import say

    assert main(argv) == 0
    out = capsys.readouterr()
    assert out.out.strip() == say("te", "No tables have been hosted on this computer yet."), out
