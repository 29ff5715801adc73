"""Wheel build hook: the catalogs compiled (`.mo`) into the wheel.

A checkout runs from the `.po` files (pitchnet/i18n.py compiles them in memory); an
installed wheel should not pay that on every start, so the build compiles each catalog
with Babel (a build requirement) and adds the `.mo` beside its `.po`. Fuzzy entries are
left out, as gettext would: those messages show in English until a translator confirms
them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

LOCALE = Path("pitchnet") / "locale"
BABEL_LOCALES = {"tl": "fil"}


class CatalogsHook(BuildHookInterface):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable":  # runs from the checkout, which compiles in memory
            return
        out = Path(tempfile.mkdtemp(prefix="pitchnet-mo-"))
        for po in sorted((Path(self.root) / LOCALE).glob("*/LC_MESSAGES/*.po")):
            lang = po.parent.parent.name
            with po.open("rb") as handle:
                catalog = read_po(handle, locale=BABEL_LOCALES.get(lang, lang))
            mo = out / lang / po.with_suffix(".mo").name
            mo.parent.mkdir(parents=True, exist_ok=True)
            with mo.open("wb") as handle:
                write_mo(handle, catalog)
            target = LOCALE / lang / "LC_MESSAGES" / mo.name
            build_data["force_include"][str(mo)] = target.as_posix()
