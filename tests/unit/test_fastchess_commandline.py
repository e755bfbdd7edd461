"""fastchess's command line read as fastchess reads it: the lines OpenBench's and fishtest's workers build,
fastchess's defaults and checks, and one-line refusals. No process is started here."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tmanager.core.stats import SprtModel, SprtSettings
from tmanager.core.timecontrol import TimeControl
from tmanager.errors import ConfigError
from tmanager.fastchess.commandline import Action, parse
from tmanager.fastchess.config import DrawRule, EngineConfig, MatchConfig, OpeningsConfig, ResignRule
from tmanager.fastchess.limits import TimeLimit, duration_ms, parse_tc, report_text
from tmanager.fastchess.output import OutputFormat
from tmanager.tourney.settings import BookFormat, BookOrder

#: OpenBench's client (Client/worker.py, build_runner_command) for a fixed-nodes test on one runner.
OPENBENCH = (
    "-recover -variant standard -testEnv -concurrency 2 -rounds 8 -games 2 "
    "-resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 "
    "-engine dir=Engines/ cmd=./dev proto=uci tc=inf nodes=5000 option.Threads=1 option.Hash=16 name=Engine-dev "
    "-engine dir=Engines/ cmd=./base proto=uci tc=inf nodes=5000 option.Threads=1 option.Hash=16 name=Engine-base "
    "-openings file=Books/UHO.epd format=epd order=random start=17 -srand 424242 "
    "-pgnout file=PGNs/1.2.3.0.pgn seldepth=true nodes=true match_line='^info string pgncomment .*'"
)


def match(line: str, *, cpus: int = 8) -> MatchConfig:
    parsed = parse(shlex.split(line), cpus=cpus)
    assert isinstance(parsed, MatchConfig)
    return parsed


def test_openbench_s_command_line() -> None:
    config = match(OPENBENCH)
    dev, base = config.engines
    assert dev == EngineConfig(
        name="Engine-dev", cmd="./dev", dir="Engines/", nodes=5000, options=(("Threads", "1"), ("Hash", "16"))
    )
    assert base.name == "Engine-base" and base.cmd == "./base"
    assert (config.rounds, config.games, config.concurrency, config.recover, config.test_env) == (8, 2, 2, True, True)
    assert config.resign == ResignRule(move_count=3, score=400)
    assert config.draw == DrawRule(move_number=40, move_count=8, score=10)
    assert config.openings == OpeningsConfig(
        file="Books/UHO.epd", format=BookFormat.EPD, order=BookOrder.RANDOM, start=17
    )
    assert config.seed == 424242
    assert config.pgn.file == "PGNs/1.2.3.0.pgn" and config.pgn.fields == ("nodes", "seldepth")
    assert config.pgn.match_lines == ("^info string pgncomment .*",)
    assert config.report_penta and config.output is OutputFormat.FASTCHESS and config.rating_interval == 10


#: fishtest's worker (worker/games.py, run_games), its two _spsa_ markers taken out as launch_fastchess does.
FISHTEST = (
    "-testEnv -recover -repeat -games 2 -rounds 4 -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 "
    "-report penta=true -pgnout file=results-abc-0.pgn append=false -crc32 pgn=true "
    "-site https://tests.stockfishchess.org/tests/view/abc -event 'Batch 0: new vs base' -srand 1234 "
    "-resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 -variant standard "
    "-concurrency 2 -openings file=UHO.epd format=epd order=random plies=16 start=1 -check-mate-pvs "
    "-engine name=New-abc tc=10+0.1 cmd=/tmp/sf dir=. option.Hash=16 option.EvalFile=nn.nnue "
    "-engine name=Base-abc tc=10+0.1 cmd=/tmp/sf dir=. option.Hash=16 "
    "-each proto=uci option.Threads=1"
)


def test_fishtest_s_command_line() -> None:
    config = match(FISHTEST)
    new, base = config.engines
    assert new.tc == TimeLimit(time_ms=10_000, increment_ms=100) and new.dir == "."
    assert new.options == (("Hash", "16"), ("EvalFile", "nn.nnue"), ("Threads", "1"))
    assert base.options == (("Hash", "16"), ("Threads", "1"))
    assert (config.rating_interval, config.score_interval, config.autosave_interval) == (1, 1, 0)
    assert config.event == "Batch 0: new vs base"
    assert config.site == "https://tests.stockfishchess.org/tests/view/abc"
    assert config.crc_pgn and config.check_mate_pvs and not config.pgn.append
    assert config.openings is not None and config.openings.plies == 16


def test_each_is_applied_last_and_its_wins_are_listed() -> None:
    config = match("-each tc=10+0.1 -engine cmd=a tc=20+0.2 -engine cmd=b")
    assert [e.tc for e in config.engines] == [TimeLimit(time_ms=10_000, increment_ms=100)] * 2
    assert config.overridden == (("a", "tc", "20+0.2", "10+0.1"),)  # as typed: it was the TimeLimit's repr


def test_an_override_is_of_engine_s_value_as_typed_never_of_an_earlier_each() -> None:
    """A second -each tc= was said to override -engine's tc of every engine, naming the first -each's (as a repr);
    st= was told in milliseconds, restart= as True."""
    config = match("-engine cmd=a st=2 restart=on proto=uci timemargin=100 -engine cmd=b -each st=1 "
                   "-each st=0.5 restart=off timemargin=50 -each st=0.25")
    assert config.overridden == (("a", "st", "2", "0.25"), ("a", "restart", "on", "off"),
                                 ("a", "timemargin", "100", "50"))
    assert match("-engine cmd=a -engine cmd=b -each tc=1+0.01 -each tc=2+0.02").overridden == ()
    again = match("-engine cmd=a tc=40/90+0.5 -engine cmd=b tc=40/90+0.5 -each tc=40/90+0.5")
    assert again.overridden == ()  # the same value: nothing overridden


def test_fastchess_s_defaults_and_fixes() -> None:
    config = match("-engine cmd=sf name=x nodes=10 -engine cmd=sf nodes=10 -games 100 -rounds 2")
    assert (config.games, config.rounds) == (2, 100)  # -games above 2 is taken for a slip: swapped
    assert [e.name for e in config.engines] == ["x", "sf"]
    same = match("-engine cmd=/usr/bin/sf nodes=10 -engine cmd=/opt/sf nodes=10 -ratinginterval 0")
    assert [e.name for e in same.engines] == ["sf", "sf_2"] and same.rating_interval > 10**9
    # fastchess takes a negative interval, which never divides its unsigned count: a report at the end only, as
    # 0 gives (fastchess printed one report for 3 rounds of -ratinginterval -1, one score of -scoreinterval -1).
    # It was refused.
    never = match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -ratinginterval -1 -scoreinterval -2147483648")
    assert never.rating_interval == never.score_interval == same.rating_interval
    assert not match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -games 1").report_penta
    assert not match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -output format=cutechess").report_penta
    bayesian = match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 "
                     "model=bayesian")
    assert bayesian.sprt == SprtSettings(0, 5, 0.05, 0.05, SprtModel.BAYESIAN) and not bayesian.report_penta
    assert bayesian.warnings == ("Warning; Bayesian SPRT model not available with pentanomial statistics. "
                                 "Disabling pentanomial reports...",)  # fastchess says what it fixed
    quiet = match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 "
                  "model=bayesian -report penta=false")
    assert quiet.warnings == ()  # nothing was fixed
    assert match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -concurrency -6", cpus=8).concurrency == 2
    assert match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -repeat \u00b2").games == 2  # as -repeat x: 2
    # and says so first, as fastchess's sanitize does
    assert match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -concurrency 0", cpus=8).warnings == (
        "Info: Adjusted concurrency to 8 based on number of available hardware threads.",)
    assert match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -concurrency 2", cpus=8).warnings == ()


@pytest.mark.parametrize(("book", "read_as"), [
    ("file=b.epd", BookFormat.EPD), ("file=b.pgn", BookFormat.PGN), ("file=b.txt format=epd", BookFormat.EPD),
    ("file=b.txt", BookFormat.AUTO), ("file=b.EPD", BookFormat.AUTO), ("format=pgn file=b", BookFormat.PGN),
])
def test_a_book_s_format_is_told_as_fastchess_tells_it(
    book: str, read_as: BookFormat, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # fastchess reads the format from format= or the file's suffix, in lower case; with neither it plays from the
    # start position and says so (tmanager read the book by its content, silently). It must be there all the same.
    monkeypatch.chdir(tmp_path)
    if read_as is BookFormat.AUTO:
        with pytest.raises(ConfigError, match="no such opening book file"):
            match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -openings {book}")
    (tmp_path / book.split("file=")[1].split()[0]).write_text("")
    config = match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -openings {book}")
    assert config.openings is not None and config.openings.format is read_as
    unknown = "Warning: Unknown opening format, 2. All games will be played from the starting position."
    assert config.warnings == ((unknown,) if read_as is BookFormat.AUTO else ())


@pytest.mark.parametrize("plies", ["0", "-5"])
def test_a_pgn_book_read_to_no_move_is_refused(plies: str) -> None:
    # fastchess keeps none of a PGN line's moves with plies=0 (or below -1); tmanager's plies = 0 is all of them.
    with pytest.raises(ConfigError, match=r"-openings plies=: .*no move of a PGN book's lines"):
        match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -openings file=b.pgn format=pgn plies={plies}")
    for fine in (f"file=b.epd format=epd plies={plies}", "file=b.pgn plies=-1", "file=b.pgn plies=8"):
        match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -openings {fine}")
    assert parse(["-version"]) == Action.VERSION and parse(["-help"]) == Action.HELP
    assert match("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -event Batch 0").event == "Batch0"  # words joined
    # fastchess's -rounds 0 before -sprt: as many rounds as the test takes (500,000); tmanager refused the 0
    sprt = "-sprt elo0=0 elo1=5 alpha=0.05 beta=0.05"
    assert match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -rounds 0 {sprt}").rounds == 500_000
    assert match(f"-engine cmd=a nodes=1 -engine cmd=b nodes=1 -rounds 7 {sprt}").rounds == 7


@pytest.mark.parametrize(
    ("line", "field", "says"),
    [
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -foo", "-foo", "unrecognized option"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -concurency 2", "-concurency", "did you mean -concurrency"),
        ("-engine cmd=a nodes=1", "-engine", "at least two"),
        ("-engine cmd=a -engine cmd=b nodes=1", "-engine a", "no time control"),
        ("-engine cmd=a tc=1+1 st=1 -engine cmd=b nodes=1", "-engine a", "both tc and st"),
        ("-engine cmd=a nodes=x -engine cmd=b nodes=1", "-engine", "not a whole number"),
        ("-engine cmd=a bogus=1 -engine cmd=b nodes=1", "-engine", "unrecognized engine option"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -concurrency 9", "-concurrency", "hardware threads"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -sprt elo0=5 elo1=0 alpha=0.05 beta=0.05", "-sprt elo1=", "less"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -sprt elo0=0 elo1=5 beta=0.05", "-sprt alpha=", "between 0"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -openings file=b.epd start=0", "-openings", "at least 1"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -rounds 0", "-rounds", "no rounds to play"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -rounds 0", "-rounds",
         "no rounds to play"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -variant fischerandom", "-variant", "opening book"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -log file=l compress=true", "-log", "gzip"),
        ("-engine cmd=a tc=1+1hg -engine cmd=b nodes=1", "-engine", "hourglass"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -pgnout match_line=(", "-pgnout", "regular expression"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -draw movecount", "-draw", "key=value"),
        # Were '-draw: must be at least 0, not -1': the key unnamed, and nothing of what fastchess makes of it.
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -draw movenumber=-1", "-draw movenumber=", "no game reaches"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -draw movecount=0", "-draw movecount=", "draws every game"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -resign movecount=0", "-resign movecount=", "first engine"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -resign score=-5", "-resign score=", "refuses it too"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -draw score=x", "-draw score=", "not a whole number"),
        ("-engine cmd=a nodes=1 -engine cmd=b nodes=1 -recover 3", "-recover", "no value"),
        ("stray -engine cmd=a", "stray", "not an option"),
        ("-engine cmd=a tc=\u00b2/10+0.1 -engine cmd=b nodes=1", "-engine", "moves must be positive"),  # '²'
    ],
)
def test_a_bad_command_line_is_one_line_naming_the_option(line: str, field: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(shlex.split(line), cpus=8)
    assert caught.value.field == field and says in str(caught.value), str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "limit"),
    [
        ("10+0.1", TimeLimit(time_ms=10_000, increment_ms=100)),
        ("40/1:30+0.5", TimeLimit(moves=40, time_ms=90_000, increment_ms=500)),
        ("10s+0.1s", TimeLimit(time_ms=10_000, increment_ms=100)),
        ("inf/60", TimeLimit(time_ms=60_000)),
        # fastchess multiplies in x86-64's long double, which keeps the error of 0.601 (0.60099…): 600 ms, as
        # its clock (go wtime 606 winc 6), its report (0.6+0.006) and its TimeControl tag say; 1.23+0.29 is
        # go wtime 1518 winc 289 and "1.229+0.29"; st=0.03 is go movetime 29 (fastchess 74deac23).
        ("0.601+0.006", TimeLimit(time_ms=600, increment_ms=6)),
        ("1.23+0.29", TimeLimit(time_ms=1229, increment_ms=289)),
        ("13.579+0.136", TimeLimit(time_ms=13_579, increment_ms=136)),
        ("1:0.07", TimeLimit(time_ms=60_070)),
        ("inf", TimeLimit()),
    ],
)
def test_time_controls_read_as_fastchess_reads_them(text: str, limit: TimeLimit) -> None:
    assert parse_tc(text) == limit
    if limit.is_set:  # the tourney file's tc says the same clock
        clock = TimeControl.parse(limit.tmanager_text())
        assert (clock.moves or 0, clock.base * 1000, clock.increment * 1000) == pytest.approx(
            (limit.moves, limit.time_ms, limit.increment_ms)
        )


def test_st_is_cut_to_milliseconds_as_fastchess_cuts_it() -> None:
    assert duration_ms("0.03") == 29  # fastchess's go movetime 29, "0.029/move"
    assert duration_ms("0.5") == 500
    assert duration_ms("2", unit_ms=60_000) == 120_000


@pytest.mark.parametrize(
    ("tc", "text"),
    [
        (TimeControl.parse("0.601+0.006"), "0.601+0.006"),
        (TimeControl.parse("40/90+0.5"), "40/90+0.5"),
        (TimeControl.parse("10"), "10"),
        (TimeControl.parse("inf", move_time=0.5), "0.5/move"),
        (TimeControl.parse("inf", nodes=2000, depth=12), "12 plies"),
        (TimeControl.parse("inf", nodes=2000), "2000 nodes"),
    ],
)
def test_a_report_names_limits_as_fastchess_does(tc: TimeControl, text: str) -> None:
    assert report_text(tc) == text
