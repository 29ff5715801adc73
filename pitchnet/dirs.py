"""Where pitchnet keeps things on this machine (paths only; nothing here touches disk).

State (the host's journals, players' seat tokens) goes in the user's state
directory, settings (the remembered name) in the config directory, both from
platformdirs. PITCHNET_STATE_DIR and PITCHNET_CONFIG_DIR override them, which is
how the tests keep every run in a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "pitchnet"
STATE_ENV = "PITCHNET_STATE_DIR"
CONFIG_ENV = "PITCHNET_CONFIG_DIR"


def state_dir() -> Path:
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override)
    from platformdirs import user_state_dir

    return Path(user_state_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    if override:
        return Path(override)
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME, appauthor=False))
