"""The `pitchnet` entry point: imports the command inside a guard, so Ctrl+C during
start-up (while the imports are still running) ends quietly instead of with a traceback.
Kept tiny: the console script imports this module before anything can catch."""

from __future__ import annotations

import sys


def main() -> int:
    try:
        from pitchnet.cli import main as run

        return run()
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
