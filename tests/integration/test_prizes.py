"""Prize allocation: shared prizes by the Hort system, equal split and tie-break, one prize per player, the order
of preference; worked by hand from the rules (docs/events.md, "Prizes"), then a round robin's prize list through
the command line."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tmanager.core.prizes import Award, PrizeList, Ranked, Sharing, allocate, shares
from tmanager.core.results import Result
from tmanager.events import api as ev

# --- the pure allocation --------------------------------------------------------------------------------

#: A leader on 7, two players level on 6½ (B ahead on tie-breaks), then 6 and 5½ (points in tenths).
FIELD = (Ranked(1, 70, 1), Ranked(2, 65, 2), Ranked(3, 65, 3), Ranked(4, 60, 4), Ranked(5, 55, 5))


def paid(awards: list[Award]) -> dict[int, tuple[str, float]]:
    """Each player's list and amount (in cents; a share of a shared prize is a fraction of a cent at most)."""
    return {a.player: (a.prize_list, float(a.amount)) for a in awards}


@pytest.mark.parametrize(
    ("sharing", "second", "third"),
    [
        # Places 2 and 3 are worth 600 + 400 = 1000 to the two players level on 6½.
        (Sharing.SPLIT, (2, 3, 500), (2, 3, 500)),  # equally
        (Sharing.HORT, (2, 3, 550), (2, 3, 450)),  # half equally (250 each), half by tie-break (600 / 2, 400 / 2)
        (Sharing.TIEBREAK, (2, 2, 600), (3, 3, 400)),  # the tie-break order alone: nothing shared
    ],
)
def test_players_level_on_points_share_as_the_fund_says(
    sharing: Sharing, second: tuple[int, int, int], third: tuple[int, int, int]
) -> None:
    awards = shares((1000, 600, 400), FIELD, sharing)
    assert [(a.player, a.first, a.last, float(a.amount)) for a in awards] == [
        (1, 1, 1, 1000), (2, *second), (3, *third),
    ]  # fmt: skip
    assert sum(a.amount for a in awards) == Fraction(2000), "the places' prizes are all paid, no more"


def test_hort_shares_what_players_level_on_every_tiebreak_would_get() -> None:
    # Three on 6½ for places 2-4 (600, 300, 300): 1200 / 3 / 2 = 200 each, then half their places' prizes by
    # tie-break, the last two level on every tie-break sharing 300 + 300: 200 + 300 and 200 + 150 twice.
    level = (Ranked(1, 70, 1), Ranked(2, 65, 2), Ranked(3, 65, 3), Ranked(4, 65, 3))
    assert [a.amount for a in shares((1000, 600, 300, 300), level, Sharing.HORT)] == [1000, 500, 350, 350]
    assert [a.amount for a in shares((1000, 600, 300, 300), level, Sharing.TIEBREAK)] == [1000, 600, 300, 300]
    third = shares((900, 100), (Ranked(1, 70, 1), Ranked(2, 65, 2), Ranked(3, 65, 2)), Sharing.TIEBREAK)
    assert [a.amount for a in third] == [900, 50, 50], "level on every tie-break: places 2 and 3 shared (100 + 0)"


def test_shares_are_paid_in_whole_cents_that_add_up_to_the_places_shared() -> None:
    six = tuple(Ranked(n, 60, n) for n in range(1, 7))  # six level on points, ranked 1 to 6 by tie-break
    equal = allocate([PrizeList("overall", (3334, 3333, 3333), six)], Sharing.SPLIT)
    assert [a.amount for a in equal] == [1667, 1667, 1667, 1667, 1666, 1666]  # 100.00 / 6: the odd cents first
    hort = allocate([PrizeList("overall", (20000,), six)], Sharing.HORT)  # 100 equally, 100 to place 5's first
    assert [a.amount for a in hort] == [11667, 1667, 1667, 1667, 1666, 1666] and sum(a.amount for a in hort) == 20000
    # 1001 by Hort: 166.83 each, and 500, 0.5 and 0 by tie-break; the two cents left go to the largest remainders
    uneven = allocate([PrizeList("overall", (1000, 1), six[:3])], Sharing.HORT)
    assert [a.amount for a in uneven] == [667, 167, 167]


def test_one_prize_per_player_the_highest() -> None:
    # Players 1 and 3 are juniors. Player 1 wins overall (1000 > 200); player 3, third overall (400), leaves the
    # U18 list, whose prizes go to the next juniors, 4 and 5.
    ranking = (Ranked(1, 70, 1), Ranked(2, 65, 2), Ranked(3, 60, 3), Ranked(4, 55, 4), Ranked(5, 50, 5))
    overall = PrizeList("overall", (1000, 600, 400), ranking)
    juniors = PrizeList("U18", (200, 100), (ranking[0], *ranking[2:]))
    assert paid(allocate([overall, juniors], Sharing.SPLIT)) == {
        1: ("overall", 1000), 2: ("overall", 600), 3: ("overall", 400), 4: ("U18", 200), 5: ("U18", 100),
    }  # fmt: skip
    # With a junior prize above the third place's, player 3 takes it; the overall list moves up without them.
    juniors = PrizeList("U18", (450, 100), juniors.ranking)
    assert paid(allocate([overall, juniors], Sharing.SPLIT)) == {
        1: ("overall", 1000), 2: ("overall", 600), 3: ("U18", 450), 4: ("overall", 400), 5: ("U18", 100),
    }  # fmt: skip


def test_equal_amounts_go_by_the_order_of_preference() -> None:
    overall = PrizeList("overall", (500, 300, 150), FIELD)
    women = PrizeList("women", (150,), (FIELD[2], FIELD[4]))
    # Player 3 is third overall (two alone on 6½ now: tie-break sharing) and the best woman, 150 either way.
    first = paid(allocate([overall, women], Sharing.TIEBREAK))
    assert first[3] == ("overall", 150) and first[5] == ("women", 150) and 4 not in first
    second = paid(allocate([women, overall], Sharing.TIEBREAK))
    assert second[3] == ("women", 150) and second[4] == ("overall", 150) and 5 not in second


def test_a_player_leaving_a_shared_place_raises_the_others() -> None:
    # Players 2 and 3 would split places 2-3 (500 each), but player 2 takes the 800 of U18: player 3 is second
    # alone (600) and player 4 third (400), each more than the share they had.
    overall = PrizeList("overall", (1000, 600, 400), FIELD)
    juniors = PrizeList("U18", (800,), (FIELD[1],))
    assert paid(allocate([overall, juniors], Sharing.SPLIT)) == {
        1: ("overall", 1000), 2: ("U18", 800), 3: ("overall", 600), 4: ("overall", 400),
    }  # fmt: skip


def test_a_prize_list_never_rises_with_the_place() -> None:
    with pytest.raises(ValueError, match="larger than the prize of the place before it"):
        PrizeList("overall", (100, 200), FIELD)


# --- a round robin's prize list through the command line -----------------------------------------------

#: Points of the row's player against the column's (players 1-6): 4½, 3½, 3½, 2, 1, ½. Players 2 and 3 are level
#: on points; Sonneborn-Berger puts 2 ahead (7.25 against 5.25).
POINTS: tuple[tuple[float | None, ...], ...] = (
    (None, 0.5, 1, 1, 1, 1),
    (0.5, None, 0.5, 1, 1, 0.5),
    (0, 0.5, None, 1, 1, 1),
    (0, 0, 0, None, 1, 1),
    (0, 0, 0, 0, None, 1),
    (0, 0.5, 0, 0, 0, None),
)
#: Juniors (U18 in 2026) and women.
BIRTH = {3: "2010", 5: "2012"}
WOMEN = {4, 6}


def ok(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def refused(*args: str | Path) -> str:
    done = run_cli("event", *args)
    assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr.strip()


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """The six-player round robin played to its end, with the categories U18 and women."""
    path = tmp_path / "club.toml"
    ok("new", path, "--name", "Club", "--system", "round-robin", "--start", "2026-05-01", "--tiebreaks", "SB",
       "--set", "categories=['U18', 'women']")  # fmt: skip
    for i in range(1, 7):
        extra = ["--birth", BIRTH.get(i, "1980"), "--sex", "w" if i in WOMEN else "m"]
        ok("add-player", path, f"Player{i}, X", "--rating", str(2300 - 50 * i), *extra)

    def play(e: ev.Event) -> list[str]:
        d = e.division()
        messages = ev.pair(e, d)
        for b in d.round(d.paired_rounds).boards:
            white = POINTS[b.white - 1][b.black - 1]
            assert white is not None
            result = {1: Result.WHITE_WINS, 0.5: Result.DRAW, 0: Result.BLACK_WINS}[white]
            messages += ev.set_result(e, d, d.paired_rounds, b, result)
        return messages

    for _ in range(5):
        ev.apply(path, play)
    return path


def prize_rows(text: str) -> dict[str, list[tuple[str, str, str]]]:
    """Each list's (place, player number, amount) rows of the `prizes` text."""
    lists: dict[str, list[tuple[str, str, str]]] = {}
    for title, body in re.findall(r"\n(Overall|Category \S+)\n-+\n(.*?)(?=\n\n)", text, re.S):
        lists[title] = [(row.split()[0], row.split()[1], row.split()[-1]) for row in body.splitlines()[1:]]
    return lists


def test_prize_fund_and_prize_list(played: Path) -> None:
    standings = ok("standings", played).splitlines()
    assert [line.split()[1] for line in standings[2:8]] == ["1", "2", "3", "4", "5", "6"]
    assert "no prize fund" in ok("prizes", played), "without a fund: the rankings, as before"

    said = ok("prize-fund", played, "overall", "1000", "600", "400", "--sharing", "hort", "--currency", "EUR")
    assert said.splitlines()[0] == "overall: 1000, 600, 400 EUR"
    ok("prize-fund", played, "U18", "300", "100")
    ok("prize-fund", played, "Women", "200")
    text = ok("prizes", played)
    assert prize_rows(text) == {
        "Overall": [("1", "1", "1000"), ("2-3", "2", "550"), ("2-3", "3", "450")],
        "Category U18": [("1", "5", "300")],
        "Category women": [("1", "4", "200")],
    }
    assert "Category U18: no player left for place(s) 2: not given" in text
    assert "paid 2500 EUR of a fund of 2600 EUR" in text and "Hort system" in text
    assert "[division.prizes]" in played.read_text(encoding="utf-8")

    # A junior prize above player 3's share: player 3 takes it and leaves the overall list; women's prize moves on.
    ok("prize-fund", played, "U18", "700", "100")
    assert prize_rows(ok("prizes", played)) == {
        "Overall": [("1", "1", "1000"), ("2", "2", "600"), ("3", "4", "400")],
        "Category U18": [("1", "3", "700"), ("2", "5", "100")],
        "Category women": [("1", "6", "200")],
    }
    # 400 either way for player 4: the women's list preferred, the third place goes down to player 5.
    ok("prize-fund", played, "women", "400", "--preference", "women,overall")
    assert prize_rows(ok("prizes", played)) == {
        "Overall": [("1", "1", "1000"), ("2", "2", "600"), ("3", "5", "400")],
        "Category U18": [("1", "3", "700")],
        "Category women": [("1", "4", "400")],
    }
    ok("prize-fund", played, "--sharing", "split", "--preference", "")
    ok("prize-fund", played, "U18", "--remove")
    assert prize_rows(ok("prizes", played))["Overall"][1:] == [("2-3", "2", "500"), ("2-3", "3", "500")]
    assert ok("undo", played) and "U18: 700, 100" in ok("prize-fund", played)

    # The report and its HTML page, and the fund as read back from the file.
    ok("report", played, "--only", "prizes")
    page = (played.parent / "html" / "club" / "prizes-r5.html").read_text(encoding="utf-8")
    assert "Category U18" in page and "Prize" in page
    assert ev.load(played).division().prize_fund is not None


def test_a_bad_fund_is_refused_and_changes_nothing(played: Path) -> None:
    ok("prize-fund", played, "overall", "500", "250.50")
    before = played.read_text(encoding="utf-8")
    assert refused("prize-fund", played, "overall", "1,000") == (
        f"tmanager: {played}: amount: '1,000' is not an amount (write 1000 or 62.50)"
    )
    assert refused("prize-fund", played, "overall", "100", "200").endswith(
        "division[1].prizes.overall: a place's prize is larger than the place's before it (list the amounts from "
        "place 1 down; players level on points share by the sharing setting)"
    )
    assert "'U99x' is not a category" in refused("prize-fund", played, "U99x", "100")
    # Every refusal of a list's name ended in ", or overall", also where it made no sense.
    assert refused("prize-fund", played, "2200-2000", "100").endswith(
        "prizes.2200-2000: '2200-2000': the band's first rating is above its last (a prize list is overall or a "
        "category)"
    )
    assert refused("prize-fund", played, "women", "--remove") == (
        f"tmanager: {played}: list: the prize fund has no list 'women' (it has overall)"
    )
    assert "'U18' is not a list of the fund" in refused("prize-fund", played, "--preference", "U18")
    assert refused("prize-fund", played, "U18") == (
        f"tmanager: {played}: amounts: give the amounts of U18's places 1, 2, … (or --remove to take the list out)"
    )
    # A currency is printed beside every prize: an escape sequence in it acted on the terminal (it was taken).
    assert refused("prize-fund", played, "--currency", "EUR\x1b[2J") == (
        f"tmanager: {played}: currency: holds a control character (U+001B): 'EUR\\x1b[2J' (names hold printable "
        "characters only)"
    )
    assert played.read_text(encoding="utf-8") == before

    # A hand-edited file is checked as it is read.
    for (edit, message), field in (
        (("overall = [500, 250.5]", "overall = [500, 250.555]"), "overall"),
        (("overall = [500, 250.5]", 'overall = "500"'), "overall"),
        (("[division.prizes]\n", '[division.prizes]\ncurrency = "EUR\\u001b[2J"\n'), "currency"),
    ):
        played.write_text(before.replace(edit, message), encoding="utf-8")
        error = refused("prizes", played)
        assert f"division[1].prizes.{field}:" in error, error
    played.write_text(before, encoding="utf-8")

    scrabble = played.parent / "scrabble.toml"
    ok("new", scrabble, "--name", "Club Scrabble", "--rounds", "3", "--entry", "scores")
    assert refused("prize-fund", scrabble, "overall", "100").endswith(
        "division[1].prizes: a prize fund is allocated in chess divisions of players"
    )


def test_the_funds_settings_given_before_its_lists_are_kept(played: Path) -> None:
    """``--sharing`` and ``--currency`` given before any list (or left when the last list goes) are kept for the
    lists to come, and said: they were dropped without a word, and the lists were then split and had no currency."""
    assert ok("prize-fund", played, "--sharing", "hort", "--currency", "EUR").splitlines() == [
        "no prize fund (shared prizes: hort, currency EUR, kept for the lists to come): the prize list shows each "
        "ranking's first places"
    ]
    assert "no prize fund" in ok("prizes", played), "no list yet: the rankings, as without a fund"
    said = ok("prize-fund", played, "overall", "1000", "600", "400")
    assert said.splitlines() == ["overall: 1000, 600, 400 EUR", "total 2000 EUR; shared prizes: hort; on equal "
                                 "amounts: overall"]  # fmt: skip
    assert prize_rows(ok("prizes", played))["Overall"][1:] == [("2-3", "2", "550"), ("2-3", "3", "450")]
    assert "kept for the lists to come" in ok("prize-fund", played, "overall", "--remove")
    fund = ev.load(played).division().prize_fund
    assert fund is not None and fund.sharing is Sharing.HORT and fund.currency == "EUR"
