"""Players as federations keep them: FIDE's TXT and XML lists, CSV entries, rating updates, start numbers,
titles, sex and categories, through the real command line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_event_scored import ok, refused
from tmanager.core.playerfields import RatingKind
from tmanager.core.results import Result
from tmanager.errors import ConfigError
from tmanager.events import api as ev
from tmanager.formats import playercsv, ratinglist

FIDE = ROOT / "tests" / "data" / "fide"


@pytest.mark.parametrize("name", ["players_list_foa.txt", "players_list_xml_foa.xml"])
def test_fide_lists_in_both_formats(name: str) -> None:
    entries = ratinglist.read(FIDE / name)
    assert len(entries) == 8
    jan, anna, sanne, ruben = (entries[i] for i in (4100018, 4100034, 4100042, 4100085))
    assert (jan.name, jan.federation, jan.sex, jan.title, jan.birth_year) == ("Kuiper, Jan", "NED", "m", "GM", 1991)
    assert jan.ratings == {"standard": 2587, "rapid": 2540, "blitz": 2561}
    assert jan.k_factors == {"standard": 10, "rapid": 20, "blitz": 20} and jan.k_factor(RatingKind.STANDARD) == 10
    assert (anna.sex, anna.title, anna.rating(RatingKind.RAPID)) == ("w", "WGM", 0)
    assert sanne.title == "WIM", "the women's title when there is no other"
    assert (ruben.rating(RatingKind.STANDARD), ruben.rating(RatingKind.RAPID)) == (0, 1650)
    assert set(ratinglist.read(FIDE / name, ids={4100018, 999})) == {4100018}
    assert set(ratinglist.read(FIDE / name, federation="ger")) == {4100077}


@pytest.mark.parametrize("name", ["players_list_foa.txt", "players_list_xml_foa.xml"])
def test_the_higher_of_the_title_and_the_womens_title(name: str, tmp_path: Path) -> None:
    """The FIDE title won over the women's title whatever they were: an FM who is a WGM was entered as an FM,
    ranked below the WGMs of her rating and judged for a WGM norm she had no need of."""
    text = (FIDE / name).read_text(encoding="latin-1")
    if name.endswith(".txt"):
        line = next(line for line in text.splitlines() if line.startswith("4100034"))
        text = text.replace(line, line.replace(" F   WGM  WGM ", " F   FM   WGM "))
    else:
        anna = text.index("<fideid>4100034</fideid>")
        text = text[:anna] + text[anna:].replace("<title>WGM</title>", "<title>FM</title>", 1)
    listed = tmp_path / name
    listed.write_text(text, encoding="latin-1")
    entries = ratinglist.read(listed)
    assert (entries[4100034].title, entries[4100018].title, entries[4100042].title) == ("WGM", "GM", "WIM")


def test_a_single_list_names_its_rating_column_by_month() -> None:
    entries = ratinglist.read(FIDE / "standard_rating_list.txt")
    assert entries[4100018].ratings == {"standard": 2599} and 4100085 not in entries
    assert entries[4100018].k_factors == {"standard": 10}, "a single list's K column is named K"


def test_the_rating_report_takes_the_lists_k(tmp_path: Path) -> None:
    """The rating estimates ignored the K that FIDE's list gives: an adult new to the list (K 40 until 30 games,
    8.3.3) was estimated with K 20 from the rating alone. The list's K is kept with the player and used."""
    listed = tmp_path / "standard_rating_list.txt"
    text = (FIDE / "standard_rating_list.txt").read_text()
    piet = next(line for line in text.splitlines() if line.startswith("4100026"))
    listed.write_text(text.replace(piet, piet.replace("  0    20 1975", "  0    40 1975")))
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "3", "--start", "2026-04-10")
    ok("import-players", path, "--list", listed, "--ids", "4100018,4100026")
    d = ev.load(path).division()
    assert [(p.name, p.k) for p in d.players] == [("Kuiper, Jan", 10), ("Kuipers, Piet", 40)]
    ok("pair", path, "--colour", "white")
    ok("result", path, "1", "0-1")
    rows = {line.split()[1]: line.split() for line in ok("report", path, "--only", "ratings").splitlines()
            if line[:3].strip() in ("1", "2")}  # fmt: skip
    assert rows["Kuipers,"][4:9] == ["40", "1", "1", "0.16", "+34"], "K 40 from the list, not 20 from 2313"
    assert rows["Kuiper,"][4] == "10"
    # The next month's list gives K 20 (his 30 games are in): update-ratings says so and the report follows.
    out = ok("update-ratings", path, FIDE / "standard_rating_list.txt")
    assert "Kuipers, Piet (2): K 40 → 20" in out
    assert "+17" in ok("report", path, "--only", "ratings")
    # A K that is not one is a junk line of the list.
    listed.write_text(text.replace(piet, piet.replace("  0    20 1975", "  0    x0 1975")))
    with pytest.raises(ConfigError, match="line 3: the standard K 'x0' is not a number"):
        ratinglist.read(listed)
    listed.write_text(text.replace(piet, piet.replace("  0    20 1975", "  0    70 1975")))
    with pytest.raises(ConfigError, match="line 3: standard K: 70 is not a K factor"):
        ratinglist.read(listed)


def test_a_list_without_the_events_rating_is_refused(tmp_path: Path) -> None:
    """A rapid event given the standard list made every player unrated; a rapid list was read as standard."""
    rapid_list = tmp_path / "rapid_rating_list.txt"  # FIDE's single lists are alike but for their names
    rapid_list.write_bytes((FIDE / "standard_rating_list.txt").read_bytes())
    assert ratinglist.read(rapid_list)[4100018].ratings == {"rapid": 2599}
    path = tmp_path / "rapid.toml"
    ok("new", path, "--name", "Rapid Open", "--rounds", "7", "--set", 'rating_list="rapid"')
    ok("import-players", path, FIDE / "entries.csv", "--list", FIDE / "players_list_foa.txt")
    assert ev.load(path).division().player(1).rating == 2540
    standard = FIDE / "standard_rating_list.txt"
    says = (
        "the rating list holds standard ratings, not the rapid ratings the event is rated on (rating_list) (give "
        "FIDE's rapid list, or the combined players_list_foa)"
    )
    assert says in refused(path, "update-ratings", path, standard)
    assert says in refused(path, "import-players", path, "--list", standard, "--ids", "4100077")
    assert "Kuiper, Jan (1): 2540 → 2599" in ok("update-ratings", path, rapid_list)


def test_lists_that_are_not_fide_lists(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("just some notes\n")
    with pytest.raises(ConfigError, match="is not a FIDE rating list"):
        ratinglist.read(text)
    broken = tmp_path / "broken.xml"
    broken.write_text("<playerslist><player><fideid>1</fideid>")
    with pytest.raises(ConfigError, match="is not well-formed XML"):
        ratinglist.read(broken)
    csv = tmp_path / "bad.csv"
    csv.write_text("name,elo\nA,1\n")
    with pytest.raises(ConfigError, match="unknown column 'elo'"):
        playercsv.read(csv)
    csv.write_text("name;rating\nA;high\n")
    with pytest.raises(ConfigError, match="line 2: rating: 'high' is not a whole number"):
        playercsv.read(csv)


def test_a_csv_fide_id_0_is_none(tmp_path: Path) -> None:
    """A list whose players without a FIDE ID have 0 in the column was refused whole ('0 is not a FIDE ID')."""
    csv = tmp_path / "entries.csv"
    csv.write_text('name,rating,fide_id\n"A, B",1500,0\n"C, D",1400,4100001\n', encoding="utf-8")
    assert [row.fields.get("fide_id") for row in playercsv.read(csv)] == [None, 4100001]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # str.isdigit() took '²' and int() then failed: a traceback.
        ('name,rating\n"A, B",\u00b2\n', "line 2: rating: '\u00b2' is not a whole number"),
        ('name,rating\n"A, B",\u0661\u0662\u0660\u0660\n', "line 2: rating: '\u0661\u0662\u0660\u0660' is not a whole"),
        # The second name column silently replaced the first.
        ('name,club,Name\n"A, B",x,"C, D"\n', "line 1: column 'name' is given twice"),
        # A quote left open swallowed the line's separators into the name ("A, B,2000", unrated).
        ('name,rating\n"C, D",2100\n"A, B,2000\n', "line 3: is not CSV: unexpected end of data"),
        # A cell over two lines: the line numbers are the file's.
        ('name,club\n"A, B","Schaakclub\nLeiden"\n"C, D",z,extra\n', "line 4: has 3 cells for 2 columns"),
        ("name,rating\n", "holds no player, only the row naming the columns"),
        # These said what was wrong and not how to mend it.
        ('name,rating\n"A, B",high\n', "line 2: rating: 'high' is not a whole number (write it in digits, or leave"),
        ('name\n"A, B",1500\n', "line 2: has 2 cells for 1 columns (quote a cell that holds the separator"),
        ("rating\n1500\n", "line 1: has neither a name nor a fide_id column (the first row names the columns"),
    ],
)
def test_malformed_player_csvs(tmp_path: Path, text: str, says: str) -> None:
    csv = tmp_path / "entries.csv"
    csv.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=re.escape(says)):
        playercsv.read(csv)


def test_an_open_registered_from_entries_and_the_list(tmp_path: Path) -> None:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Leiden Open", "--rounds", "7", "--start", "2026-04-10",
       "--set", "categories=['U18', 'S50', 'women', 'unrated', '2000-2399']")  # fmt: skip
    xml = FIDE / "players_list_xml_foa.xml"
    # Entries with FIDE IDs completed from the list; the file's own columns (club, flags) kept.
    out = ok("import-players", path, FIDE / "entries.csv", "--list", xml)
    assert "entered 7 player(s)" in out
    d = ev.load(path).division()
    jan = d.player(1)
    assert (jan.name, jan.title, jan.rating, jan.fide_id, jan.federation, jan.sex, jan.birth, jan.club) == (
        "Kuiper, Jan", "GM", 2587, 4100018, "NED", "m", "1991", "Leiden"
    )
    assert d.player(7).name == "Nieuwkomer, Noor" and d.player(7).fide_id is None
    # Straight from the list by FIDE ID; a player already entered is refused, the whole file with it, the ID
    # said once and the player who has it named (it was 'FIDE ID 4100018: FIDE ID 4100018 is already entered').
    ok("import-players", path, "--list", FIDE / "players_list_foa.txt", "--ids", "4100077")
    assert refused(path, "import-players", path, "--list", xml, "--ids", "4100018,4100085") == (
        f"tmanager: {path}: FIDE ID 4100018 is already entered, for Kuiper, Jan (1) (leave them out of the CSV or "
        "--ids)"
    )
    assert "FIDE ID 4100099 is not in the rating list (check the ID and the list)" in refused(
        path, "import-players", path, _csv(tmp_path, "fide_id\n4100099\n"), "--list", xml
    )
    assert refused(path, "import-players", path, "--list", xml) == (
        f"tmanager: {path}: which players of the list? (give a CSV, --ids or --federation)"
    )
    assert refused(path, "import-players", path, "--list", xml, "--ids", "4100099") == (
        f"tmanager: {path}: --ids: FIDE ID 4100099 is not in {xml} (check the ID and the list)"
    )
    # Rating update before round 1: the November list, ratings and titles.
    out = ok("update-ratings", path, FIDE / "standard_rating_list.txt")
    assert "standard ratings from" in out and "Kuiper, Jan (1): 2587 → 2599" in out
    # Start numbers: rating, then title, then name (FIDE's initial order).
    out = ok("start-numbers", path)
    assert "start numbers by rating, title and name: 8 players" in out
    d = ev.load(path).division()
    assert [(p.number, p.name) for p in d.players][:4] == [
        (1, "Kuiper, Jan"), (2, "Jansen, Tom"), (3, "de Vries, Anna"), (4, "Kuipers, Piet")
    ]
    assert d.start_numbers and d.ranks() == {p.number: p.number for p in d.players}
    # Categories from birth year (event year 2026), sex and rating.
    standings = ok("standings", path, "--category", "U18")
    assert "de Vries, Anna" in standings and "Bakker, Sanne" in standings and "Kuiper, Jan" not in standings
    assert "Bos, Hendrik" in ok("standings", path, "--category", "S50")  # born 1955
    women = ok("standings", path, "--category", "women").split("\n\n")[0]
    assert len(women.splitlines()) == 4  # title, header, Anna and Sanne
    assert "Nieuwkomer, Noor" in ok("standings", path, "--category", "unrated")
    assert "is not a category" in refused(path, "standings", path, "--category", "juniors")


def _csv(directory: Path, text: str) -> Path:
    path = directory / "more.csv"
    path.write_text(text)
    return path


def test_start_numbers_and_late_entries_as_fide_allows(tmp_path: Path) -> None:
    path = tmp_path / "late.toml"
    ok("new", path, "--name", "Late", "--rounds", "6")
    for name, rating, title in (("Aa, A", 2200, ""), ("Bb, B", 2200, "FM"), ("Cc, C", 2300, ""),
                                ("Dd, D", 2100, ""), ("Ee, E", 2000, ""), ("Ff, F", 1900, "")):
        ok("add-player", path, name, "--rating", str(rating), *(["--title", title] if title else []))
    ok("forbid", path, "Aa", "Bb")
    ok("start-numbers", path)
    d = ev.load(path).division()
    # 2300 first; of the two 2200s the FM before the untitled; then by rating.
    assert [p.name for p in d.players] == ["Cc, C", "Bb, B", "Aa, A", "Dd, D", "Ee, E", "Ff, F"]
    assert d.forbidden == [[2, 3]], "references follow the renumbering"
    ok("pair", path, "--colour", "white")
    # A late entry after round 1: placed by rating, the players below move down one number.
    out = ok("add-player", path, "Gg, G", "--rating", "2150")
    # One number throughout: the new player's final one (not the next free number it was entered with).
    assert out.strip().splitlines()[-1] == (
        "added Gg, G (4): start number 4 by rating, title and name; the players after it move down one, to nos. 5-7"
    )
    assert "(7)" not in out
    d = ev.load(path).division()
    assert [p.name for p in d.players][3:] == ["Gg, G", "Dd, D", "Ee, E", "Ff, F"]
    boards = {(b.white, b.black) for b in d.round(1).boards}
    assert all(d.player(w).name[0] != "G" and d.player(b).name[0] != "G" for w, b in boards)
    assert {d.player(n).name for b in boards for n in b} == {"Cc, C", "Bb, B", "Aa, A", "Dd, D", "Ee, E", "Ff, F"}
    ok("start-numbers", path)  # allowed again until round 4 is paired

    def draw_all_and_pair(e: ev.Event) -> list[str]:
        d = e.division()
        n = d.paired_rounds
        for b in d.round(n).boards:
            ev.set_result(e, d, n, b, Result.DRAW)
        return ev.pair(e, d)

    for _ in range(3):
        ev.apply(path, draw_all_and_pair)
    assert ev.load(path).division().paired_rounds == 4
    assert "no pairing number may change after round 4 is paired" in refused(path, "start-numbers", path)
    out = ok("add-player", path, "Hh, H", "--rating", "2500")
    assert "added Hh, H (8), paired last: start numbers are fixed after round 4 is paired (C.04.2)" in out


def test_titles_and_sex_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    ok("new", path, "--name", "Titles", "--rounds", "3")
    ok("add-player", path, "Kasparova, Eva", "--title", "WIM", "--sex", "w", "--rating", "2250", "--birth", "2001")
    said = ok("edit-player", path, "Kasparova", "--title", "IM", "--sex", "w")  # (she is w already)
    assert "changed title of Kasparova, Eva (1) (already has the sex given)" in said
    player = tomllib.loads(path.read_text(encoding="utf-8"))["division"][0]["player"][0]
    assert (player["title"], player["sex"]) == ("IM", "w")
    path.write_text(path.read_text(encoding="utf-8").replace('title = "IM"', 'title = "GMX"'), encoding="utf-8")
    done = run_cli("event", "standings", path)
    assert done.returncode == 2 and "division[1].player[1].title: 'GMX' is not a FIDE title" in done.stderr


def test_the_k_factor_on_every_entry_path(tmp_path: Path) -> None:
    """K (FIDE's development coefficient) came only from a FIDE list: a CSV's ``k`` column was an unknown column,
    add-player and edit-player had no --k, any K of 1-40 passed (FIDE's are 10, 20 and 40), the players report
    did not show it and a TRF export and import lost it. Now each path takes it, checked, and keeps it."""
    path = tmp_path / "k.toml"
    ok("new", path, "--name", "K", "--rounds", "3", "--start", "2026-04-10")
    ok("import-players", path, _csv(tmp_path, 'name,rating,k\n"Aa, A",2300,40\n"Bb, B",2250,\n'))
    ok("add-player", path, "Cc, C", "--rating", "2200", "--k", "20")
    d = ev.load(path).division()
    assert [(p.name, p.k) for p in d.players] == [("Aa, A", 40), ("Bb, B", 0), ("Cc, C", 20)]
    assert "changed k of Bb, B (2)" in ok("edit-player", path, "Bb", "--k", "10")
    assert "k = 10" in path.read_text(encoding="utf-8")
    players = ok("report", path, "--only", "players").splitlines()
    header = next(line.split() for line in players if line.split()[:1] == ["No"])
    assert header[:4] == ["No", "Name", "Rtg", "K"]
    assert [line.split()[4] for line in players if line.split()[:1] in (["1"], ["2"])] == ["40", "10"]  # "Aa, A"
    loaded = ev.load(path)
    reports = ev.rules_for(loaded, loaded.division()).reports()
    assert "K 40" in reports.summary(1).facts and "K 10" in reports.summary(2).facts, "the player's page and card"
    for bad in ("15", "41", "-20"):
        says = refused(path, "edit-player", path, "Cc", "--k", bad)
        assert f"k: {bad} is not a K factor: FIDE's are 10, 20, 40 (8.3.3), or 0 for none given" in says
    csv = _csv(tmp_path, "name,k\nDd D,30\n")
    assert "k: 30 is not a K factor" in refused(path, "import-players", path, csv)
    trf = tmp_path / "k.trf"
    ok("export-trf", path, trf)
    copy = tmp_path / "copy.toml"
    ok("import-trf", copy, trf)
    assert [p.k for p in ev.load(copy).division().players] == [40, 10, 20]


def test_the_players_report_shows_title_and_sex(tmp_path: Path) -> None:
    """The list of players, which the arbiter checks the registration against, showed neither title nor sex,
    which FIDE's data and the women's categories go by."""
    path = tmp_path / "t.toml"
    ok("new", path, "--name", "T", "--rounds", "3", "--start", "2026-04-10")
    ok("add-player", path, "Bakker, Eva", "--rating", "2380", "--title", "WGM", "--sex", "w", "--federation", "NED")
    ok("add-player", path, "Visser, Tom", "--rating", "2350", "--title", "FM", "--sex", "m")
    lines = ok("report", path, "--only", "players").splitlines()
    header = next(line.split() for line in lines if line.split()[:1] == ["No"])
    assert header[5:8] == ["Tit", "Sex", "Fed"]
    rows = {line.split()[0]: line.split()[5:8] for line in lines if line.split()[:1] in (["1"], ["2"])
            and "players" not in line}  # fmt: skip
    assert rows == {"1": ["WGM", "w", "NED"], "2": ["FM", "m", "active"]}
