"""Game night on the LAN harness: how long from `pitchnet play` pressed to the lobby on
screen, and from a friend's `play` pressed to sitting in that same lobby.

Method: a fresh namespace LAN (tests/lan/harness.py) for each run, two "laptops" p1 and
p2. The real client runs in tmux inside each namespace (tests/lan/tui.py), as a person
would run it, and the screen is read with capture-pane every 20 ms.
  - host:   p1 starts `pitchnet play` on an empty network; when the setup screen shows,
            Enter is pressed at once (its defaults); the clock stops when p1's lobby
            ("(hosted here)") is on screen. Reported with the time to the setup screen
            (the finder looks 0.5 s first) and from Enter to the lobby.
  - friend: then p2 starts `pitchnet play`; the clock stops when p2's screen shows the
            same lobby with p2 in it (P2's row marked "you").
  - bare:   the baseline, measured in the same runs: a bare Textual app in tmux on p2,
            launch to its first screen (what any Textual client pays to start).
Screen polling adds up to 20 ms to each figure. Runs need root (network namespaces).

Run: sudo uv run python benchmarks/gamenight.py [--runs N]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.lan.harness import Lan, unavailable_reason  # noqa: E402
from tests.lan.tui import Tui  # noqa: E402

SEATED = re.compile(r"\bP2\b.*\byou\b")
"""A lobby row of P2 marked as this screen's own seat ("you" has a column of its own)."""
BARE = "from textual.app import App\nfrom textual.widgets import Static\n"
BARE += "class Bare(App):\n    def compose(self):\n        yield Static('bare app ready')\n"
BARE += "Bare().run()\n"


def until_screen(tui: Tui, text: str | re.Pattern[str], timeout: float = 30.0) -> float:
    """Seconds from the client's launch until `text` (or a match of it) is on its screen."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        screen = tui.screen()
        if text in screen if isinstance(text, str) else text.search(screen):
            return time.monotonic() - tui.started_at
        time.sleep(0.02)  # the screen's polling interval: the figures' resolution
    raise TimeoutError(f"{text!r} never showed on {tui.node}: {tui.screen()}")


def one_run(workdir: Path) -> dict[str, float]:
    with Lan(workdir, players=2) as lan:
        bare_script = workdir / "bare.py"
        bare_script.write_text(BARE)
        bare = Tui(lan, "p2", [], name="bare")
        bare._argv = [sys.executable, str(bare_script)]
        bare.start().started()
        figures = {"bare": until_screen(bare, "bare app ready")}
        bare.close()

        host = Tui(lan, "p1", ["play", "--name", "P1"]).start()
        host.started()
        figures["setup"] = until_screen(host, "Open the table")
        host.keys("Enter")
        entered = time.monotonic() - host.started_at
        figures["host"] = until_screen(host, "(hosted here)")
        figures["enter"] = figures["host"] - entered

        friend = Tui(lan, "p2", ["play", "--name", "P2"]).start()
        friend.started()
        figures["friend"] = until_screen(friend, SEATED)
        assert "P1's table" in friend.screen()
        friend.close()
        host.close()
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 1
    runs = []
    for number in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            figures = one_run(Path(tmp))
        runs.append(figures)
        shown = "  ".join(f"{k} {v:.2f} s" for k, v in figures.items())
        print(f"run {number + 1}: {shown}", flush=True)
    print(f"median of {len(runs)} runs:")
    bare = statistics.median(run["bare"] for run in runs)
    for key, label in (
        ("bare", "bare Textual app to its first screen (baseline)"),
        ("setup", "`play` pressed to the setup screen (nobody hosting)"),
        ("host", "`play` pressed to the lobby on screen (Enter at once)"),
        ("enter", "Enter on the setup screen to the lobby on screen"),
        ("friend", "a friend's `play` pressed to sitting in that lobby"),
    ):
        values = [run[key] for run in runs]
        median = statistics.median(values)
        over = f", {median - bare:+.2f} s over the bare app" if key in ("setup", "friend") else ""
        print(f"  {label}: {median:.2f} s (min {min(values):.2f}, max {max(values):.2f}){over}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
