"""A pseudo-translation for tests: every message of the template, marked, as `lang`'s
catalog. Tests that show two languages wording the same thing differently need
translations whatever the translators have done so far; these keep each placeholder and
have as many plural forms as the language (three for Lithuanian and Croatian)."""

from __future__ import annotations

import gettext
import io
import string
from collections.abc import Iterator

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pitchnet import i18n
from pitchnet.catalogs import TEMPLATE

MARK = "⟪{}⟫"

TELUGU = [chr(0x0C15 + i) for i in range(20)]
"""Telugu consonants (క ఖ గ ...), which the script-like pseudo-translation writes with."""
SIGNS = ("\u0c41", "\u0c46", "\u0c4d", "\u0c3e")
"""ు (spacing, a cell of its own in terminals), ె and ్ (none), ా (none)."""
LITHUANIAN = str.maketrans("aceisuzAEISUZ", "ąčęįšūžĄĘĮŠŪŽ")


def telugu_like(text: str) -> str:
    """Every Latin letter a Telugu consonant with a vowel sign, placeholders and the rest
    kept: as many cells as a real translation's marks take, for layout tests."""
    out = []
    for index, char in enumerate(text):
        if char.isascii() and char.isalpha():
            out.append(TELUGU[ord(char.lower()) % len(TELUGU)] + SIGNS[index % len(SIGNS)])
        else:
            out.append(char)
    return "".join(out)


def lithuanian_like(text: str) -> str:
    return text.translate(LITHUANIAN)


def _marked(text: str, script: object = str.upper) -> str:
    """`text` with its words upper-cased (or written by `script`) and the whole in ⟪ ⟫,
    its placeholders kept."""
    out = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        out.append(script(literal))  # type: ignore[operator]
        if name is not None:
            out.append(
                "{"
                + name
                + ("!" + conversion if conversion else "")
                + (":" + spec if spec else "")
                + "}"
            )
    return MARK.format("".join(out))


def pseudo_translations(lang: str, script: object = str.upper) -> gettext.GNUTranslations:
    with TEMPLATE.open("rb") as handle:
        template = read_po(handle)
    catalog = Catalog(locale=str(i18n.babel_locale(lang)))
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, str):
            catalog.add(message.id, _marked(message.id, script), context=message.context)
        else:
            singular, plural = message.id
            forms = tuple(
                _marked(singular if i == 0 else plural, script) for i in range(catalog.num_plurals)
            )
            catalog.add((singular, plural), forms, context=message.context)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


@pytest.fixture
def pseudo(monkeypatch: pytest.MonkeyPatch) -> Iterator[set[str]]:
    """Languages added to this set speak the pseudo-translation for the test."""
    pseudo_langs: set[str] = set()
    real = i18n.translations

    def translations(lang: str) -> gettext.NullTranslations:
        return pseudo_translations(lang) if lang in pseudo_langs else real(lang)

    monkeypatch.setattr(i18n, "translations", translations)
    yield pseudo_langs
