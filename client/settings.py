"""The player's remembered settings: the display name, the language, and the table's
preferences (theme, deck colours, one-press keys, the turn bell).

Stored as a small JSON file in the user's config directory (platformdirs), so the
name typed once is offered the next time; the login name is the first default.
A missing or damaged file is simply ignored: settings are a convenience.
"""

from __future__ import annotations

import getpass
import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from pitchnet.dirs import config_dir
from pitchnet.protocol import MAX_NAME
from pitchnet.text import printable


def _settings_file() -> Path:
    return config_dir() / "settings.json"


def login_name() -> str:
    try:
        return printable(getpass.getuser(), MAX_NAME) or "Player"
    except (OSError, KeyError, ImportError):
        return "Player"


def _load() -> dict[str, Any]:
    try:
        data = json.loads(_settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(changes: dict[str, Any]) -> None:
    path = _settings_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**_load(), **changes}), encoding="utf-8")
    except OSError:
        pass  # remembering is a nicety; never fail a game over it


@dataclass
class Preferences:
    """How the table looks and answers; each one a setting the player can change."""

    theme: str = "textual-dark"
    deck: str = "four"  # "four" (a colour per suit) or "two" (red and black)
    one_press: bool = False  # a number key bids or plays at once, without Enter
    bell: bool = False  # ring the terminal bell (and notify) when it becomes your turn
    motion: bool = True  # cards travel to the middle and to the trick's winner
    reactions: bool = True  # show other people's quick reactions (nice play, oops, ...)

    def save(self) -> None:
        _save(asdict(self))


class SessionPreferences(Preferences):
    """Preferences kept only while the app runs: a browser session (host/web.py) runs on
    the host laptop, and must not change its owner's settings file."""

    def save(self) -> None:
        pass


DECKS = ("four", "two")


def load_preferences() -> Preferences:
    """The remembered preferences; any value of the wrong kind falls back to its default."""
    data, prefs = _load(), Preferences()
    for f in fields(Preferences):
        value = data.get(f.name)
        if isinstance(value, type(getattr(prefs, f.name))):
            setattr(prefs, f.name, value)
    if prefs.deck not in DECKS:
        prefs.deck = "four"
    return prefs


def load_name() -> str | None:
    data = _load()
    name = data.get("name")
    if not isinstance(name, str):
        return None
    return printable(name, MAX_NAME).strip() or None


def save_name(name: str) -> None:
    _save({"name": name})


def choose_name(given: str | None) -> str:
    """The name to play under: the one given (and remember it), else the remembered
    one, else the login name. Always printable and at most MAX_NAME characters."""
    if given:
        name = printable(given, MAX_NAME).strip() or login_name()
        save_name(name)
        return name
    return load_name() or login_name()


def load_language() -> str | None:
    """The language the player chose last (`--lang`, the command palette, the setup
    screen), if it is one pitchnet speaks."""
    from pitchnet.i18n import normalise

    lang = _load().get("lang")
    return normalise(lang) if isinstance(lang, str) else None


def save_language(lang: str) -> None:
    _save({"lang": lang})
