"""The arbiter's actions: the table of what each of the arbiter's forms runs.

Each :class:`Action` reads its form into the typed arguments of one function of
:mod:`tmanager.events.service` (a result through the division's rules'
:class:`~tmanager.events.rules.base.EntryForm`, never through words) and
returns that function's :class:`~tmanager.events.change.Change`: the same
locked, journaled change the command line makes. A form that lacks what its
action needs raises a one-line :class:`~tmanager.errors.StateError`, which the
page shows beside that form; nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from tmanager.core.results import PENDING, ByeKind, Colour, Result
from tmanager.errors import StateError, ascii_digits
from tmanager.events import service
from tmanager.events.change import Change
from tmanager.events.entries import ShownBoard
from tmanager.web import arbiterpages
from tmanager.web.arbiterpages import ArbiterForm, FormError
from tmanager.web.eventpages import NUMBER_DIGITS, Page, PageKind, Snapshot

Form = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class Target:
    """What an action changes: the event file, and the version of it the pages show (the result forms' menus)."""

    path: Path
    snapshot: Snapshot | None


@dataclass(frozen=True, slots=True)
class Action:
    """One of the arbiter's forms: what it runs, and which form on the page it is.

    ``per`` names the field that tells a page's forms of this action apart (one result form per board, one
    roster per team), so that an error shows beside the form it is about; ``back_to_round``: the page after it
    is the view the form was in (its ``view_round``, none for the round the results go to, and boards filter).
    """

    run: Callable[[Target, Form], Change]
    per: str | None = None
    back_to_round: bool = False

    def refused(self, kind: ArbiterForm, form: Form, message: str) -> FormError:
        """Why ``form``, a form of ``kind`` (this action's), was refused, for the page to show beside it."""
        return FormError(kind, message, None if self.per is None else form.get(self.per, ""))

    def page(self, form: Form) -> Page:
        """The arbiter's page to show after the action, or with its error."""
        if not self.back_to_round:
            return Page(PageKind.ARBITER, _division(form))
        round_number = _round_or_none(form.get("view_round", form.get("round", "")))
        return Page(PageKind.ARBITER, _division(form), round_number, missing=bool(form.get("missing")))


def _enter_result(target: Target, form: Form) -> Change:
    round_number, board = _number(form, "round"), _number(form, "board")
    entry = arbiterpages.result_entry(target.snapshot, form, board)
    try:
        was = Result(form.get("was", ""))
    except ValueError:
        raise StateError("the form does not say which result the page showed", hint="reload the page") from None
    # The game and the result the page showed: a page left open while the round was paired again, or while
    # someone else entered or corrected this board, must not put its result on another game or over theirs.
    shown = ShownBoard(_number(form, "white"), _number(form, "black"), was)
    return service.save_result(target.path, _division(form), entry, round_number, correction=was not in PENDING,
                               confirm=_ticked(form), shown=shown)  # fmt: skip


def _pair(target: Target, form: Form) -> Change:
    expected = _number(form, "round")
    colour = form.get("colour") or None
    if colour not in (None, "white", "black"):
        raise StateError("the colour is white, black or drawn by lot")
    first = Colour.from_word(colour) if colour else None
    return service.pair(target.path, _division(form), colour=first, expected_round=expected - 1)


def _bye(target: Target, form: Form) -> Change:
    who, round_number = form.get("player", "").strip(), _number(form, "round")
    if not who:
        raise StateError("choose the player who asked for the bye")
    try:
        kind = ByeKind.requested(form.get("kind", ByeKind.HALF))
    except ValueError as error:
        raise StateError(str(error)) from None
    return service.request_bye(target.path, _division(form), who, round_number, kind)


def _cancel_bye(target: Target, form: Form) -> Change:
    who, round_number = form.get("player", "").strip(), _number(form, "round")
    if not who:
        raise StateError("the form does not say whose bye to cancel", hint="reload the page")
    try:
        shown = ByeKind(form.get("kind", ""))
    except ValueError:
        raise StateError("the form does not say which bye the page showed", hint="reload the page") from None
    # The bye the page showed: one cancelled and asked for again since, of another kind, is not the one to cancel.
    return service.cancel_bye(target.path, _division(form), who, round_number, shown=shown)


def _pair_of(form: Form, *, missing: StateError) -> tuple[str, str, int]:
    """The white and black of a forced game's form, and the round it was shown for; ``missing`` is the refusal
    when a side is not given."""
    expected = _number(form, "round")
    white, black = form.get("white", "").strip(), form.get("black", "").strip()
    if not (white and black):
        raise missing
    return white, black, expected


def _force(target: Target, form: Form) -> Change:
    white, black, expected = _pair_of(form, missing=StateError("choose both players (or a player and bye)"))
    return service.force(target.path, _division(form), white, black, expected_round=expected - 1)


def _unforce(target: Target, form: Form) -> Change:
    missing = StateError("the form does not say which forced game to take back", hint="reload the page")
    white, black, expected = _pair_of(form, missing=missing)
    return service.unforce(target.path, _division(form), white, black, expected_round=expected - 1)


def _unpair(target: Target, form: Form) -> Change:
    expected = _number(form, "round")
    _confirmed(form, f"unpair round {expected}")
    return service.unpair(target.path, _division(form), expected_round=expected)


def _undo(target: Target, form: Form) -> Change:
    expected = _number(form, "change")
    _confirmed(form, "undo the last change")
    return service.undo(target.path, expected=expected)


def _add_team(target: Target, form: Form) -> Change:
    name = form.get("name", "").strip()
    if not name:
        raise StateError("give the team a name")
    return service.add_team(target.path, _division(form), name, short=form.get("short", "").strip(),
                            players=form.get("players", "").split())  # fmt: skip


def _roster(target: Target, form: Form) -> Change:
    team = str(_number(form, "team"))
    return service.roster(target.path, _division(form), team, form.get("players", "").split())


def _lineup(target: Target, form: Form) -> Change:
    team, round_number = str(_number(form, "team")), _number(form, "round")
    numbered = [(k[5:], v) for k, v in form.items() if k.startswith("board")]
    # As _number's: a field named with thousands of digits was int()'s traceback, a server error. A board missing
    # between others (board1, board3) moved the later players up a board, without a word.
    boards = sorted((int(n), v) for n, v in numbered if ascii_digits(n) and len(n) <= NUMBER_DIGITS)
    if len(boards) != len(numbered) or [n for n, _ in boards] != list(range(1, len(boards) + 1)):
        fields = ", ".join(sorted(f"board{n}" for n, _ in numbered))
        raise StateError(f"the lineup form's boards are {fields}, not board1, board2, … each once",
                         hint="reload the page")
    return service.lineup(target.path, _division(form), team, [v for _, v in boards], round_number)


#: Each form's action, by the form's kind, whose value is also the action's path (``POST /result``).
ACTIONS: Mapping[ArbiterForm, Action] = MappingProxyType({
    ArbiterForm.RESULT: Action(_enter_result, per="board", back_to_round=True),
    ArbiterForm.PAIR: Action(_pair),
    ArbiterForm.BYE: Action(_bye),
    ArbiterForm.CANCEL_BYE: Action(_cancel_bye),
    ArbiterForm.FORCE: Action(_force),
    ArbiterForm.UNFORCE: Action(_unforce),
    ArbiterForm.UNPAIR: Action(_unpair),
    ArbiterForm.UNDO: Action(_undo),
    ArbiterForm.ADD_TEAM: Action(_add_team),
    ArbiterForm.ROSTER: Action(_roster, per="team"),
    ArbiterForm.LINEUP: Action(_lineup, per="team"),
})  # fmt: skip


def _division(form: Form) -> str | None:
    return form.get("d") or None


def _number(form: Form, key: str) -> int:
    text = form.get(key, "").strip()
    if not (ascii_digits(text) and len(text) <= NUMBER_DIGITS):
        # "of at most 5 digits": a round typed as 100000 was said to be no number
        raise StateError(f"the {key} must be a number of at most {NUMBER_DIGITS} digits, not {text[:20]!r}")
    return int(text)


def _ticked(form: Form) -> bool:
    """Whether the form's confirmation box was ticked (a checkbox sends its value only then)."""
    return form.get("confirm") == "yes"


def _confirmed(form: Form, doing: str) -> None:
    if not _ticked(form):
        raise StateError(f"tick the box to {doing}; nothing was changed")


def _round_or_none(text: str) -> int | None:
    return int(text) if ascii_digits(text) and len(text) <= NUMBER_DIGITS else None
