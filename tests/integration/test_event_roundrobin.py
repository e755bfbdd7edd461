"""A 10-player double round robin by the Berger tables: pairings, colours reversed in the second cycle."""

from __future__ import annotations

import random
from pathlib import Path

from tests.conftest import run_cli
from tmanager.core.results import Result
from tmanager.events import api as ev
from tmanager.pairing import round_robin


def test_double_round_robin(tmp_path: Path) -> None:
    path = tmp_path / "club.toml"
    created = run_cli("event", "new", path, "--name", "Club RR", "--system", "round-robin", "--cycles", "2")
    assert created.returncode == 0, created.stderr
    for i in range(1, 11):
        added = run_cli("event", "add-player", path, f"Member{i:02d}, Club", "--rating", str(1500 + 10 * i))
        assert added.returncode == 0, added.stderr
    rng = random.Random(7)
    for n in range(1, 19):

        def step(e: ev.Event, n: int = n) -> list[str]:
            d = e.division()
            messages = ev.pair(e, d)
            for board in d.round(n).boards:
                result = rng.choice([Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW])
                messages += ev.set_result(e, d, n, board, result)
            return messages

        ev.apply(path, step)
    event = ev.load(path)
    d = event.division()
    assert event.total_rounds(d) == 18 and d.paired_rounds == 18
    games: dict[frozenset[int], list[tuple[int, int, int]]] = {}
    colours: dict[int, list[str]] = {p.number: [] for p in d.players}
    for r in d.rounds:
        assert [(b.white, b.black) for b in r.boards] == list(round_robin(10, r.number, cycles=2).boards)
        assert len(r.boards) == 5 and not r.byes
        for b in r.boards:
            games.setdefault(frozenset((b.white, b.black)), []).append((r.number, b.white, b.black))
            colours[b.white].append("w")
            colours[b.black].append("b")
    assert len(games) == 45
    for meetings in games.values():
        (first_round, w1, b1), (second_round, w2, b2) = sorted(meetings)
        assert first_round <= 9 < second_round
        assert (w2, b2) == (b1, w1), "the second cycle reverses the colours"
    for sequence in colours.values():
        assert sequence.count("w") == 9
        text = "".join(sequence)
        assert "www" not in text and "bbb" not in text

    standings = run_cli("event", "standings", path)
    assert standings.returncode == 0, standings.stderr
    lines = standings.stdout.split("\n\n")[0].splitlines()
    assert lines[0] == "Club RR, division main: standings after round 18"
    assert len(lines) == 12
    total = sum(s.points for s in ev.tiebreak_standings(event, d))
    assert total == 90 * 10


def test_round_robin_withdrawal_forfeits_remaining_games(tmp_path: Path) -> None:
    path = tmp_path / "rr.toml"
    ev.create(path, ev.Event(name="RR", divisions=[ev.Division("A", system=ev.PairingSystem.ROUND_ROBIN)]))
    for i in range(1, 6):

        def enter(e: ev.Event, i: int = i) -> list[str]:
            return ev.add_player(e, e.division(), ev.Player(i, f"P{i}"))

        ev.apply(path, enter)
    ev.apply(path, lambda e: ev.pair(e, e.division()))
    d = ev.load(path).division()
    assert len(d.round(1).boards) == 2 and list(d.round(1).byes.values()) == ["zero"]
    ev.apply(path, lambda e: ev.withdraw(e.division(), e.division().player(2)))

    def draw_all(e: ev.Event) -> list[str]:
        d = e.division()
        r = d.round(d.paired_rounds)
        return [m for b in r.boards if b.result == "*" for m in ev.set_result(e, d, r.number, b, Result.DRAW)]

    forfeits = []
    for _ in range(4):
        ev.apply(path, draw_all)
        ev.apply(path, lambda e: ev.pair(e, e.division()))
        d = ev.load(path).division()
        board = d.round(d.paired_rounds).seat(2)
        if board is not None:
            forfeits.append(board.result == ("-+" if board.white == 2 else "+-"))
    assert forfeits and all(forfeits), "player 2's games after the withdrawal are forfeits"
