"""House rules: the options a table fixes for a whole match (RULES.md, "House rules").

One typed object, `HouseRules`, holds them; its values are spelled exactly as in
RULES.md (`"dealt"`, `"on"`, `2`...), so the same words serve the engine, the wire,
the journal, the rules vectors and `--rule NAME=VALUE`. The defaults are the rule
book: a table that sets nothing plays exactly as before house rules existed.
The target is an option too, but it lives in `Settings.target` (it always has), so
the helpers here that read a full set of options return the target beside the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from pitchnet.i18n import N_, _

TARGETS = (7, 10, 11, 15, 21)
"""Points to win: 7 is the default, 10 is usual with the joker."""

OPTIONS: dict[str, tuple[str | int, ...]] = {
    "low": ("captor", "dealt"),
    "dealer_steal": ("on", "off"),
    "all_pass": ("forced", "redeal"),
    "min_bid": (1, 2),
    "follow": ("trump_anytime", "must_follow"),
    "smudge": ("off", "on"),
    "joker": ("off", "on"),
    "target": TARGETS,
}
"""Every option and its values, the default first (the table in RULES.md)."""


class RulesConfigError(ValueError):
    """An unknown option or value. The message is a sentence for the person who typed it."""


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The house rules of one table (the target aside: see the module docstring)."""

    low: Literal["captor", "dealt"] = "captor"
    dealer_steal: Literal["on", "off"] = "on"
    all_pass: Literal["forced", "redeal"] = "forced"
    min_bid: Literal[1, 2] = 1
    follow: Literal["trump_anytime", "must_follow"] = "trump_anytime"
    smudge: Literal["off", "on"] = "off"
    joker: Literal["off", "on"] = "off"

    def __post_init__(self) -> None:
        for name, value in self.to_wire().items():
            _check_value(name, value)

    # ---- what the engine asks ----------------------------------------------------------------

    @property
    def has_joker(self) -> bool:
        return self.joker == "on"

    @property
    def top_bid(self) -> int:
        """The highest bid: 4, or 5 with the joker. It ends the auction at once."""
        return 5 if self.joker == "on" else 4

    @property
    def bids(self) -> tuple[int, ...]:
        """Every bid amount this table allows, lowest first."""
        return tuple(range(self.min_bid, self.top_bid + 1))

    # ---- wire and text -----------------------------------------------------------------------

    def to_wire(self) -> dict[str, str | int]:
        """Every option with its value, as RULES.md spells them."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_wire(cls, data: Any) -> HouseRules:
        """From a map of option to value (a vector's `rules`, a journal entry, the table
        info); options not named take their defaults. Refuses unknown options or values
        (and `target`, which is not a house rule of this object: see `split_target`)."""
        if not isinstance(data, Mapping):
            raise RulesConfigError("The house rules must be a map of option to value.")
        for name, value in data.items():
            if name == "target" or name not in OPTIONS:
                raise _unknown_option(name)
            _check_value(name, value)
        return cls(**data)

    def changes(self) -> dict[str, str | int]:
        """Only the options that differ from the defaults."""
        default = HouseRules().to_wire()
        return {name: value for name, value in self.to_wire().items() if default[name] != value}

    def short(self) -> str:
        """A compact text of the changed options, for the zeroconf advert: "joker=on,low=dealt"
        ("" for the defaults). `parse_short` reads it back."""
        return ",".join(f"{name}={value}" for name, value in self.changes().items())

    def preset_name(self) -> str | None:
        """The preset these rules are exactly (targets aside), or None."""
        for preset in PRESETS.values():
            if preset.rules == self:
                return preset.name
        return None

    def describe(self) -> list[str]:
        """One short phrase per changed option, for the Rules page and the lobby."""
        return [_(_PHRASES[(name, value)]) for name, value in self.changes().items()]


_PHRASES: dict[tuple[str, str | int], str] = {
    ("low", "dealt"): N_("Low goes to the player it was dealt to"),
    ("dealer_steal", "off"): N_("the dealer may not steal the bid"),
    ("all_pass", "redeal"): N_("if everyone passes, the hand is thrown in and redealt"),
    ("min_bid", 2): N_("the lowest bid is 2"),
    ("follow", "must_follow"): N_("you must follow suit if you can (trump only when void)"),
    ("smudge", "on"): N_("Smudge: make the top bid from a score of 0 or more to win at once"),
    ("joker", "on"): N_("five-point Pitch: the joker is the lowest trump and a point"),
}


def _check_value(name: str, value: Any) -> None:
    allowed = OPTIONS[name]
    # bool is an int in Python: refuse True for min_bid, as JSON true is not a number.
    if type(value) not in (str, int) or value not in allowed:
        words = ", ".join(str(v) for v in allowed)
        raise RulesConfigError(f"The option {name} is one of {words}, not {value!r}.")


def _unknown_option(name: Any) -> RulesConfigError:
    return RulesConfigError(
        f"There is no house rule {str(name)[:32]!r} (the options are {', '.join(OPTIONS)})."
    )


@dataclass(frozen=True, slots=True)
class Preset:
    """A name for a set of options (RULES.md, "Presets")."""

    name: str
    rules: HouseRules
    target: int | None
    """The preset's target, or None to keep the table's (7 unless set)."""
    summary: str
    """In English, marked with `N_`: translated where it is shown."""


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("standard", HouseRules(), None, N_("the rule book: no house rules")),
        Preset("classic", HouseRules(low="dealt"), None, N_("Low is the dealt holder's")),
        Preset(
            "smudge",
            HouseRules(smudge="on", dealer_steal="off"),
            None,
            N_("Smudge wins at once; the dealer may not steal"),
        ),
        Preset("joker", HouseRules(joker="on"), 10, N_("five-point Pitch with the joker, to 10")),
        Preset(
            "strict",
            HouseRules(follow="must_follow", min_bid=2, all_pass="redeal"),
            None,
            N_("must follow suit, no bids of 1, redeal when all pass"),
        ),
    )
}
"""The named presets, in the order RULES.md lists them (for a setup screen's list)."""


def parse_value(name: str, text: str) -> str | int:
    """`--rule NAME=VALUE`'s value as the option takes it (numbers for min_bid, target)."""
    if name not in OPTIONS:
        raise _unknown_option(name)
    word = text.strip().lower()
    value: str | int = int(word) if isinstance(OPTIONS[name][0], int) and word.isdigit() else word
    _check_value(name, value)
    return value


def parse_assignment(text: str) -> tuple[str, str | int]:
    """One `NAME=VALUE` (as `--rule` takes it)."""
    name, sep, value = text.partition("=")
    if not sep:
        raise RulesConfigError(f"A rule is NAME=VALUE, like joker=on; {text[:40]!r} is not.")
    return name.strip(), parse_value(name.strip(), value)


def split_target(options: Mapping[str, Any]) -> tuple[HouseRules, int | None]:
    """A map of options that may include `target`: the rules and the target (or None)."""
    if not isinstance(options, Mapping):
        raise RulesConfigError("The house rules must be a map of option to value.")
    rest = dict(options)
    target = rest.pop("target", None)
    if target is not None:
        _check_value("target", target)
    return HouseRules.from_wire(rest), target


def resolve(preset: str | None, assignments: Iterable[str] = ()) -> tuple[HouseRules, int | None]:
    """`--rules PRESET` and any `--rule NAME=VALUE`, which override it: the rules and the
    target they set (None: they set none)."""
    if preset is None:
        rules, target = HouseRules(), None
    else:
        chosen = PRESETS.get(preset.strip().lower())
        if chosen is None:
            raise RulesConfigError(
                f"There is no preset {preset[:32]!r} (the presets are {', '.join(PRESETS)})."
            )
        rules, target = chosen.rules, chosen.target
    changes: dict[str, Any] = {}
    for text in assignments:
        name, value = parse_assignment(text)
        if name == "target":
            target = int(value)
        else:
            changes[name] = value
    return replace(rules, **changes), target


def parse_short(text: str) -> HouseRules:
    """Read `HouseRules.short()` back (an advert's TXT value). Raises RulesConfigError."""
    changes: dict[str, Any] = {}
    for part in filter(None, text.split(",")):
        name, value = parse_assignment(part)
        changes[name] = value
    return HouseRules.from_wire(changes)


def rules_name(rules: HouseRules) -> str:
    """The rules in a word or two: the preset's name if they are one ("joker",
    "standard": names players type after --rules, so never translated), else the changed
    options ("low dealt smudge", in the language in use)."""
    name = rules.preset_name()
    if name is None:
        words = {
            ("low", "dealt"): _("low dealt"),
            ("dealer_steal", "off"): _("no steal"),
            ("all_pass", "redeal"): _("redeal"),
            ("min_bid", 2): _("min 2"),
            ("follow", "must_follow"): _("must follow"),
            ("smudge", "on"): _("smudge"),
            ("joker", "on"): _("joker"),
        }
        name = " ".join(words[item] for item in rules.changes().items())
    return name


def label(rules: HouseRules, target: int) -> str:
    """A short label for a finder's row: the preset's name if the rules are one
    ("joker, to 10", "standard, to 7"), else the changed options ("low dealt smudge, to 11")."""
    return _("{rules}, to {target}", rules=rules_name(rules), target=target)
