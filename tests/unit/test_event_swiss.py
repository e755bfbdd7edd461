"""A scripted 30-player, 7-round Dutch event, checked round by round against the pairing core.

The event is run through the same locked, journaled file operations the CLI
uses. After each pairing, the test reads the event file with tomllib (not with
tmanager.event), rebuilds every player's history itself and asks
``pair_round`` for the round: the event's boards and bye must be exactly what
the pairing engine gives.
"""

from __future__ import annotations

import dataclasses
import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tmanager.core.results import ByeKind, Colour, Result, TrfResult
from tmanager.errors import PairingError, StateError
from tmanager.events import api as ev
from tmanager.events import trffile as event_trf
from tmanager.events.ranking import flag
from tmanager.formats import trf
from tmanager.pairing import Game, PlayerState, PointsSystem, pair_round

# The test's own reading of the file format (docs/events.md).
CODES = {
    "1-0": ("1", "0"),
    "0-1": ("0", "1"),
    "½-½": ("=", "="),
    "+-": ("+", "-"),
    "-+": ("-", "+"),
    "--": ("-", "-"),
    "*": (" ", " "),
}
BYES = {"pairing": "U", "full": "F", "half": "H", "zero": "Z"}


def expected_pairing(path: Path, number: int) -> tuple[set[tuple[int, int]], int | None]:
    """Round ``number`` as pair_round pairs it from the file's own history (read independently)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    division = data["division"][0]
    players = division["player"]
    rounds = {r["number"]: r for r in division.get("round", [])}
    per_round: list[dict[int, Game]] = []
    for n in range(1, number + 1):
        r = rounds.get(n, {})
        entries: dict[int, Game] = {}
        current = n == number
        for white, black, result in r.get("boards", []):
            if current and [white, black] not in r.get("forced", []):
                continue  # boards the engine made: what we want to reproduce
            w, b = CODES[result]
            entries[white] = Game(black, Colour.WHITE, TrfResult.parse(w))
            entries[black] = Game(white, Colour.BLACK, TrfResult.parse(b))
        for player, kind in r.get("byes", []):
            if not (current and kind == "pairing" and r.get("forced_bye") != player):
                entries[player] = Game(None, None, TrfResult.parse(BYES[kind]))
        for p in players:
            absent = p.get("status") == "withdrawn" or n in p.get("absent", [])
            if p["number"] not in entries and (not current or absent):
                entries[p["number"]] = Game(None, None, TrfResult.FORFEIT_LOSS)
        per_round.append(entries)
    order = sorted(players, key=lambda p: (-p.get("rating", 0), p["name"].casefold(), p["number"]))
    rank = {p["number"]: i for i, p in enumerate(order, 1)}
    states = []
    for p in players:
        games = [entries.get(p["number"], Game(None, None, TrfResult.FORFEIT_LOSS)) for entries in per_round[:-1]]
        if p["number"] in per_round[-1]:
            games.append(per_round[-1][p["number"]])
        states.append(PlayerState(p["number"], tuple(games), p.get("rating", 0), rank[p["number"]]))
    s = data["scoring"]
    points = PointsSystem(
        win=round(s["win"] * 10), draw=round(s["draw"] * 10), loss=round(s["loss"] * 10),
        pairing_bye=round(s["pairing_bye"] * 10),
    )  # fmt: skip
    forbidden = [frozenset(g) for g in division.get("forbidden", [])]
    pairing = pair_round(
        states,
        round_number=number,
        total_rounds=data["event"]["rounds"],
        forbidden=forbidden,
        points=points,
        initial_colour=Colour.from_word(division["initial_colour"]),
    )
    return set(pairing.boards), pairing.bye


def actual_pairing(path: Path, number: int) -> tuple[set[tuple[int, int]], int | None]:
    """The engine-made boards and bye of a round, as stored in the file."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    r = next(r for r in data["division"][0]["round"] if r["number"] == number)
    boards = {(w, b) for w, b, _ in r["boards"] if [w, b] not in r.get("forced", [])}
    bye = next((p for p, k in r.get("byes", []) if k == "pairing" and p != r.get("forced_bye")), None)
    return boards, bye


def play(path: Path, number: int, rng: random.Random, *, special: dict[int, Result] | None = None) -> None:
    """Enter every result of a round: rating-biased random results, or ``special`` ones by board."""

    def operation(e: ev.Event) -> list[str]:
        d = e.division()
        messages = []
        for index, board in enumerate(d.round(number).boards, 1):
            if board.result != "*":
                continue
            result = (special or {}).get(index)
            if result is None:
                gap = d.player(board.white).rating - d.player(board.black).rating
                x = rng.random() + gap / 1000
                result = Result.WHITE_WINS if x > 0.62 else Result.BLACK_WINS if x < 0.3 else Result.DRAW
            messages += ev.set_result(e, d, number, board, result)
        return messages

    ev.apply(path, operation)


def trf_pairing(path: Path, number: int) -> tuple[tuple[set[tuple[int, int]], int | None], set[tuple[int, int]]]:
    """Round ``number`` as pair_round pairs it from the event's own TRF export, and the export's own round.

    As ``tmanager pair -c`` does: the players paired in the round are paired
    again from the earlier rounds; byes and absences of the round stay, and so
    do the forced games (which TRF cannot mark). Boards are by player number (the TRF starting rank).
    """
    event = ev.load(path)
    d = event.division()
    tournament = trf.parse(event_trf.dumps(event, d))
    record = d.round(number)
    fixed = {n for pair in record.forced for n in pair}
    if record.forced_bye is not None:
        fixed.add(record.forced_bye)
    # The round in progress is not in the player lines (its pairing is in XTM lines), only its byes and absences:
    # the forced games, which TRF cannot mark, are given back to their players.
    entries = ev.round_games(d, record)
    states = [
        dataclasses.replace(state, games=(*state.games, entries[state.id])) if state.id in fixed else state
        for state in tournament.states()
    ]
    pairing = pair_round(
        states,
        round_number=number,
        total_rounds=tournament.total_rounds or number,
        forbidden=tournament.forbidden,
        points=tournament.points,
        initial_colour=tournament.first_colour(),
    )
    exported = {(w, b) for w, b in tournament_round(tournament, number)}
    return (set(pairing.boards), pairing.bye), {b for b in exported if not set(b) & fixed}


def tournament_round(tournament: trf.Tournament, number: int) -> list[tuple[int, int]]:
    """The boards of round ``number`` as the export's ``XTM round`` line gives them."""
    line = next(x for x in tournament.lines if x.startswith(f"XTM round {number} "))
    return [(board[0], board[1]) for board in json.loads(line.split(" ", 3)[3])["boards"]]


def pair_and_check(path: Path, number: int, **kwargs: Any) -> list[str]:
    messages = ev.apply(path, lambda e: ev.pair(e, e.division(), **kwargs))
    assert actual_pairing(path, number) == expected_pairing(path, number), f"round {number}"
    (engine_boards, engine_bye), exported = trf_pairing(path, number)
    assert engine_boards == exported, f"round {number}: the TRF export pairs differently"
    assert engine_bye == actual_pairing(path, number)[1]
    event = ev.load(path)
    d = event.division()
    record = d.round(number)
    seated = [n for b in record.boards for n in (b.white, b.black)] + list(record.byes)
    assert len(seated) == len(set(seated)), f"round {number}: a player is seated twice"
    for p in d.players:
        if p.plays(number):
            assert p.number in seated, f"round {number}: {p.name} is active but not paired"
        else:
            assert p.number not in seated, f"round {number}: {p.name} is withdrawn but paired"
    return messages


def test_thirty_player_dutch_event(tmp_path: Path) -> None:
    rng = random.Random(20260410)
    path = tmp_path / "open.toml"
    ev.create(path, ev.Event(name="Scripted Open", rounds=7, divisions=[ev.Division("Open")]))
    ratings = sorted((rng.randrange(1400, 2400) for _ in range(27)), key=lambda r: rng.random())
    for i, rating in enumerate(ratings, 1):
        player = ev.Player(i, f"Player{i:02d}, Test", rating=rating, team="Blue" if i % 9 == 0 else "")

        def enter(e: ev.Event, player: ev.Player = player) -> list[str]:
            return ev.add_player(e, e.division(), player)

        ev.apply(path, enter)
    # Two club mates who must not meet.
    ev.apply(path, lambda e: ev.forbid(e.division(), [e.division().player(3), e.division().player(4)]))

    # Round 1: 27 players, so a bye; the colour of the top player is drawn by lot and recorded.
    messages = pair_and_check(path, 1, rng=random.Random(5))
    assert any("drawn by lot" in m for m in messages)
    colour = ev.load(path).division().initial_colour
    assert colour in ("white", "black")
    bye_holder = next(p for p, k in ev.load(path).division().round(1).byes.items() if k == "pairing")

    # A late entry before any result of round 1: the bye holder keeps the bye (FIDE practice) unless the arbiter
    # asks for Chaos's habit: the newcomer plays the bye holder instead.
    late = ev.Player(28, "Late, Early", rating=2050)
    kept = ev.apply(path, lambda e: ev.add_player(e, e.division(), late))
    assert ev.load(path).division().round(1).byes == {bye_holder: "pairing", 28: "zero"}
    assert kept[0] == "late entry: round 1 scored as zero-point bye"
    ev.undo(path)
    messages = ev.apply(path, lambda e: ev.add_player(e, e.division(), late, take_bye=True))
    assert any("who loses the pairing-allocated bye" in m for m in messages)
    d = ev.load(path).division()
    seat = d.round(1).seat(28)
    assert seat is not None
    assert {28, bye_holder} == {seat.white, seat.black}
    assert d.round(1).byes == {}
    play(path, 1, rng)

    # Round 2 with a forfeit on board 3; a second late entry arrives after the pairing.
    pair_and_check(path, 2)
    # Entered as the command line enters a player: the last message says where the newcomer stands.
    messages = ev.apply(path, lambda e: ev.enter_player(e, e.division(), ev.Player(29, "Late, Middle", rating=2300)))
    assert messages[0] == "late entry: rounds 1-2 scored as zero-point byes"
    assert messages[-1].startswith("added Late, Middle (29), pairing rank ")
    play(path, 2, rng, special={3: Result.WHITE_WINS_BY_FORFEIT})
    # Asked to take a bye there is not (round 2 has none): refused, not entered with zero-point byes instead.
    with pytest.raises(StateError, match=r"--take-bye: round 2 has no pairing-allocated bye to take"):
        ev.add_player(ev.load(path), ev.load(path).division(), ev.Player(31, "Late, Never"), take_bye=True)
    forfeit = ev.load(path).division().round(2).boards[2]
    assert forfeit.result == "+-"

    # Round 3: a half-point bye requested for round 4, a third late entry with half points for missed rounds.
    ev.apply(path, lambda e: ev.request_bye(e, e.division(), e.division().player(7), 4, ByeKind.HALF))
    pair_and_check(path, 3)
    late = ev.Player(30, "Late, Last", rating=1500)
    ev.apply(path, lambda e: ev.add_player(e, e.division(), late, missed=ev.LateEntry.HALF, take_bye=True))
    d = ev.load(path).division()
    assert all(d.round(n).byes[30] == "half" for n in (1, 2))
    # 29 players had a bye in round 3: the newcomer took that board (asked for).
    assert d.round(3).seat(30) is not None and "pairing" not in d.round(3).byes.values()
    play(path, 3, rng)

    # Two withdrawals: one for good, one for rounds 5 and 6 only.
    ev.apply(path, lambda e: ev.withdraw(e.division(), e.division().player(11)))
    ev.apply(path, lambda e: ev.withdraw(e.division(), e.division().player(12), [5, 6]))
    pair_and_check(path, 4)
    assert ev.load(path).division().round(4).byes[7] == "half"
    play(path, 4, rng)

    # A zero-point bye for round 5, a forced game, then a correction of round 3 after round 5 is paired.
    ev.apply(path, lambda e: ev.request_bye(e, e.division(), e.division().player(20), 5, ByeKind.ZERO))
    d = ev.load(path).division()
    met = {n for r in d.rounds for b in r.boards if 1 in (b.white, b.black) for n in (b.white, b.black)}
    partner = next(p.number for p in d.players if p.number not in met and p.plays(5) and p.number not in (20, 3, 4))
    ev.apply(path, lambda e: ev.force(e, e.division(), e.division().player(1), e.division().player(partner)))
    pair_and_check(path, 5)
    assert (1, partner) in {(b.white, b.black) for b in ev.load(path).division().round(5).boards}
    before = ev.tiebreak_standings(ev.load(path), ev.load(path).division(), 3)

    def correct(e: ev.Event) -> list[str]:
        d = e.division()
        board = d.round(3).boards[0]
        new = Result.BLACK_WINS if board.result == "1-0" else Result.WHITE_WINS
        return ev.set_result(e, d, 3, board, new, correction=True)

    messages = ev.apply(path, correct)
    assert messages[-1].startswith("warning: rounds 4-5 were paired with the old result")
    after = ev.tiebreak_standings(ev.load(path), ev.load(path).division(), 3)
    assert [(s.player.number, s.points) for s in before] != [(s.player.number, s.points) for s in after]
    play(path, 5, rng)

    # Rounds 6 and 7: player 12 is still away in round 6 and back in round 7.
    pair_and_check(path, 6)
    assert ev.load(path).division().round(6).seat(12) is None
    play(path, 6, rng)
    pair_and_check(path, 7)
    assert ev.load(path).division().round(7).seat(12) is not None
    play(path, 7, rng)

    event = ev.load(path)
    d = event.division()
    with pytest.raises(StateError, match="all 7 rounds are paired"):
        ev.pair(event, d)
    table = ev.tiebreak_standings(event, d)
    assert len(table) == 30
    # Scores add up: every board gives out one point (forfeits and byes as scored).
    total = sum(s.points for s in table)
    boards = sum(len(r.boards) for r in d.rounds)
    byes = sum(event.scoring.points(ev.round_games(d, r)[p]) for r in d.rounds for p in r.byes)
    assert total == boards * 10 + byes
    # The withdrawn player scored nothing after round 3.
    withdrawn = next(s for s in table if s.player.number == 11)
    assert withdrawn.points == ev.score(event, d, 11, 3)
    ranks = [s.rank for s in table]
    assert ranks == sorted(ranks) and ranks[0] == 1
    # The journal kept every version.
    assert len([p for p in (tmp_path / "old").glob("open.*") if p.suffix in (".toml", ".delta")]) > 30


def test_unpairable_round_says_why(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    ev.create(path, ev.Event(name="Tiny", rounds=5, divisions=[ev.Division("A")]))
    for i in range(1, 5):

        def enter(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"P{i}", rating=2000 - i))

        ev.apply(path, enter)
    for n in (1, 2, 3):
        ev.apply(path, lambda e: ev.pair(e, e.division(), colour="white"))
        play(path, n, random.Random(n))
    before = path.read_bytes()
    with pytest.raises(PairingError, match="round 4 cannot be paired: all remaining opponents already met"):
        ev.apply(path, lambda e: ev.pair(e, e.division()))
    assert path.read_bytes() == before


def test_manual_division_and_withdrawal_rules() -> None:
    e = ev.Event(name="Manual", rounds=3, divisions=[ev.Division("M", system=ev.PairingSystem.MANUAL)])
    d = e.division()
    for i in range(1, 6):
        ev.add_player(e, d, ev.Player(i, f"M{i}"))
    ev.force(e, d, d.player(1), d.player(2))
    ev.force(e, d, d.player(3), d.player(4))
    with pytest.raises(StateError, match=r"1 player\(s\) have no game or bye in round 1: M5 \(5\)"):
        ev.pair(e, d)
    ev.request_bye(e, d, d.player(5), 1, ByeKind.ZERO)
    ev.pair(e, d)
    assert [(b.white, b.black) for b in d.round(1).boards] == [(1, 2), (3, 4)]
    ev.request_bye(e, d, d.player(2), 3, ByeKind.HALF)
    messages = ev.withdraw(d, d.player(2))
    assert "their requested bye in round 3 is cancelled" in messages
    assert [r.number for r in d.rounds] == [1], "round 3 held that bye alone: no record of it is left"
    with pytest.raises(StateError, match="already withdrawn"):
        ev.withdraw(d, d.player(2))
    ev.reinstate(d, d.player(2))
    assert d.player(2).plays(2)
    with pytest.raises(StateError, match="round 1 is already paired"):
        ev.withdraw(d, d.player(3), [1])


@pytest.mark.parametrize(
    ("typed", "stored"),
    [("=", "½-½"), ("1/2", "½-½"), ("W", "1-0"), ("0:1", "0-1"), ("+-", "+-"), ("Adjourned", "adj"), ("*", "*")],
)
def test_result_spellings(typed: str, stored: str) -> None:
    assert ev.parse_result(typed) == stored


def test_take_bye_without_a_bye_to_take_is_refused() -> None:
    """--take-bye was ignored in silence (the newcomer entered with zero-point byes) before round 1 was paired and
    once the round's bye game had a result."""
    event = ev.Event(name="S", rounds=3, divisions=[ev.Division("main")])
    d = event.division()
    for number in range(1, 6):
        ev.add_player(event, d, ev.Player(number, f"P{number}, X", rating=2000 - number))
    with pytest.raises(StateError, match=r"^--take-bye: no round is paired yet"):
        ev.add_player(event, d, ev.Player(6, "Late, X"), take_bye=True)
    ev.pair(event, d, colour="white")
    ev.set_result(event, d, 1, d.round(1).boards[0], Result.WHITE_WINS)
    with pytest.raises(StateError, match=r"^--take-bye: round 1 has results already, so its bye holder keeps"):
        ev.add_player(event, d, ev.Player(6, "Late, X"), take_bye=True)
    assert [p.number for p in d.players] == [1, 2, 3, 4, 5]


def test_the_baku_acceleration_needs_the_planned_rounds() -> None:
    """Without the event's rounds, round 1 alone was accelerated (its total taken as the rounds paired so far),
    whatever the event's length, and the TRF had no 142 to tell a checker."""
    event = ev.Event(name="Open", divisions=[ev.Division("main", acceleration=ev.Acceleration.BAKU)])
    d = event.division()
    for i in range(1, 9):
        ev.add_player(event, d, ev.Player(i, f"P{i}", rating=2000 - 10 * i))
    with pytest.raises(StateError, match=r"the Baku acceleration gives virtual points in the first half of the "
                                         r"planned rounds, and the event plans none \(plan them: tmanager event set "
                                         r"EVENT rounds=N\)$"):  # fmt: skip
        ev.pair(event, d, colour="white")
    event.rounds = 9
    assert "one virtual point in rounds 1-3, half a point in rounds 4-5" in " ".join(ev.pair(event, d, colour="white"))


def test_a_game_still_being_played_counts_as_nothing_yet_in_the_tie_breaks() -> None:
    """Mid-round, a game without its result counted in the tie-breaks as a game played and lost: one more black
    game (BPG) and round played (REP), a loss in the performance (TPR) and one more running score (PS). It counts
    as nothing until its result is in, but in Fore Buchholz, where the last round's games count as draws."""
    e = ev.Event(name="T", rounds=2, tiebreaks=["BH", "BPG", "REP", "TPR", "PS", "FB"], divisions=[ev.Division("M")])
    d = e.division()
    for number, rating in enumerate((2400, 2300, 2200, 2100), 1):
        ev.add_player(e, d, ev.Player(number, f"P{number}", rating=rating))
    ev.pair(e, d, colour="white")
    for board in d.round(1).boards:
        ev.set_result(e, d, 1, board, Result.WHITE_WINS)  # P1 beat P3, P4 beat P2 (both black)
    ev.pair(e, d)
    assert [(b.white, b.black) for b in d.round(2).boards] == [(4, 1), (2, 3)]
    ev.set_result(e, d, 2, d.round(2).boards[0], Result.DRAW)  # 2-3 is still being played
    values = {line.player.number: line.values for line in ev.tiebreak_standings(e, d)}
    # P3 lost round 1 with black to P1 (1½ now), P2 to P4 (1½); round 2 not counted yet, but in FB, as a draw.
    assert values[3] == (1.5, 1.0, 1.0, 1600.0, 0.0, 2.0)
    assert values[2] == (1.5, 1.0, 1.0, 1300.0, 0.0, 2.0)
    ev.set_result(e, d, 2, d.round(2).boards[1], Result.BLACK_WINS)
    values = {line.player.number: line.values for line in ev.tiebreak_standings(e, d)}
    assert values[3][:5] == (1.5, 2.0, 2.0, 2350.0, 1.0), "the game counts once its result is in"


def test_de_is_blank_in_a_groups_list_for_a_player_it_ties_with_nobody() -> None:
    """DE is the place among the tied players, blank outside a tie: in a category's or flag's list, a player tied
    overall only with players outside the group showed their 0 (not separated) alone; players tied within the
    group keep it."""
    e = ev.Event(name="T", rounds=2, tiebreaks=["DE"], divisions=[ev.Division("M")])
    d = e.division()
    for number, rating in enumerate((2400, 2300, 2200, 2100), 1):
        ev.add_player(e, d, ev.Player(number, f"P{number}", rating=rating, flags=["x"] if number in (1, 2) else []))
    ev.pair(e, d, colour="white")
    for board in d.round(1).boards:
        ev.set_result(e, d, 1, board, Result.WHITE_WINS)  # P1 beat P3, P4 beat P2: P1 and P4 tie, never met
    overall = {line.player.number: line.values for line in ev.tiebreak_standings(e, d)}
    assert overall[1] == overall[4] == (0.0,) and overall[2] == overall[3] == (0.0,)
    group = {line.player.number: line.values for line in ev.tiebreak_standings(e, d, among=flag(d, "x"))}
    assert group == {1: (None,), 2: (None,)}
    d.player(3).flags = ["x"]
    group = {line.player.number: line.values for line in ev.tiebreak_standings(e, d, among=flag(d, "x"))}
    assert group == {1: (None,), 2: (0.0,), 3: (0.0,)}, "P2 and P3 tie in the group: their DE stays"
