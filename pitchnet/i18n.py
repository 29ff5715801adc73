"""The words a person reads, in their language: gettext catalogs, chosen once per process.

Each client process speaks one language (a browser's player gets a process of their
own), so the language in use is module state, set by `use` when the client starts; until
then everything reads in English. Nothing here looks at the environment by itself:
`from_environment` is handed the environment to read, and `from_accept_language` a
header, so the choice stays with the caller (and with tests).

Catalogs live in `pitchnet/locale/<lang>/LC_MESSAGES/pitchnet.po`. A wheel carries them
compiled (`.mo`, made by the build hook in hatch_build.py); a checkout has only the `.po`
files, which are compiled in memory the first time a language is used, so `uv run
pitchnet play` in a fresh clone needs no build step. An empty translation falls back to
the English text. Messages use brace placeholders, filled by name:
`_("Seat {seat} bids {bid}.", seat=2, bid=3)`; numbers given as placeholders are written
in the language's own way (`number`).
"""

from __future__ import annotations

import functools
import gettext
import io
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from babel import Locale

DOMAIN = "pitchnet"
LOCALE_DIR = Path(__file__).with_name("locale")

LANGUAGES: dict[str, str] = {
    "en": "English",
    "tl": "Tagalog",
    "lt": "Lietuvių",
    "te": "తెలుగు",
    "hr": "Hrvatski",
    "da": "Dansk",
}
"""The languages pitchnet speaks, each under its own name (as its speakers look for it)."""
DEFAULT = "en"

_ALIASES = {"fil": "tl", "tgl": "tl", "lit": "lt", "tel": "te", "hrv": "hr", "dan": "da"}
"""Other codes for the same languages (Filipino is Tagalog's standard form)."""
_BABEL_LOCALES = {"tl": "fil"}
"""Babel (CLDR) files Tagalog's number formats and plural rules under Filipino."""

_state: dict[str, Any] = {"lang": DEFAULT, "translations": gettext.NullTranslations()}


def normalise(tag: str | None) -> str | None:
    """The supported language a locale or language tag names ("lt_LT.UTF-8", "hr-HR",
    "fil", "TE"), or None: "C", "POSIX", empty and unknown languages name none."""
    if not tag:
        return None
    base = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].strip().lower()
    base = _ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def from_environment(environ: Mapping[str, str]) -> str | None:
    """The language the system asks for, read as gettext does: LANGUAGE (a colon-separated
    list of preferences), then LC_ALL, LC_MESSAGES and LANG; None if none is supported.
    LANGUAGE counts only when the locale is not "C" (as in GNU gettext)."""
    locale = next((environ[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(k)), "")
    if locale and locale not in ("C", "POSIX"):
        for tag in environ.get("LANGUAGE", "").split(":"):
            if found := normalise(tag):
                return found
    return normalise(locale)


def from_accept_language(header: str | None) -> str | None:
    """The supported language a browser prefers most (an HTTP Accept-Language header such
    as "lt-LT,lt;q=0.9,en;q=0.8", or a list of navigator.languages joined by commas)."""
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate((header or "").split(",")[:32]):
        tag, _sep, rest = part.strip().partition(";")
        weight = 1.0
        if rest.strip().startswith("q="):
            try:
                weight = float(rest.strip()[2:])
            except ValueError:
                weight = 0.0
        found = normalise(tag)
        if found and weight > 0:
            ranked.append((-weight, position, found))
    return min(ranked)[2] if ranked else None


def choose(*preferences: str | None) -> str:
    """The first of `preferences` (most wanted first) that pitchnet speaks; else English."""
    for preference in preferences:
        if found := normalise(preference):
            return found
    return DEFAULT


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """`lang`'s catalog: the compiled `.mo` when it is at least as new as the `.po`
    (a wheel), else the `.po` compiled in memory (a checkout); none: English. English is
    the code's own text, so it loads nothing (its catalog only says so)."""
    if lang == DEFAULT:
        return gettext.NullTranslations()
    po = catalog_path(lang)
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    if not po.exists():
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle, locale=_BABEL_LOCALES.get(lang, lang))
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def use(lang: str | None) -> str:
    """Speak `lang` (any tag `normalise` reads; English if unsupported) from now on, in
    this process; returns the language chosen."""
    chosen = choose(lang)
    _state["lang"], _state["translations"] = chosen, translations(chosen)
    return chosen


def current() -> str:
    """The language in use ("en" until `use` is called)."""
    lang: str = _state["lang"]
    return lang


def babel_locale(lang: str | None = None) -> Locale:
    from babel import Locale  # Babel loads when a number or a catalog first needs it

    chosen = lang or current()
    return Locale.parse(_BABEL_LOCALES.get(chosen, chosen))


def number(value: int | float, lang: str | None = None) -> str:
    """A number as the language writes it (digit grouping, decimal sign, minus sign).
    A whole number from 0 to 999 is written alike in all six (Latin digits, nothing to
    group): the seats, bids and scores a table redraws cost no call to Babel."""
    if type(value) is int and 0 <= value < 1000:
        return str(value)
    from babel.numbers import format_decimal

    return str(format_decimal(value, locale=babel_locale(lang)))


def _fill(text: str, params: Mapping[str, Any], lang: str | None = None) -> str:
    if not params:
        return text
    shown = {k: number(v, lang) if type(v) in (int, float) else v for k, v in params.items()}
    try:
        return text.format(**shown)
    except (KeyError, IndexError, ValueError):
        return text  # a translation that names a placeholder it was not given: as it is


def _(message: str, /, **params: Any) -> str:
    """`message` in the language in use, its `{placeholders}` filled from `params`. The
    empty message is itself (gettext would answer it with the catalog's header)."""
    if not message:
        return message
    translations: gettext.NullTranslations = _state["translations"]
    return _fill(translations.gettext(message), params)


def ngettext(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The form of a counted message the language uses for `n` (Lithuanian and Croatian
    have three); `{n}` is filled with `n` unless `params` say otherwise."""
    translations: gettext.NullTranslations = _state["translations"]
    return _fill(translations.ngettext(singular, plural, n), {"n": n, **params})


def pgettext(context: str, message: str, /, **params: Any) -> str:
    """`message` in the sense `context` gives it ("Pass" as a bid, not as a verb)."""
    translations: gettext.NullTranslations = _state["translations"]
    return _fill(translations.pgettext(context, message), params)


def say(lang: str, message: str, /, **params: Any) -> str:
    """`message` in `lang`, whatever language this process speaks: for a server that
    answers each browser in its own (host/web.py's pages)."""
    if not message:
        return message
    chosen = choose(lang)
    return _fill(translations(chosen).gettext(message), params, chosen)


def N_(message: str) -> str:
    """Marks `message` for the catalogs where it is defined (a constant made at import);
    the place that shows it translates it with `_`."""
    return message
