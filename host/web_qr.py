"""The web join's address as text and as a QR code drawn in the terminal, so a phone
can scan it off the host's screen (segno draws it with half-block characters)."""

from __future__ import annotations

import io
from typing import TextIO

import segno


def qr_text(url: str) -> str:
    """The QR code of `url` in half blocks: two rows of modules per line of text."""
    out = io.StringIO()
    segno.make(url, error="m", boost_error=False).terminal(out, compact=True, border=2)
    return out.getvalue()


def show_urls(urls: list[str], out: TextIO) -> None:
    """Print each address browsers join at, and the first one's QR code."""
    for url in urls:
        print(f"Browsers and phones join at: {url}", file=out, flush=True)
    if urls:
        out.write(qr_text(urls[0]))
        out.flush()
