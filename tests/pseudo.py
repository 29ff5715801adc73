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


def _marked(text: str) -> str:
    """`text` with its words upper-cased and the whole in ⟪ ⟫, its placeholders kept."""
    out = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        out.append(literal.upper())
        if name is not None:
            out.append(
                "{"
                + name
                + ("!" + conversion if conversion else "")
                + (":" + spec if spec else "")
                + "}"
            )
    return MARK.format("".join(out))


def pseudo_translations(lang: str) -> gettext.GNUTranslations:
    with TEMPLATE.open("rb") as handle:
        template = read_po(handle)
    catalog = Catalog(locale=str(i18n.babel_locale(lang)))
    for message in template:
        if not message.id:
            continue
        if isinstance(message.id, str):
            catalog.add(message.id, _marked(message.id), context=message.context)
        else:
            singular, plural = message.id
            forms = tuple(
                _marked(singular if i == 0 else plural) for i in range(catalog.num_plurals)
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
