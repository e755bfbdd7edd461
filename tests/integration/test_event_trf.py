"""TRF export and import of events: the round trip, the checker, a TRF from another program."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_event_scored import ok
from tmanager.core.prizes import Sharing
from tmanager.core.results import ByeKind, Result, TrfResult
from tmanager.errors import ConfigError
from tmanager.events import api as ev
from tmanager.events import trffile as event_trf
from tmanager.events.games import virtual_points
from tmanager.events.model import PrizeFund
from tmanager.events.registration import assign_start_numbers
from tmanager.events.rules.chess import random_result
from tmanager.events.trffile.typecodes import read_type_code
from tmanager.formats import trf, trf_records
from tmanager.formats.trf import Version as TrfVersion
from tmanager.pairing import Game

DATA = ROOT / "tests" / "data" / "bbp"


def scripted_event(seed: int, players: int = 15, rounds: int = 5, *, played: int | None = None,
                   baku: bool = False) -> ev.Event:  # fmt: skip
    """A Dutch event paired by tmanager (``played`` of its ``rounds``, Baku-accelerated with ``baku``): a requested
    bye, a forfeit, a withdrawal, unrated players, flags."""
    rng = random.Random(seed)
    division = ev.Division("Open", acceleration=ev.Acceleration.BAKU if baku else ev.Acceleration.NONE)
    e = ev.Event(name="Scripted", site="Delft", start="2026-03-01", end="2026-03-03", arbiter="Arbiter, A",
                 rounds=rounds, divisions=[division])  # fmt: skip
    d = e.division()
    for i in range(1, players + 1):
        rating = rng.randrange(1300, 2400) if i % 6 else 0
        flags = ["junior"] if i % 4 == 0 else ["woman"] if i % 5 == 0 else []
        birth = f"2010-05-0{1 + i % 9}" if i % 4 == 0 else ""
        player = ev.Player(i, f"Surname{i:02d}, Given", rating=rating, federation="NED", flags=flags, birth=birth)
        player.club = "Club" if i % 3 else ""
        ev.add_player(e, d, player)
    for n in range(1, (played or rounds) + 1):
        if n == 2:
            ev.request_bye(e, d, d.player(3), 2, ByeKind.HALF)
        if n == 3:
            ev.withdraw(d, d.player(9))
        ev.pair(e, d, rng=rng)
        for i, board in enumerate(d.round(n).boards):
            result = (
                Result.WHITE_WINS_BY_FORFEIT
                if (n, i) == (2, 1)
                else random_result(d.player(board.white).rating, d.player(board.black).rating, rng)
            )
            ev.set_result(e, d, n, board, result)
    return e


def test_round_trip_of_the_examples_and_a_scripted_event() -> None:
    events = [ev.load(ROOT / "tourneys" / "events" / name) for name in ("small-open.toml", "club-rr.toml")]
    events.append(scripted_event(1))
    # The prize fund was left out of the XTM lines: the event came back without it.
    funded = scripted_event(2)
    funded.division().prize_fund = PrizeFund({"overall": (100000, 50050), "U18": (15000,)}, Sharing.HORT,
                                                ["U18"], "EUR")  # fmt: skip
    events.append(funded)
    for e in events:
        for version in event_trf.Version:
            back = event_trf.loads(event_trf.dumps(e, e.division(), version=version))
            assert ev.dumps(back) == ev.dumps(e)
        text = event_trf.dumps(e, e.division())
        # The file is a TRF the pairing reader takes: points columns checked against the results. A round in
        # progress (small-open's round 2) is left out of the player lines: every game there has its result.
        tournament = trf.parse(text)
        assert len(tournament.players) == len(e.division().players)
        assert tournament.played_rounds == event_trf.complete_rounds(e.division())
    assert event_trf.complete_rounds(events[0].division()) == 1 and events[0].division().paired_rounds == 2


def test_starting_ranks_are_player_numbers_listed_in_pairing_order(tmp_path: Path) -> None:
    """The numbers printed everywhere are the TRF's; players numbered by entry are listed in pairing order."""
    e = ev.load(ROOT / "tourneys" / "events" / "small-open.toml")
    d = e.division()
    text = event_trf.dumps(e, d)
    tournament = trf.parse(text)
    assert tournament.by_rank and "XXC rank" in text.splitlines()
    ranks = d.ranks()
    assert [p.id for p in tournament.players] == sorted(ranks, key=ranks.__getitem__)
    complete = event_trf.complete_rounds(d)
    in_progress = ev.round_games(d, d.round(complete + 1))
    for line in tournament.players:
        p = d.player(line.id)
        assert line.name == p.name and line.rating == p.rating
        # A requested bye or an absence of the round in progress follows the complete rounds (pairing programs
        # leave such a player out of that round) and counts in the points; games and the pairing bye do not.
        game = in_progress.get(p.number)
        sits_out = game is not None and game.opponent is None and game.result is not TrfResult.PAIRING_BYE
        sitting_out = (game,) if game is not None and sits_out else ()
        assert line.games[complete:] == sitting_out
        assert line.points == ev.score(e, d, p.number, complete) + sum(e.scoring.points(g) for g in sitting_out)
    mulder = next(line for line in tournament.players if line.id == 7)  # a half-point bye in round 2
    assert mulder.games[complete:] == (Game(None, None, TrfResult.HALF_BYE),)
    # Late entry Dekker (number 10, 2001) is 6th by rating: starting rank 10, the sixth line.
    assert tournament.players[5].id == 10 and tournament.players[5].name == "Dekker, Ruben"
    # With start numbers the numbers are the pairing order: no XXC rank, lines by number.
    assign_start_numbers(d)
    numbered = trf.parse(event_trf.dumps(e, d))
    assert not numbered.by_rank and [p.id for p in numbered.players] == list(range(1, 11))
    assert numbered.players[5].name == "Dekker, Ruben"


@pytest.mark.parametrize(("version", "line"), [(event_trf.Version.TRF_16, "122 40/6000+30:900+30"),
                                                (event_trf.Version.TRF_2026, "222 40/6000+30:900+30")])
def test_the_time_control_in_both_versions(version: event_trf.Version, line: str) -> None:
    """TRF-16 has no 222: its time control is the free text of 122, which the export left out."""
    e = scripted_event(1, players=6, rounds=2)
    e.time_control = "40/6000+30:900+30"
    e.schedule = ["2026-03-01 10:00", "2026-03-02 10:00"]
    text = event_trf.dumps(e, e.division(), version=version)
    codes = [row[:3] for row in text.splitlines()]
    assert line in text.splitlines() and codes.index("102") < codes.index(line[:3])
    assert ("122" in codes) == (version == "16") and (version == "2026" or codes.index("122") < codes.index("132"))
    assert event_trf.dumps(event_trf.loads(text), event_trf.loads(text).division(), version=version) == text


def test_a_tie_break_not_fides_is_written_as_mtb26_says() -> None:
    """202 wrote Chaos's EBH as a FIDE code; MTB26 writes a tie-break of another kind with the prefix OTHER_."""
    e = scripted_event(1, players=6, rounds=2)
    e.tiebreaks = ["BH-C1", "EBH", "KS-L60"]
    text = event_trf.dumps(e, e.division())
    assert "202 BH/C1,OTHER_EBH,KS/L60" in text.splitlines()
    foreign = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("XTM"))
    assert event_trf.loads(foreign).tiebreaks == ["BH-C1", "EBH", "KS-L60"]


def test_an_export_without_the_rounds_dates_warns_of_its_132_line(tmp_path: Path) -> None:
    """FIDE's rating server takes a rated event's round dates from TRF's 132 line, which the export wrote only from
    the schedule, and left out without a word when the event had none."""
    path = tmp_path / "open.toml"
    e = scripted_event(2, players=10, rounds=3)
    ev.create(path, e)
    out = tmp_path / "open.trf"
    done = run_cli("event", "export-trf", path, out)
    assert done.returncode == 0 and out.exists(), done.stderr
    assert done.stderr == (
        f"warning: {path}: event.schedule: no round dates, so the TRF's 132 line misses rounds a rating officer "
        f'needs (tmanager event set {path} "schedule=YYYY-MM-DD HH:MM,…", round 1 first)\n'
    )
    assert run_cli("event", "set", path, "schedule=2026-03-01 10:00").returncode == 0  # what the hint says
    done = run_cli("event", "export-trf", path, out)
    assert "event.schedule: dates for 1 of the 3 rounds paired, so" in done.stderr
    assert run_cli("event", "set", path, "schedule=2026-03-01 10:00,2026-03-02 10:00,2026-03-03 10:00").returncode == 0
    done = run_cli("event", "export-trf", path, out)
    assert done.returncode == 0 and done.stderr == ""
    assert "26/03/01  26/03/02  26/03/03" in out.read_text(encoding="utf-8")


def test_cli_round_trip_and_checker(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ev.create(path, scripted_event(2, players=16, rounds=6))
    out = tmp_path / "open.trf"
    done = run_cli("event", "export-trf", path, out)
    assert done.returncode == 0, done.stderr
    copy = tmp_path / "copy.toml"
    done = run_cli("event", "import-trf", copy, out)
    assert done.returncode == 0, done.stderr
    assert copy.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    # tmanager's own checker re-pairs every round of the export: no discrepancy.
    check = run_cli("pair", "--dutch", out, "-c")
    assert check.returncode == 0, check.stderr
    report = [line for line in check.stdout.splitlines() if not line.startswith("open: Round #")]
    assert check.stdout.count("Round #") == 6
    assert report == []
    # Importing onto an existing file is refused.
    assert run_cli("event", "import-trf", copy, out).returncode == 2


#: Players entered with numbers of their own: 3, 6, 10 and 13 are nobody's (entries taken back before round 1).
GAPPED = {1: ("Anand, Vis", 2500), 2: ("Berg, Bo", 2100), 4: ("Carlsen, Cas", 2300), 5: ("Dekker, Dora", 1900),
          7: ("Eriksen, Emil", 2000), 8: ("Fischer, Fay", 1800), 9: ("Gunsberg, Gus", 0), 11: ("Huber, Hal", 2200),
          12: ("Ivanov, Ivo", 1700), 14: ("Jansen, Jan", 1600)}  # fmt: skip


def enter_players(path: Path, players: Mapping[int, tuple[str, int]]) -> None:
    """Enter players, by number, with `event import-players` from a CSV file."""
    entries = path.with_name("entries.csv")
    rows = "".join(f'{n},"{name}",{rating or ""}\n' for n, (name, rating) in players.items())
    entries.write_text("number,name,rating\n" + rows, encoding="utf-8")
    ok("import-players", path, entries)


def gapped_event(tmp_path: Path) -> Path:
    """A Baku-accelerated open of players numbered with gaps, made with `tmanager event`: a forbidden pair,
    requested byes, rounds 1-2 played, round 3 in progress (one result in) and a bye requested for round 4."""
    path = tmp_path / "gaps.toml"
    ok("new", path, "--name", "Gaps", "--rounds", "4", "--set", "acceleration=baku")
    enter_players(path, GAPPED)
    ok("forbid", path, "4", "8")
    ok("bye", path, "5", "--round", "2")
    ok("bye", path, "11", "--round", "3")
    ok("bye", path, "2", "--round", "4", "--kind", "zero")
    for n in (1, 2, 3):
        ok("pair", path, *(("--colour", "white") if n == 1 else ()))
        boards = len(ev.load(path).division().round(n).boards) if n < 3 else 1
        for board in range(1, boards + 1):
            ok("result", path, str(board), ("1-0", "=", "0-1")[board % 3])
    return path


def xtm_numbers(text: str) -> dict[int, int]:
    """Each starting rank's player number, as the file's XTM player lines give it."""
    players = [line.split(" ", 3)[2:] for line in text.splitlines() if line.startswith("XTM player ")]
    return {int(rank): json.loads(data).get("number", int(rank)) for rank, data in players}


def test_numbers_with_gaps_are_written_as_starting_ranks_1_to_n(tmp_path: Path) -> None:
    """The player numbers were the TRF's starting ranks, gaps and all (1, 2, 4, 5, 7…): pairing programs take
    starting ranks 1..N only (bbpPairings refuses the file), so an event with an entry taken back could be neither
    submitted nor re-paired from its export. The starting ranks are now 1..N in the numbers' order, every reference
    to a player in the file is by them, and `import-trf` gives the numbers back from the XTM player lines."""
    path = gapped_event(tmp_path)
    e = ev.load(path)
    d = e.division()
    for version in event_trf.Version:
        out = tmp_path / f"gaps-{version}.trf"
        ok("export-trf", path, out, "--version", version)
        text = out.read_text(encoding="utf-8")
        tournament = trf.parse(text)
        assert sorted(p.id for p in tournament.players) == list(range(1, len(GAPPED) + 1))
        assert f"062 {len(GAPPED)}" in text.splitlines()
        number = xtm_numbers(text)
        assert sorted(number.values()) == sorted(GAPPED), "the XTM player lines name every player's number"
        rank = {n: r for r, n in number.items()}
        assert [number[p.id] for p in tournament.players] == sorted(d.ranks(), key=d.ranks().__getitem__)
        assert all(p.name == GAPPED[number[p.id]][0] for p in tournament.players)
        # The round entries name opponents by starting rank; a requested bye of round 3 (in progress) follows.
        for n in (1, 2):
            games = ev.round_games(d, d.round(n))
            for p in tournament.players:
                game = games[number[p.id]]
                opponent = None if game.opponent is None else rank[game.opponent]
                assert p.games[n - 1] == dataclasses.replace(game, opponent=opponent), (version, n, p.id)
        assert next(p for p in tournament.players if p.id == rank[11]).games[2:] == (
            Game(None, None, TrfResult.HALF_BYE),
        )
        # The records: the forbidden pair (260/XXP), the virtual points (250/XXA), the requested byes (240).
        assert tournament.forbidden == (frozenset({rank[4], rank[8]}),)
        for p in tournament.players:
            virtual = tuple(virtual_points(e, d, n).get(number[p.id], 0) for n in range(1, 5))
            assert tournament.acceleration(p.id, 4) == virtual, (version, p.id)
        byes = {(b.round, b.kind, p) for b in tournament.values(trf_records.BYES) for p in b.players}
        assert byes == (set() if version == "16" else {(3, "H", rank[11]), (4, "Z", rank[2])})
        # The checker re-pairs rounds 1 and 2 as the event did, and pairs round 3 as the event did too.
        check = run_cli("pair", "--dutch", out, "-c")
        assert check.returncode == 0, check.stderr
        assert check.stdout.count("Round #") == 2, check.stdout
        assert [line for line in check.stdout.splitlines() if "Round #" not in line] == [], check.stdout
        paired = run_cli("pair", "--dutch", out, "-p")
        assert paired.returncode == 0, paired.stderr
        pairs = [tuple(number.get(int(x), 0) for x in row.split()) for row in paired.stdout.splitlines()[1:]]
        third = d.round(3)
        holder = next(n for n, kind in third.byes.items() if kind == ByeKind.PAIRING)
        assert sorted(pairs) == sorted([(b.white, b.black) for b in third.boards] + [(holder, 0)])
        # Re-imported, the event is the same, numbers and all; without the XTM lines (another program's file)
        # the players are numbered by starting rank, as before.
        copy = tmp_path / f"copy-{version}.toml"
        ok("import-trf", copy, out)
        assert copy.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
        foreign = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("XTM"))
        players = event_trf.loads(foreign).division().players
        assert sorted((p.number, p.name) for p in players) == sorted((rank[n], v[0]) for n, v in GAPPED.items())


BBPPAIRINGS = shutil.which(os.environ.get("BBPPAIRINGS", "bbpPairings"))


@pytest.mark.parametrize("version", ["16", "2026"])
def test_accelerated_export_is_re_paired_exactly(tmp_path: Path, version: str) -> None:
    """A Baku-accelerated open exported as TRF-16 carries its virtual points in XXA lines (as 250 records in
    TRF-2026): the checkers re-pair every accelerated round as the event did. bbpPairings' -c runs too where it is
    installed (BBPPAIRINGS names the binary; CI has none)."""
    path = tmp_path / "baku.toml"
    ev.create(path, scripted_event(5, players=30, rounds=9, played=6, baku=True))
    out = tmp_path / "baku.trf"
    assert run_cli("event", "export-trf", path, out, "--version", version).returncode == 0
    lines = out.read_text().splitlines()
    accelerated = [line for line in lines if line.startswith("XXA" if version == "16" else "250")]
    assert accelerated
    if version == "16":
        # Group A (the first 2 x ceil(30 / 4) = 16 of the pairing order): one point in rounds 1-3, half in 4-5.
        assert len(accelerated) == 16
        assert accelerated[0][8:] == "  1.0  1.0  1.0  0.5  0.5  0.0  0.0  0.0  0.0"
    check = run_cli("pair", "--dutch", out, "-c")
    assert check.returncode == 0, check.stderr
    assert check.stdout.count("Round #") == 6
    assert [line for line in check.stdout.splitlines() if "Round #" not in line] == []
    if BBPPAIRINGS is None:
        return
    bbp = subprocess.run([BBPPAIRINGS, "--dutch", str(out), "-c"], capture_output=True, text=True, check=False)
    assert bbp.returncode == 0, bbp.stdout + bbp.stderr
    assert [line for line in bbp.stdout.splitlines() if "Round #" not in line and line.strip()] == []


@pytest.mark.parametrize("version", ["16", "2026"])
def test_the_next_rounds_byes_and_withdrawals_are_in_the_file(tmp_path: Path, version: str) -> None:
    """Between rounds, the players the next round leaves out (a requested bye, a withdrawal) have its entry in the
    file (``0000 - H``, ``0000 - -``), so that a pairing program pairs it as tmanager does: before, `pair --dutch
    -p` and bbpPairings paired the withdrawn player and the one who asked for a bye. The finished event's file
    shows no round it did not play."""
    path = tmp_path / "open.toml"
    e = scripted_event(7, players=20, rounds=5, played=3)
    ev.request_bye(e, e.division(), e.division().player(4), 4, ByeKind.HALF)
    ev.create(path, e)
    out = tmp_path / "open.trf"
    assert run_cli("event", "export-trf", path, out, "--version", version).returncode == 0
    start = 89 + 10 * 3  # the entry of round 4, after its two blanks
    line = {int(x[4:8]): x for x in out.read_text().splitlines() if x.startswith("001")}
    assert line[4][start:start + 10] == "  0000 - H" and line[9][start:start + 10] == "  0000 - -"
    # Another program's file says the same without tmanager's XTM lines: import-trf dropped it.
    foreign = event_trf.loads("\n".join(x for x in out.read_text().splitlines() if not x.startswith("XTM")))
    assert foreign.division().round(4).byes == {4: ByeKind.HALF}
    assert [p.number for p in foreign.division().players if 4 in p.absent] == [9]
    programs = [[sys.executable, "-m", "tmanager", "pair"]] + ([[BBPPAIRINGS]] if BBPPAIRINGS else [])
    d = e.division()
    ev.pair(e, d)
    ours = sorted(f"{b.white} {b.black}" for b in d.round(4).boards) + [f"{n} 0" for n, k in d.round(4).byes.items()
                                                                           if k is ByeKind.PAIRING]  # fmt: skip
    for program in programs:
        done = subprocess.run([*program, "--dutch", str(out), "-p"], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        assert sorted(done.stdout.split("\n")[1:-1]) == sorted(ours), program
    for n in (4, 5):
        for board in d.round(n).boards:
            ev.set_result(e, d, n, board, Result.DRAW)
        if n == 4:
            ev.pair(e, d)
    final = tmp_path / "final.toml"
    ev.create(final, e)
    assert run_cli("event", "export-trf", final, out, "--version", version).returncode == 0
    assert max(len(x) for x in out.read_text().splitlines() if x.startswith("001")) <= 91 + 10 * 5


@pytest.mark.parametrize("version", [event_trf.Version.TRF_16, event_trf.Version.TRF_2026])
def test_another_programs_accelerated_file(version: event_trf.Version) -> None:
    """A TRF without tmanager's XTM lines keeps its acceleration: TRF-16's XXA lines were not read at all (the
    event was imported unaccelerated), and 250 records were taken for Baku's whatever they said."""
    e = scripted_event(5, players=30, rounds=9, played=2, baku=True)
    d = e.division()
    text = event_trf.dumps(e, d, version=version)
    foreign = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("XTM"))
    imported = event_trf.loads(foreign)
    other = imported.division()
    assert (other.acceleration, other.baku_last) == ("baku", d.baku_last)
    for n in range(1, 10):
        assert virtual_points(imported, other, n) == virtual_points(e, d, n), n
    if version == "2026":
        other_method = foreign.replace("250       1.0 001 001    1    3", "250       2.0 001 001    1    3")
        with pytest.raises(ConfigError, match=r"virtual points \(250/XXA\): they are not the Baku method's"):
            event_trf.loads(other_method)


def test_a_bye_requested_beyond_the_last_round_is_refused() -> None:
    """A 240 record of round 999 in a 5-round file made an event with a round 999 nothing would ever pair."""
    text = (DATA / "random-5.trf").read_text() + "240 H 999    1\n"
    with pytest.raises(ConfigError, match="round 999 holds requests but the event has 5 rounds"):
        event_trf.loads(text)


def foreign_line(rank: int, sex: str, name: str, rating: str, fed: str, fide_id: str, birth: str, points: str,
                 rounds: list[str]) -> str:  # fmt: skip
    """A player line laid out by the TRF-16 columns, as another program writes it."""
    head = f"001 {rank:4d} {sex}    {name:33} {rating:>4} {fed:3} {fide_id:>11} {birth:10} {points:>4} {rank:4d}"
    return "  ".join([head, *rounds])


FOREIGN = "\n".join([
    "012 Club Championship", "042 2025/01/10", "XXR 3",
    foreign_line(1, "m", "Alpha, Anna", "2100", "GER", "4100001", "1990/01/01", "2.0", ["   3 w 1", "   2 b 1"]),
    foreign_line(2, "w", "Beta, Berta", "2000", "GER", "4100002", "2001/00/00", "1.0", ["   4 b 1", "   1 w 0"]),
    foreign_line(3, "m", "Gamma, Gert", "1900", "GER", "", "", "0.5", ["   1 b 0", "0000 - H"]),
    foreign_line(4, " ", "Delta, Dirk", "", "", "", "", "0.0", ["   2 w 0", "0000 - -"]),
]) + "\n"  # fmt: skip


def test_trf_from_another_program() -> None:
    e = event_trf.loads(FOREIGN)
    d = e.division()
    assert (e.name, e.start, e.rounds) == ("Club Championship", "2025-01-10", 3)
    assert [(p.number, p.name, p.rating, p.fide_id, p.birth, p.sex) for p in d.players] == [
        (1, "Alpha, Anna", 2100, 4100001, "1990-01-01", "m"),
        (2, "Beta, Berta", 2000, 4100002, "2001", "w"),
        (3, "Gamma, Gert", 1900, None, "", "m"),
        (4, "Delta, Dirk", 0, None, "", ""),
    ]
    assert d.start_numbers, "a foreign file's starting ranks are its pairing numbers"
    assert [(b.white, b.black, b.result) for b in d.round(1).boards] == [(1, 3, "1-0"), (4, 2, "0-1")]
    assert [(b.white, b.black, b.result) for b in d.round(2).boards] == [(2, 1, "0-1")]
    assert d.round(2).byes == {3: "half"}
    assert ev.score(e, d, 3) == 5


@pytest.mark.parametrize("zero", ["0", "00000000"])
def test_a_fide_id_0_is_none_and_written_back_blank(zero: str) -> None:
    """Several programs write 0 for "no FIDE ID": the whole file was refused ('0 is not a FIDE ID'). Read as none,
    it is written back blank, as FIDE's files leave it."""
    lines = FOREIGN.splitlines()
    lines[5] = lines[5][:57] + f"{zero:>11}" + lines[5][68:]
    e = event_trf.loads("\n".join(lines) + "\n")
    d = e.division()
    assert [p.fide_id for p in d.players] == [4100001, 4100002, None, None]
    written = next(line for line in event_trf.dumps(e, d, version=TrfVersion.TRF_16).splitlines()
                   if line.startswith("001    3"))  # fmt: skip
    assert written[57:68] == " " * 11


def test_the_212_tie_breaks_and_fides_double_swiss_code() -> None:
    """TRF-2026's 212 (202 with PTS first) was not read: a file giving only 212 lost its tie-breaks; and 192's
    FIDE_DOUBLESWISS made a manual division of a Double-Swiss, with its 142 rounds taken for matches."""
    e = event_trf.loads(FOREIGN.replace("XXR 3\n", "XXR 3\n212 PTS,BH/C1,ARO/U1400\n"))
    assert e.tiebreaks == ["BH-C1", "ARO-U1400"]
    e = event_trf.loads(FOREIGN.replace("XXR 3\n", "XXR 3\n202 SB\n212 PTS,BH/C1\n"))
    assert e.tiebreaks == ["SB"], "202 says how ties are broken; 212 only when 202 is absent"
    double = "\n".join([  # the first match (rounds 1 and 2, colours reversed) of two
        "012 Double", "142 4", "192 FIDE_DOUBLESWISS",
        foreign_line(1, "m", "Alpha, Anna", "2100", "GER", "", "", "1.5", ["   3 w 1", "   3 b ="]),
        foreign_line(2, "w", "Beta, Berta", "2000", "GER", "", "", "1.0", ["   4 b =", "   4 w ="]),
        foreign_line(3, "m", "Gamma, Gert", "1900", "GER", "", "", "0.5", ["   1 b 0", "   1 w ="]),
        foreign_line(4, "m", "Delta, Dirk", "1800", "GER", "", "", "1.0", ["   2 w =", "   2 b ="]),
    ]) + "\n"  # fmt: skip
    e = event_trf.loads(double)
    assert (e.division().system, e.rounds) == (ev.PairingSystem.DOUBLE_SWISS, 2)


@pytest.mark.parametrize(
    ("code", "says"),
    [
        ("FIDE_DUTCH_2017", "FIDE_DUTCH_2017 is the Dutch system by its rules of 2017, which tmanager does not pair"),
        ("FIDE_DUBOV", "FIDE_DUBOV is the Dubov system, which tmanager does not pair"),
        ("FIDE_BURSTEIN_BAKU", "FIDE_BURSTEIN_BAKU is the Burstein system, which tmanager does not pair"),
        ("FIDE_TEAM_TYPEB_MP_GP", "FIDE_TEAM_TYPEB_MP_GP is the Swiss team system with Type B colour preferences"),
        ("FIDE_TEAM_MP_GP", "FIDE_TEAM_MP_GP is the Swiss team system with no colour preference type"),
        ("FIDE_SCHEVENINGEN", "FIDE_SCHEVENINGEN is a Scheveningen tournament, which tmanager does not pair"),
        ("FIDE_DOUBLESWISS_BAKU", "FIDE_DOUBLESWISS_BAKU: tmanager accelerates the Dutch system only"),
        ("FIDE_DUTHC", "'FIDE_DUTHC' is no tournament-type code"),
    ],
)
def test_192_codes_of_systems_tmanager_does_not_pair_are_refused(tmp_path: Path, code: str, says: str) -> None:
    """192 was read by prefix, the rest taken as manual: FIDE_DUTCH_2017 became a Dutch division paired on by the
    2025 rules, FIDE_TEAM_TYPEB_… a team Swiss paired with Type A colours, Dubov, Burstein, a Scheveningen or a
    typing slip a manual division, all without a word. Each is now refused in one line naming the code, what it
    is and what tmanager pairs, and nothing is written."""
    trf_file = tmp_path / "foreign.trf"
    trf_file.write_text(FOREIGN.replace("XXR 3\n", f"XXR 3\n192 {code}\n"))
    done = run_cli("event", "import-trf", tmp_path / "copy.toml", trf_file)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"{trf_file}: 192: {says}" in done.stderr and "CUSTOM_SWISS" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "copy.toml").exists()


def test_192_codes_tmanager_pairs() -> None:
    """The codes of FIDE's table that tmanager pairs, read exactly: cycles from a Berger code's _Gn, the Baku
    acceleration, a team's primary score from _GP alone too (FIDE_TEAM_TYPEA_GP ranked by match points)."""

    def system(code: str) -> tuple[ev.PairingSystem, int, str]:
        d = event_trf.loads(FOREIGN.replace("XXR 3\n", f"XXR 3\n192 {code}\n")).division()
        return d.system, d.cycles, d.acceleration

    assert system("FIDE_DUTCH") == system("FIDE_DUTCH_2026") == (ev.PairingSystem.DUTCH, 1, "")
    assert system("fide_dutch_2025_baku") == (ev.PairingSystem.DUTCH, 1, "baku")
    assert system("CUSTOM_SWISS") == system("CUSTOM_DOUBLESWISS") == (ev.PairingSystem.MANUAL, 1, "")
    assert system("FIDE_ROUNDROBIN")[:2] == (ev.PairingSystem.ROUND_ROBIN, 1)
    assert system("BERGER_DOUBLEROUNDROBIN")[:2] == system("BERGER_ROUNDROBIN_G2")[:2] == (
        ev.PairingSystem.ROUND_ROBIN, 2
    )
    assert read_type_code("FIDE_TEAM_TYPEA_GP", file=None).primary == "game"
    assert read_type_code("FIDE_TEAM_TYPEA_MP_GP", file=None).primary == "match"
    assert read_type_code("CUSTOM_TEAM_SWISS_GP", file=None).system == ev.PairingSystem.MANUAL


def test_titles_in_trf06_letters_and_a_sex_in_capitals() -> None:
    """A title as TRF-06 writes it (``g``, ``wg``, as older programs still do) refused the whole file ('G' is not
    a FIDE title), and a sex in capitals (``M``) was dropped: both read as TRF-16 writes them."""
    lines = FOREIGN.splitlines()
    lines[3] = lines[3][:9] + "Mg  " + lines[3][13:]
    lines[4] = lines[4][:9] + "wwg " + lines[4][13:]
    d = event_trf.loads("\n".join(lines) + "\n").division()
    assert [(p.sex, p.title) for p in d.players[:2]] == [("m", "GM"), ("w", "WGM")]


def test_malformed_xtm_line_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trf"
    bad.write_text(FOREIGN.replace("XXR 3\n", "XXR 3\nXTM player 1 {not json\n"))
    with pytest.raises(ConfigError, match="bad XTM player line"):
        event_trf.read(bad)


#: ``XTM`` lines of tmanager's own export edited by hand: JSON, but not of the shape tmanager writes. Each
#: ended `event import-trf` in a traceback (AttributeError, TypeError, IndexError, ValueError).
XTM_EDITS = [
    ("XTM player 3 {}", "XTM player 3 5", "XTM player 3: must be an object"),
    ("XTM event {", 'XTM event 5\nXTM x {', "XTM event: must be an object"),
    ('XTM round 1 {"boards":', 'XTM round 1 {"adjourned":[99],"boards":',
     "XTM round 1.adjourned: round 1 has no board 99 (list boards 1 to 3)"),
    # Named no file ('tmanager: round 1: …') and said not how to mend it.
    ('XTM round 1 {"boards":[[4,2],', 'XTM round 1 {"boards":[',
     "XTM round 1: its board list does not match the player lines' games of the round (make the XTM round's "
     "boards the games of the 001 lines, or take the XTM lines out to read the player lines alone)"),
    ('XTM round 1 {"boards":', 'XTM round 1 {"adjourned":5,"boards":', "XTM round 1.adjourned: must be list"),
    ('XTM round 1 {"boards":', 'XTM round 1 {"forced":[[1]],"boards":', "XTM round 1.forced: [1] is not 2 values"),
    ('"byes":[[3,"half"]', '"byes":[[3,"x"]', "XTM round 2.byes: 'x' is not a bye"),
    ('XTM round 1 {"boards":', 'XTM round 1 {"boards":5,"x":', "XTM round 1.boards: must be list, not 5"),
    ('XTM round 1 {"boards":', 'XTM round 1 {"boards":[[3]],"x":', "XTM round 1.boards: [3] is not 3 values"),
    ('XTM round 2 {"boards":', 'XTM round 2 {"boards":[[4,3,"zz"]],"x":', "XTM round 2.boards: 'zz' is not a result"),
    ('XTM round 1 {"boards":', "XTM round 1 []\nXTM x {", "XTM round 1: must be an object"),
    # A round 0 and a kind tmanager does not write were dropped without a word.
    ("XTM player 3 {}", 'XTM round 0 {"boards":[]}\nXTM player 3 {}',
     "XTM round 0: there is no round 0; they start at 1 (the line is tmanager's; fix or remove it)"),
    ("XTM player 3 {}", "XTM player 3 {}\nXTM rounds 2 {}",
     "XTM: 'rounds' is not a kind of XTM line (tmanager writes event, player and round lines)"),
    # A player's field no event may hold was named as the event file's ('division[1].player[3].k: …').
    ("XTM player 3 {}", 'XTM player 3 {"k":15}',
     "XTM player 3: k: 15 is not a K factor: FIDE's are 10, 20, 40 (8.3.3), or 0 for none given"),
    ("XTM player 3 {}", 'XTM player 3 {"club":"A\\u001bB"}',
     r"XTM player 3: club: holds a control character (U+001B): 'A\x1bB' (names hold printable characters only)"),
]


@pytest.mark.parametrize(("old", "new", "says"), XTM_EDITS, ids=[edit[1][:40] for edit in XTM_EDITS])
def test_an_xtm_line_edited_by_hand_is_one_line(tmp_path: Path, old: str, new: str, says: str) -> None:
    path = tmp_path / "e.toml"
    ev.create(path, scripted_event(3, players=6, rounds=3, played=2))
    done = run_cli("event", "export-trf", path, tmp_path / "e.trf")
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "e.trf").read_text()
    assert old in text, text
    (tmp_path / "e.trf").write_text(text.replace(old, new, 1))
    done = run_cli("event", "import-trf", tmp_path / "copy.toml", tmp_path / "e.trf")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines() == [done.stderr.strip()] and f"e.trf: {says}" in done.stderr, done.stderr
    assert not (tmp_path / "copy.toml").exists()


@pytest.mark.parametrize(
    ("column", "text", "says"),
    [
        (48, "2x00", "player 2: rating: '2x00' in columns 49-52 is not a number (write it in digits; blank for an "
                     "unrated player)"),
        (61, "41x0002", "player 2: FIDE ID: '41x0002' in columns 58-68 is not a number (write it in digits; blank "
                        "for a player without one)"),
        (9, "x", "player 2: sex: 'x' in column 10 is not a sex (write m or w, as FIDE's lists M or F; blank when not "
                 "given)"),
        # The fields the event file's check refused were named as the event's, a file the arbiter never saw:
        # 'foreign.trf: division[1].player[2].federation: …'.
        (53, "XYZ", "player 2: federation in columns 54-56: 'XYZ' is not a FIDE federation code (three capitals as "
                    "FIDE writes them: NED, GER, ENG, FID)"),
        (9, "mWGM", "player 2: title in columns 11-13: WGM is a women's title and the player's sex is m (correct the "
                    "title or the sex)"),
        (69, "2001/02/30", "player 2: birth in columns 70-79: '2001-02-30' is not a real date: day is out of range "
                           "for month"),
        (48, "9999", "player 2: rating in columns 49-52: 9999 is not a rating: 0 (unrated) or 100-3500"),
        (14, "Beta,\x1bBerta", r"player 2: name: holds a control character (U+001B): 'Beta,\x1bBerta' (names hold "
                               "printable characters only)"),
    ],
)
def test_a_001_line_with_a_rating_fide_id_or_sex_not_of_trf_is_refused(
    tmp_path: Path, column: int, text: str, says: str
) -> None:
    """import-trf read a rating, FIDE ID or sex that was none (a typo, a shifted column) as not given, without a
    word: a player rated 2000 was entered unrated (paired, ranked and rated so), the FIDE ID dropped from the
    rating report; now the line is refused, naming the player, the columns and what they hold."""
    lines = FOREIGN.splitlines()
    lines[4] = lines[4][:column] + text + lines[4][column + len(text) :]
    trf_file = tmp_path / "foreign.trf"
    trf_file.write_text("\n".join(lines) + "\n")
    done = run_cli("event", "import-trf", tmp_path / "copy.toml", trf_file)
    assert done.returncode == 2 and done.stderr.splitlines() == [f"tmanager: {trf_file}: {says}"], done.stderr
    assert not (tmp_path / "copy.toml").exists()
    kept = FOREIGN.splitlines()[4]
    lines[4] = kept[:9] + "F" + kept[10:48] + "    " + kept[52:57] + " " * 11 + kept[68:]
    d = event_trf.loads("\n".join(lines) + "\n").division()
    assert (d.players[1].sex, d.players[1].rating, d.players[1].fide_id) == ("w", 0, None), "blank: not given"


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ("042 2025/01/10", "042 2025/13/45", "042 (start): '2025-13-45' is not a date (write YYYY-MM-DD)"),
        ("042 2025/01/10", "042 2025/01/10\n052 2024/01/01", "052 (end): 2024-01-01 is before the start, 2025-01-10"),
        ("012 Club Championship", "012 Club\x1bChampionship", r"012 (name): holds a control character (U+001B): "
                                                              r"'Club\x1bChampionship'"),
        # The host federation (the norms' foreign players) was not checked at all: set refused XYZ, 032 gave it.
        ("042 2025/01/10", "042 2025/01/10\n032 XYZ", "032 (federation): 'XYZ' is not a FIDE federation code"),
    ],
)
def test_a_header_record_no_event_may_hold_is_named_by_its_code(
    tmp_path: Path, old: str, new: str, says: str
) -> None:
    """A date, or a name with a control character, in a header record was refused naming the event file's field
    ('foreign.trf: event.start: …'), of a file the arbiter never saw; it is named by its record."""
    trf_file = tmp_path / "foreign.trf"
    trf_file.write_text(FOREIGN.replace(old, new, 1))
    done = run_cli("event", "import-trf", tmp_path / "copy.toml", trf_file)
    assert done.returncode == 2 and done.stderr.splitlines() == [done.stderr.strip()], done.stderr
    assert done.stderr.startswith(f"tmanager: {trf_file}: {says}"), done.stderr
    assert not (tmp_path / "copy.toml").exists()


@pytest.mark.parametrize(
    ("black", "points", "says"),
    [
        ("   1 b =", "1.0", "round 1: players 1 and 3 have '1' and '=', which make no result of one game"),
        ("   1 b 1", "1.5", "round 1: players 1 and 3 have '1' and '1', which make no result of one game"),
    ],
)
def test_a_game_whose_two_entries_make_no_result_is_refused(
    tmp_path: Path, black: str, points: str, says: str
) -> None:
    """Entries of one game that make no result (white 1 and black =, both 1, both +) passed the reader, each
    player's points column agreeing with their own line, and became a game without a result: the standings lost
    both players' points of it, and pair waited for a result, without a word. Now the file is refused."""
    text = FOREIGN.replace(
        foreign_line(3, "m", "Gamma, Gert", "1900", "GER", "", "", "0.5", ["   1 b 0", "0000 - H"]),
        foreign_line(3, "m", "Gamma, Gert", "1900", "GER", "", "", points, [black, "0000 - H"]),
    )
    assert text != FOREIGN
    trf_file = tmp_path / "foreign.trf"
    trf_file.write_text(text)
    done = run_cli("event", "import-trf", tmp_path / "copy.toml", trf_file)
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"tmanager: {trf_file}: {says} (an event holds 1-0, ½-½, 0-1, a forfeit or no result yet: correct the "
        "entries)"
    ], done.stderr
    assert not (tmp_path / "copy.toml").exists()
    forfeits = FOREIGN.replace("   3 w 1", "   3 w -").replace("   1 b 0", "   1 b -").replace(" 2.0 ", " 1.0 ")
    assert event_trf.loads(forfeits).division().round(1).boards[0].result == Result.DOUBLE_FORFEIT


def test_games_not_rated_stay_so_through_import_and_export(tmp_path: Path) -> None:
    """TRF's W D L (played, not rated: a game of less than one move, …) were read as 1 = 0: the game became a
    rated one, counted in the rating estimates and the norms, and export-trf wrote it 1 and 0 for the rating
    officer to rate. They are kept as the round's ``unrated`` games: scored as any game, left out of the
    estimates, and written W D L again (XTM says it too, for a round in progress or a later correction)."""
    text = FOREIGN.replace("   3 w 1", "   3 w W").replace("   1 b 0", "   1 b L")
    trf_file = tmp_path / "foreign.trf"
    trf_file.write_text(text)
    path = tmp_path / "copy.toml"
    assert run_cli("event", "import-trf", path, trf_file).returncode == 0
    e = ev.load(path)
    d = e.division()
    assert [(b.white, b.black, b.result) for b in d.round(1).boards] == [(1, 3, "1-0"), (4, 2, "0-1")]
    assert d.round(1).unrated == [(1, 3)] and d.round(2).unrated == []
    assert ev.score(e, d, 1) == 20, "scored as any win"
    done = run_cli("event", "report", path, "-q", "--only", "ratings")
    assert done.returncode == 0, done.stderr
    ratings = (tmp_path / "html" / "copy" / "ratings-r2.txt").read_text().splitlines()
    alpha = next(line for line in ratings if "Alpha, Anna" in line).split()
    assert alpha[5:7] == ["1", "1"], "one rated game (against Beta), the unrated win left out"
    for version in ("16", "2026"):
        out = tmp_path / f"out{version}.trf"
        assert run_cli("event", "export-trf", path, out, "--version", version).returncode == 0
        lines = {p.id: p for p in trf.read(out).players}
        assert (lines[1].games[0].result, lines[3].games[0].result) == (TrfResult.UNRATED_WIN, TrfResult.UNRATED_LOSS)
        back = tmp_path / f"back{version}.toml"
        assert run_cli("event", "import-trf", back, out).returncode == 0
        assert back.read_text() == path.read_text()
    with pytest.raises(ConfigError, match="round 1: an unrated game is not among its boards"):
        ev.loads(path.read_text().replace("unrated = [[1, 3]]", "unrated = [[3, 1]]"), file=path)
