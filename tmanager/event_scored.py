"""Score-based divisions of a human event (Scrabble and the like), run the tsh way.

A division with an ``entry`` setting (:class:`~tmanager.event.ScoredRules`) keeps
its games in the ordinary event model: a board's ``white`` went first, its
``result`` is the outcome (``1-0``, ``0-1``, ``½-½``, or a forfeit ``+-``, ``-+``,
``--``) and its ``scores`` the two scores, or with spread-only entry the spread
as the winner's score and 0 as the loser's; for a forfeit they are the spreads
awarded. A bye's spread is kept in the round's ``spreads``.

This module bridges that model and the pure core: :func:`scorecards` turns a
division into tsh :class:`~tmanager.pairing.scored.Scorecard` values, from which
the standings (:func:`standings`: wins, then spread), the pairings
(:func:`pair`: KOTH, factored, Swiss, Chew with Gibsonization, random,
InitFontes, round robins, Fontes timing, firsts assigned) and the ``.t``
and ``.TOU`` files are made. :func:`enter` reads a result line and refuses
implausible scores unless confirmed, as tsh warns about them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tmanager import event as ev
from tmanager import tou
from tmanager.errors import PairingError, ScheduleError, StateError
from tmanager.formats import tsh
from tmanager.pairing import Pairing
from tmanager.pairing.chew import chew, count_gibsons
from tmanager.pairing.scored import (
    BYE,
    FIRST,
    NEITHER,
    SECOND,
    UNKNOWN,
    Entrant,
    Scorecard,
    assign_firsts,
    factored,
    fontes_basis,
    init_fontes,
    random_pairing,
    round_robin,
    swiss,
    tally,
)

FORFEITS = ev.FORFEITS
#: Scores outside this range are entered only when confirmed (tsh warns below 100 and balks above 1500).
PLAUSIBLE = range(100, 1501)
#: Systems that pair from standings: Fontes timing (``session_breaks``) applies to them.
FROM_STANDINGS = ("koth", "factored", "tsh-swiss", "chew")
#: Every system ``pair`` accepts, the opening ones included.
SYSTEMS = (*ev.SCORED_SYSTEMS, "init-fontes", "round-robin", "manual")


class SuspiciousScore(StateError):
    """A score outside :data:`PLAUSIBLE`; it goes in only when confirmed (``--yes``)."""

    def __init__(self, score: int) -> None:
        super().__init__(
            f"the score {score} looks mistyped (below {PLAUSIBLE.start} or above {PLAUSIBLE.stop - 1}); "
            "check the slip, then enter it again with --yes"
        )
        self.score = score


def rules_of(division: ev.Division) -> ev.ScoredRules:
    """The division's score-based settings; :class:`StateError` for a chess division."""
    if division.scored is None:
        raise StateError(f"division {division.name!r} is not score-based (its file sets no entry)")
    return division.scored


# -- the record as tsh keeps it ----------------------------------------------------


def bye_spread(division: ev.Division, record: ev.Round, number: int) -> int:
    """The spread of ``number``'s bye in ``record``: as stored, else by its kind (late entries, requested byes)."""
    rules = rules_of(division)
    if number in record.spreads:
        return record.spreads[number]
    kind = record.byes[number]
    return rules.bye_spread if kind in ("pairing", "full") else 0 if kind == "half" else rules.forfeit_spread


def off_spread(division: ev.Division, player: ev.Player) -> int:
    """The spread a player gets for each round missed while off: their own ``off``, else ``forfeit_spread``."""
    return player.off if player.off is not None else rules_of(division).forfeit_spread


def bye_kind(spread: int) -> str:
    """The kind of a round without an opponent, by its spread as tsh reads it: a bye, or a forfeit loss if negative."""
    return "full" if spread > 0 else "half" if spread == 0 else "forfeit"


def forfeit_spreads(rules: ev.ScoredRules, result: str) -> tuple[int, int]:
    """The spreads of a forfeit in board order: ``bye_spread`` to the winner, ``forfeit_spread`` to a loser."""
    win, loss = rules.bye_spread, rules.forfeit_spread
    return {"+-": (win, loss), "-+": (loss, win), "--": (loss, loss)}[result]


def _p12(rules: ev.ScoredRules, board: ev.Board) -> tuple[int, int]:
    """The ``p12`` codes of a board's two players as its order says (a .t file's others are in ``Round.p12``)."""
    if not rules.track_firsts:
        return NEITHER, NEITHER
    if board.result in ev.PENDING and not rules.assign_firsts:
        return UNKNOWN, UNKNOWN  # decided at the table; the entry says who went first
    return FIRST, SECOND


def scorecards(division: ev.Division, upto: int | None = None) -> list[Scorecard]:
    """Every player's record of rounds 1..``upto`` (default: every paired round), ids being player numbers.

    A game gives the opponent, the score (None while pending) and the ``p12``
    code (as the board's order says, unless the round keeps another from a
    .t file); a forfeit is recorded as tsh records it, without the opponent,
    with the spread awarded; so is a bye. A withdrawn player's card is ``off``.
    """
    rules = rules_of(division)
    last = division.paired_rounds if upto is None else upto
    rows: dict[int, list[tuple[int | None, int | None, int]]] = {p.number: [] for p in division.players}
    for record in division.rounds:
        if not record.paired or record.number > last:
            continue
        code = record.p12.get
        for b in record.boards:
            if b.result in FORFEITS:
                spreads = b.scores or forfeit_spreads(rules, b.result)
                rows[b.white].append((BYE, spreads[0], code(b.white, NEITHER)))
                rows[b.black].append((BYE, spreads[1], code(b.black, NEITHER)))
                continue
            scores: tuple[int | None, int | None] = b.scores or (None, None)
            first, second = _p12(rules, b)
            rows[b.white].append((b.black, scores[0], code(b.white, first)))
            rows[b.black].append((b.white, scores[1], code(b.black, second)))
        for number in record.byes:
            rows[number].append((BYE, bye_spread(division, record, number), code(number, NEITHER)))
        for row in rows.values():
            if len(row) < record.number:
                row.append((None, None, NEITHER))
    return [
        Scorecard(
            id=p.number,
            rating=p.rating,
            opponents=tuple(o for o, _, _ in rows[p.number]),
            scores=tuple(s for _, s, _ in rows[p.number]),
            p12=tuple(c for _, _, c in rows[p.number]),
            off=off_spread(division, p) if p.status == "withdrawn" else None,
        )
        for p in division.players
    ]


# -- standings and score lists -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the standings: wins, losses and spread from the core; averages of the games played."""

    rank: int
    player: ev.Player
    entrant: Entrant
    scored: int  # points scored in games played over the board
    conceded: int
    games: int

    @property
    def losses(self) -> float:
        """Games lost, a tie counting ½; a round without an opponent by the sign of its spread."""
        return self.entrant.losses

    @property
    def average(self) -> float | None:
        """Average score per game played (not byes or forfeits)."""
        return self.scored / self.games if self.games else None

    @property
    def opponents_average(self) -> float | None:
        """Average score of the opponents in those games."""
        return self.conceded / self.games if self.games else None


@dataclass(frozen=True, slots=True)
class Played:
    """A game won over the board: round, board, the winner and the loser with their scores."""

    round: int
    board: int
    winner: ev.Player
    winner_score: int
    loser: ev.Player
    loser_score: int


def _check_upto(division: ev.Division, upto: int | None) -> int:
    last = division.paired_rounds if upto is None else upto
    if not 0 <= last <= division.paired_rounds:
        raise StateError(f"round {last} is not paired; there are rounds 0-{division.paired_rounds}")
    return last


def _games(division: ev.Division, upto: int) -> list[tuple[int, int, ev.Board]]:
    """(round, board number, board) of the games with scores entered, up to round ``upto``."""
    return [
        (r.number, r.board_number(b), b)
        for r in division.rounds
        if r.paired and r.number <= upto
        for b in r.boards
        if b.scores is not None and b.result not in FORFEITS
    ]


def standings(division: ev.Division, upto: int | None = None) -> list[Line]:
    """The standings after round ``upto`` (default: the last paired): wins, then spread, rating, number.

    Players level on wins and spread share a rank. Results not entered yet count as nothing.
    """
    last = _check_upto(division, upto)
    entrants = tally(scorecards(division, last))
    totals = {p.number: [0, 0, 0] for p in division.players}
    for _, _, b in _games(division, last):
        assert b.scores is not None
        for number, own, other in ((b.white, *b.scores), (b.black, *reversed(b.scores))):
            totals[number][0] += own
            totals[number][1] += other
            totals[number][2] += 1
    lines: list[Line] = []
    for place, e in enumerate(entrants, 1):
        tied = bool(lines) and (lines[-1].entrant.wins, lines[-1].entrant.spread) == (e.wins, e.spread)
        scored, conceded, games = totals[e.id]
        lines.append(Line(lines[-1].rank if tied else place, division.player(e.id), e, scored, conceded, games))
    return lines


def high_scores(division: ev.Division, upto: int | None = None) -> dict[str, list[Played]]:
    """tsh's HighWin, HighLoss and LowWin: won games by winning score (down, then up) and by losing score.

    Only games entered with both scores count (none with spread-only entry); ties win nothing.
    """
    last = _check_upto(division, upto)
    won = []
    if rules_of(division).entry != "spread":
        for n, index, b in _games(division, last):
            assert b.scores is not None
            s1, s2 = b.scores
            if s1 != s2:
                w, lo = ((b.white, s1), (b.black, s2)) if s1 > s2 else ((b.black, s2), (b.white, s1))
                won.append(Played(n, index, division.player(w[0]), w[1], division.player(lo[0]), lo[1]))
    return {
        "high wins": sorted(won, key=lambda g: (-g.winner_score, g.round, g.board)),
        "high losses": sorted(won, key=lambda g: (-g.loser_score, g.round, g.board)),
        "low wins": sorted(won, key=lambda g: (g.winner_score, g.round, g.board)),
    }


def record_text(line: Line) -> str:
    """``3½-1½ +240``: wins, losses and spread."""
    return f"{ev.format_points(round(line.entrant.wins * 10))}-{ev.format_points(round(line.losses * 10))} " + (
        f"{line.entrant.spread:+d}"
    )


# -- pairing ---------------------------------------------------------------------------


def opening(rules: ev.ScoredRules, round_number: int) -> str | None:
    """The opening system that pairs ``round_number``, if any (``initial``)."""
    if rules.initial == "random" and round_number == 1:
        return "random"
    if rules.initial == "init-fontes" and round_number <= rules.initial_rounds:
        return "init-fontes"
    return None


def pair(
    event: ev.Event,
    division: ev.Division,
    *,
    rng: random.Random | None = None,
    system: str | None = None,
    repeats: int | None = None,
) -> list[str]:
    """Pair the next round by ``system`` (default: the opening system, else the division's).

    KOTH, factored, Swiss and Chew pairings rank by the standings of round
    :func:`~tmanager.pairing.scored.fontes_basis` (the previous round unless
    ``session_breaks`` are set); only results up to that round must be in.
    Players off for the round get their ``off`` spread as a bye; the odd one
    out gets the bye with ``bye_spread``; with ``assign_firsts`` each board's
    order is who starts. ``repeats`` overrides the division's allowance.
    """
    rules = rules_of(division)
    n = division.paired_rounds + 1
    total = event.total_rounds(division)
    if total and n > total:
        raise StateError(f"all {total} rounds are paired")
    chosen = system or opening(rules, n) or division.system
    if chosen not in SYSTEMS:
        raise StateError(f"{chosen!r} is not a pairing system; choose from {', '.join(SYSTEMS)}")
    rng = rng or random.SystemRandom()
    if chosen == "init-fontes":
        return _pair_init_fontes(event, division, rng)
    basis = fontes_basis(n, session_breaks=rules.session_breaks) if chosen in FROM_STANDINGS else n - 1
    pending = [(r, b) for r, b in ev.missing(division) if r <= basis]
    if pending:
        where = ", ".join(f"{r}.{division.round(r).board_number(b)}" for r, b in pending[:8])
        raise StateError(
            f"{len(pending)} result(s) missing (round.board: {where}); round {n} is paired from the standings "
            f"after round {basis}: enter them first"
        )
    record = division.round(n, create=True)
    messages: list[str] = []
    if chosen == "round-robin":
        _pair_round_robin(division, record)
    else:
        messages += _set_off(division, record)
        if chosen == "manual":
            unpaired = [
                p for p in division.players if p.plays(n) and p.number not in record.byes and not record.seat(p.number)
            ]
            if unpaired:
                names = ", ".join(ev.label(p) for p in unpaired[:6])
                raise StateError(f"manual pairing: {len(unpaired)} player(s) have no game or bye in round {n}: {names}")
        else:
            allowance = rules.repeats if repeats is None else repeats
            messages += _pair_from_standings(event, division, record, chosen, basis, allowance, rng)
    record.paired = True
    how = f"{chosen}" + (f" from the standings after round {basis}" if chosen in FROM_STANDINGS else "")
    messages.append(f"round {n} paired ({how}): {len(record.boards)} board(s)" + _bye_note(division, record))
    return messages


def _bye_note(division: ev.Division, record: ev.Round) -> str:
    byes = [f"{ev.label(division.player(p))} ({bye_spread(division, record, p):+d})" for p in record.byes]
    return "; byes: " + ", ".join(byes) if byes else ""


def _set_off(division: ev.Division, record: ev.Round) -> list[str]:
    """Players not playing this round (withdrawn, absent: tsh's ``off``) get a bye with their off spread."""
    messages = []
    for p in division.players:
        if not p.plays(record.number) and p.number not in record.byes:
            spread = off_spread(division, p)
            record.byes[p.number] = bye_kind(spread)
            record.spreads[p.number] = spread
            messages.append(f"{ev.label(p)} is off in round {record.number}: spread {spread:+d}")
    return messages


def _entrants(division: ev.Division, record: ev.Round, basis: int) -> list[Entrant]:
    """The standings after ``basis`` with every round's opponents; busy or absent players inactive."""
    busy = set(record.byes) | {p for b in record.boards for p in (b.white, b.black)}
    return [
        e if e.id not in busy and division.player(e.id).plays(record.number) else replace(e, active=False)
        for e in tally(scorecards(division, record.number - 1), through=basis)
    ]


def _pair_from_standings(
    event: ev.Event,
    division: ev.Division,
    record: ev.Round,
    system: str,
    basis: int,
    repeats: int,
    rng: random.Random,
) -> list[str]:
    rules = rules_of(division)
    entrants = _entrants(division, record, basis)
    active = [e for e in entrants if e.active]
    if len(active) < 2:
        raise PairingError(f"round {record.number} cannot be paired: fewer than two players are left to pair")
    messages = []
    try:
        if system == "chew":
            total = event.total_rounds(division)
            if not total:
                raise StateError("Chew pairings need the number of rounds: set rounds in [event]")
            bands = rules.prize_bands or list(range(1, max(1, len(active) // 4) + 1))
            gibsons = active[: count_gibsons(active, total - basis, prize_places=bands[-1])]
            if gibsons:
                names = ", ".join(ev.label(division.player(g.id)) for g in gibsons)
                messages.append(f"gibsonized (cannot be caught with {total - basis} round(s) left): {names}")
            pairing = chew(
                entrants,
                round_number=record.number,
                max_rounds=total,
                basis=basis,
                prize_bands=bands,
                track_firsts=rules.track_firsts,
            )
        elif system == "random":
            pairing = random_pairing(entrants, rng=rng, repeats=repeats)
        elif system == "tsh-swiss":
            pairing = swiss(entrants, repeats=repeats, track_firsts=rules.track_firsts)
        else:
            factor = 1 if system == "koth" else rules.factor
            pairing = factored(entrants, factor, repeats=repeats, track_firsts=rules.track_firsts)
    except PairingError as exc:
        raise PairingError(f"round {record.number} cannot be paired ({system}): {exc}") from None
    _place(division, record, pairing, entrants, rng)
    return messages


def _place(
    division: ev.Division, record: ev.Round, pairing: Pairing, entrants: Sequence[Entrant], rng: random.Random
) -> None:
    """Put a core pairing into the round: boards (ordered by who starts with ``assign_firsts``) and the bye."""
    rules = rules_of(division)
    if rules.assign_firsts:
        pairing = assign_firsts(pairing, entrants, rng=rng)
    record.boards += [ev.Board(a, b) for a, b in pairing.boards]
    if pairing.bye is not None:
        record.byes[pairing.bye] = "pairing"
        record.spreads[pairing.bye] = rules.bye_spread


def _pair_round_robin(division: ev.Division, record: ev.Round) -> None:
    """A round of the Berger tables by player number; games of a withdrawn player are forfeits."""
    rules = rules_of(division)
    seeds = [Entrant(p.number) for p in sorted(division.players, key=lambda p: p.number)]
    try:
        pairing = round_robin(seeds, record.number, cycles=division.cycles)
    except ScheduleError as exc:
        raise StateError(str(exc)) from None
    for a, b in pairing.boards:
        board = ev.Board(a, b)
        here = [division.player(x).plays(record.number) for x in (a, b)]
        if not all(here):
            board.result = {(True, False): "+-", (False, True): "-+"}.get((here[0], here[1]), "--")
            spreads = forfeit_spreads(rules, board.result)
            board.scores = (
                spreads[0] if here[0] else off_spread(division, division.player(a)),
                spreads[1] if here[1] else off_spread(division, division.player(b)),
            )
        record.boards.append(board)
    if pairing.bye is not None:
        record.byes[pairing.bye] = "pairing"
        record.spreads[pairing.bye] = rules.bye_spread


def _pair_init_fontes(event: ev.Event, division: ev.Division, rng: random.Random) -> list[str]:
    """tsh's InitFontes: rounds 1..``initial_rounds`` at once, round robins in groups of ``initial_rounds + 1``."""
    rules = rules_of(division)
    count = rules.initial_rounds
    if division.paired_rounds:
        raise StateError("InitFontes pairs the opening rounds: only before round 1 is paired")
    total = event.total_rounds(division)
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
        raise PairingError(f"InitFontes: {exc}") from None
    messages = []
    for n, pairing in enumerate(schedule, 1):
        record = division.round(n, create=True)
        messages += _set_off(division, record)
        playing = {x for b in pairing.boards for x in b} | ({pairing.bye} if pairing.bye else set())
        clash = sorted(x for x in playing if x in record.byes)
        if clash:
            names = ", ".join(ev.label(division.player(x)) for x in clash)
            raise StateError(f"InitFontes gives {names} a game in round {n}, when off: set them off from round {n + 1}")
        # Firsts are balanced round by round, each round seeing the ones before it.
        _place(division, record, pairing, tally(scorecards(division, n - 1)), rng)
        record.paired = True
        messages.append(f"round {n} paired (init-fontes): {len(record.boards)} board(s)" + _bye_note(division, record))
    return messages


# -- result entry ------------------------------------------------------------------------

#: The result line of each entry mode.
FORMS = {
    "scores": "BOARD S1 S2 or P1 S1 P2 S2",
    "spread": "BOARD SPREAD or P1 SPREAD P2",
    "both": "BOARD S1 S2 SPREAD or P1 S1 P2 S2 SPREAD",
}


def _integer(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise StateError(f"{text!r} is not a {what}; write a whole number") from None


def enter(
    event: ev.Event,
    division: ev.Division,
    words: Sequence[str],
    round_number: int | None,
    *,
    correction: bool,
    confirm: bool = False,
) -> list[str]:
    """A result line of a score-based division, by its ``entry`` mode (:data:`FORMS`), or a forfeit.

    ``BOARD +-`` / ``P1 P2 -+`` (``--``, ``*``) enter a forfeit (or clear a
    result). By players, P1's numbers come first; with ``track_firsts`` but
    not ``assign_firsts`` P1 is recorded as having gone first. Scores outside
    :data:`PLAUSIBLE` raise :class:`SuspiciousScore` unless ``confirm``.
    """
    rules = rules_of(division)
    n = round_number or division.paired_rounds
    if n < 1:
        raise StateError("no round is paired yet")
    words = list(words)
    if words and (words[-1] in FORFEITS or words[-1] == "*") and len(words) in (2, 3):
        if len(words) == 2:
            board, first = ev.board_at(division, n, _integer(words[0], "board number")), None
        else:
            first = ev.find_player(division, words[0])
            board = ev.locate(division, n, first, ev.find_player(division, words[1]))
        result = ev.reverse_result(words[-1]) if first and first.number == board.black else words[-1]
        _check_free(division, n, board, correction)
        old = board.result
        board.result = result
        board.scores = None if result == "*" else forfeit_spreads(rules, result)
        _entered(division.round(n), board)
        return [_echo(division, n, board), *_later_warning(division, n, old, board, correction)]
    numbers = {"scores": 2, "spread": 1, "both": 3}[rules.entry]
    if len(words) == 1 + numbers and words[0].isdigit():
        board = ev.board_at(division, n, int(words[0]))
        values = [_integer(w, "score") for w in words[1:]]
        first = division.player(board.white)
    elif len(words) == 2 + numbers:
        first = ev.find_player(division, words[0])
        # P2 is the third word in every form: P1 S1 P2 S2, P1 SPREAD P2, P1 S1 P2 S2 SPREAD.
        board = ev.locate(division, n, first, ev.find_player(division, words[2]))
        values = [_integer(w, "score") for i, w in enumerate(words) if i not in (0, 2)]
    else:
        raise StateError(f"give {FORMS[rules.entry]} (entry = {rules.entry!r}), or a forfeit: BOARD +- or P1 P2 +-")
    if rules.entry == "spread":
        spread = values[0]
        scores = (spread, 0) if spread >= 0 else (0, -spread)
    else:
        scores = (values[0], values[1])
        if rules.entry == "both" and values[2] != scores[0] - scores[1]:
            raise StateError(
                f"the spread {values[2]:+d} does not match the scores {scores[0]}-{scores[1]} "
                f"({scores[0] - scores[1]:+d}); check the slip"
            )
        odd = [s for s in scores if s not in PLAUSIBLE]
        if odd and not confirm:
            raise SuspiciousScore(odd[0])
    _check_free(division, n, board, correction)
    if first.number == board.black:
        if rules.track_firsts and not rules.assign_firsts:
            board.white, board.black = board.black, board.white  # P1 went first
        else:
            scores = (scores[1], scores[0])
    old = board.result
    board.scores = scores
    board.result = "1-0" if scores[0] > scores[1] else "0-1" if scores[0] < scores[1] else "½-½"
    _entered(division.round(n), board)
    return [_echo(division, n, board), *_later_warning(division, n, old, board, correction)]


def _entered(record: ev.Round, board: ev.Board) -> None:
    """A result is in: who went first is now the board's order, whatever ``p12`` code a .t file gave."""
    record.p12.pop(board.white, None)
    record.p12.pop(board.black, None)


def _check_free(division: ev.Division, n: int, board: ev.Board, correction: bool) -> None:
    if board.result not in ev.PENDING and not correction:
        index = division.round(n).board_number(board)
        raise StateError(
            f"round {n} board {index} ({board.white}-{board.black}) already has {result_text(division, board)}; "
            "use `correct` to change it"
        )


def result_text(division: ev.Division, board: ev.Board) -> str:
    """A board's result as entered: ``420-380``, ``+40`` (spread entry), ``+- (+50 -50)`` or ``*``."""
    if board.scores is None or board.result in FORFEITS:
        return board.result + (f" ({board.scores[0]:+d} {board.scores[1]:+d})" if board.scores else "")
    if rules_of(division).entry == "spread":
        return f"{board.scores[0] - board.scores[1]:+d}"
    return f"{board.scores[0]}-{board.scores[1]}"


def _echo(division: ev.Division, n: int, board: ev.Board) -> str:
    """The entry read back with both players' new records, as tsh's Addscore does."""
    lines = {line.player.number: line for line in standings(division, division.paired_rounds)}
    index = division.round(n).board_number(board)

    def side(number: int) -> str:
        return f"{ev.label(division.player(number))} [{record_text(lines[number])}]"

    return f"round {n} board {index}: {side(board.white)} {result_text(division, board)} {side(board.black)}"


def _later_warning(division: ev.Division, n: int, old: str, board: ev.Board, correction: bool) -> list[str]:
    if not correction or n >= division.paired_rounds:
        return []
    later = f"{n + 1}" if n + 1 == division.paired_rounds else f"{n + 1}-{division.paired_rounds}"
    return [f"warning: later round(s) {later} were paired before this correction (was {old}); they stand"]


def set_off(division: ev.Division, player: ev.Player, spread: int | None, rounds: Sequence[int]) -> list[str]:
    """tsh's ``off``: withdraw a player (for good or for some rounds), with the spread of each missed round."""
    rules_of(division)
    player.off = spread
    messages = ev.withdraw(division, player, rounds)
    return [*messages, f"{ev.label(player)} gets {off_spread(division, player):+d} for each round missed"]


# -- .t and .TOU files --------------------------------------------------------------------


def _seat_number(record: ev.Round, number: int) -> int:
    """A player's ``.t`` board number in a round: as a .t file gave it, else the board's place (0: no board)."""
    if number in record.board_numbers:
        return record.board_numbers[number]
    board = record.seat(number)
    return record.boards.index(board) + 1 if board else 0


def to_t(division: ev.Division) -> list[tsh.TPlayer]:
    """The division as tsh ``.t`` players, numbered 1.. in player-number order.

    Boards are the board numbers (0 for a bye or no game; a forfeit keeps its
    board, so that reading the file back finds the two players again);
    ``p12`` is written when firsts are tracked or a .t file gave codes; a
    flag ``class:X`` is the player's class; a withdrawn player is ``off``
    with their spread; the other fields of an imported line come back as
    they were (``extensions``).
    """
    rules = rules_of(division)
    order = sorted(division.players, key=lambda p: p.number)
    index = {p.number: i for i, p in enumerate(order, 1)}
    cards = {c.id: c for c in scorecards(division)}
    paired = [r for r in division.rounds if r.paired]
    codes = rules.track_firsts or any(r.p12 for r in paired)
    players = []
    for p in order:
        if ";" in p.name or (p.team and len(p.team.split()) != 1):
            raise StateError(f"{ev.label(p)}: a .t file takes no ';' in names and one-word teams; edit the player")
        card = cards[p.number]
        classes = [f.partition(":")[2] for f in p.flags if f.startswith("class:")]
        opponents = _trimmed(tuple(index.get(o, o) if o else o for o in card.opponents))
        renumbered = replace(
            card,
            id=index[p.number],
            opponents=opponents,
            scores=_trimmed(card.scores),
            p12=_cut(card.p12, len(opponents)) if codes else (),
        )
        players.append(
            tsh.TPlayer(
                name=p.name,
                card=renumbered,
                boards=_cut(tuple(_seat_number(r, p.number) for r in paired), len(opponents)),
                player_class=classes[0] if classes else None,
                team=p.team or None,
                extra=tuple(p.extensions),
            )
        )
    return players


def _trimmed(values: tuple[int | None, ...]) -> tuple[int | None, ...]:
    """Without trailing Nones: a round not played yet is left out, as tsh leaves it."""
    end = len(values)
    while end and values[end - 1] is None:
        end -= 1
    return values[:end]


def _cut(values: tuple[int, ...], rounds: int) -> tuple[int, ...]:
    """Without the trailing zeros of rounds after the player's last pairing, which tsh leaves out too."""
    end = len(values)
    while end > rounds and values[end - 1] == 0:
        end -= 1
    return values[:end]


def _at(values: Sequence[int | None], i: int) -> int | None:
    return values[i] if i < len(values) else None


def from_t(players: Sequence[tsh.TPlayer], division: ev.Division) -> None:
    """Fill an empty score-based ``division`` from ``.t`` players: player i is number i, one round per column.

    A game whose two scores are in gets its result; one without is pending;
    the player with ``p12`` 1 is first on the board. An opponent 0 is, as in
    tsh, a bye when its spread is 0 or more and a forfeit loss when it is
    negative; two such players on the same (non-zero) board, one at least
    with a negative spread, played a forfeit game, kept as one. Boards are
    ordered by their ``board`` numbers; the numbers and ``p12`` codes the
    order does not give (gaps, 3 "to be drawn", 4 "not known yet") are kept
    in the round, and the other fields of each line in the player's
    ``extensions``, so that :func:`to_t` writes the file back as it was. A
    player with ``off`` is withdrawn with that spread.
    """
    rules = rules_of(division)
    for tp in players:
        card = tp.card
        division.players.append(
            ev.Player(
                number=card.id,
                name=tp.name,
                rating=card.rating,
                team=tp.team or "",
                flags=[f"class:{tp.player_class}"] if tp.player_class else [],
                status="withdrawn" if card.off is not None else "active",
                off=card.off,
                extensions=list(tp.extra),
            )
        )
    rounds = max((len(_trimmed(tp.card.opponents)) for tp in players), default=0)
    for n in range(1, rounds + 1):
        i = n - 1
        record = division.round(n, create=True)
        record.paired = True
        placed: list[tuple[int, int, ev.Board]] = []
        alone: dict[int, list[tsh.TPlayer]] = {}  # opponent 0, by board number
        for tp in players:
            card = tp.card
            opponent, own = _at(card.opponents, i), _at(card.scores, i)
            if opponent == BYE:
                alone.setdefault(_at(tp.boards, i) or 0, []).append(tp)
            elif opponent is not None and card.id < opponent:
                other = players[opponent - 1].card
                theirs = _at(other.scores, i)
                swap = _at(other.p12, i) == FIRST
                board = ev.Board(opponent, card.id) if swap else ev.Board(card.id, opponent)
                if own is not None and theirs is not None:
                    board.scores = (theirs, own) if swap else (own, theirs)
                    s1, s2 = board.scores
                    board.result = "1-0" if s1 > s2 else "0-1" if s1 < s2 else "½-½"
                placed.append((_at(tp.boards, i) or 0, card.id, board))
        taken = {number for number, _, _ in placed}
        for number, group in alone.items():
            entries = [(tp.card.id, _at(tp.card.scores, i)) for tp in group]
            forfeit = _forfeit(entries) if number and number not in taken else None
            if forfeit is not None:
                placed.append((number, forfeit.white, forfeit))
                continue
            for player, own in entries:
                record.byes[player] = "pairing" if own is None else bye_kind(own)
                if own is not None:
                    record.spreads[player] = own
        record.boards = [b for _, _, b in sorted(placed, key=lambda item: item[:2])]
        _keep_t_columns(rules, record, players, i)


def _forfeit(entries: Sequence[tuple[int, int | None]]) -> ev.Board | None:
    """Two players with opponent 0 on one board, one at least losing: their forfeit game, the winner first."""
    spreads = [own for _, own in entries if own is not None]
    if len(entries) != 2 or len(spreads) != 2 or min(spreads) >= 0:
        return None
    (a, sa), (b, sb) = sorted(((x, own or 0) for x, own in entries), key=lambda e: (-e[1], e[0]))
    return ev.Board(a, b, "--" if sa < 0 else "+-", (sa, sb))


def _keep_t_columns(rules: ev.ScoredRules, record: ev.Round, players: Sequence[tsh.TPlayer], i: int) -> None:
    """Keep in ``record`` the board numbers and ``p12`` codes of round i+1 that its boards' order would not give."""
    derived: dict[int, int] = {number: NEITHER for number in record.byes}
    for b in record.boards:
        first, second = (NEITHER, NEITHER) if b.result in FORFEITS else _p12(rules, b)
        derived.update({b.white: first, b.black: second})
    for tp in players:
        number = tp.card.id
        board, code = _at(tp.boards, i), _at(tp.card.p12, i)
        if board is not None and board != _seat_number(record, number):
            record.board_numbers[number] = board
        if code is not None and code != derived.get(number, NEITHER):
            record.p12[number] = code


def tou_players(division: ev.Division, aliases: Mapping[str, str] | None = None) -> list[tou.TouPlayer]:
    """The division as ``.TOU`` players (:func:`tmanager.tou.from_scores`): needs every game score."""
    if rules_of(division).entry == "spread":
        raise StateError(".TOU needs game scores; this division enters spreads only (entry = 'spread')")
    pending = ev.missing(division)
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
