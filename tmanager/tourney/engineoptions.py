"""Engine options as engines declare them (UCI's ``option name …``, XBoard's ``feature option="…"``) and check values.

An :class:`EngineOption` is one declared option: its kind, default and bounds, and
:meth:`EngineOption.parse`, which checks a value given for it (an engine that is given
a value it cannot take is a configuration error, never a game). Declarations are read
tolerantly: a default that does not fit its option is kept as written and
:meth:`EngineOption.parse` says what is wrong with it (`tmanager check` reports it).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from tmanager.tourney.enginelines import EngineError

OptionValue = str | int | bool | None


class OptionKind(enum.StrEnum):
    """The kinds of option UCI and XBoard know (XBoard's ``slider`` is a ``spin``)."""

    CHECK = "check"
    SPIN = "spin"
    COMBO = "combo"
    BUTTON = "button"
    RESET = "reset"
    SAVE = "save"
    STRING = "string"
    FILE = "file"
    PATH = "path"

    @property
    def takes_value(self) -> bool:
        return self not in (OptionKind.BUTTON, OptionKind.RESET, OptionKind.SAVE)


#: Options the game runner sets itself (UCI), as python-chess manages them.
MANAGED = frozenset({"uci_chess960", "uci_variant", "multipv", "ponder"})


@dataclass(frozen=True, slots=True)
class EngineOption:
    """One option an engine declares."""

    name: str
    kind: OptionKind
    default: OptionValue = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()

    @property
    def managed(self) -> bool:
        """Whether the runner sets it itself (``UCI_Chess960``, ``UCI_Variant``, ``MultiPV``, ``Ponder``)."""
        return self.name.lower() in MANAGED

    def parse(self, value: OptionValue) -> OptionValue:
        """``value`` as the option takes it; :class:`EngineError` when it cannot."""
        kind, name = self.kind, self.name
        if kind is OptionKind.CHECK:
            return value not in (False, None, "", "false", 0)
        if kind is OptionKind.SPIN:
            try:
                number = int(value)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise EngineError(f"expected integer for spin option {name!r}, got: {value!r}") from None
            if self.min is not None and number < self.min:
                raise EngineError(f"expected value for option {name!r} to be at least {self.min}, got: {number}")
            if self.max is not None and self.max < number:
                raise EngineError(f"expected value for option {name!r} to be at most {self.max}, got: {number}")
            return number
        if kind is OptionKind.COMBO:
            if str(value) not in self.choices:
                raise EngineError(f"invalid value for combo option {name!r}, got: {value} "
                                  f"(available: {', '.join(self.choices) or '-'})")
            return str(value)
        if not kind.takes_value:
            return None
        text = "" if value is None else str(value)
        if "\n" in text or "\r" in text:
            raise EngineError(f"invalid line-break in string option {name!r}: {text!r}")
        return text


@dataclass(frozen=True, slots=True)
class RefusedOption:
    """An option value an engine refused and was left without: an option it does not have (``missing``), or a
    value the option cannot take (``unconverted``: a spin's value that is no number at all, see
    :func:`unconverted`)."""

    name: str
    value: str  #: as the engine would have been told it
    missing: bool
    unconverted: str = ""


#: The start of a whole number as C++'s ``std::stoi`` reads it: blanks, a sign, digits (what follows is ignored).
_STOI_START = re.compile(r"\s*[+-]?[0-9]+")
#: The range of C++'s ``int``, whose ``std::stoi`` throws beyond it.
_INT_RANGE = range(-(2**31), 2**31)


def unconverted(option: EngineOption, text: str) -> str:
    """``"stoi"`` when the value ``text`` of spin ``option`` does not even begin with a number that fits in a C++
    ``int``, else ``""``. fastchess reads a spin's value with ``std::stoi``, whose exception it reports apart
    (``Warning; Failed to set option Hash with value abc for engine dev: stoi``, which fishtest's worker stops a
    test on), where a number out of the option's range is ``Warning; Invalid value for option Hash; 0``."""
    if option.kind is not OptionKind.SPIN:
        return ""
    start = _STOI_START.match(text)
    return "" if start is not None and int(start.group()) in _INT_RANGE else "stoi"


def option_text(value: OptionValue) -> str:
    """A value as an engine is told it (``true``/``false`` for a check)."""
    return ("true" if value else "false") if isinstance(value, bool) else "" if value is None else str(value)


#: The words of a UCI declaration that start its parts.
_UCI_PARTS = re.compile(r"\s*\b(name|type|default|min|max|var)\b\s*")


def uci_option(declaration: str) -> EngineOption | None:
    """The option of a UCI ``option`` line (without ``option``); ``None`` if its type is unknown.

    Parts are told apart as python-chess tells them: a name or a default may hold spaces, and a word
    such as ``default`` starts a part only the first time it comes (``var`` each time)."""
    parts: dict[str, str] = {}
    choices: list[str] = []
    current = ""
    for token in _UCI_PARTS.split(declaration.strip()):
        if token == "var" or (token in ("name", "type", "default", "min", "max") and token not in parts):
            current = token
            if token != "var":
                parts[token] = ""
        elif current == "var":
            choices.append(token)
        elif current:
            parts[current] = token
    try:
        kind = OptionKind(parts.get("type", ""))
    except ValueError:
        return None
    default = parts.get("default")
    return EngineOption(
        parts.get("name", ""), kind, _default(kind, default), _bound(parts.get("min")), _bound(parts.get("max")),
        tuple(choices),
    )


def _default(kind: OptionKind, text: str | None) -> OptionValue:
    """A declared default as the option's value: a spin's as a number (``None`` if it is none), a check's as
    ``true`` or not; others as written."""
    if text is None or not kind.takes_value:
        return None
    if kind is OptionKind.CHECK:
        return text == "true"
    if kind is OptionKind.SPIN:
        return _bound(text)
    return text


def _bound(text: str | None) -> int | None:
    try:
        return None if text is None else int(text)
    except ValueError:
        return None


def xboard_option(declaration: str) -> EngineOption | None:
    """The option of an XBoard ``feature option="NAME -TYPE …"`` (the quoted text); ``None`` if it has no
    type XBoard knows. The name may hold spaces (Fairy-Max's ``Resign Threshold -spin 800 200 1200``)."""
    words = declaration.split()
    at = next((i for i, word in enumerate(words) if i and word[:1] == "-" and _xboard_kind(word[1:])), None)
    if at is None:
        return None
    name, kind, rest = " ".join(words[:at]), _xboard_kind(words[at][1:]), words[at + 1 :]
    assert kind is not None
    if kind is OptionKind.COMBO:
        # The choices, separated by ///; the default marked by a *, else the first (as XBoard takes it).
        choices = [" ".join(words) for words in _split(rest, "///")]
        default = next((choice[1:] for choice in choices if choice.startswith("*")), choices[0] if choices else None)
        return EngineOption(name, kind, default, choices=tuple(choice.removeprefix("*") for choice in choices))
    if kind is OptionKind.SPIN:
        numbers = [_bound(word) for word in rest[:3]] + [None, None, None]
        return EngineOption(name, kind, numbers[0], numbers[1], numbers[2])
    if kind is OptionKind.CHECK:
        return EngineOption(name, kind, rest[:1] == ["1"])
    if kind in (OptionKind.STRING, OptionKind.FILE, OptionKind.PATH):
        return EngineOption(name, kind, " ".join(rest))
    return EngineOption(name, kind)


def _split(words: list[str], separator: str) -> list[list[str]]:
    """``words`` in the runs between ``separator``s."""
    runs: list[list[str]] = [[]]
    for word in words:
        if word == separator:
            runs.append([])
        else:
            runs[-1].append(word)
    return [run for run in runs if run]


def _xboard_kind(word: str) -> OptionKind | None:
    if word == "slider":
        return OptionKind.SPIN
    try:
        return OptionKind(word)
    except ValueError:
        return None
