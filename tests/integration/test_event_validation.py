"""Player data as a rating officer would take it, at every entry path: real dates, FIDE federation codes, sex,
titles, FIDE IDs (well-formed and unique) and ratings; junk lines of a FIDE list refused or, when asked, skipped."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.integration.test_event_scored import ok, refused
from tmanager.core import playerfields
from tmanager.errors import ConfigError
from tmanager.events import api as ev
from tmanager.formats import ratinglist

FIDE = ROOT / "tests" / "data" / "fide"


def test_each_field_as_fide_keeps_it() -> None:
    today = datetime.date(2026, 4, 10)
    assert playerfields.birth_fault("2008-02-29", today=today) is None and playerfields.birth_fault("1950") is None
    assert "month must be in 1..12" in str(playerfields.birth_fault("2030-13-45", today=today))
    assert "day is out of range" in str(playerfields.birth_fault("1999-02-30", today=today))
    assert "between 1900 and 2026" in str(playerfields.birth_fault("2027", today=today))
    assert "not a date" in str(playerfields.birth_fault("12/05/2001", today=today))
    # The year alone was checked: a birth date later this year was taken.
    assert playerfields.birth_fault("2026-04-10", today=today) is None
    assert "'2026-04-11' is a day still to come (today is 2026-04-10)" in str(
        playerfields.birth_fault("2026-04-11", today=today)
    )
    assert playerfields.federation_fault("NED") is None and playerfields.federation_fault("FID") is None
    assert "is written 'NED'" in str(playerfields.federation_fault("ned"))
    assert "not a FIDE federation code" in str(playerfields.federation_fault("XYZW"))
    assert "not a FIDE federation code" in str(playerfields.federation_fault("XYZ"))
    assert playerfields.title_fault("WCM") is None and playerfields.title_fault("NM") is not None
    assert playerfields.fide_id_fault(1503014) is None and playerfields.fide_id_fault(0) is not None
    assert playerfields.fide_id_fault(10**10) is not None
    assert playerfields.rating_fault(0) is None and playerfields.rating_fault(2830) is None
    assert playerfields.rating_fault(25000) is not None and playerfields.rating_fault(-5) is not None
    assert playerfields.player_fault({"birth": "", "federation": "GER", "rating": 0}) is None
    assert playerfields.player_fault({"sex": "x", "title": "NM"}) == (
        "sex", "'x' is not a sex as TRF writes it; use m or w (or leave it empty)"
    )  # fmt: skip
    assert playerfields.player_fault({"sex": "m", "title": "WCM"}) == (
        "title", "WCM is a women's title and the player's sex is m (correct the title or the sex)"
    )  # fmt: skip
    assert playerfields.player_fault({"sex": "w", "title": "WCM"}) is None
    assert playerfields.player_fault({"sex": "m", "title": "CM"}) is None


@pytest.fixture
def event(tmp_path: Path) -> Path:
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "5")
    ok("add-player", path, "Kuiper, Jan", "--rating", "2587", "--fide-id", "4100018", "--federation", "NED")
    ok("add-player", path, "Bakker, Sanne", "--rating", "2188", "--federation", "ned", "--sex", "w")
    return path


@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--birth", "2030-13-45"], "birth: '2030-13-45' is not a real date: month must be in 1..12"),
        (["--birth", "1999-02-30"], "birth: '1999-02-30' is not a real date: day is out of range for month"),
        (["--federation", "XYZW"], "federation: 'XYZW' is not a FIDE federation code"),
        # The field as typed: the option (--fide-id, where the file's key is fide_id).
        (["--fide-id", "4100018"], "--fide-id: 4100018 is already entered, for Kuiper, Jan (1)"),
        (["--fide-id", "123456789012"], "--fide-id: 123456789012 is not a FIDE ID"),
        (["--rating", "21050"], "rating: 21050 is not a rating: 0 (unrated) or 100-3500"),
        # The number is the TRF starting rank, four digits: 12345 made a player line export-trf wrote and
        # import-trf could not read back.
        (["--number", "12345"], "number: 12345 is not a player number (1 to 9999, TRF's four-digit starting rank)"),
    ],
)
def test_add_player_refuses_bad_data(event: Path, options: list[str], says: str) -> None:
    assert says in refused(event, "add-player", event, "Laat, Karel", *options)


def test_a_refusal_shows_a_huge_input_by_its_start_and_end(event: Path) -> None:
    """A value pasted by mistake, thousands of characters long, was echoed whole in the one line of a refusal,
    by tmanager's errors and by the parser's alike."""
    pasted = "x" * 120 + "y" * 5000 + "z" * 40
    said = refused(event, "add-player", event, "Laat, Karel", "--federation", pasted)
    assert said == f"tmanager: {event}: --federation: '{'X' * 119}…[5002 characters]…{'Z' * 39}' is not a FIDE " \
        "federation code (three capitals as FIDE writes them: NED, GER, ENG, FID)"  # fmt: skip
    done = run_cli("event", "bye", event, "Kuiper", "--round", pasted)
    assert done.returncode == 2 and max(len(line) for line in done.stderr.splitlines()) < 300, done.stderr
    assert "invalid int value: 'xxx" in done.stderr and "…[5002 characters]…" in done.stderr


def test_sex_title_and_federation_in_any_case_as_the_csv_takes_them(event: Path, tmp_path: Path) -> None:
    """``--sex f`` and ``--title gm`` were refused by the parser's usage message, where a CSV took ``F``: the command
    line and the CSV now make the three fields as FIDE writes them by one function, and refuse the rest in one line."""
    ok("add-player", event, "Laat, Karel", "--sex", "M", "--title", "fm", "--federation", "ger")
    ok("add-player", event, "Smit, Anna", "--sex", "f", "--title", "wgm")
    ok("edit-player", event, "Bakker", "--sex", "F", "--title", "Wim")
    csv = tmp_path / "entries.csv"
    csv.write_text('name,sex,title,federation\n"Jong, Eva",F,wfm,bel\n')
    ok("import-players", event, csv)
    players = {p.name: (p.sex.value, p.title, p.federation) for p in ev.load(event).division().players}
    assert players["Laat, Karel"] == ("m", "FM", "GER") and players["Smit, Anna"] == ("w", "WGM", "")
    assert players["Bakker, Sanne"] == ("w", "WIM", "NED") and players["Jong, Eva"] == ("w", "WFM", "BEL")
    assert refused(event, "add-player", event, "Vos, Piet", "--sex", "x") == (
        f"tmanager: {event}: --sex: 'x' is not a sex as TRF writes it; use m or w (or leave it empty)"
    )
    assert refused(event, "edit-player", event, "Laat", "--title", "nm").endswith(
        ": --title: 'NM' is not a FIDE title; use GM, IM, WGM, FM, WIM, CM, WFM, WCM or leave it empty"
    )


def test_a_birth_year_written_as_a_toml_integer(event: Path) -> None:
    """``birth = 2010``, the year as a TOML integer, was refused as 'must be str (text), not 2010' with no hint, where
    ``birth = 2010-05-03``, a TOML date, was taken: a year is taken as its text, and checked as any birth."""
    text = event.read_text(encoding="utf-8")
    event.write_text(text.replace('name = "Bakker, Sanne"\n', 'name = "Bakker, Sanne"\nbirth = 2010\n'))
    assert ev.load(event).division().player(2).birth_year == 2010
    assert "Bakker, Sanne" in ok("standings", event)
    ok("edit-player", event, "Bakker", "--club", "Leiden")  # written back as the text every birth is
    assert 'birth = "2010"' in event.read_text(encoding="utf-8")
    event.write_text(text.replace('name = "Bakker, Sanne"\n', 'name = "Bakker, Sanne"\nbirth = 1800\n'))
    assert refused(event, "standings", event) == (
        f"tmanager: {event}: division[1].player[2].birth: '1800': the year must be between 1900 and "
        f"{datetime.date.today().year}"
    )


def test_edit_player_and_the_lower_case_federation(event: Path) -> None:
    assert ev.load(event).division().player(2).federation == "NED", "typed in lower case, stored as FIDE writes it"
    assert ": --fide-id: 4100018 is already entered" in refused(event, "edit-player", event, "Bakker", "--fide-id",
                                                                "4100018")  # fmt: skip
    assert ": --birth: '2001-04-31' is not a real date" in refused(
        event, "edit-player", event, "Bakker", "--birth", "2001-04-31"
    )


def test_edit_player_to_what_the_player_has_changes_nothing(event: Path) -> None:
    """A field given the value it has was said to be changed ('changed fide_id of Kuiper, Jan (1)'): the arbiter
    was told of a change there was none of. It is said to be as given; with nothing else, nothing is written."""
    journal = sorted((event.parent / "old").glob("*"))
    before = event.read_bytes()
    same = ok("edit-player", event, "Kuiper", "--fide-id", "4100018", "--federation", "ned")
    assert same.strip() == "nothing to change: Kuiper, Jan (1) already has the federation, fide_id given"
    assert event.read_bytes() == before and sorted((event.parent / "old").glob("*")) == journal
    some = ok("edit-player", event, "Kuiper", "--fide-id", "4100018", "--rating", "2600")
    assert some.strip() == "changed rating of Kuiper, Jan (1) (already has the fide_id given)"
    assert ev.load(event).division().player(1).rating == 2600


def test_a_womens_title_with_sex_m_is_refused(event: Path, tmp_path: Path) -> None:
    """A WCM of sex m was entered (as were WGM, WIM and WFM): a slip in the title or the sex, which put the player
    in or out of the category women and the women's norms by chance."""
    says = "title: WCM is a women's title and the player's sex is m (correct the title or the sex)"
    assert refused(event, "add-player", event, "Laat, Karel", "--title", "WCM", "--sex", "m").endswith(says)
    assert "WIM is a women's title" in refused(event, "edit-player", event, "Kuiper", "--title", "WIM", "--sex", "m")
    ok("add-player", event, "Visser, Tom", "--sex", "m", "--fide-id", "4100042")
    assert "WFM is a women's title" in refused(event, "edit-player", event, "Visser", "--title", "WFM")
    ok("edit-player", event, "Bakker", "--title", "WGM")  # sex w: a woman's title as it should be
    assert "WGM is a women's title" in refused(event, "edit-player", event, "Bakker", "--sex", "m")
    # The list gives Visser's FIDE ID the title WIM: the event's sex m makes the update a slip to correct first.
    listed = FIDE / "standard_rating_list.txt"
    assert refused(event, "update-ratings", event, listed).endswith(
        f"Visser, Tom (3): {listed} (line 5): title: WIM is a women's title and the player's sex is m (correct "
        "the title or the sex)"
    )
    # A list's own line with a women's title and sex M is junk like any other.
    lines = listed.read_text().splitlines()
    lines[2] = lines[2].replace(" M   FM  ", " M   WFM ")
    junk = tmp_path / "list.txt"
    junk.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match="line 3: title: WFM is a women's title and the player's sex is m"):
        ratinglist.read(junk)


def test_imported_players_and_hand_edited_files(event: Path, tmp_path: Path) -> None:
    csv = tmp_path / "entries.csv"
    csv.write_text('name,federation,birth\n"A, B",NED,2001-01-01\n"C, D",XYZ,2002\n')
    assert "entries.csv: line 3: federation: 'XYZ' is not a FIDE federation code" in refused(
        event, "import-players", event, csv
    )
    # A sex that is none was refused as the event file's fault, unlike every other cell: 'tmanager: EVENT:
    # entries.csv: line 2: player.sex: 'X' is not one of …', the event named first and the field as the file's.
    csv.write_text('name,sex\n"A, B",X\n')
    assert refused(event, "import-players", event, csv) == (
        f"tmanager: {csv}: line 2: sex: 'X' is not a sex as TRF writes it; use m or w (or leave it empty)"
    )
    csv.write_text('name,sex\n"Jansen, Eva",F\n"Jansen, Piet",M\n')  # as FIDE's lists write them
    assert run_cli("event", "import-players", event, csv).returncode == 0
    players = ev.load(event).divisions[0].players
    jansens = [(p.name, p.sex) for p in players if p.name.startswith("Jansen")]
    assert jansens == [("Jansen, Eva", "w"), ("Jansen, Piet", "m")]
    csv.write_text('name,number\n"A, B",10000\n')
    assert "number: 10000 is not a player number" in refused(event, "import-players", event, csv)
    csv.write_text('name,fide_id\n"A, B",4100099\n"C, D",4100099\n')
    assert "line 3: FIDE ID 4100099 is already entered" in refused(event, "import-players", event, csv)
    # A hand edit that gives two players one FIDE ID is refused when the file is read.
    event.write_text(event.read_text().replace('name = "Bakker, Sanne"', 'name = "Bakker, Sanne"\nfide_id = 4100018'))
    with pytest.raises(ConfigError, match="players 1 and 2 have the same FIDE ID 4100018"):
        ev.load(event)
    # A late entry's rounds missed (315194c), out of range by hand, was taken.
    event.write_text(event.read_text().replace("fide_id = 4100018", "missed = 1000"))
    with pytest.raises(ConfigError, match=r"missed: must be from 0 to \d+ \(the rounds paired before the player "
                       r"entered\), not 1000"):  # fmt: skip
        ev.load(event)


def test_junk_lines_of_a_fide_list(tmp_path: Path) -> None:
    lines = (FIDE / "players_list_foa.txt").read_text().splitlines()
    assert "Kuiper, Jan" in lines[1]
    lines[1] = lines[1].replace(" NED ", " XYZ ")  # line 2
    lines.insert(3, "garbage line that is no player")  # line 4
    lines.insert(4, lines[2].replace("4100026", "41000\u00b926"))  # line 5: '¹' is no digit of an ID
    junk = tmp_path / "list.txt"
    junk.write_text("\ufeff" + "\n".join(lines) + "\n")  # saved by an editor that writes a byte-order mark
    with pytest.raises(ConfigError, match=r"list.txt: line 2: federation: 'XYZ' is not .*, or pass --skip-bad"):
        ratinglist.read(junk)
    listing = ratinglist.read_listing(junk, skip_bad=True)
    assert listing.skipped == (
        "line 2: federation: 'XYZ' is not a FIDE federation code (three capitals as FIDE writes them: NED, GER, "
        "ENG, FID)",
        "line 4: 'garbage line th' is not a FIDE ID",
        "line 5: '41000\u00b926' is not a FIDE ID",
    )
    assert 4100018 not in listing.entries and len(listing.entries) == 7
    # The command line (Jan is not asked for: his line is not looked at): refused without --skip-bad, nothing
    # entered; with it, each skipped line is said.
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "5")
    assert "line 4: 'garbage line th' is not" in refused(path, "import-players", path, "--list", junk, "--ids",
                                                           "4100026")  # fmt: skip
    done = run_cli("event", "import-players", path, "--list", junk, "--ids", "4100026", "--skip-bad")
    assert done.returncode == 0 and "warning: " in done.stderr and "line 4: 'garbage line th'" in done.stderr
    assert [p.name for p in ev.load(path).division().players] == ["Kuipers, Piet"]


def test_a_fide_id_listed_twice_is_a_junk_line(tmp_path: Path) -> None:
    """A list holding a player's ID twice (two downloads joined, a line edited) gave the player of its last line
    without a word: Kuiper, Jan was entered as the second line's 'Kuiper, Jon' with its rating. FIDE's IDs are
    unique, so the second line is junk: refused, or skipped with --skip-bad, the first line kept."""
    lines = (FIDE / "players_list_foa.txt").read_text().splitlines()
    assert lines[1].startswith("4100018        Kuiper, Jan ")
    lines.append(lines[1].replace("Kuiper, Jan", "Kuiper, Jon").replace(" 2587 ", " 2001 "))
    doubled = tmp_path / "list.txt"
    doubled.write_text("\n".join(lines) + "\n")
    says = f"list.txt: line {len(lines)}: FIDE ID 4100018 is listed a second time (line 2 has it)"
    with pytest.raises(ConfigError, match=re.escape(f"{says} (correct it, or pass --skip-bad")):
        ratinglist.read(doubled, ids=[4100018])
    listing = ratinglist.read_listing(doubled, ids=[4100018], skip_bad=True)
    assert listing.skipped == (says.removeprefix("list.txt: "),)
    kept = listing.entries[4100018]
    assert (kept.name, kept.ratings[playerfields.RatingKind.STANDARD]) == ("Kuiper, Jan", 2587)
    assert 4100018 not in ratinglist.read(doubled, ids=[4100026]), "a player not asked for is not looked at"
    path = tmp_path / "open.toml"
    ok("new", path, "--name", "Open", "--rounds", "5")
    line = refused(path, "import-players", path, "--list", doubled, "--ids", "4100018")
    assert line.endswith(f"{says} (correct it, or pass --skip-bad to skip such lines)"), line
    assert ev.load(path).division().players == []


def test_no_entry_once_the_last_round_is_paired(tmp_path: Path) -> None:
    path = tmp_path / "short.toml"
    ok("new", path, "--name", "Short", "--rounds", "1")
    ok("add-player", path, "Kuiper, Jan", "--rating", "2587")
    ok("add-player", path, "Bakker, Sanne", "--rating", "2188")
    ok("pair", path, "--colour", "white")
    says = refused(path, "add-player", path, "Laat, Karel")
    assert says == f"tmanager: {path}: round 1 of 1 is paired: no player can enter any more"


def test_a_fide_id_entered_by_mistake_is_taken_away(event: Path) -> None:
    """`edit-player --fide-id` took a whole number only: an ID given to the wrong player stayed (and kept the
    right one from having it) but for a hand edit. '' takes it away, as `--title ''` does a title."""
    assert ok("edit-player", event, "Kuiper", "--fide-id", "").strip() == "changed fide_id of Kuiper, Jan (1)"
    assert ev.load(event).division().player(1).fide_id is None
    assert "fide_id" not in event.read_text(encoding="utf-8")
    ok("edit-player", event, "Bakker", "--fide-id", "4100018")  # now free for the player it belongs to
    assert ev.load(event).division().player(2).fide_id == 4100018
    before = event.read_bytes()
    for typed in ("x1", "-5", "٣"):
        assert refused(event, "edit-player", event, "Bakker", "--fide-id", typed).endswith(
            f"--fide-id: {typed!r} is not a FIDE ID (a whole number of at most ten digits, or '' for none)"
        )
    assert event.read_bytes() == before
