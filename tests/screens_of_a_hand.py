"""Screenshots of one seeded hand (client.demo's scenes: the bidding, a won trick, the
next lead, the hand's end), at 200x60 and on a phone (40x20, the web session's mode),
each with a frame of its cards in motion and two reactions beside their seats: what
issue 28 asks to see. Not a test: run it and look at the SVGs (rsvg-convert for PNGs).

Run: uv run python -m tests.screens_of_a_hand OUTDIR
(the clock of the motion is stopped by hand, so every run draws the same frames)."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path


async def screens(out: Path, size: tuple[int, int], tag: str, mode: str) -> None:
    from client.app import ClientOptions
    from client.demo import scene_with_events
    from client.widgets.felt import Felt
    from pitchnet.reactions import Reaction
    from tests.pilot_app import PilotApp

    idle = mode == "idle"  # no first screen: the scenes below are shown one by one
    app = PilotApp(ClientOptions(name="Ann", mode="find" if idle else mode), idle=idle)
    moment = [1000.0]
    async with app.run_test(size=size) as pilot:
        app.game.seat = 0
        seen: list[object] = []
        for seq, name in enumerate(("bidding", "trick_won", "playing", "hand_over"), 1):
            table, view, events = scene_with_events(name, 7)
            new = events[len(seen) :] if events[: len(seen)] == seen else events
            seen = list(events)
            app.apply_state(seq, table, view, new)
            await pilot.pause()
            felts = app.screen.query(Felt)
            felt = felts.first() if felts else None
            if felt is not None:
                felt.clock = lambda: moment[0]
            if name == "trick_won":
                app.game.clock = lambda: 50.0
                app.show_reaction(Reaction.NICE, 3, "")
                app.show_reaction(Reaction.HURRY, 1, "")
            await pilot.pause()
            app.save_screenshot(str(out / f"{tag}-{seq}-{name}.svg"))
            if felt is not None and felt.motion.flights:
                moment[0] += 0.08  # a third of the way: the cards on their way
                felt.refresh()
                await pilot.pause()
                app.save_screenshot(str(out / f"{tag}-{seq}-{name}-in-motion.svg"))
                moment[0] += 5  # landed
                felt.refresh()
                await pilot.pause()


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="pitchnet-"))
    out.mkdir(parents=True, exist_ok=True)
    os.environ.pop("PITCHNET_MOTION", None)  # this one wants the cards to move
    asyncio.run(screens(out, (200, 60), "200x60", "idle"))
    asyncio.run(screens(out, (40, 20), "phone", "web"))
    print(f"Screenshots in {out}")


if __name__ == "__main__":
    main()
