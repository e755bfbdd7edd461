"""FIDE tie-breaks on small events worked out by hand, including the unplayed-round rules."""

from __future__ import annotations

import pytest

from tmanager.core import tiebreaks
from tmanager.core.tiebreaks import RoundResult as R

# Four players, three rounds; scores A 2.5, C 2, B 1, D 0.5.
SWISS = {
    "A": [R(1, "B", "w"), R(0.5, "C", "b"), R(1, "D", "w")],
    "B": [R(0, "A", "b"), R(1, "D", "b"), R(0, "C", "w")],
    "C": [R(0.5, "D", "w"), R(0.5, "A", "w"), R(1, "B", "b")],
    "D": [R(0.5, "C", "b"), R(0, "B", "w"), R(0, "A", "b")],
}
RATINGS = {"A": 2000, "B": 1800, "C": 1900, "D": 1700}


def test_swiss_values() -> None:
    values = tiebreaks.compute(SWISS, tiebreaks.TIEBREAKS, ratings=RATINGS)
    assert values["A"] == {
        "BH": 3.5, "BH-C1": 3.0, "BH-M1": 1.0, "SB": 2.5, "WIN": 2, "WON": 2, "BPG": 1, "BWG": 0,
        "ARO": 1800, "TPR": 2073, "PS": 5.0, "EBH": 14.5,
    }  # fmt: skip
    assert [values[p]["BH"] for p in "BCD"] == [5.0, 4.0, 5.5]
    assert [values[p]["BH-C1"] for p in "BCD"] == [4.5, 3.5, 4.5]
    assert [values[p]["BH-M1"] for p in "BCD"] == [2.0, 1.0, 2.0]
    assert [values[p]["SB"] for p in "BCD"] == [0.5, 2.5, 1.0]
    assert [values[p]["BPG"] for p in "BCD"] == [2, 1, 2]
    assert [values[p]["PS"] for p in "BCD"] == [2.0, 3.5, 1.5]


def test_ranking_uses_tiebreaks_in_order() -> None:
    ranked = tiebreaks.rank(SWISS, ["BH", "SB"])
    assert [(r.name, r.points, r.values) for r in ranked] == [
        ("A", 2.5, (3.5, 2.5)),
        ("C", 2.0, (4.0, 2.5)),
        ("B", 1.0, (5.0, 0.5)),
        ("D", 0.5, (5.5, 1.0)),
    ]


# P took a half-point bye in round 2; Q was absent in the last round; R missed round 1.
UNPLAYED = {
    "P": [R(1, "Q", "w"), R(0.5, None, "", "half-bye"), R(0, "R", "b")],
    "Q": [R(0, "P", "b"), R(1, "R", "w"), R(0, None, "", "absent")],
    "R": [R(0, None, "", "absent"), R(0, "Q", "b"), R(1, "P", "w")],
}


def test_unplayed_rounds() -> None:
    values = tiebreaks.compute(UNPLAYED, ["BH", "BH-C1", "SB", "WIN", "WON"])
    # P: Q adjusted (0 + 1 + trailing absence as a draw) + dummy with P's own 1.5 + R's 1.
    assert values["P"]["BH"] == 4.0
    # The voluntarily unplayed round is cut first, although R's 1 is lower.
    assert values["P"]["BH-C1"] == 2.5
    assert values["P"]["SB"] == 1.5 * 1 + 1.5 * 0.5 + 1 * 0
    # R's early absence is not trailing: R counts 1 in P's Buchholz, and R's own dummy scores 1.
    assert values["R"]["BH"] == 1 + 1.5 + 1.5
    assert values["R"]["BH-C1"] == 3.0
    assert values["P"]["WIN"] == 1 and values["P"]["WON"] == 1


def test_a_trailing_absence_counts_as_a_draw_of_the_scoring_in_use() -> None:
    # The same event under 3-1-0: Q's trailing absence adds a draw's 1 point (not half of 3).
    three = {name: [R(r.points * 3, r.opponent, r.colour, r.kind) for r in rounds] for name, rounds in UNPLAYED.items()}
    three["P"][1] = R(1, None, "", "half-bye")
    values = tiebreaks.compute(three, ["BH"], win=3, draw=1)
    assert values["P"]["BH"] == (0 + 3 + 1) + 4 + 3  # Q adjusted, dummy with P's own 4, R's 3
    assert tiebreaks.compute(three, ["BH"], win=3)["P"]["BH"] == (0 + 3 + 1.5) + 4 + 3


def test_forfeit_win_counts_as_win_but_not_won() -> None:
    event = {
        "A": [R(1, "B", "w", "forfeit-win"), R(1, None, "", "pairing-bye")],
        "B": [R(0, "A", "b", "forfeit-loss"), R(0, None, "", "zero-bye")],
    }
    values = tiebreaks.compute(event, ["WIN", "WON", "BPG"])
    assert values["A"] == {"WIN": 2, "WON": 0, "BPG": 0}


def test_direct_encounter_breaks_a_tie() -> None:
    event = {
        "A": [R(0, "B", "w"), R(1, "C", "b")],
        "B": [R(1, "A", "b"), R(0, "C", "w")],
        "C": [R(1, "B", "b"), R(0, "A", "w")],
    }
    ranked = tiebreaks.rank(event, ["DE"])
    # All on 1 point and each beat one other: a cycle, no DE order; then B beat A only.
    assert all(r.points == 1 for r in ranked)
    two = {"A": [R(0, "B", "w"), R(1, None, "", "pairing-bye")], "B": [R(1, "A", "b"), R(0, None, "", "zero-bye")]}
    assert [r.name for r in tiebreaks.rank(two, ["DE"])] == ["B", "A"]


def test_direct_encounter_when_not_all_met() -> None:
    # A and B met (A won); C met neither: C could still reach A's 1 point, so nobody is separated.
    values = tiebreaks.direct_encounter(
        {"A": [R(1, "B", "w")], "B": [R(0, "A", "b")], "C": [R(1, "X", "w")]}, ["A", "B", "C"]
    )
    assert values == {"A": 0.0, "B": 0.0, "C": 0.0}


def test_dp_table_and_unknown_tiebreak() -> None:
    assert [tiebreaks.dp(x) for x in (0.0, 0.5, 0.83, 1.0)] == [-800, 0, 273, 800]
    with pytest.raises(ValueError, match="unknown tie-break"):
        tiebreaks.compute(SWISS, ["XYZ"])
