"""The player's remembered settings: for now, the display name.

Stored as a small JSON file in the user's config directory (platformdirs), so the
name typed once is offered the next time; the login name is the first default.
A missing or damaged file is simply ignored: settings are a convenience.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path

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


def load_name() -> str | None:
    try:
        data = json.loads(_settings_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    if not isinstance(name, str):
        return None
    return printable(name, MAX_NAME).strip() or None


def save_name(name: str) -> None:
    path = _settings_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"name": name}), encoding="utf-8")
    except OSError:
        pass  # remembering is a nicety; never fail a game over it


def choose_name(given: str | None) -> str:
    """The name to play under: the one given (and remember it), else the remembered
    one, else the login name. Always printable and at most MAX_NAME characters."""
    if given:
        name = printable(given, MAX_NAME).strip() or login_name()
        save_name(name)
        return name
    return load_name() or login_name()
