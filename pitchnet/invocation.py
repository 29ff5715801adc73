"""How a person runs `pitchnet` in the setup this process was started from, so that a
command printed for them (`pitchnet host --resume ...`, `pitchnet join ...`) runs as
printed: under `uv run` the script is in the project's .venv, not on PATH.

The rule, in order: started by `uv run` (uv sets `UV` in its children's environment) in a
project we can find: `uv run --project DIR pitchnet`, DIR absolute, because a bare
`uv run pitchnet` only finds the project from inside its folder; started as
`python -m pitchnet`: that interpreter with `-m pitchnet`;
the `pitchnet` found on PATH is the script running: `pitchnet`; a script run by its
path (`.venv/bin/pitchnet`): that path; anything else: `pitchnet`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

_SOURCE = Path(__file__).resolve().parent.parent


def _uv_project(environ: Mapping[str, str], source: Path) -> Path | None:
    """The folder of the uv project this process runs in: the one holding the virtual
    environment uv made (`VIRTUAL_ENV`, `.venv` by default), else the one holding this
    source (an editable install), whichever has a pyproject.toml that names pitchnet."""
    venv = environ.get("VIRTUAL_ENV")
    for folder in ([Path(venv).resolve().parent] if venv else []) + [source]:
        try:
            text = (folder / "pyproject.toml").read_text(encoding="utf-8")
        except OSError:
            continue
        if 'name = "pitchnet"' in text:
            return folder
    return None


def pitchnet_words(
    environ: Mapping[str, str] | None = None,
    argv0: str | None = None,
    executable: str | None = None,
    source: Path = _SOURCE,
) -> list[str]:
    """The words that start a `pitchnet` command in this setup (see the module's rule);
    `source` is where this package's source lies (tests point it elsewhere)."""
    environ = os.environ if environ is None else environ
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    project = _uv_project(environ, source) if environ.get("UV") else None
    if project is not None:
        return ["uv", "run", "--project", str(project), "pitchnet"]
    if Path(argv0).name == "__main__.py" or argv0 == "-m":
        python = shutil.which("python3", path=environ.get("PATH"))
        same = python is not None and Path(python).resolve() == Path(executable).resolve()
        return ["python3" if same else executable, "-m", "pitchnet"]
    on_path = shutil.which("pitchnet", path=environ.get("PATH"))
    if on_path is not None and argv0 and Path(on_path).resolve() == Path(argv0).resolve():
        return ["pitchnet"]
    if Path(argv0).name == "pitchnet":
        return [argv0]
    return ["pitchnet"]


def shown_command(words: Sequence[str]) -> str:
    """A `pitchnet ...` command (its words, the first being "pitchnet") as a person types
    it in this setup, quoted for a POSIX shell."""
    rest = list(words[1:]) if words and words[0] == "pitchnet" else list(words)
    return shlex.join([*pitchnet_words(), *rest])
