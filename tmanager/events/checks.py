"""Whether an event holds only what an event file may: each field's value, then each division's consistency.

The same checks run on a file just read and on an event about to be written,
so that an operation can never write what the next reader would refuse.
Types are the mapping's business (:mod:`tmanager.tomlmap`); what a kind of
division adds (score-based settings and data, its pairing systems) is its
rules' (see :meth:`~tmanager.events.rules.base.DivisionRules.problems`).
"""

from __future__ import annotations

import datetime
import itertools
import re
from pathlib import Path

from tmanager.core import tiebreaknames
from tmanager.core.categories import Category
from tmanager.core.playerfields import federation_fault, player_fault
from tmanager.core.results import ByeKind, format_points
from tmanager.errors import CONTROL_CHARACTERS, ConfigError
from tmanager.events.model import HOOKS, OVERALL, Division, Event, Player, PlayerStatus, PrizeFund
from tmanager.formats.trf import MAX_ROUND, MAX_START_RANK

_DATE = re.compile(r"^\d{4}(-\d{2}-\d{2})?$")
_WHEN = re.compile(r"^\d{4}-\d{2}-\d{2}( \d{1,2}:\d{2})?$")
#: TRF 222: periods ``[moves/]seconds[+increment]`` joined by ``:``; Armageddon as ``W…-B…``.
_PERIOD = r"(\d+/)?\d+(\+\d+)?(:(\d+/)?\d+(\+\d+)?)*"
#: The most points, in tenths, a result may score: TRF's ``162`` line writes each in four columns (99.9).
MAX_POINTS = 999
#: Why rounds stop at :data:`MAX_ROUND`.
_THREE_DIGITS = "TRF numbers rounds in three digits"
_TIME_CONTROL = re.compile(rf"^({_PERIOD}|W{_PERIOD}-B{_PERIOD})$")


def check_event(event: Event, file: Path | None = None) -> None:
    """Every field of ``event`` and each division's consistency; a :class:`ConfigError` names the first fault."""

    def bad(message: str, where: str, hint: str | None = None) -> ConfigError:
        return ConfigError(message, file=file, field=where, hint=hint)

    for key in ("name", "site", "federation", "arbiter"):  # (the federation: TRF 032, a line of its own)
        _check_text(getattr(event, key), f"event.{key}", file)
    if not event.name.strip():  # (`new --name ""` made one: its reports and pages had no title)
        raise bad("is empty", "event.name", 'an event needs a name, e.g. name="Spring Open"')
    # The host federation decides which players are foreign for the norms; set refused 'XYZ', but a hand edit and
    # a TRF's 032 line gave it.
    fault = federation_fault(event.federation) if event.federation else None
    if fault is not None:
        raise bad(fault, "event.federation")
    for deputy in event.deputies:
        _check_text(deputy, "event.deputies", file)
    parsed: list[tiebreaknames.Tiebreak] = []
    for tb in event.tiebreaks:
        try:
            parsed.append(tiebreaknames.Tiebreak.parse(tb))
        except ValueError as exc:
            raise bad(str(exc), "event.tiebreaks", "FIDE's codes with modifiers, e.g. BH-C1, SB, DE, KS-L50") from None
        if parsed[-1] in parsed[:-1]:  # BH-C1 and BH/C1 too: one column twice, and the reports' keys clash
            raise bad(f"{tb!r} is named twice", "event.tiebreaks", "each tie-break once, in the order they apply")
    _check_dates(event, file)
    _check_scoring(event, file)
    if not 0 <= event.rounds <= MAX_ROUND:
        raise bad(f"must be from 0 to {MAX_ROUND}, not {event.rounds}", "event.rounds", _THREE_DIGITS)
    if event.time_control and not _TIME_CONTROL.match(event.time_control):
        hint = "seconds, moves/seconds and +increment, periods joined by ':' (5400+30, 40/6000+30:900+30)"
        raise bad(f"{event.time_control!r} is not FIDE's encoded time control", "event.time_control", hint)
    for name in event.categories:
        try:
            Category.parse(name)
        except ValueError as exc:
            raise bad(str(exc), "event.categories") from None
    if len({c.casefold() for c in event.categories}) != len(event.categories):
        raise bad("a category is named twice", "event.categories")
    if not 1 <= event.prizes <= MAX_START_RANK:
        hint = "the places listed per category in the prize list"
        raise bad(f"must be from 1 to {MAX_START_RANK} (the most players), not {event.prizes}", "event.prizes", hint)
    # (negative too: `event new --max-byes -1` wrote a file that its reader, and so every later command, refused)
    if event.max_byes is not None and not 0 <= event.max_byes <= MAX_ROUND:
        raise bad(f"must be from 0 to {MAX_ROUND} (the most rounds), not {event.max_byes}", "event.max_byes")
    unknown = sorted(set(event.hooks) - set(HOOKS))
    if unknown:
        raise bad(f"unknown key {unknown[0]!r}", "hooks", "known keys: " + ", ".join(HOOKS))
    if not all(isinstance(command, str) for command in event.hooks.values()):
        raise bad("each hook must be a shell command (a string)", "hooks")
    if not event.divisions:
        raise bad("an event needs at least one [[division]]", "file.division")
    names = [d.name.casefold() for d in event.divisions]
    if len(set(names)) != len(names):
        raise bad("two divisions have the same name", "file.division")
    for i, d in enumerate(event.divisions, 1):
        where = f"division[{i}]"
        _check_text(d.name, f"{where}.name", file)
        if not d.name.strip():
            raise bad("is empty", f"{where}.name", "a division needs a name, e.g. name=Open")
        if not 1 <= d.cycles <= MAX_ROUND:
            raise bad(f"must be from 1 to {MAX_ROUND}, not {d.cycles}", f"{where}.cycles", _THREE_DIGITS)
        if any(len(group) < 2 for group in d.forbidden):
            raise bad("must be a list of player-number lists, e.g. [[3, 7]]", f"{where}.forbidden")
        for j, p in enumerate(d.players, 1):
            check_player(p, f"{where}.player[{j}]", file)
        if d.prize_fund is not None:
            check_prize_fund(d.prize_fund, f"{where}.prizes", file)
    for d in event.divisions:
        check_division(event, d, file)


def _check_dates(event: Event, file: Path | None) -> None:
    """The event's days and the rounds' times: real ones (TRF's 042, 052 and 132 carry them to the rating
    officer), the end not before the start."""
    for key in ("start", "end"):
        value = getattr(event, key)
        if value and not (_DATE.match(value) and _real(value, "%Y-%m-%d" if "-" in value else "%Y")):
            raise ConfigError(f"{value!r} is not a date", file=file, field=f"event.{key}", hint="write YYYY-MM-DD")
    if len(event.start) == len(event.end) == 10 and event.end < event.start:
        raise ConfigError(f"{event.end} is before the start, {event.start}", file=file, field="event.end")
    for i, when in enumerate(event.schedule, 1):
        if not (_WHEN.match(when) and _real(when, "%Y-%m-%d %H:%M" if " " in when else "%Y-%m-%d")):
            raise ConfigError(f"round {i}: {when!r} is not a date and time", file=file, field="event.schedule",
                              hint="write YYYY-MM-DD HH:MM")  # fmt: skip


def _check_scoring(event: Event, file: Path | None) -> None:
    """Points a standings table can mean: a win above a loss, a draw between them (1-0.5-2 was taken), and no
    result worth more than TRF's four columns write (99.9)."""
    s = event.scoring
    if not (s.loss <= s.draw <= s.win and s.loss < s.win):
        shown = "-".join(format_points(p) for p in (s.win, s.draw, s.loss))
        what = f"{shown}: a win must score more than a loss, and a draw no more than a win and no less than a loss"
        raise ConfigError(what, file=file, field="scoring", hint="win-draw-loss, e.g. 1-0.5-0 or 3-1-0")
    for key in ("win", "draw", "loss", "forfeit_loss", "pairing_bye", "zero_bye"):
        if getattr(s, key) > MAX_POINTS:
            raise ConfigError(f"{format_points(getattr(s, key))} points is more than TRF writes ({MAX_POINTS / 10})",
                              file=file, field=f"scoring.{key}")  # fmt: skip


def _real(text: str, layout: str) -> bool:
    """Whether ``text``, already of the right shape, names a day (and time) that exists: not 2026-02-30, 25:99."""
    try:
        datetime.datetime.strptime(text, layout)
    except ValueError:
        return False
    return True


def check_player(p: Player, where: str = "", file: Path | None = None) -> None:
    """One player's fields, each named ``where.key`` (``where`` empty: the key alone, a player entered or edited)."""

    def at(key: str) -> str:
        return f"{where}.{key}" if where else key

    def bad(message: str, key: str) -> ConfigError:
        return ConfigError(message, file=file, field=at(key))

    if not 1 <= p.number <= MAX_START_RANK:
        # The number is the TRF starting rank: a fifth digit would shift every column of the player's line.
        what = f"{p.number} is not a player number (1 to {MAX_START_RANK}, TRF's four-digit starting rank)"
        raise bad(what, "number")
    for key in ("name", "club", "team", "federation"):
        _check_text(getattr(p, key), at(key), file)
    for flag in p.flags:  # printed in the reports' player lists, and a .t file's line (a line break splits it)
        _check_text(flag, at("flags"), file)
    if not p.name.strip():
        raise bad('is empty; write "Last, First"', "name")
    if not 0 <= p.missed <= MAX_ROUND:  # a hand edit: the rounds paired before a late entry, left out of max_byes
        raise bad(f"must be from 0 to {MAX_ROUND} (the rounds paired before the player entered), not {p.missed}",
                  "missed")  # fmt: skip
    if p.status not in tuple(PlayerStatus):
        raise bad(f"{p.status!r} is not a status; use active or withdrawn", "status")
    fault = player_fault(player_fields(p))
    if fault is not None:
        raise bad(fault[1], fault[0])


def check_prize_fund(fund: PrizeFund, where: str, file: Path | None = None) -> None:
    """A prize fund: lists named ``overall`` or by a category, once each, with amounts that never rise with the
    place; a preference naming those lists; a currency without control characters (every prize line prints it)."""
    _check_text(fund.currency, f"{where}.currency", file)
    seen: set[str] = set()
    for name, amounts in fund.lists.items():
        if name != OVERALL:
            try:
                Category.parse(name)
            except ValueError as exc:
                raise ConfigError(str(exc), file=file, field=f"{where}.{name}",
                                  hint="a prize list is overall or a category") from None  # fmt: skip
        if name.casefold() in seen:
            raise ConfigError("this list is given twice", file=file, field=f"{where}.{name}")
        seen.add(name.casefold())
        if any(later > earlier for earlier, later in itertools.pairwise(amounts)):
            raise ConfigError(
                "a place's prize is larger than the place's before it", file=file, field=f"{where}.{name}",
                hint="list the amounts from place 1 down; players level on points share by the sharing setting",
            )  # fmt: skip
    unknown = [name for name in fund.preference if name not in fund.lists]
    if unknown or len(set(fund.preference)) != len(fund.preference):
        what = f"{unknown[0]!r} is not a list of the fund" if unknown else "a list is named twice"
        raise ConfigError(what, file=file, field=f"{where}.preference", hint="the lists: " + ", ".join(fund.lists))


def player_fields(p: Player) -> dict[str, object]:
    """The fields of ``p`` that :func:`~tmanager.core.playerfields.player_fault` checks."""
    return {"birth": p.birth, "federation": p.federation, "sex": p.sex, "title": p.title, "fide_id": p.fide_id,
            "rating": p.rating, "k": p.k}  # fmt: skip


#: What to do about a control character in a name (:func:`text_fault`).
PRINTABLE_ONLY = "names hold printable characters only"


def text_fault(text: str) -> str | None:
    """What is wrong with a name or a word the reports print, if anything: a control character (a line break
    would split a line of a TRF or a report, and an escape sequence would act on the terminal that shows it)."""
    found = CONTROL_CHARACTERS.search(text)
    return None if found is None else f"holds a control character (U+{ord(found.group()):04X}): {text!r}"


def _check_text(text: str, where: str, file: Path | None) -> None:
    """Refuse a name or a word with a control character (:func:`text_fault`)."""
    fault = text_fault(text)
    if fault is not None:
        raise ConfigError(fault, file=file, field=where, hint=PRINTABLE_ONLY)


def check_division(event: Event, d: Division, file: Path | None = None) -> None:
    """Cross-checks: unique numbers and names, boards naming real players once per round, rounds in order."""
    where = f"division {d.name!r}"

    def bad(message: str) -> ConfigError:
        return ConfigError(message, file=file, field=where)

    seen: dict[int, str] = {}
    names: dict[str, int] = {}
    fide_ids: dict[int, int] = {}
    for p in d.players:
        if p.fide_id is not None and fide_ids.setdefault(p.fide_id, p.number) != p.number:
            raise bad(f"players {fide_ids[p.fide_id]} and {p.number} have the same FIDE ID {p.fide_id}")
        if p.number in seen:
            raise bad(f"player number {p.number} is used twice")
        if p.name.casefold() in names:
            raise bad(f"players {names[p.name.casefold()]} and {p.number} have the same name {p.name!r}")
        seen[p.number] = p.name
        names[p.name.casefold()] = p.number
    for group in d.forbidden:
        unknown = [n for n in group if n not in seen]
        if unknown:
            raise bad(f"forbidden names unknown player {unknown[0]}")
    numbers = [r.number for r in d.rounds]
    if len(set(numbers)) != len(numbers) or any(n < 1 for n in numbers):
        raise bad("round numbers must be distinct and start at 1")
    paired = sorted(r.number for r in d.rounds if r.paired)
    if paired != list(range(1, len(paired) + 1)):
        raise bad(f"paired rounds must be 1..n without gaps, not {paired}")
    if any(not r.paired and r.number <= len(paired) for r in d.rounds):
        raise bad("an unpaired round comes before a paired one")
    total = event.total_rounds(d)
    if total > MAX_ROUND:
        raise bad(f"has {total} rounds, more than {MAX_ROUND} ({_THREE_DIGITS})")
    if any(n > MAX_ROUND for n in numbers):
        raise bad(f"round {max(numbers)} is beyond round {MAX_ROUND} ({_THREE_DIGITS})")
    if total and paired and paired[-1] > total:
        raise bad(f"round {paired[-1]} is paired but the event has {total} rounds")
    if total and max(numbers, default=0) > total:  # a bye requested for it (a TRF's 240 record): never paired
        raise bad(f"round {max(numbers)} holds requests but the event has {total} rounds")
    for p in d.players:
        beyond = [n for n in p.absent if n < 1 or (total and n > total)]
        if beyond:
            planned = f"the event has {total} rounds" if total else "rounds start at 1"
            raise bad(f"player {p.number} is withdrawn from round {beyond[0]}, but {planned}")
    for r in d.rounds:
        taken: set[int] = set()
        for who in [n for b in r.boards for n in (b.white, b.black)] + list(r.byes):
            if who not in seen:
                raise bad(f"round {r.number} names unknown player {who}")
            if who in taken:
                raise bad(f"player {who} appears twice in round {r.number}")
            taken.add(who)
        if any(b.white == b.black for b in r.boards):
            raise bad(f"round {r.number} pairs a player against themself")
        pairs = {(b.white, b.black) for b in r.boards}
        if not set(r.forced) <= pairs:
            raise bad(f"round {r.number}: a forced game is not among its boards")
        if not set(r.unrated) <= pairs:
            raise bad(f"round {r.number}: an unrated game is not among its boards")
        if r.forced_bye is not None and r.byes.get(r.forced_bye) != ByeKind.PAIRING:
            raise bad(f"round {r.number}: the forced bye is not among its byes")
        if not r.paired and any(not b.result.pending for b in r.boards):
            raise bad(f"round {r.number} is not paired but has results")
        if not set(r.board_numbers) | set(r.p12) <= taken:
            raise bad(f"round {r.number}: board_numbers or p12 name a player without a game or bye in it")
        if not set(r.spreads) <= set(r.byes):
            raise bad(f"round {r.number}: a spread is given for a player without a bye")
