"""Issue 25's sentences: what a person reads at a match end, in the lobby, and the
commands printed for them (which must run as printed in their setup)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from client.demo import scene
from client.model import GameState
from client.screens.summary import waiting_text
from pitchnet.protocol import SeatKind


def _game(name: str, **table_fields: object) -> GameState:
    table, view = scene(name)
    game = GameState()
    game.seat = 0
    game.table = dataclasses.replace(table, **table_fields)  # type: ignore[arg-type]
    game.view = view
    return game


def test_a_match_end_waits_for_everyone_and_names_no_deadline() -> None:
    game = _game("match_over", waiting_for=[0], ready_left=None)
    text = waiting_text(game).plain
    assert text.startswith("A new match starts when everyone says play again.")
    assert "either way" not in text


def test_between_hands_the_ready_limit_is_said() -> None:
    game = _game("hand_over", waiting_for=[0], ready_left=12.0)
    text = waiting_text(game).plain
    assert text.startswith("Waiting for: ")
    assert text.endswith("The next hand is dealt in 12 s either way.")


def test_a_long_wait_reads_as_a_clock_and_an_absent_player_is_said_not_waited_for() -> None:
    game = _game("match_over", waiting_for=[0], ready_left=None, waiting=2721.0)
    seats = list(game.table.seats)  # type: ignore[union-attr]
    away = 1
    seats[away] = dataclasses.replace(seats[away], kind=SeatKind.HUMAN, connected=False)
    game.table = dataclasses.replace(game.table, seats=seats)  # type: ignore[type-var]
    text = waiting_text(game).plain
    assert ", for 45 min 21 s so far" in text
    assert "2,721" not in text and "2721" not in text
    assert text.endswith(f". Away, so not waited for: {game.who(away)}")


# ---- commands printed for a person run as printed ------------------------------------


def test_under_uv_run_commands_name_the_project_so_they_run_from_any_folder(
    tmp_path: Path,
) -> None:
    from pitchnet.invocation import pitchnet_words

    project = tmp_path / "my clone"
    (project / ".venv").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "pitchnet"\n')
    env = {"UV": "/usr/bin/uv", "PATH": "/nowhere", "VIRTUAL_ENV": str(project / ".venv")}
    words = pitchnet_words(env, "/p/.venv/bin/pitchnet", "/p/.venv/bin/python", tmp_path)
    assert words == ["uv", "run", "--project", str(project), "pitchnet"]
    # No VIRTUAL_ENV (or one outside a project): the editable install's source folder.
    del env["VIRTUAL_ENV"]
    assert pitchnet_words(env, "/p/.venv/bin/pitchnet", "/x/python", project) == words
    # No project found at all: the script by its path, which runs from anywhere too.
    assert pitchnet_words(env, "/p/.venv/bin/pitchnet", "/x/python", tmp_path) == [
        "/p/.venv/bin/pitchnet"
    ]


def test_the_command_printed_under_uv_runs_outside_the_project_folder(tmp_path: Path) -> None:
    """Typed as printed in a folder that is not the project's, it runs (a bare
    `uv run pitchnet` there says "Failed to spawn: pitchnet")."""
    import os
    import shlex
    import subprocess

    from pitchnet.invocation import shown_command

    if not os.environ.get("UV"):
        pytest.skip("not run under uv")
    command = shown_command(["pitchnet", "--help"])
    assert command.startswith("uv run --project /")
    done = subprocess.run(
        ["sh", "-c", command.replace("uv", shlex.quote(os.environ["UV"]), 1)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: pitchnet")


def test_an_installed_script_on_path_is_printed_bare(tmp_path: Path) -> None:
    from pitchnet.invocation import pitchnet_words

    script = tmp_path / "pitchnet"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    env = {"PATH": str(tmp_path)}
    assert pitchnet_words(env, str(script), "/usr/bin/python3") == ["pitchnet"]


def test_a_script_not_on_path_is_printed_by_its_path(tmp_path: Path) -> None:
    from pitchnet.invocation import pitchnet_words

    env = {"PATH": str(tmp_path / "empty")}
    assert pitchnet_words(env, ".venv/bin/pitchnet", "/x/python") == [".venv/bin/pitchnet"]


def test_python_dash_m_is_printed_with_that_python(tmp_path: Path) -> None:
    from pitchnet.invocation import pitchnet_words

    env = {"PATH": str(tmp_path / "empty")}
    words = pitchnet_words(env, "/src/pitchnet/__main__.py", "/opt/py/bin/python3.11")
    assert words == ["/opt/py/bin/python3.11", "-m", "pitchnet"]


def test_shown_command_quotes_and_prefixes(monkeypatch: pytest.MonkeyPatch) -> None:
    from pitchnet.invocation import shown_command

    monkeypatch.setenv("UV", "/usr/bin/uv")
    root = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("VIRTUAL_ENV", str(root / ".venv"))
    assert shown_command(["pitchnet", "join", "10.0.0.5:7373"]) == (
        f"uv run --project {root} pitchnet join 10.0.0.5:7373"
    )
    assert shown_command(["pitchnet", "host", "--name", "Ann's"]).endswith("""--name 'Ann'"'"'s'""")


def test_the_resume_command_printed_by_keep_running_carries_the_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from host.main import resume_command

    class Server:
        table_id, port = "abc123", 7373

    server: Any = Server()  # what resume_command reads of a HostServer

    monkeypatch.setenv("UV", "/usr/bin/uv")
    root = Path(__file__).resolve().parent.parent
    monkeypatch.setenv("VIRTUAL_ENV", str(root / ".venv"))
    said = resume_command(server, "127.0.0.1")
    assert said == (
        f"uv run --project {root} pitchnet host --resume abc123 --port 7373 --interface 127.0.0.1"
    )
    monkeypatch.delenv("UV")
    monkeypatch.setattr("sys.argv", ["/nowhere/bin/pitchnet"])
    monkeypatch.setenv("PATH", "/nowhere-else")
    assert resume_command(server, None).startswith("/nowhere/bin/pitchnet host --resume")


# ---- the lobby ---------------------------------------------------------------------------


def test_the_lobby_says_how_long_it_has_waited_after_whom() -> None:
    """ "Waiting 52 s for Alice" read as a countdown: the time waited comes after."""
    from client.screens.lobby import lobby_hint

    game = _game("lobby", waiting=52.0, starter=1)
    game.seat = 0
    text = lobby_hint(game).plain
    assert text.startswith("Waiting for Cat to start")
    assert "(waiting 52 s so far)" in text
    assert "Waiting 52 s" not in text


def test_the_lobby_points_at_the_key_that_lists_the_rules() -> None:
    from client.screens.lobby import lobby_title

    game = _game("lobby", rules={"low": "captor"})
    assert "(F2 lists them)" in lobby_title(game).plain


async def test_f2_in_the_lobby_lists_the_tables_house_rules() -> None:
    """The lobby says "F2 lists them": before the first deal there is no view, and the
    rules page reads the table's advertised rules instead."""
    from client.app import ClientOptions
    from client.screens.help import RulesScreen
    from tests.pilot import screen_text, until
    from tests.pilot_app import PilotApp

    table, _ = scene("lobby")
    table = dataclasses.replace(table, rules={"low": "dealt"})
    app = PilotApp(ClientOptions(name="Ann"), idle=True)
    async with app.run_test(size=(100, 40)) as pilot:
        app.game.seat = 0
        app.apply_state(1, table, None, [])
        await pilot.pause()
        await pilot.press("f2")
        await until(pilot, lambda: isinstance(app.screen, RulesScreen), "the rules page")
        assert "Low goes to the player it was dealt to" in screen_text(app)
