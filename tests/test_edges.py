"""The import edges between the three packages, checked in a fresh interpreter.

`pitchnet/` is the core: nothing in it loads `host/` or `client/` (only `pitchnet.cli`
does, lazily, inside a command). `pitchnet bot` runs the client's connection without a
terminal, so `client.headless` must not load Textual.
"""

from __future__ import annotations

import subprocess
import sys


def _loaded_after(code: str) -> set[str]:
    """The top-level packages in sys.modules after running `code` in a new interpreter."""
    script = (
        f"{code}\nimport sys\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=60,
        check=True,
    )
    return set(result.stdout.split())


def test_the_headless_bot_does_not_load_textual() -> None:
    loaded = _loaded_after("import client.headless")
    assert "client" in loaded  # the import ran
    assert "textual" not in loaded


def test_the_core_imports_neither_host_nor_client() -> None:
    loaded = _loaded_after(
        "import pkgutil, importlib, pitchnet\n"
        "for info in pkgutil.iter_modules(pitchnet.__path__):\n"
        "    if info.name != '__main__':  # that one runs the command\n"
        "        importlib.import_module('pitchnet.' + info.name)"
    )
    assert "pitchnet" in loaded
    assert not loaded & {"host", "client", "textual", "zeroconf"}
