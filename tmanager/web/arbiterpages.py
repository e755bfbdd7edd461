"""The arbiter's pages: the login form, and result entry and correction, pairing and unpairing, requested byes,
forced games, undo and a team division's teams, rosters and lineups, rendered from ``templates/event/``.

Each form posts to the route of :mod:`tmanager.web.eventapp` that runs the same
:mod:`tmanager.events.service` function as the command line; a refused change
comes back here as a :class:`FormError` (which form, and the message) with
what was typed, shown beside that form.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tmanager.core.results import REQUESTED_BYES
from tmanager.errors import StateError, ascii_digits
from tmanager.events.entries import BoardRef, Entry, ResultEntry
from tmanager.events.model import Division, PlayerStatus, Round, label, missing
from tmanager.events.rules import DivisionRules
from tmanager.events.rules.base import parse_result
from tmanager.events.rules.team import team_label
from tmanager.events.teams import lineup_round
from tmanager.web.eventpages import Page, Sections, Snapshot, head, read_word, render_template, round_links

#: What a refusal shown beside its form carries (the ``error`` macro of ``templates/event/macros.html``).
_ALERT = 'role="alert"'


class ArbiterForm(enum.StrEnum):
    """The kinds of the arbiter's forms; the value is the action's path (``POST /pair``) and the form's id on the
    page (``pair``; a form of which the page has one per board or team adds its number: ``result-3``)."""

    RESULT = "result"
    PAIR = "pair"
    BYE = "bye"
    CANCEL_BYE = "cancel-bye"
    FORCE = "force"
    UNFORCE = "unforce"
    UNPAIR = "unpair"
    UNDO = "undo"
    ADD_TEAM = "add-team"
    ROSTER = "roster"
    LINEUP = "lineup"

    @classmethod
    def parse(cls, word: str) -> ArbiterForm:
        """The form ``word`` names, or a one-line refusal naming the actions there are."""
        return read_word(cls, word, f"there is no action {word[:40]!r} (the actions: {', '.join(cls)})")


@dataclass(frozen=True, slots=True)
class FormError:
    """Why a form the arbiter sent was refused: ``form`` is its kind, ``of`` (a form the page has once per board
    or team) the number that form sent as it was sent, ``None`` for a form the page has once."""

    form: ArbiterForm
    message: str
    of: str | None = None

    @property
    def key(self) -> str:
        """The form's id on the page (``pair``, ``result-3``, ``roster-2``)."""
        return self.form.value if self.of is None else f"{self.form.value}-{self.of}"

    def about(self, form: ArbiterForm, of: int | None = None) -> bool:
        """Whether this is about ``form`` (the one of board or team ``of``)."""
        return self.form is form and self.of == (None if of is None else str(of))


def _sent(error: FormError | None, form: ArbiterForm, of: int | None = None) -> bool:
    """Whether that form (of board or team ``of``) was sent and refused: it shows what was typed into it."""
    return error is not None and error.about(form, of)


def _said(error: FormError | None, form: ArbiterForm, of: int | None = None) -> str:
    """``error``'s message if it is about that form (of that board or team), else nothing."""
    return error.message if error is not None and error.about(form, of) else ""


def render(
    snapshot: Snapshot,
    page: Page,
    *,
    csrf: str | None,
    error: FormError | None = None,
    values: Mapping[str, str] | None = None,
) -> Sections:
    """The arbiter's page of ``page``'s division (logged in: ``csrf``); ``error`` is shown beside its form,
    ``values`` what was typed into it."""
    if csrf is None:
        raise StateError("log in first")
    division = snapshot.division(page.division)
    sections = [("head", head(snapshot, division))]
    return sections + arbiter(snapshot, division, page, csrf=csrf, error=error, values=values or {})


def login(*, csrf: str, back: str, error: str = "", configured: bool = True) -> Sections:
    """The login form (one field: the arbiter's password), which leads to ``back``, a relative address."""
    return [("login", render_template("login.html", csrf=csrf, back=back, message=error, configured=configured))]


def arbiter(
    snapshot: Snapshot,
    division: Division,
    page: Page,
    *,
    csrf: str,
    error: FormError | None,
    values: Mapping[str, str],
) -> Sections:
    """Result entry and correction for a round, pairing and unpairing, requested byes, forced games, undo;
    in a team division, teams, rosters and lineups; and logging out."""
    name = division.name if len(snapshot.event.divisions) > 1 else None
    common = {"csrf": csrf, "d": name or ""}
    sections: Sections = []
    # The division's rules, asked once for every form below: each form asked for them again, the force form twice.
    rules = snapshot.rules(division)
    size = rules.team_size
    if division.paired_rounds:
        sections.append(("results", _results(rules, page, common, error, values)))
    sections.append(("pair", _pair_form(snapshot, rules, common, _said(error, ArbiterForm.PAIR), values)))
    sections.append(("bye", _bye_form(rules, common, error, values, teams=size is not None)))
    sections.append(("force", _force_form(snapshot, rules, common, error, values, teams=size is not None)))
    sections.append(("unpair", _unpair_form(rules, common, _said(error, ArbiterForm.UNPAIR))))
    if size is not None:
        sections.append(("teams", _team_forms(division, size, common, error, values)))
    fields = {**common, "change": snapshot.last_change}
    undo = render_template("undo.html", fields=fields, message=_said(error, ArbiterForm.UNDO))
    sections.append(("undo", undo))
    sections.append(("logout", render_template("logout.html", csrf=csrf)))
    if error and not any(_ALERT in html for _, html in sections):
        # No form on the page showed it: a board that does not exist, or a form the page no longer has (Pair once
        # every round is paired, Unpair once none is): say it at the top. The sections were asked whether they had a
        # form of that name, and the section of that name always answered yes, so the refusal was not shown at all.
        sections.insert(0, ("error", render_template("form-error.html", message=error.message)))
    return sections


def _results(
    rules: DivisionRules,
    page: Page,
    common: Mapping[str, str],
    error: FormError | None,
    values: Mapping[str, str],
) -> str:
    """Each board of a round with its result form: by default the round the results go to (:meth:`result_round`, a
    Double-Swiss's game 1 while it lacks results: the page showed game 2, colours reversed, as game 1 was played)."""
    division = rules.division
    n = rules.result_round() if page.round is None else page.round
    record = division.round(n)
    if not record.paired:
        raise StateError(f"round {n} is not paired")
    # A saved result comes back to the same view: the boards filter, and the round the page was asked for, none for
    # the round the results go to, which moves on to a Double-Swiss's game 2 once game 1 is complete (the page stayed
    # on game 1, with nothing left to enter).
    view = {"view_round": "" if page.round is None else page.round, **({"missing": 1} if page.missing else {})}
    # A form of another round (one unpaired since, the page now showing the round before) is about none of these
    # boards: beside the board of its number, its result was chosen in that other game's menu.
    if values.get("round") != str(n):
        error = None
    boards = []
    for board in record.boards:
        if page.missing and not board.result.pending:
            continue
        index = record.board_number(board)
        sent = _sent(error, ArbiterForm.RESULT, index)
        boards.append(
            {
                "key": f"{ArbiterForm.RESULT.value}-{index}",
                "index": index,
                # A team match's board as every other page and `event result` name it (2.1): numbered through the
                # round (3), the arbiter had to count the matches' boards to find it.
                "name": rules.board_name(record, board),
                "missing": board.result.pending,
                "hidden": {
                    **common,
                    **{"round": n, "board": index, "white": board.white, "black": board.black, "was": board.result},
                    **view,
                },
                "white": label(division.player(board.white)),
                "black": label(division.player(board.black)),
                "form": rules.entry_form(),
                "now": rules.entry_values(board),
                "typed": values if sent else {},
                "action": "Save" if board.result.pending else "Correct",
                "error": _said(error, ArbiterForm.RESULT, index),
            }
        )
    pending = sum(1 for r, _ in missing(division) if r == n)
    return render_template(
        "results.html",
        round=n,
        state=f"{pending} result(s) to enter" if pending else "all results are in",
        rounds=round_links(page, division.paired_rounds, n),
        view={
            "href": page.url(missing=not page.missing),
            "text": "All boards" if page.missing else "Missing results only",
        },
        boards=boards,
        byes=[f"{label(division.player(p))}, {kind}" for p, kind in record.byes.items()],
    )


def result_entry(snapshot: Snapshot | None, form: Mapping[str, str], board: int) -> Entry:
    """The entry a board's result form gives (:meth:`EntryForm.entry`), by the division's rules (before the file
    was ever read: its result menu, as a chess division's)."""
    if snapshot is None:
        return ResultEntry(BoardRef(board), parse_result(form.get("result", "")))
    division = snapshot.division(form.get("d") or None)
    return snapshot.rules(division).entry_form().entry(board, form)


def _pair_form(
    snapshot: Snapshot, rules: DivisionRules, common: Mapping[str, str], message: str, values: Mapping[str, str]
) -> str:
    division = rules.division
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    # Only the results the pairing needs hold it up (with session breaks, round n is paired from round n-2's).
    needed = rules.results_needed()
    waiting = sum(1 for r, _ in missing(division) if r <= needed)
    later = len(missing(division)) - waiting
    note = (
        f"{waiting} result(s) still missing: pairing waits for them." if waiting
        else f"Every result the pairing needs is in (those up to round {needed}); {later} later still missing."
        if later else "Every result is in."
    )  # fmt: skip
    return render_template(
        "pair.html",
        done=bool(total and nxt > total),
        total=total,
        note=note,
        colour=rules.draws_first_colour(nxt),
        # The colour as sent, after a refusal: it was back at "draw by lot", and the form sent again once the
        # missing results were in paired with colours drawn where the arbiter had chosen them.
        colours=(("", "draw by lot"), ("white", "white"), ("black", "black")),
        chosen=values.get("colour", "") if message else "",
        fields={**common, "round": nxt},
        rounds=_spanned(rules, nxt),
        message=message,
    )


def _player_choices(division: Division) -> list[tuple[int, str]]:
    """The division's active players, by name, as a select's options."""
    players = sorted(division.players, key=lambda p: p.name.casefold())
    return [(p.number, label(p)) for p in players if p.status == PlayerStatus.ACTIVE]


def _bye_form(
    rules: DivisionRules, common: Mapping[str, str], error: FormError | None, values: Mapping[str, str], *,
    teams: bool,
) -> str:
    """A requested bye, as ``tmanager event bye``; the byes requested so far, each with its cancel button
    (``bye --cancel``). A forced bye is not one of them: the forced games list it, with its own button."""
    division = rules.division
    nxt = str(division.paired_rounds + 1)
    message = _said(error, ArbiterForm.BYE)
    requested = _requested_byes(rules, common)
    # Where `bye` could only refuse, why, instead of the form.
    unavailable = (
        "A team division has no byes of players: leave the player out of the team's lineup." if teams
        else "A round robin has no requested byes: enter a missed game as a forfeit." if division.round_robin
        else ""
    )  # fmt: skip
    return render_template(
        "bye.html",
        unavailable=unavailable,
        fields=common,
        players=_player_choices(division),
        chosen=values.get("player", "") if message else "",
        round=values.get("round", nxt) if message else nxt,
        kinds=REQUESTED_BYES,
        # The kind as sent too: it was back at half-point, and the form sent again with the round put right asked
        # for a half-point bye where a full-point one was chosen.
        kind=values.get("kind", "") if message else "",
        message=message,
        requested=requested,
        cancel_message=_said(error, ArbiterForm.CANCEL_BYE),
    )


def _spanned(rules: DivisionRules, n: int) -> str:
    """The rounds that round ``n``'s pairing spans, as the forms name them: ``round 3``, or a Double-Swiss's match
    ``rounds 3-4`` (whose buttons said *Pair round 3* and *Unpair round 2*, which took back round 1 too)."""
    rounds = rules.match_rounds(n)
    return f"round {n}" if len(rounds) == 1 else f"rounds {rounds[0]}-{rounds[-1]}"


def _requested_byes(rules: DivisionRules, common: Mapping[str, str]) -> list[dict[str, Any]]:
    """Each bye requested for a round not yet paired, once: a Double-Swiss keeps one in both rounds of its match
    (``cancel_bye`` takes back both), and the list showed it twice, round 3 and round 4."""
    division, listed, seen = rules.division, [], set()
    for r in division.rounds:
        if r.paired:
            continue
        first, where = rules.match_rounds(r.number)[0], _spanned(rules, r.number)
        for p, kind in r.byes.items():
            if p != r.forced_bye and (first, p) not in seen:
                seen.add((first, p))
                listed.append({"text": f"{where}: {label(division.player(p))}, {kind}",
                               "fields": {**common, "round": r.number, "player": p, "kind": kind}})  # fmt: skip
    return listed


#: The force form's titles in a team division: its choices are teams, the first with white on board 1.
_TEAM_SIDES = ("Team (white on board 1)", "Opponent")


def _force_form(
    snapshot: Snapshot, rules: DivisionRules, common: Mapping[str, str], error: FormError | None,
    values: Mapping[str, str], *, teams: bool,
) -> str:
    """A forced game (or the pairing-allocated bye) of the next round, as ``tmanager event force``; the round's
    forced games, each with its button to take it back (``force --cancel``). In a team division (``teams``), a
    forced match (or a team's bye): the choices are its teams."""
    division = rules.division
    nxt = division.paired_rounds + 1
    total = snapshot.event.total_rounds(division)
    message = _said(error, ArbiterForm.FORCE)
    typed = values if message else {}
    record = division.find_round(nxt)
    choices, games = _teams_forced(division, record) if teams else _players_forced(division, record)
    # A player who withdrew since the game was forced is no choice any more, but is named in the list still.
    named = dict(choices) if teams else {p.number: label(p) for p in division.players}
    fields = {**common, "round": nxt}
    forced = [
        {"text": f"{named[w]} – {named[b]}" if b is not None else f"bye: {named[w]}",
         "fields": {**fields, "white": w, "black": "bye" if b is None else b}}
        for w, b in games
    ]  # fmt: skip
    return render_template(
        "force.html",
        round_robin=division.round_robin,
        done=bool(total and nxt > total),
        total=total,
        fields=fields,
        # A score-based board's first player is the one listed first (who starts, with assign_firsts).
        titles=_TEAM_SIDES if teams else rules.side_titles,
        players=choices,
        white=typed.get("white", ""),
        black=typed.get("black", ""),
        rounds=_spanned(rules, nxt),
        message=message,
        forced=forced,
        cancel_message=_said(error, ArbiterForm.UNFORCE),
    )


Forced = tuple[list[tuple[int, str]], list[tuple[int, int | None]]]


def _players_forced(division: Division, record: Round | None) -> Forced:
    """The players a game may be forced between, and the round's forced games (``None``: the forced bye)."""
    games: list[tuple[int, int | None]] = [] if record is None else [(w, b) for w, b in record.forced]
    if record is not None and record.forced_bye is not None:
        games.append((record.forced_bye, None))
    return _player_choices(division), games


def _teams_forced(division: Division, record: Round | None) -> Forced:
    """The teams a match may be forced between, and the round's forced matches (``None``: a team's bye): the form
    listed the players, whose numbers ``force`` read as teams' (player 3 forced team 3's match)."""
    teams = sorted(division.teams, key=lambda t: t.name.casefold())
    games = [] if record is None else [(a, b or None) for a, b in record.forced_matches]
    return [(t.number, team_label(t)) for t in teams], games


def _team_forms(
    division: Division, size: int, common: Mapping[str, str], error: FormError | None, values: Mapping[str, str]
) -> str:
    """A team division's forms, as ``add-team``, ``roster`` and ``lineup``: a new team with its roster, and for
    each team its roster's board order and its lineup for a round (``size`` boards), board by board."""
    teams = []
    for team in sorted(division.teams, key=lambda t: t.number):
        n = lineup_round(division, team.number)
        record = division.find_round(n)
        given = record.lineups.get(team.number) if record else None
        lineup = [str(p) if p else "-" for p in (given or team.players[:size])]
        lineup += ["-"] * (size - len(lineup))
        if _sent(error, ArbiterForm.LINEUP, team.number):
            n = int(values["round"]) if ascii_digits(values.get("round", "")) else n
            lineup = [values.get(f"board{i}", "-") for i in range(1, size + 1)]
        teams.append({
            "number": team.number,
            "name": team_label(team),
            "fields": {**common, "team": team.number},
            "roster": " ".join(str(p) for p in team.players),
            "players": [(p, label(division.player(p))) for p in team.players],
            "typed_roster": values.get("players", "") if _sent(error, ArbiterForm.ROSTER, team.number) else None,
            "roster_error": _said(error, ArbiterForm.ROSTER, team.number),
            "round": n,
            "given": given is not None,
            "boards": lineup,
            "lineup_error": _said(error, ArbiterForm.LINEUP, team.number),
        })  # fmt: skip
    typed = values if _sent(error, ArbiterForm.ADD_TEAM) else {}
    return render_template("teams.html", teams=teams, fields=common, typed=typed, size=size,
                           message=_said(error, ArbiterForm.ADD_TEAM))  # fmt: skip


def _unpair_form(rules: DivisionRules, common: Mapping[str, str], message: str) -> str:
    """Taking back the last round's pairings (a Double-Swiss's last match), as ``tmanager event unpair``; a box to
    tick first."""
    n = rules.division.paired_rounds
    rounds = _spanned(rules, n) if n else ""
    return render_template("unpair.html", round=n, rounds=rounds, fields={**common, "round": n}, message=message)
