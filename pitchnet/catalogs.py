"""Keeping the catalogs in step with the code: `python -m pitchnet.catalogs update`.

`update` extracts every message marked with `_`, `ngettext`, `pgettext`, `N_` or `say` from
pitchnet/, host/ and client/ into pitchnet/locale/pitchnet.pot, creates the catalog of a
language that has none, merges the template into every language's catalog (a changed
English text keeps its old translation marked fuzzy, which is not used until a translator
clears the mark), and writes the English catalog's texts as their own translations.
`compile` writes the `.mo` files (a wheel's build does this itself; a checkout does not
need it). `missing` lists, per language, how many messages still lack a translation.

Catalogs carry no source locations and are sorted by message, so that two people
translating at once, and a change of code, touch only the entries that changed.
"""

from __future__ import annotations

import sys

from babel.messages.catalog import Message
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po, write_po

from pitchnet.i18n import DEFAULT, DOMAIN, LANGUAGES, LOCALE_DIR, catalog_path

ROOT = LOCALE_DIR.parent.parent
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
SOURCES = ("pitchnet", "host", "client")
WIDTH = "79"


def _babel(*args: str) -> None:
    CommandLineInterface().run(["pybabel", "-q", *args])  # type: ignore[no-untyped-call]


def _without_date(template: bytes) -> list[bytes]:
    return [line for line in template.splitlines() if not line.startswith(b'"POT-Creation-Date:')]


def extract() -> None:
    """Write the template from the sources; a template whose messages did not change keeps
    its old creation date, so that two branches that added nothing never conflict on it."""
    LOCALE_DIR.mkdir(exist_ok=True)
    before = TEMPLATE.read_bytes() if TEMPLATE.exists() else b""
    _babel(
        "extract",
        "--no-location",
        "--sort-output",
        "--add-comments=TRANSLATORS:",
        "--keyword=say:2",  # say(lang, message): a message in a language of the caller's
        "--project=pitchnet",
        "--copyright-holder=the pitchnet authors",
        f"--width={WIDTH}",
        "-o",
        str(TEMPLATE),
        *(str(ROOT / source) for source in SOURCES),
    )
    if before and _without_date(before) == _without_date(TEMPLATE.read_bytes()):
        TEMPLATE.write_bytes(before)


def fill_english() -> None:
    """English is the language the code is written in: its catalog's translations are the
    messages themselves, so the completeness check holds for it as for the others."""
    path = catalog_path(DEFAULT)
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=DEFAULT)
    for message in catalog:
        if not message.id:
            continue
        message.string = message.id
        message.flags.discard("fuzzy")
    with path.open("wb") as handle:
        write_po(handle, catalog, width=int(WIDTH), omit_header=False)


def update() -> None:
    extract()
    for lang in LANGUAGES:
        if not catalog_path(lang).exists():
            _babel("init", "-i", str(TEMPLATE), "-d", str(LOCALE_DIR), "-D", DOMAIN, "-l", lang)
    _babel(
        "update",
        "-i",
        str(TEMPLATE),
        "-d",
        str(LOCALE_DIR),
        "-D",
        DOMAIN,
        "--ignore-pot-creation-date",
        f"--width={WIDTH}",
    )
    fill_english()


def compile_all() -> None:
    _babel("compile", "-d", str(LOCALE_DIR), "-D", DOMAIN, "--statistics")


def translated(message: Message) -> bool:
    """Every form of `message` translated, and not waiting for a translator's check."""
    forms = message.string if isinstance(message.string, tuple) else (message.string,)
    return not message.fuzzy and all(forms)


def missing() -> dict[str, int]:
    counts: dict[str, int] = {}
    for lang in LANGUAGES:
        with catalog_path(lang).open("rb") as handle:
            catalog = read_po(handle, locale=lang)
        counts[lang] = sum(1 for m in catalog if m.id and not translated(m))
    return counts


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "missing":
        for lang, count in missing().items():
            print(f"{lang}: {count} missing")
    else:
        print("usage: python -m pitchnet.catalogs update | compile | missing", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
