"""Chess divisions paired by FIDE's Double-Swiss (C.04.5): every pairing is a match of two games.

A match is two rounds of the event file: game 1 in round ``2m-1`` and game 2,
colours reversed, in round ``2m`` (so the event's ``rounds`` counts matches,
and results, reports and TRF files see each game as the round it is). Pairing
pairs both rounds at once from the games before them
(:func:`~tmanager.pairing.doubleswiss.pair_double_swiss`); the
pairing-allocated bye is worth a game won and a game drawn (1.4), recorded as
a pairing-allocated bye in game 1 and a half-point bye in game 2. Byes,
absences, forced games and unpairing take the whole match (Preface: byes apply
to matches, never to single games). Everything else is a chess division's
(:class:`~tmanager.events.rules.chess.ChessRules`).
"""

from __future__ import annotations

from collections.abc import Iterator

from tmanager.core.results import ByeKind
from tmanager.errors import PairingError, StateError
from tmanager.events import operations
from tmanager.events.entries import Entry
from tmanager.events.games import history
from tmanager.events.messages import Topic
from tmanager.events.model import Board, PairingSystem, Player, Round, label
from tmanager.events.rules.base import PairOptions, Problem
from tmanager.events.rules.chess import ChessRules
from tmanager.pairing.doubleswiss import pair_double_swiss


class DoubleSwissRules(ChessRules):
    """The rules of a Double-Swiss division."""

    systems = (PairingSystem.DOUBLE_SWISS,)
    explains = True

    def problems(self) -> Iterator[Problem]:
        yield from super().problems()
        d = self.division
        if d.paired_rounds % 2:
            yield Problem(f"round {d.paired_rounds} is game 1 of a match whose game 2 is not paired (pair both)")
        for first in d.rounds:
            if first.number % 2 == 0 or not first.paired:
                continue
            second = d.find_round(first.number + 1)
            games = {(b.white, b.black) for b in first.boards}
            if second is None or {(b.black, b.white) for b in second.boards} != games:
                yield Problem(
                    f"round {first.number + 1} must hold the boards of round {first.number}, colours reversed "
                    "(the two games of each match)"
                )

    def match_rounds(self, round_number: int) -> list[int]:
        first = round_number - (1 - round_number % 2)
        return [first, first + 1]

    def entry_round(self, entry: Entry, round_number: int | None, *, correction: bool) -> int:
        """A result without ``--round`` goes to the game of the last match whose board has none yet: game 1,
        then game 2 of the same board (or the same two players). Once game 1 is complete on every board, the
        board is looked for in game 2 alone, so that a refusal names the round the result would go to."""
        last = self.division.paired_rounds
        if round_number is not None or correction or not last:
            return super().entry_round(entry, round_number, correction=correction)
        rounds = self.match_rounds(last)
        open_from = self.result_round()
        games = [(n, self.locate_entry(entry, n)[0]) for n in rounds if n >= open_from]
        found = next((n for n, board in games if board.result.pending), None)
        if found is None:
            shown = ", ".join(f"game {i} (round {n}) {self.locate_entry(entry, n)[0].result}"
                              for i, n in enumerate(rounds, 1))  # fmt: skip
            raise StateError(
                f"both games of that match have results: {shown}; `correct --round R` changes one",
                topic=Topic.USE_CORRECT,
            )
        return found

    def pair(self, options: PairOptions) -> list[str]:
        """Pair the next match: its two rounds, game 2 with reversed colours; a bye is ``pairing`` then ``half``."""
        if options.system is not None or options.repeats is not None:
            raise StateError("--system and --repeats are for score-based divisions (set entry)")
        division = self.division
        n = self.next_round()
        match = (n + 1) // 2
        self.refuse_missing(n - 1, f"enter them before pairing match {match} (rounds {n}-{n + 1})")
        first, second = division.round(n, create=True), division.round(n + 1, create=True)
        messages: list[str] = []
        messages += self.settle_initial_colour(n, options, "the top-ranked player has {colour} in game 1")
        states = history(division, n)
        try:
            result = pair_double_swiss(
                states,
                round_number=match,
                total_rounds=max(self.event.rounds, match),
                forbidden=division.forbidden_groups(),
                points=self.event.scoring,
                initial_colour=division.first_colour,
            )
        except PairingError as exc:
            raise PairingError(f"match {match} cannot be paired: {exc}", topic=Topic.UNPAIRABLE) from None
        first.boards += [Board(w, b) for w, b in result.pairing.boards]
        if result.pairing.bye is not None:
            first.byes[result.pairing.bye] = ByeKind.PAIRING
        second.boards = [Board(b.black, b.white) for b in first.boards]
        for player, kind in first.byes.items():  # requested byes and the bye of the match: both games
            second.byes.setdefault(player, ByeKind.HALF if kind == ByeKind.PAIRING else kind)
        first.paired = second.paired = True
        messages.append(
            f"match {match} paired: rounds {n} (game 1) and {n + 1} (game 2, colours reversed), "
            f"{len(first.boards)} board(s) each" + self.bye_note(first)
        )
        if options.explain:
            messages += result.explanation
        return messages

    def force(self, white: str, black: str) -> list[str]:
        """A match of the next pairing, set before it: game 1 as given, game 2 reversed (or the match's bye)."""
        division = self.division
        messages = operations.force_named(self.event, division, white, black)
        first = division.round(division.paired_rounds + 1)
        second = division.round(first.number + 1, create=True)
        for w, b in first.forced:
            if (b, w) not in second.forced:
                second.forced.append((b, w))
                second.boards.append(Board(b, w))
        return [*messages, f"match {(first.number + 1) // 2}: round {second.number} holds game 2, colours reversed"]

    def unforce(self, white: str, black: str) -> list[str]:
        """Take back a forced match: game 1 as set, and game 2, its colours reversed."""
        division = self.division
        n = division.paired_rounds + 1
        messages = super().unforce(white, black)
        first = division.find_round(n) or Round(n)
        second = division.find_round(n + 1)
        if second is not None:
            mirrored = {(b, w) for w, b in first.forced}
            gone = set(second.forced) - mirrored
            second.boards = [b for b in second.boards if (b.white, b.black) not in gone]
            second.forced = [g for g in second.forced if g in mirrored]
            division.drop_empty_rounds()
        return messages

    def unpair(self) -> list[str]:
        """Take back the last match (both its rounds) while none of its results is in."""
        division = self.division
        if not division.paired_rounds:
            raise StateError("no round is paired")
        second = division.round(division.paired_rounds)
        first = division.round(second.number - 1)
        done = [b for r in (first, second) for b in r.boards if not b.result.pending]
        if done:
            raise StateError(
                f"match {second.number // 2} has results; correct them to * first, or use undo",
                topic=Topic.HAS_RESULTS,
            )
        operations.unpair(division)
        operations.unpair(division)
        _keep_requested(first, second)
        return [f"match {second.number // 2} (rounds {first.number}-{second.number}) unpaired; forced games and "
                "requested byes kept"]  # fmt: skip

    def request_bye(self, player: Player, round_number: int, kind: ByeKind) -> list[str]:
        """A requested bye takes the whole match: both its rounds."""
        super().request_bye(player, round_number, kind)
        first, second = self.match_rounds(round_number)
        return [f"{label(player)}: {kind}-point bye in match {second // 2} (rounds {first}-{second})"]


def _keep_requested(first: Round, second: Round) -> None:
    """After unpairing, game 2 keeps only what mirrors game 1's requests (its half of a pairing bye goes)."""
    second.byes = {p: k for p, k in second.byes.items() if p in first.byes}
