"""Score-based divisions (Scrabble and the like), run the tsh way: pairing and result entry.

The division's record is its scorecards (:mod:`tmanager.events.scorecards`)
and its standings wins, then spread (:func:`tmanager.events.ranking.wins_standings`).
:class:`ScoreRules` pairs by KOTH, factored, Swiss, Chew with Gibsonization,
random, InitFontes, round robins, with Fontes timing and firsts assigned; its
results are read and entered by :mod:`tmanager.events.rules.scoreentry`, which
refuses implausible scores unless confirmed, as tsh warns about them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from tmanager.core.results import ByeKind, Result
from tmanager.errors import PairingError, ScheduleError, StateError
from tmanager.events.entries import BoardRef, Entry, ScoreEntry
from tmanager.events.messages import Note, Topic
from tmanager.events.model import (
    Board,
    Division,
    EntryMode,
    Event,
    Opening,
    PairingSystem,
    Player,
    Round,
    ScoredSettings,
    label,
    missing,
)
from tmanager.events.operations import withdraw
from tmanager.events.ranking import record_text, wins_standings
from tmanager.events.reports.scored import ScoredReports
from tmanager.events.rules.base import DivisionRules, EntryForm, PairOptions, Problem, forfeit_result, parse_system
from tmanager.events.rules.scoreentry import FORFEIT_CHOICES, FORMS, SCORE_FIELDS, enter, parse_entry, random_scores
from tmanager.events.scorecards import (
    bye_kind,
    bye_spread,
    forfeit_spreads,
    off_spread,
    result_text,
    scorecards,
    settings_of,
)
from tmanager.formats import tou
from tmanager.pairing import Pairing, explain_round_robin
from tmanager.pairing.chew import chew, count_gibsons
from tmanager.pairing.scored import (
    FIRST,
    Entrant,
    assign_firsts,
    explain_factored,
    factored,
    first_reason,
    random_pairing,
    tally,
    tsh_swiss,
)
from tmanager.pairing.scoredschedules import fontes_basis, init_fontes, seeded_round_robin, team_round_robin

#: The systems a score-based division may be paired by.
DIVISION_SYSTEMS = (
    PairingSystem.KOTH, PairingSystem.FACTORED, PairingSystem.TSH_SWISS, PairingSystem.CHEW, PairingSystem.RANDOM,
    PairingSystem.ROUND_ROBIN, PairingSystem.MANUAL,
)  # fmt: skip
#: The systems whose pairings ``pair --explain`` says why of (the others cannot say).
EXPLAINED = (PairingSystem.KOTH, PairingSystem.FACTORED, PairingSystem.ROUND_ROBIN, PairingSystem.TEAM_ROUND_ROBIN)
#: Systems that pair from standings: Fontes timing (``session_breaks``) applies to them.
FROM_STANDINGS = (PairingSystem.KOTH, PairingSystem.FACTORED, PairingSystem.TSH_SWISS, PairingSystem.CHEW)
#: Every system ``pair`` accepts, the opening ones and tsh's TeamRoundRobin (several rounds at once) included.
PAIRING_SYSTEMS = (*DIVISION_SYSTEMS, PairingSystem.INIT_FONTES, PairingSystem.TEAM_ROUND_ROBIN)


# -- withdrawals ------------------------------------------------------------------------


def set_off(division: Division, player: Player, spread: int | None, rounds: Sequence[int]) -> list[str]:
    """tsh's ``off``: withdraw a player (for good or for some rounds), with the spread of each missed round."""
    settings_of(division)
    player.off = spread
    messages = withdraw(division, player, rounds)
    return [*messages, f"{label(player)} gets {off_spread(division, player):+d} for each round missed"]


# -- pairing ---------------------------------------------------------------------------


def opening(rules: ScoredSettings, round_number: int) -> PairingSystem | None:
    """The opening system that pairs ``round_number``, if any (``initial``)."""
    if rules.initial is Opening.RANDOM and round_number == 1:
        return PairingSystem.RANDOM
    if rules.initial is Opening.INIT_FONTES and round_number <= rules.initial_rounds:
        return PairingSystem.INIT_FONTES
    return None


def pair(
    event: Event,
    division: Division,
    *,
    rng: random.Random | None = None,
    system: str | None = None,
    repeats: int | None = None,
) -> list[str]:
    """Pair the next round by ``system`` (default: the opening system, else the division's): :meth:`ScoreRules.pair`."""
    chosen = parse_system(system) if system is not None else None
    return ScoreRules(event, division).pair(PairOptions(system=chosen, repeats=repeats, rng=rng))


class ScoreRules(DivisionRules):
    """The rules of a score-based division."""

    systems = DIVISION_SYSTEMS
    sides = ("first", "second")
    side_titles = ("First player", "Second player")
    explains = True  # KOTH, factored and round robins; pair refuses the other systems
    score_based = True

    def __init__(self, event: Event, division: Division) -> None:
        super().__init__(event, division)
        self.settings = settings_of(division)

    def problems(self) -> Iterator[Problem]:
        s, d = self.settings, self.division
        if s.initial_rounds < 1 or s.initial_rounds % 2 == 0:
            yield Problem("must be an odd number of rounds (3: quads)", "initial_rounds")
        if s.assign_firsts and not s.track_firsts:
            yield Problem("assign_firsts needs track_firsts", "assign_firsts", "set track_firsts = true")
        if s.repeats < 0:
            yield Problem("cannot be negative", "repeats")
        if s.factor < 1:
            yield Problem("must be 1 or more", "factor")
        if any(b < 1 for b in s.prize_bands) or s.prize_bands != sorted(set(s.prize_bands)):
            yield Problem("must be rising last ranks of the prize bands, e.g. [1, 2, 3]", "prize_bands")
        if s.session_breaks is not None and (not s.session_breaks or any(b < 1 for b in s.session_breaks)):
            yield Problem("must list round numbers (leave it out to pair from the round before)", "session_breaks")
        if d.system not in self.systems:
            yield Problem(
                f"{str(d.system)!r} is not a pairing system of a score-based division",
                "system",
                ", ".join(self.systems),
            )
        for r in d.rounds:
            for i, b in enumerate(r.boards, 1):
                problem = _scores_problem(b)
                if problem:
                    yield Problem(f"round {r.number} board {i}: {problem}")

    # -- pairing ---------------------------------------------------------------------------------

    def pair(self, options: PairOptions) -> list[str]:
        """Pair the next round by ``options.system`` (default: the opening system, else the division's).

        KOTH, factored, Swiss and Chew pairings rank by the standings of round
        :func:`~tmanager.pairing.scoredschedules.fontes_basis` (the previous round unless
        ``session_breaks`` are set); only results up to that round must be in.
        Players off for the round get their ``off`` spread as a bye; the odd one
        out gets the bye with ``bye_spread``; with ``assign_firsts`` each board's
        order is who starts. ``options.repeats`` overrides the division's allowance.
        """
        division, rules = self.division, self.settings
        n = self.next_round()
        chosen = options.system or opening(rules, n) or division.system
        if chosen not in PAIRING_SYSTEMS:
            raise StateError(f"{str(chosen)!r} is not a pairing system; choose from {', '.join(PAIRING_SYSTEMS)}")
        if options.explain and chosen not in EXPLAINED:
            raise StateError(
                f"--explain: the pairings of {str(chosen)!r} are not explained; those of "
                f"{', '.join(EXPLAINED)} are"
            )
        rng = options.rng or random.SystemRandom()
        if chosen == PairingSystem.INIT_FONTES:
            return self._pair_init_fontes(rng)
        if chosen == PairingSystem.TEAM_ROUND_ROBIN:
            return self._pair_team_round_robin(options.repeats or 1, rng, explain=options.explain)
        basis = self._basis(chosen, n)
        self.refuse_missing(basis, f"round {n} is paired from the standings after round {basis}: enter them first")
        record = division.round(n, create=True)
        messages: list[str] = []
        if chosen == PairingSystem.ROUND_ROBIN:
            self._pair_round_robin(record)
            if options.explain:
                order = sorted(p.number for p in division.players)
                explained = explain_round_robin(len(order), n, cycles=division.cycles)
                messages += explained.lines(lambda k: f"{label(division.player(order[k - 1]))} #{k}")
        else:
            messages += self._set_off(record)
            if chosen == PairingSystem.MANUAL:
                self.refuse_unseated(record)
            else:
                allowance = rules.repeats if options.repeats is None else options.repeats
                messages += self._pair_from_standings(record, chosen, basis, allowance, rng, explain=options.explain)
        record.paired = True
        how = f"{chosen}" + (f" from the standings after round {basis}" if chosen in FROM_STANDINGS else "")
        messages.append(f"round {n} paired ({how}): {len(record.boards)} board(s)" + self.bye_note(record))
        return messages

    def results_needed(self) -> int:
        n = self.division.paired_rounds + 1
        return self._basis(opening(self.settings, n) or self.division.system, n)

    def _basis(self, chosen: PairingSystem, n: int) -> int:
        """The round whose standings pair round ``n`` by ``chosen``: Fontes timing for those from standings."""
        if chosen in FROM_STANDINGS:
            return fontes_basis(n, session_breaks=self.settings.session_breaks)
        return n - 1

    def _set_off(self, record: Round) -> list[str]:
        """Players not playing this round (withdrawn, absent: tsh's ``off``) get a bye with their off spread."""
        division = self.division
        messages: list[str] = []
        for p in division.players:
            if not p.plays(record.number) and p.number not in record.byes:
                spread = off_spread(division, p)
                record.byes[p.number] = bye_kind(spread)
                record.spreads[p.number] = spread
                messages.append(Note(f"{label(p)} is off in round {record.number}: spread {spread:+d}", Topic.OFF))
        return messages

    def _entrants(self, record: Round, basis: int) -> list[Entrant]:
        """The standings after ``basis`` with every round's opponents; busy or absent players inactive."""
        division = self.division
        busy = set(record.byes) | {p for b in record.boards for p in (b.white, b.black)}
        return [
            e if e.id not in busy and division.player(e.id).plays(record.number) else replace(e, active=False)
            for e in tally(scorecards(division, record.number - 1), through=basis)
        ]

    def _pair_from_standings(
        self, record: Round, system: PairingSystem, basis: int, repeats: int, rng: random.Random, *, explain: bool
    ) -> list[str]:
        division, rules = self.division, self.settings
        entrants = self._entrants(record, basis)
        active = [e for e in entrants if e.active]
        if len(active) < 2:
            raise PairingError(
                f"round {record.number} cannot be paired: fewer than two players are left to pair",
                topic=Topic.UNPAIRABLE,
            )
        messages: list[str] = []
        try:
            if system == PairingSystem.CHEW:
                total = self.event.total_rounds(division)
                if not total:
                    raise StateError("Chew pairings need the number of rounds: set rounds in [event]")
                bands = rules.prize_bands or list(range(1, max(1, len(active) // 4) + 1))
                gibsons = active[: count_gibsons(active, total - basis, prize_places=bands[-1])]
                if gibsons:
                    names = ", ".join(label(division.player(g.id)) for g in gibsons)
                    messages.append(
                        Note(f"gibsonized (cannot be caught with {total - basis} round(s) left): {names}",
                             Topic.GIBSONIZED)
                    )  # fmt: skip
                pairing = chew(
                    entrants,
                    round_number=record.number,
                    max_rounds=total,
                    basis=basis,
                    prize_bands=bands,
                    track_firsts=rules.track_firsts,
                )
            elif system == PairingSystem.RANDOM:
                pairing = random_pairing(entrants, rng=rng, repeats=repeats)
            elif system == PairingSystem.TSH_SWISS:
                pairing = tsh_swiss(entrants, repeats=repeats, track_firsts=rules.track_firsts)
            else:
                factor = 1 if system == PairingSystem.KOTH else rules.factor
                if explain:
                    explained = explain_factored(entrants, factor, repeats=repeats, track_firsts=rules.track_firsts)
                    pairing = explained.pairing
                    messages += explained.lines(lambda number: label(division.player(number)))
                else:
                    pairing = factored(entrants, factor, repeats=repeats, track_firsts=rules.track_firsts)
        except PairingError as exc:
            raise PairingError(
                f"round {record.number} cannot be paired ({system}): {exc}", topic=Topic.UNPAIRABLE
            ) from None
        messages += self._place(record, pairing, entrants, rng, explain=explain)
        return messages

    def _place(
        self, record: Round, pairing: Pairing, entrants: Sequence[Entrant], rng: random.Random, *, explain: bool
    ) -> list[str]:
        """Put a core pairing into the round: boards (ordered by who starts with ``assign_firsts``) and the bye;
        with ``explain`` and ``assign_firsts``, why each board's first player starts."""
        rules = self.settings
        messages: list[str] = []
        if rules.assign_firsts:
            pairing = assign_firsts(pairing, entrants, rng=rng)
            if explain:
                by_id = {e.id: e for e in entrants}
                division = self.division

                def name(number: int) -> str:
                    return label(division.player(number))

                for first, second in pairing.boards:
                    why = first_reason(by_id[first], by_id[second]).say(name)
                    messages.append(f"{name(first)} goes first against {name(second)} [{why}]")
        record.boards += [Board(a, b) for a, b in pairing.boards]
        if pairing.bye is not None:
            record.byes[pairing.bye] = ByeKind.PAIRING
            record.spreads[pairing.bye] = rules.bye_spread
        return messages

    def _pair_round_robin(self, record: Round) -> None:
        """A round of the Berger tables by player number; games of a withdrawn player are forfeits."""
        division, rules = self.division, self.settings
        seeds = [Entrant(p.number) for p in sorted(division.players, key=lambda p: p.number)]
        try:
            pairing = seeded_round_robin(seeds, record.number, cycles=division.cycles)
        except ScheduleError as exc:
            raise StateError(str(exc)) from None
        for a, b in pairing.boards:
            board = Board(a, b)
            here = [division.player(x).plays(record.number) for x in (a, b)]
            if not all(here):
                board.result = forfeit_result(here[0], here[1])
                spreads = forfeit_spreads(rules, board.result)
                board.scores = (
                    spreads[0] if here[0] else off_spread(division, division.player(a)),
                    spreads[1] if here[1] else off_spread(division, division.player(b)),
                )
            record.boards.append(board)
        if pairing.bye is not None:
            record.byes[pairing.bye] = ByeKind.PAIRING
            record.spreads[pairing.bye] = rules.bye_spread

    def _pair_init_fontes(self, rng: random.Random) -> list[str]:
        """tsh's InitFontes: rounds 1..``initial_rounds`` at once, round robins in groups of ``initial_rounds + 1``."""
        division, rules = self.division, self.settings
        count = rules.initial_rounds
        if division.paired_rounds:
            # Round n of them unpaired since (a withdrawal): say how to get a round n, not only what is not allowed.
            after = (f"; round {division.paired_rounds + 1} was unpaired since: `undo` brings its pairings back, "
                     "or `pair --system koth` (or another system) pairs it") if division.paired_rounds < count else ""
            raise StateError(f"InitFontes pairs rounds 1-{count} together, only before round 1 is paired{after}")
        total = self.event.total_rounds(division)
        if total and count > total:
            raise StateError(f"InitFontes pairs {count} rounds but the event has {total}")
        if any(r.boards or r.byes for r in division.rounds if r.number <= count):
            raise StateError(f"InitFontes fixes rounds 1-{count}: remove their byes and forced games first (undo)")
        entrants = [
            e if division.player(e.id).plays(1) else replace(e, active=False) for e in tally(scorecards(division, 0))
        ]
        try:
            schedule = init_fontes(entrants, count, rng=rng, snaked=rules.initial_snaked)
        except PairingError as exc:
            raise PairingError(f"InitFontes: {exc}", topic=Topic.UNPAIRABLE) from None
        messages: list[str] = []
        for n, pairing in enumerate(schedule, 1):
            record = division.round(n, create=True)
            messages += self._set_off(record)
            playing = {x for b in pairing.boards for x in b} | ({pairing.bye} if pairing.bye else set())
            clash = sorted(x for x in playing if x in record.byes)
            if clash:
                names = ", ".join(label(division.player(x)) for x in clash)
                raise StateError(
                    f"InitFontes gives {names} a game in round {n}, when off: set them off from round {n + 1}"
                )
            # Firsts are balanced round by round, each round seeing the ones before it.
            self._place(record, pairing, tally(scorecards(division, n - 1)), rng, explain=False)
            record.paired = True
            messages.append(f"round {n} paired (init-fontes): {len(record.boards)} board(s)" + self.bye_note(record))
        return messages

    def _pair_team_round_robin(self, repeats: int, rng: random.Random, *, explain: bool = False) -> list[str]:
        """tsh's TeamRoundRobin: the next rounds at once, every player of one team against every player of the
        other (the division's players belong to two teams), each pairing ``repeats`` times in succession; with
        ``explain``, each round's rotation, each player's place in their team and why each board's first starts."""
        division = self.division
        n = self.next_round()
        self.refuse_missing(n - 1, f"enter them before pairing from round {n}")
        teams: dict[str, list[Player]] = {}
        for p in sorted(division.players, key=lambda p: (-p.rating, p.number)):
            teams.setdefault(p.team.casefold(), []).append(p)
        if len(teams) != 2 or "" in teams:
            names = ", ".join(sorted(k or "(no team)" for k in teams)) or "no players"
            raise StateError(
                f"TeamRoundRobin needs every player on one of two teams, not: {names} (edit-player --team)"
            )
        first, second = teams.values()
        try:
            schedule = team_round_robin([p.number for p in first], [p.number for p in second], repeats=repeats)
        except PairingError as exc:
            raise PairingError(f"TeamRoundRobin: {exc}", topic=Topic.UNPAIRABLE) from None
        total = self.event.total_rounds(division)
        last = n + len(schedule) - 1
        if total and last > total:
            raise StateError(f"TeamRoundRobin pairs rounds {n}-{last} but the event has {total} rounds")
        messages: list[str] = []
        place = {p.number: (i, team) for team in (first, second) for i, p in enumerate(team, 1)}

        def seat(number: int) -> str:
            i, team = place[number]
            return f"{label(division.player(number))} (#{i} of {team[0].team}, by rating)"

        for index, pairing in enumerate(schedule):
            number = n + index
            record = division.round(number, create=True)
            if record.boards or record.byes:
                raise StateError(f"round {number} already has games or byes: TeamRoundRobin pairs whole rounds")
            messages += self._set_off(record)
            if record.byes:
                names = ", ".join(label(division.player(x)) for x in record.byes)
                raise StateError(f"{names} cannot play round {number}: TeamRoundRobin needs every player")
            if explain:
                rotation, game = divmod(index, repeats)
                messages.append(
                    f"round {number}: rotation {rotation + 1} of {len(schedule) // repeats} (player #i of "
                    f"{first[0].team} meets #i+{rotation} of {second[0].team}, cyclically)"
                    + (f", game {game + 1} of {repeats} of this pairing" if repeats > 1 else "")
                )
                messages += [f"  {seat(x)} meets {seat(y)}" for x, y in pairing.boards]
                if pairing.bye is not None:
                    messages.append(f"  {seat(pairing.bye)} has the bye: the other team is one player short")
            self._place(record, pairing, tally(scorecards(division, number - 1)), rng, explain=explain)
            record.paired = True
            messages.append(
                f"round {number} paired (team-round-robin): {len(record.boards)} board(s)" + self.bye_note(record)
            )
        return messages

    # -- results ---------------------------------------------------------------------------------

    def parse_entry(self, words: Sequence[str]) -> Entry:
        return parse_entry(self.settings.entry, words)

    def enter(self, entry: Entry, round_number: int | None, *, correction: bool, confirm: bool = False) -> list[str]:
        return enter(self.event, self.division, entry, round_number, correction=correction, confirm=confirm)

    @property
    def entry_shape(self) -> str:
        return f"{FORMS[self.settings.entry]} (forfeits: BOARD +-)"

    def entry_form(self) -> EntryForm:
        entry = self.settings.entry
        return EntryForm(
            inputs=SCORE_FIELDS[entry],
            choice="forfeit",
            choice_label="or a forfeit, board",
            choices=FORFEIT_CHOICES,
            confirm=entry != EntryMode.SPREAD,
        )

    def entry_values(self, board: Board) -> dict[str, str]:
        values = dict.fromkeys(("s1", "s2", "spread"), "")
        if board.scores and not board.result.forfeit:
            s1, s2 = board.scores
            values = {"s1": str(s1), "s2": str(s2), "spread": str(s1 - s2)}
        values["forfeit"] = board.result if board.result.forfeit else ""
        return values

    def random_entry(self, record: Round, board: Board, rng: random.Random) -> Entry:
        ratings = (self.division.player(board.white).rating, self.division.player(board.black).rating)
        s1, s2 = random_scores(*ratings, rng)
        values = {EntryMode.SCORES: (s1, s2), EntryMode.SPREAD: (s1 - s2,), EntryMode.BOTH: (s1, s2, s1 - s2)}
        return ScoreEntry(BoardRef(record.board_number(board)), values[self.settings.entry])

    def result_text(self, board: Board) -> str:
        return result_text(self.division, board)

    def bye_mark(self, record: Round, number: int) -> str:
        return f"{bye_spread(self.division, record, number):+d}"

    def bye_text(self, record: Round, number: int) -> str:
        what = "forfeit" if record.byes[number] == ByeKind.FORFEIT else "bye"
        return f"{what} {bye_spread(self.division, record, number):+d}"

    # -- standings, reports, files ------------------------------------------------------------------

    def scores_text(self) -> dict[int, str]:
        return {line.player.number: record_text(line) for line in wins_standings(self.division)}

    def reports(self) -> ScoredReports:
        return ScoredReports(self)

    def tou_players(self, aliases: Mapping[str, str]) -> list[tou.TouPlayer]:
        """The division as ``.TOU`` players (:func:`tmanager.formats.tou.from_scores`): needs every game score."""
        division = self.division
        if self.settings.entry == EntryMode.SPREAD:
            raise StateError(".TOU needs game scores; this division enters spreads only (entry = 'spread')")
        pending = missing(division)
        if pending:
            n, board = pending[0]
            raise StateError(
                f"round {n} board {division.round(n).board_number(board)} has no result; .TOU needs every result"
            )
        order = sorted(division.players, key=lambda p: p.number)
        index = {p.number: i for i, p in enumerate(order, 1)}
        cards = {c.id: c for c in scorecards(division)}
        return tou.from_scores(
            [
                tou.ScoreCard(
                    name=p.name,
                    # An absence (no game, no bye) is written as a bye scoring nothing.
                    opponents=tuple(index[o] if o else 0 for o in cards[p.number].opponents),
                    scores=tuple(s or 0 for s in cards[p.number].scores),
                    first=tuple(code == FIRST for code in cards[p.number].p12),
                )
                for p in order
            ],
            aliases,
        )


def _scores_problem(b: Board) -> str | None:
    """What is wrong with a board's scores, if anything: they must agree with the stored result."""
    if b.scores is None:
        if not b.result.pending and not b.result.forfeit:
            return f"the result {b.result} needs the two scores"
        return None
    if b.result.pending:
        return "scores without a result"
    if not b.result.forfeit and b.result != Result.from_scores(*b.scores):
        s1, s2 = b.scores
        return f"the result {b.result} does not agree with the scores {s1}-{s2}"
    return None
