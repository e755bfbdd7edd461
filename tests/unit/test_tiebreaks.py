"""FIDE tie-breaks (C.07) on small events worked out by hand, with their modifiers and the unplayed-round rules.

The values agree with FIDE's own TieBreakServer on the bbpPairings sample files (checked while writing them,
outside the test suite); here each one is worked out by hand.
"""

from __future__ import annotations

import pytest

from tmanager.core import fide, tiebreaknames, tiebreaks
from tmanager.core.results import Colour
from tmanager.core.tiebreaknames import Tiebreak
from tmanager.core.tiebreaks import RoundKind as K
from tmanager.core.tiebreaks import RoundResult as R

WHITE, BLACK = Colour.WHITE, Colour.BLACK

# Four players, three rounds; scores A 2.5, C 2, B 1, D 0.5.
SWISS = {
    "A": [R(1, "B", WHITE), R(0.5, "C", BLACK), R(1, "D", WHITE)],
    "B": [R(0, "A", BLACK), R(1, "D", BLACK), R(0, "C", WHITE)],
    "C": [R(0.5, "D", WHITE), R(0.5, "A", WHITE), R(1, "B", BLACK)],
    "D": [R(0.5, "C", BLACK), R(0, "B", WHITE), R(0, "A", BLACK)],
}
RATINGS = {"A": 2000, "B": 1800, "C": 1900, "D": 1700}
EVERY = [t for t in tiebreaknames.TIEBREAKS if t != "DE"]


def test_swiss_values() -> None:
    values = tiebreaks.compute(SWISS, EVERY, ratings=RATINGS)
    assert values["A"] == {
        "WIN": 2, "WON": 2, "BPG": 1, "BWG": 0, "REP": 3, "STD": 2.5, "PS": 5.0,
        # Koya: opponents with at least 50 % of 3 points (C's 2): A drew C.
        "KS": 0.5,
        "BH": 3.5, "FB": 3.5, "SB": 2.5,
        # AOB: the opponents' Buchholz 5, 4 and 5.5 on average, to two decimals.
        "AOB": 4.83,
        "ARO": 1800, "TPR": 2073,
        # PTP: the lowest rating expected to score 2.5 against 1800, 1900 and 1700 (table 8.1.2).
        "PTP": 2089,
        # APRO and APPO: the opponents' TPR (1742, 1958, 1627) and PTP (1733, 1968, 1610), averaged.
        "APRO": 1776, "APPO": 1770,
        "EBH": 14.5,
    }  # fmt: skip
    assert [values[p]["BH"] for p in "BCD"] == [5.0, 4.0, 5.5]
    assert [values[p]["SB"] for p in "BCD"] == [0.5, 2.5, 1.0]
    assert [values[p]["BPG"] for p in "BCD"] == [2, 1, 2]
    assert [values[p]["PS"] for p in "BCD"] == [2.0, 3.5, 1.5]
    assert [values[p]["KS"] for p in "BCD"] == [0.0, 0.5, 0.5]
    assert sum(fide.expected(2089, r, limit=None) for r in (1800, 1900, 1700)) >= 2.5
    assert sum(fide.expected(2088, r, limit=None) for r in (1800, 1900, 1700)) < 2.5


def test_cuts_and_medians() -> None:
    values = tiebreaks.compute(SWISS, ["BH-C1", "BH-C2", "BH-M1", "SB-C1", "PS-C1", "ARO-C1", "TPR-M1"],
                               ratings=RATINGS)  # fmt: skip
    assert values["A"] == {
        "BH-C1": 3.0, "BH-C2": 2.0, "BH-M1": 1.0,
        "SB-C1": 2.0,  # B's 1 (won) is the least significant
        "PS-C1": 4.0,  # running scores 1, 1.5, 2.5 without the first
        "ARO-C1": 1850, "TPR-M1": 2600,  # without 1700; TPR-M1 keeps only 1800, a win: 1800 + 800
    }  # fmt: skip


def test_fore_buchholz_counts_the_last_round_as_draws_once_it_is_the_events_last() -> None:
    early = tiebreaks.compute(SWISS, ["BH", "FB"])
    assert all(early[p]["FB"] == early[p]["BH"] for p in SWISS)
    final = tiebreaks.compute(SWISS, ["FB"], final=True)
    # A's opponents with their round-3 games drawn: B 0 + 1 + ½, C ½ + ½ + ½, D ½ + 0 + ½.
    assert final["A"]["FB"] == 1.5 + 1.5 + 1.0


# P took a half-point bye in round 2; Q was absent in the last round; R missed round 1.
UNPLAYED = {
    "P": [R(1, "Q", WHITE), R(0.5, None, None, K.HALF_BYE), R(0, "R", BLACK)],
    "Q": [R(0, "P", BLACK), R(1, "R", WHITE), R(0, None, None, K.ABSENT)],
    "R": [R(0, None, None, K.ABSENT), R(0, "Q", BLACK), R(1, "P", WHITE)],
}


def test_unplayed_rounds() -> None:
    values = tiebreaks.compute(UNPLAYED, ["BH", "BH-C1", "SB", "WIN", "WON", "REP"])
    # P: Q adjusted (0 + 1 + trailing absence as a draw) + dummy with P's own 1.5 + R's 1.
    assert values["P"]["BH"] == 4.0
    # The voluntarily unplayed round is cut first, although R's 1 is lower.
    assert values["P"]["BH-C1"] == 2.5
    assert values["P"]["SB"] == 1.5 * 1 + 1.5 * 0.5 + 1 * 0
    # R's early absence is not trailing: R counts 1 in P's Buchholz, and R's own dummy scores 1.
    assert values["R"]["BH"] == 1 + 1.5 + 1.5
    assert values["R"]["BH-C1"] == 3.0
    assert values["P"]["WIN"] == 1 and values["P"]["WON"] == 1 and values["P"]["REP"] == 2


def test_a_vur_adding_less_than_the_lowest_value_spares_nothing() -> None:
    """SB-C1: the forfeit loss (a VUR) adds 0; cutting it would spare the player, so the lowest value goes."""
    event = {
        "X": [R(1, "A", WHITE), R(0, "B", BLACK, K.FORFEIT_LOSS), R(1, "C", WHITE)],
        "A": [R(0, "X", BLACK), R(1, "C", BLACK), R(1, "B", WHITE)],
        "B": [R(0.5, "C", WHITE), R(1, "X", WHITE, K.FORFEIT_WIN), R(0, "A", BLACK)],
        "C": [R(0.5, "B", BLACK), R(0, "A", WHITE), R(0, "X", BLACK)],
    }
    values = tiebreaks.compute(event, ["SB", "SB-C1", "BH-C1"], rules=2024)
    # X's rounds: A (2 points) won, dummy (X's own 2) lost by forfeit, C (0.5) won.
    assert values["X"]["SB"] == 2 + 0 + 0.5
    assert values["X"]["SB-C1"] == 2.0  # C's 0.5 cut, not the VUR's 0
    assert values["X"]["BH-C1"] == 2 + 0.5  # Buchholz cuts the VUR (the dummy's 2)


def test_the_2026_rules_cap_the_dummy_opponent() -> None:
    """From 1 March 2026 a round without a game counts no more than the absent opponent or all draws."""
    event = {
        "X": [R(1, "A", WHITE), R(1, "B", BLACK, K.FORFEIT_WIN), R(1, "C", WHITE), R(0.5, None, None, K.HALF_BYE)],
        "A": [R(0, "X", BLACK), R(0, "C", BLACK), R(1, "B", WHITE), R(0, None, None, K.ZERO_BYE)],
        "B": [R(0.5, "C", WHITE), R(0, "X", WHITE, K.FORFEIT_LOSS), R(0, "A", BLACK), R(0, None, None, K.ZERO_BYE)],
        "C": [R(0.5, "B", BLACK), R(1, "A", WHITE), R(0, "X", BLACK), R(0, None, None, K.ZERO_BYE)],
    }
    old = tiebreaks.compute(event, ["BH"], rules=2024)["X"]["BH"]
    new = tiebreaks.compute(event, ["BH"], rules=2026)["X"]["BH"]
    # Opponents: A 1 + 0.5 (trailing bye as a draw), C 1.5 + 0.5; X's own 3.5 for the forfeit and the bye.
    assert old == 1.5 + 3.5 + 2.0 + 3.5
    # 2026: the forfeit's dummy is B's adjusted 0.5 + 0.5, the bye's at most 4 draws.
    assert new == 1.5 + 1.0 + 2.0 + 2.0
    assert tiebreaknames.rules_for("2026-02-28") == 2024 and tiebreaknames.rules_for("2026-03-01") == 2026
    assert tiebreaknames.rules_for("") == 2026


def test_a_trailing_absence_counts_as_a_draw_of_the_scoring_in_use() -> None:
    # The same event under 3-1-0: Q's trailing absence adds a draw's 1 point (not half of 3).
    three = {name: [R(r.points * 3, r.opponent, r.colour, r.kind) for r in rounds] for name, rounds in UNPLAYED.items()}
    three["P"][1] = R(1, None, None, K.HALF_BYE)
    values = tiebreaks.compute(three, ["BH", "SB", "STD"], win=3, draw=1, rules=2024)
    assert values["P"]["BH"] == (0 + 3 + 1) + 4 + 3  # Q adjusted, dummy with P's own 4, R's 3
    assert values["P"]["SB"] == 4 * 3 + 4 * 1 + 3 * 0  # the points as scored, as TieBreakServer weighs them
    assert values["P"]["STD"] == 1.5
    assert tiebreaks.compute(three, ["BH"], win=3, rules=2024)["P"]["BH"] == (0 + 3 + 1.5) + 4 + 3


def test_forfeit_win_counts_as_win_but_not_won() -> None:
    event = {
        "A": [R(1, "B", WHITE, K.FORFEIT_WIN), R(1, None, None, K.PAIRING_BYE)],
        "B": [R(0, "A", BLACK, K.FORFEIT_LOSS), R(0, None, None, K.ZERO_BYE)],
    }
    values = tiebreaks.compute(event, ["WIN", "WON", "BPG", "REP"])
    assert values["A"] == {"WIN": 2, "WON": 0, "BPG": 0, "REP": 2}
    assert values["B"]["REP"] == 0


def test_koya_in_a_round_robin() -> None:
    """Five players, five rounds (a rest round each): 50 % of the 4 games is 2 points."""
    results = {("A", "B"): 1, ("A", "C"): 1, ("A", "D"): 0.5, ("A", "E"): 1, ("B", "C"): 0.5,
               ("B", "D"): 1, ("B", "E"): 1, ("C", "D"): 0, ("C", "E"): 1, ("D", "E"): 0}  # fmt: skip
    event: dict[str, list[R]] = {p: [R(0, None, None, K.ZERO_BYE)] for p in "ABCDE"}
    for (w, b), points in results.items():
        event[w].append(R(points, b, WHITE))
        event[b].append(R(1 - points, w, BLACK))
    values = tiebreaks.compute(event, ["KS", "KS-L75"], round_robin=True)
    # Scores: A 3.5, B 2.5, C 1.5, D 1.5, E 1: A and B reach 2, only A reaches 75 % (3).
    assert values["A"] == {"KS": 1.0, "KS-L75": 0.0}
    assert values["D"]["KS"] == 0.5 + 0 and values["D"]["KS-L75"] == 0.5


def test_direct_encounter_as_fide_writes_it() -> None:
    """DE is the place within the tied group: 0 when nobody is separated, blank (None) outside a tie."""
    cycle = {
        "A": [R(0, "B", WHITE), R(1, "C", BLACK), R(1, "X", WHITE)],
        "B": [R(1, "A", BLACK), R(0, "C", WHITE), R(1, "X", BLACK)],
        "C": [R(1, "B", BLACK), R(0, "A", WHITE), R(1, "X", WHITE)],
        "X": [R(0, "A", BLACK), R(0, "B", WHITE), R(0, "C", BLACK)],
    }
    ranked = tiebreaks.rank(cycle, ["DE"])
    assert [(r.name, r.values) for r in ranked] == [("A", (0.0,)), ("B", (0.0,)), ("C", (0.0,)), ("X", (None,))]
    two = {
        "A": [R(0, "B", WHITE), R(1, None, None, K.PAIRING_BYE)],
        "B": [R(1, "A", BLACK), R(0, None, None, K.ZERO_BYE)],
    }
    assert [(r.name, r.values) for r in tiebreaks.rank(two, ["DE"])] == [("B", (1.0,)), ("A", (2.0,))]


def test_direct_encounter_separates_again_among_those_still_level() -> None:
    # Four players level on points. Among them: A 3 (beat all), B and C 1.5 each (drew, both lost to A,
    # both beat D), D 0. B and C are compared again on their own game: a draw leaves them sharing 2nd.
    group = {
        "A": [R(1, "B", WHITE), R(1, "C", BLACK), R(1, "D", WHITE)],
        "B": [R(0, "A", BLACK), R(0.5, "C", WHITE), R(1, "D", BLACK)],
        "C": [R(0.5, "B", BLACK), R(0, "A", WHITE), R(1, "D", WHITE)],
        "D": [R(0, "A", BLACK), R(0, "B", WHITE), R(0, "C", BLACK)],
    }
    assert tiebreaks.direct_encounter(group, ["A", "B", "C", "D"]) == {"A": 1, "B": 2, "C": 2, "D": 4}
    # Only B and C tied: the second step, among them alone, is the draw again.
    assert tiebreaks.direct_encounter(group, ["B", "C"]) == {"B": 0, "C": 0}
    # A and B tied, C with them on points but having met only A: A is placed, B and C cannot be told apart.
    partial = {"A": [R(1, "B", WHITE), R(0.5, "C", BLACK)], "B": [R(0, "A", BLACK)], "C": [R(0.5, "A", WHITE)]}
    assert tiebreaks.direct_encounter(partial, ["A", "B", "C"]) == {"A": 0, "B": 0, "C": 0}
    beaten = {"A": [R(1, "B", WHITE), R(1, "C", BLACK)], "B": [R(0, "A", BLACK)], "C": [R(0, "A", WHITE)]}
    # A scored 2 of 2; B and C, who never met, could each reach 1: A first, then B and C share 2nd.
    assert tiebreaks.direct_encounter(beaten, ["A", "B", "C"]) == {"A": 1, "B": 2, "C": 2}


def test_names_modifiers_and_legends() -> None:
    assert Tiebreak.parse("bh/c1") == Tiebreak("BH", cut=1)
    assert Tiebreak.parse("BH-M2").name == "BH-M2" and Tiebreak.parse("KS/L60").name == "KS-L60"
    assert Tiebreak.parse("GE") == Tiebreak("REP")
    assert Tiebreak.parse("ARO-C1-U1400").title == "Average Rating of Opponents Cut-1"
    assert tiebreaknames.legend(["BH-C1", "KS"]) == [
        "BH-C1: Buchholz Cut-1: sum of the opponents' scores, the 1 least significant left out",
        "KS: Koya System: points against the opponents with at least 50 % of the maximum",
    ]
    for text, message in (
        ("XYZ", "unknown tie-break 'XYZ'"),
        ("WIN-C1", "WIN takes no modifier 'C1' (its modifiers: none)"),
        ("BH-L3", "BH takes no modifier 'L3' (its modifiers: Cn, Mn)"),
        ("KS-L120", "the Koya limit is a percentage"),
    ):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            Tiebreak.parse(text)
    with pytest.raises(ValueError, match="unknown tie-break"):
        tiebreaks.compute(SWISS, ["XYZ"])


def test_rating_tiebreaks_are_dropped_when_unrated_players_are_present_unless_a_rating_is_given() -> None:
    """C.07 drops a rating-based tie-break from the list when unrated players are present, unless the rules give
    them a rating (``Un``). ARO, TPR and the rest were computed over the rated opponents alone (A's ARO 1850, as
    if B and C were the only opponents), ranking by a rule nobody announced; FIDE's TieBreakServer leaves them
    without a value, and so does tmanager now: blank for everyone, separating nobody."""
    unrated = {"B": 1800, "C": 1900}  # A and D are unrated
    values = tiebreaks.compute(SWISS, ["ARO", "TPR", "PTP", "APRO", "APPO", "ARO-U1000", "BH"], ratings=unrated)
    for p in SWISS:
        assert [values[p][t] for t in ("ARO", "TPR", "PTP", "APRO", "APPO")] == [None] * 5
    assert values["A"]["ARO-U1000"] == 1567 and values["A"]["BH"] == 3.5, "a rating given, or not rating-based"
    assert tiebreaks.compute(SWISS, ["ARO", "TPR"], ratings=RATINGS)["A"] == {"ARO": 1800, "TPR": 1800 + fide.dp(5 / 6)}
    parsed = [Tiebreak.parse(t) for t in ("ARO", "ARO-U1400", "TPR-C1", "BH")]
    assert tiebreaks.dropped(parsed, SWISS, unrated) == [parsed[0], parsed[2]]
    assert tiebreaks.dropped(parsed, SWISS, RATINGS) == []
    # A rating of 0 is a rating (a cross-table's Elo anchored at 0): never unrated.
    assert tiebreaks.compute(SWISS, ["ARO"], ratings={**RATINGS, "B": 0})["A"]["ARO"] == round((0 + 1900 + 1700) / 3)


def test_dp_table() -> None:
    assert [fide.dp(x) for x in (0.0, 0.5, 0.83, 1.0)] == [-800, 0, 273, 800]
