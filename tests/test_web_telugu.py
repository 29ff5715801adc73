"""Telugu in the browser's terminal (issue 30): a spacing vowel sign (ు, category Mc)
takes a cell of its own in xterm.js, as the client counts it, but drawn alone it showed
a dotted circle. The play page wraps xterm.js's Unicode 11 widths so that the sign joins
its letter's cell, and a letter after a virama (ట్ర) joins the one before: one cluster,
drawn whole, over the same cells."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser import browser, identity_of, join, web_table
from tests.netclient import until_true

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

WIDTHS = """() => {
  const provider = window.pitchnetWidths && window.pitchnetWidths["11"];
  if (!provider) return null;
  const cell = (properties) => [(properties >> 1) & 3, properties & 1];
  const run = (codes) => codes.reduce((before, code) => provider.charProperties(code, before), 0);
  return {
    lu: cell(run([0x0C32, 0x0C41])),          // లు: a letter and its spacing sign
    tra: cell(run([0x0C1F, 0x0C4D, 0x0C30])),  // ట్ర: a conjunct
    tram: cell(run([0x0C1F, 0x0C4D, 0x0C30, 0x0C02])),  // ట్రం: and its anusvara
    te: cell(run([0x0C24, 0x0C46])),          // తె: a sign that takes no cell
    space: cell(run([0x0C21, 0x0C4D, 0x20])),  // "డ్ ": no join across a space
    a: cell(run([0x41, 0x0C41])),             // a sign after a Latin letter stays alone
  };
}"""


async def test_a_telugu_sign_joins_its_letters_cell_in_the_browsers_terminal() -> None:
    async with web_table() as (_host, web), browser() as chromium:
        context: Any = await chromium.new_context(viewport={"width": 800, "height": 600})
        page = await context.new_page()
        await join(page, web, "Ann")
        identity = await identity_of(context, web)
        assert identity is not None
        await until_true(lambda: identity.session is not None, "Ann's session")
        await page.wait_for_function("() => document.querySelector('.xterm-screen')")
        widths = await page.evaluate(WIDTHS)
        assert widths == {
            "lu": [2, 1],  # two cells, joined: drawn as one cluster
            "tra": [2, 1],
            "tram": [3, 1],
            "te": [1, 1],
            "space": [1, 0],
            "a": [1, 0],
        }, widths
        await context.close()
