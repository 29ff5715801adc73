"""Colour-vision simulation for checking the decks: how a colour looks to someone with
protanopia, deuteranopia or tritanopia (Machado, Oliveira and Fernandes 2009, severity
1.0, applied to linear RGB), and how far apart two colours are (CIE 1976 ΔE in L*a*b*).

Run it to print the table of the smallest suit-to-suit distance for each deck:
`uv run python -m tests.colour_vision`.
"""

from __future__ import annotations

import math
from itertools import combinations

MACHADO = {
    "normal": ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _linear(channel: float) -> float:
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def rgb(hex_colour: str) -> tuple[float, float, float]:
    text = hex_colour.lstrip("#")
    r, g, b = (int(text[i : i + 2], 16) / 255 for i in (0, 2, 4))
    return _linear(r), _linear(g), _linear(b)


def simulate(linear: tuple[float, float, float], vision: str) -> tuple[float, float, float]:
    m = MACHADO[vision]
    r, g, b = (min(1.0, max(0.0, sum(m[row][k] * linear[k] for k in range(3)))) for row in range(3))
    return r, g, b


def lab(linear: tuple[float, float, float]) -> tuple[float, float, float]:
    r, g, b = linear
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def delta_e(a: str, b: str, vision: str = "normal") -> float:
    la, lb = lab(simulate(rgb(a), vision)), lab(simulate(rgb(b), vision))
    return math.dist(la, lb)


def closest_pair(colours: dict[str, str], vision: str) -> tuple[float, str, str]:
    """The smallest distance between any two of `colours` for that kind of vision."""
    return min((delta_e(colours[a], colours[b], vision), a, b) for a, b in combinations(colours, 2))


def main() -> None:
    from client.text import DECKS

    foreground = {True: "#e0e0e0", False: "#1e1e1e"}
    for (deck, dark), styles in DECKS.items():
        colours = {}
        for suit, style in styles.items():
            hexes = [word for word in style.split() if word.startswith("#")]
            colours[suit.name.lower()] = hexes[0] if hexes else foreground[dark]
        for vision in MACHADO:
            distance, a, b = closest_pair(colours, vision)
            shade = "dark" if dark else "light"
            print(f"{deck:>4} {shade:>5} {vision:>12}: closest {a}/{b} ΔE {distance:5.1f}")


if __name__ == "__main__":
    main()
