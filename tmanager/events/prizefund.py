"""A division's prize fund as the arbiter sets it: a list's amounts, how shared prizes are split, which list a
player takes on equal amounts, the currency; and the fund described in a few lines.

The fund is the division's :class:`~tmanager.events.model.PrizeFund`; what it
may hold is checked with every change (:func:`tmanager.events.checks.check_prize_fund`),
and :mod:`tmanager.events.reports.prizes` allocates it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from tmanager.core.prizes import Sharing
from tmanager.errors import StateError
from tmanager.events.checks import PRINTABLE_ONLY, text_fault
from tmanager.events.model import OVERALL, Division, Event, PrizeFund

_AMOUNT = re.compile(r"(\d{1,10})(?:[.,](\d{1,2}))?")


@dataclass(frozen=True, slots=True)
class FundChange:
    """What ``prize-fund`` asks: a list's amounts (``remove``: the list taken out), and the fund's settings
    (``None``: unchanged)."""

    list_name: str = ""
    amounts: tuple[str, ...] = ()
    remove: bool = False
    sharing: Sharing | None = None
    preference: tuple[str, ...] | None = None
    currency: str | None = None


def parse_amount(text: str) -> int:
    """``1000``, ``62.50`` or ``62,5`` as cents; a :class:`StateError` for anything else."""
    m = _AMOUNT.fullmatch(text.strip())
    if m is None:
        raise StateError(f"{text!r} is not an amount", field="amount", hint="write 1000 or 62.50")
    return int(m[1]) * 100 + int((m[2] or "0").ljust(2, "0"))


def change_fund(event: Event, division: Division, change: FundChange) -> list[str]:
    """Apply ``change`` to the division's fund (made if it has none); the fund as it now is."""
    fund = division.prize_fund or PrizeFund()
    names = [*fund.lists, *event.categories]
    name = _list_name(names, change.list_name) if change.list_name else ""
    if name and change.remove:
        if name not in fund.lists:
            raise StateError(f"the prize fund has no list {name!r}", field="list",
                             hint=f"it has {', '.join(fund.lists) or 'none'}")
        del fund.lists[name]
        fund.preference = [n for n in fund.preference if n != name]
    elif name:
        if not change.amounts:
            raise StateError(f"give the amounts of {name}'s places 1, 2, …", field="amounts",
                             hint="or --remove to take the list out")
        fund.lists[name] = tuple(parse_amount(a) for a in change.amounts)
    elif change.remove:
        raise StateError("--remove needs the list to take out: overall or a category")
    if change.sharing is not None:
        fund.sharing = change.sharing
    if change.preference is not None:
        fund.preference = [_list_name(names, n) for n in change.preference]
    if change.currency is not None:
        fund.currency = change.currency.strip()
        fault = text_fault(fund.currency)
        if fault is not None:  # said of what was typed, before the file's check says it of the fund
            raise StateError(fault, field="currency", hint=PRINTABLE_ONLY)
    # Settings given before any list (or kept when the last list goes) stay for the lists to come: a fund of
    # settings alone was dropped, and `prize-fund EVENT --sharing hort --currency EUR` said so by saying nothing.
    division.prize_fund = fund if fund != PrizeFund() else None
    return describe(division.prize_fund)


def _list_name(names: Sequence[str], text: str) -> str:
    """A list as typed: ``Overall`` is ``overall``; a list or category of the event in its own spelling (``women``
    for ``Women``); else as typed."""
    word = text.strip()
    if word.casefold() == OVERALL:
        return OVERALL
    return next((name for name in names if name.casefold() == word.casefold()), word)


def describe(fund: PrizeFund | None) -> list[str]:
    """The fund in a few lines: each list's amounts in order of preference, the total and the sharing."""
    if fund is None or not fund.lists:
        settings = [] if fund is None else _settings(fund)
        kept = f" ({', '.join(settings)}, kept for the lists to come)" if settings else ""
        return [f"no prize fund{kept}: the prize list shows each ranking's first places"]
    unit = f" {fund.currency}" if fund.currency else ""
    lines = [f"{name}: {_amounts(fund.lists[name])}{unit}" for name in fund.order()]
    total = sum(sum(amounts) for amounts in fund.lists.values())
    lines.append(f"total {money(total)}{unit}; shared prizes: {fund.sharing}; on equal amounts: "
                 + ", ".join(fund.order()))  # fmt: skip
    return lines


def _settings(fund: PrizeFund) -> list[str]:
    """The settings of a fund that are not the defaults, in words."""
    said = [f"shared prizes: {fund.sharing}"] if fund.sharing is not Sharing.SPLIT else []
    return said + ([f"currency {fund.currency}"] if fund.currency else [])


def _amounts(cents: Sequence[int]) -> str:
    return ", ".join(money(c) for c in cents)


def money(cents: int | Fraction) -> str:
    """``1000`` or ``333.33``: an amount in the currency's units, a share rounded to the cent (half up)."""
    whole = int(cents + Fraction(1, 2)) if isinstance(cents, Fraction) else cents
    return str(whole // 100) if whole % 100 == 0 else f"{whole // 100}.{whole % 100:02d}"
