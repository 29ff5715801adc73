"""The import edges between the three packages: read from the source, and checked in a
fresh interpreter.

`pitchnet/` is the core: nothing in it loads `host/` or `client/` (only `pitchnet.cli`
does, lazily, inside a command). `host/` and `client/` meet at one seam,
`client/hosting.py` (ARCHITECTURE.md, "The seam"): no other module of client/ imports
host/, and host/ imports nothing of client/ but that module. `pitchnet bot` runs the
client's connection without a terminal, so `client.headless` must not load Textual.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEAM = "client.hosting"
"""The one module where client/ and host/ meet."""


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


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, name) for every import in a source file, lazy ones and those under
    TYPE_CHECKING included; a `from` import's names in full (`from client import
    hosting` is `client.hosting`, `from host.web import WebServer` `host.web.WebServer`)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield from ((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)


def crossings(package: str, other: str) -> list[str]:
    """Where a module of `package` imports from `other` other than through the seam:
    "path:line module" for each."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for line, module in imported(path):
            through_seam = name == SEAM or module == SEAM or module.startswith(SEAM + ".")
            if module.split(".")[0] == other and not through_seam:
                found.append(f"{path.relative_to(ROOT)}:{line} {module}")
    return found


def test_client_imports_host_only_in_the_seam() -> None:
    assert crossings("client", "host") == []


def test_host_imports_nothing_of_client_but_the_seam() -> None:
    assert crossings("host", "client") == []


def test_the_seam_check_sees_an_import_that_crosses(tmp_path: Path) -> None:
    """The check above reads lazy and TYPE_CHECKING imports too (each once crossed)."""
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from host.server import HostServer\n"
        "def f():\n    import host.web_qr\n    from client import hosting\n",
        encoding="utf-8",
    )
    modules = [module for _line, module in imported(source)]
    assert modules == [
        "typing.TYPE_CHECKING",
        "host.server.HostServer",
        "host.web_qr",
        "client.hosting",
    ]


def test_a_window_that_only_joins_loads_no_host() -> None:
    """The seam imports host/ lazily: the app, the seam and a browser's client process
    load none of it until a table is hosted (start-up time)."""
    loaded = _loaded_after("import client.app, client.hosting, client.web_session")
    assert "client" in loaded and "textual" in loaded  # the imports ran
    assert "host" not in loaded


def test_hosting_is_warmed_up_in_a_thread_and_joining_loads_no_host() -> None:
    """`play` imports host/ during its first look (`warm_up`, a thread), so Enter on the
    setup screen opens the table without the imports; the seam alone loads none of it."""
    assert "host" not in _loaded_after("import client.hosting")
    warmed = _loaded_after(
        "import threading\n"
        "from client.hosting import warm_up\n"
        "warm_up()\n"
        "for thread in threading.enumerate():\n"
        "    if thread.name == 'pitchnet-warm-up':\n"
        "        thread.join(timeout=30)\n"
    )
    assert "host" in warmed
