"""The catalogs (pitchnet/locale): in step with the code, every language complete, and
no translation that drops or changes a placeholder.

Completeness is checked per language. A language that translators have not finished
yet is listed in `NOT_YET_COMPLETE`: its test is an xfail(strict=True), so the day the
language is complete the test passes unexpectedly and fails, until the language is taken
off the list (from then on any message it lacks fails the test). Until then the xfail's
reason still lists what is missing (`pytest -rx`).
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from pitchnet.catalogs import SOURCES, TEMPLATE, translated
from pitchnet.i18n import DEFAULT, LANGUAGES, babel_locale, catalog_path

ROOT = Path(__file__).resolve().parent.parent

NOT_YET_COMPLETE: set[str] = set()
"""Languages whose translators are still at work (take a language off once complete)."""

PLURALS = {"en": 2, "tl": 2, "lt": 3, "te": 2, "hr": 3, "da": 2}
"""How many plural forms each language has (Babel's CLDR data; Lithuanian and Croatian 3)."""


def load(lang: str) -> Catalog:
    with catalog_path(lang).open("rb") as handle:
        return read_po(handle, locale=str(babel_locale(lang)))


def template() -> Catalog:
    with TEMPLATE.open("rb") as handle:
        return read_po(handle)


def placeholders(text: str) -> set[str]:
    """The `{names}` in a brace-format text (a text a translator broke: the whole text)."""
    try:
        return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}
    except ValueError:
        return {f"<unbalanced braces in {text!r}>"}


def _msgid(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def test_the_catalogs_hold_every_message_the_code_marks() -> None:
    """A `_()` added to the code without `python -m pitchnet.catalogs update` fails here."""
    marked = set()
    for source in SOURCES:
        keywords = {**DEFAULT_KEYWORDS, "say": (2,)}  # as `catalogs update` extracts
        found = extract_from_dir(ROOT / source, keywords=keywords)
        for _file, _line, message, _comments, _context in found:
            marked.add(message if isinstance(message, str) else message[0])
    in_template = {_msgid(m) for m in template() if m.id}
    assert marked - in_template == set(), "run: uv run python -m pitchnet.catalogs update"
    for lang in LANGUAGES:
        in_catalog = {_msgid(m) for m in load(lang) if m.id and not m.fuzzy}
        assert marked <= in_catalog | {_msgid(m) for m in load(lang) if m.fuzzy}, lang


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_each_language_has_its_plural_forms(lang: str) -> None:
    catalog = load(lang)
    assert catalog.num_plurals == PLURALS[lang], catalog.plural_forms
    for message in catalog:
        forms = message.string
        if message.id and message.pluralizable and isinstance(forms, tuple) and any(forms):
            assert len(forms) == PLURALS[lang], (lang, message.id)


def _missing(lang: str) -> list[str]:
    return [_msgid(m) for m in load(lang) if m.id and not translated(m)]


@pytest.mark.parametrize(
    "lang",
    [
        pytest.param(
            lang,
            marks=pytest.mark.xfail(
                lang in NOT_YET_COMPLETE,
                reason=f"{lang}: translation under way (NOT_YET_COMPLETE)",
                strict=True,
            ),
        )
        for lang in sorted(LANGUAGES)
    ],
)
def test_every_message_is_translated(lang: str) -> None:
    missing = _missing(lang)
    shown = "\n".join(f"  {text!r}" for text in missing[:30])
    assert not missing, f"{lang}: {len(missing)} messages lack a translation:\n{shown}"


@pytest.mark.parametrize("lang", sorted(LANGUAGES))
def test_no_translation_drops_or_changes_a_placeholder(lang: str) -> None:
    """Every translated form names exactly the placeholders of its English text (a
    plural's first form may leave `{n}` out: "one point" says the number in words)."""
    wrong = []
    for message in load(lang):
        if not message.id:
            continue
        if isinstance(message.id, str):
            pairs = [(message.id, str(message.string or ""))]
        else:
            singular, plural = message.id
            forms = message.string if isinstance(message.string, tuple) else (message.string,)
            pairs = [
                (singular if i == 0 else plural, str(form or "")) for i, form in enumerate(forms)
            ]
        for index, (english, text) in enumerate(pairs):
            if not text:
                continue  # untranslated: the completeness test says so
            wanted, found = placeholders(english), placeholders(text)
            if not isinstance(message.id, str) and index == 0:
                wanted, found = wanted - {"n"}, found - {"n"}
            if wanted != found or english.count("%%") != text.count("%%"):
                wrong.append(f"{english!r} -> {text!r}")
    assert not wrong, f"{lang}: placeholders changed in:\n" + "\n".join(wrong)


def test_english_is_its_own_translation() -> None:
    """English is the code's own text: its catalog is filled by `catalogs update`."""
    for message in load(DEFAULT):
        if message.id:
            assert message.string == message.id, message.id


def test_the_placeholder_check_catches_a_dropped_or_renamed_placeholder() -> None:
    """The check above can fail: a renamed, a dropped or a broken brace is seen."""
    assert placeholders("Seat {seat} bids {bid}") == {"seat", "bid"}
    assert placeholders("Sjedalo {mjesto} licitira {bid}") != {"seat", "bid"}
    assert placeholders("Vieta licituoja {bid}") != {"seat", "bid"}
    assert re.search("unbalanced", next(iter(placeholders("{seat"))))
