"""A score-based division as a tsh ``.t`` file and back (:mod:`tmanager.formats.tsh` holds the file's syntax).

:func:`to_t` writes a division's players as ``.t`` lines, numbered 1.. in
player-number order; :func:`from_t` fills an empty score-based division from
them. What the model's order does not give (board numbers with gaps, ``p12``
codes 3 and 4, the other fields of a line) is kept in the rounds and the
players, so that a file read and written again is the same file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from tmanager.core.results import Result
from tmanager.errors import ConfigError, StateError
from tmanager.events.checks import check_player
from tmanager.events.model import Board, Division, Player, PlayerStatus, Round, ScoredSettings, label
from tmanager.events.scorecards import bye_kind, p12_codes, scorecards, settings_of
from tmanager.formats import tsh
from tmanager.pairing.scored import BYE, FIRST, NEITHER


def _seat_number(record: Round, number: int) -> int:
    """A player's ``.t`` board number in a round: as a .t file gave it, else the board's place (0: no board)."""
    if number in record.board_numbers:
        return record.board_numbers[number]
    board = record.seat(number)
    return record.boards.index(board) + 1 if board else 0


def to_t(division: Division) -> list[tsh.TPlayer]:
    """The division as tsh ``.t`` players, numbered 1.. in player-number order.

    Boards are the board numbers (0 for a bye or no game; a forfeit keeps its
    board, so that reading the file back finds the two players again);
    ``p12`` is written when firsts are tracked or a .t file gave codes; a
    flag ``class:X`` is the player's class; a withdrawn player is ``off``
    with their spread; the other fields of an imported line come back as
    they were (``extensions``).
    """
    rules = settings_of(division)
    order = sorted(division.players, key=lambda p: p.number)
    index = {p.number: i for i, p in enumerate(order, 1)}
    cards = {c.id: c for c in scorecards(division)}
    paired = [r for r in division.rounds if r.paired]
    codes = rules.track_firsts or any(r.p12 for r in paired)
    players = []
    for p in order:
        if ";" in p.name or (p.team and len(p.team.split()) != 1):
            raise StateError("a .t file takes no ';' in names and one-word teams", field=label(p),
                             hint="edit the player's name or team")
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


def from_t(players: Sequence[tsh.TPlayer], division: Division, *, file: Path | None = None) -> None:
    """Fill an empty score-based ``division`` from ``.t`` players: player i is number i, one round per column.

    A game whose two scores are in gets its result; one without either is
    pending; one with a single score (the other ``00``, tsh's "not assigned
    yet") is refused, as is a bye whose spread is not entered: the division
    holds neither. The player with ``p12`` 1 is first on the board. An
    opponent 0 is, as in tsh, a bye when its spread is 0 or more and a
    forfeit loss when it is negative; two such players on the same (non-zero) board, one at least
    with a negative spread, played a forfeit game, kept as one. Boards are
    ordered by their ``board`` numbers; the numbers and ``p12`` codes the
    order does not give (gaps, 3 "to be drawn", 4 "not known yet") are kept
    in the round, and the other fields of each line in the player's
    ``extensions``, so that :func:`to_t` writes the file back as it was. A
    player with ``off`` is withdrawn with that spread. A player's field that no event file may hold (a rating
    out of range, a control character in the name) is refused naming ``file`` and the player's line: the event
    file's check named the file still to be written (``x.toml: division[1].player[1].rating: …``).
    """
    rules = settings_of(division)
    for tp in players:
        card = tp.card
        entered = Player(
            number=card.id,
            name=tp.name,
            rating=card.rating,
            team=tp.team or "",
            flags=[f"class:{tp.player_class}"] if tp.player_class else [],
            status=PlayerStatus.WITHDRAWN if card.off is not None else PlayerStatus.ACTIVE,
            off=card.off,
            extensions=list(tp.extra),
        )
        _check_codes(tp, file=file)
        try:
            check_player(entered)
        except ConfigError as exc:
            raise exc.relocated(file=file, field=f"line of player {card.id}: {exc.field}") from None
        division.players.append(entered)
    rounds = max((len(_trimmed(tp.card.opponents)) for tp in players), default=0)
    for n in range(1, rounds + 1):
        i = n - 1
        record = division.round(n, create=True)
        record.paired = True
        placed: list[tuple[int, int, Board]] = []
        alone: dict[int, list[tsh.TPlayer]] = {}  # opponent 0, by board number
        for tp in players:
            card = tp.card
            opponent, own = tsh.at(card.opponents, i), tsh.at(card.scores, i)
            if opponent == BYE:
                alone.setdefault(tsh.at(tp.boards, i) or 0, []).append(tp)
            elif opponent is not None and card.id < opponent:
                other = players[opponent - 1].card
                theirs = tsh.at(other.scores, i)
                _refuse_half_entered(card.id, own, opponent, theirs, n, file=file)
                swap = tsh.at(other.p12, i) == FIRST
                board = Board(opponent, card.id) if swap else Board(card.id, opponent)
                if own is not None and theirs is not None:
                    board.scores = (theirs, own) if swap else (own, theirs)
                    s1, s2 = board.scores
                    board.result = Result.from_scores(s1, s2)
                placed.append((tsh.at(tp.boards, i) or 0, card.id, board))
        taken = {number for number, _, _ in placed}
        for number, group in alone.items():
            entries = [(tp.card.id, tsh.at(tp.card.scores, i)) for tp in group]
            forfeit = _forfeit(entries) if number and number not in taken else None
            if forfeit is not None:
                placed.append((number, forfeit.white, forfeit))
                continue
            for player, own in entries:
                spread = _bye_spread(player, own, n, file=file)
                record.byes[player] = bye_kind(spread)
                record.spreads[player] = spread
        record.boards = [b for _, _, b in sorted(placed, key=lambda item: item[:2])]
        _keep_t_columns(rules, record, players, i)


def _refuse_half_entered(
    number: int, own: int | None, opponent: int, theirs: int | None, n: int, *, file: Path | None
) -> None:
    """Refuse a game of round ``n`` with one player's score and the other's ``00`` (tsh: not assigned yet): the
    division holds a game's two scores or none, and the one given was dropped without a word (the game read as
    pending, export-t wrote 00 for both)."""
    if (own is None) == (theirs is None):
        return
    given, missing, score = (opponent, number, theirs) if own is None else (number, opponent, own)
    raise ConfigError(
        f"round {n}: no score (00 or none) against player {given}'s {score}",
        file=file,
        field=f"line of player {missing}: scores",
        hint="enter both scores of the game, or neither while it is still to be entered",
    )


def _bye_spread(number: int, own: int | None, n: int, *, file: Path | None) -> int:
    """The spread of player ``number``'s bye in round ``n``; one not entered (tsh's unscored bye) is refused: the
    division holds no bye still to be scored, and read as a pairing bye it counted a win of ``bye_spread``, which
    export-t wrote back for the ``00``."""
    if own is None:
        raise ConfigError(
            f"round {n}: a bye (opponent 0) without its spread (00 or none)",
            file=file,
            field=f"line of player {number}: scores",
            hint="enter the bye's spread first, e.g. 50, or -50 for a forfeit loss",
        )
    return own


def _check_codes(player: tsh.TPlayer, *, file: str | Path | None) -> None:
    """Every ``p12`` code and ``board`` number but 0 (neither, no board) is of a round the player has an
    opponent in, the only rounds a division holds them for: one of a round beyond (``p12 1 2 1 1`` after two
    rounds) was dropped without a word, and export-t wrote the line back without it; one of a round that others
    played (or with opponent 00) was refused by the event file's check, naming the file still to be written."""
    card = player.card
    for keyword, values in (("p12", card.p12), ("board", player.boards)):
        stray = next((i for i, value in enumerate(values) if value and tsh.at(card.opponents, i) is None), None)
        if stray is not None:
            raise ConfigError(
                f"{values[stray]} for round {stray + 1}, in which the player has no opponent",
                file=file,
                field=f"line of player {card.id}: {keyword}",
                hint=f"one {keyword} value per round played, or give the round's opponent, 0 for a bye",
            )


def _forfeit(entries: Sequence[tuple[int, int | None]]) -> Board | None:
    """Two players with opponent 0 on one board, one at least losing: their forfeit game, the winner first."""
    spreads = [own for _, own in entries if own is not None]
    if len(entries) != 2 or len(spreads) != 2 or min(spreads) >= 0:
        return None
    (a, sa), (b, sb) = sorted(((x, own or 0) for x, own in entries), key=lambda e: (-e[1], e[0]))
    return Board(a, b, Result.DOUBLE_FORFEIT if sa < 0 else Result.WHITE_WINS_BY_FORFEIT, (sa, sb))


def _keep_t_columns(rules: ScoredSettings, record: Round, players: Sequence[tsh.TPlayer], i: int) -> None:
    """Keep in ``record`` the board numbers and ``p12`` codes of round i+1 that its boards' order would not give."""
    derived: dict[int, int] = {number: NEITHER for number in record.byes}
    for b in record.boards:
        first, second = (NEITHER, NEITHER) if b.result.forfeit else p12_codes(rules, b)
        derived.update({b.white: first, b.black: second})
    for tp in players:
        number = tp.card.id
        board, code = tsh.at(tp.boards, i), tsh.at(tp.card.p12, i)
        if board is not None and board != _seat_number(record, number):
            record.board_numbers[number] = board
        if code is not None and code != derived.get(number, NEITHER):
            record.p12[number] = code
