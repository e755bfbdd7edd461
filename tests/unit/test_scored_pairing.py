"""Score-based pairing (tsh): standings, KOTH, factored, Swiss, round robin, InitFontes, Fontes, firsts, Chew."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from tmanager.errors import PairingError
from tmanager.pairing import Pairing
from tmanager.pairing.chew import (
    can_catch,
    chew,
    contended_band,
    count_contenders,
    count_gibsons,
    pair_gibsons,
    pair_leaders,
    split_leaders,
    spread_allowance,
)
from tmanager.pairing.scored import (
    BYE,
    Entrant,
    Scorecard,
    assign_firsts,
    factored,
    koth,
    minimum_repeats,
    random_pairing,
    ranked,
    starter,
    tally,
)
from tmanager.pairing.scored import tsh_swiss as swiss
from tmanager.pairing.scoredschedules import fontes_basis, init_fontes
from tmanager.pairing.scoredschedules import seeded_round_robin as round_robin


def field(*wins: float, history: dict[int, tuple[int | None, ...]] | None = None) -> list[Entrant]:
    """Entrants 1..n with these wins, spread and rating falling with the number, and opponents from ``history``."""
    history = history or {}
    return [
        Entrant(id=i, wins=w, spread=100 - i, rating=2000 - i, opponents=history.get(i, ()))
        for i, w in enumerate(wins, 1)
    ]


def played(*rounds: tuple[tuple[int, int], ...]) -> dict[int, tuple[int | None, ...]]:
    """Histories from the games of each round (players not listed are unpaired that round)."""
    history: dict[int, list[int | None]] = {}
    for index, games in enumerate(rounds):
        for a, b in games:
            for me, other in ((a, b), (b, a)):
                history.setdefault(me, [None] * len(rounds))[index] = other
    return {k: tuple(v) for k, v in history.items()}


def boards(pairing: Pairing) -> set[frozenset[int]]:
    return {frozenset(b) for b in pairing.boards}


def pairs(*games: tuple[int, int]) -> set[frozenset[int]]:
    return {frozenset(g) for g in games}


# -- standings ---------------------------------------------------------------


def test_tally_wins_ties_spread_byes_and_unscored_games() -> None:
    cards = [
        Scorecard(id=1, rating=1800, opponents=(2, 3, BYE), scores=(400, 350, 50), p12=(1, 2, 0)),
        Scorecard(id=2, rating=1700, opponents=(1, BYE, 3), scores=(380, -50, None), p12=(2, 0, 1)),
        Scorecard(id=3, rating=1600, opponents=(BYE, 1, 2), scores=(50, 350, 420), p12=(0, 1, 2)),
    ]
    standings = tally(cards)
    assert [e.id for e in standings] == [1, 3, 2]
    one, three, two = standings
    assert (one.wins, one.spread, one.firsts, one.seconds, one.byes) == (2.5, 70, 1, 1, 1)
    assert (three.wins, three.spread) == (1.5, 50)  # round 3 not scored by player 2 yet
    assert (two.wins, two.spread) == (0.0, -70)  # a forfeit: bye entry with negative spread
    assert (one.losses, three.losses, two.losses) == (0.5, 0.5, 2.0)


def test_tally_counts_a_zero_spread_round_off_as_neither_win_nor_loss() -> None:
    # tsh: "off 0" will "record a missed game without assigning a win or loss"; +50 is a win, -50 a loss.
    cards = [
        Scorecard(id=1, opponents=(2, BYE, BYE, BYE), scores=(400, 0, 50, -50), off=0),
        Scorecard(id=2, opponents=(1, BYE, 3, 3), scores=(400, 0, 350, 300)),
        Scorecard(id=3, opponents=(BYE, BYE, 2, 2), scores=(0, 0, 350, 390)),
    ]
    one, two, three = (next(e for e in tally(cards) if e.id == i) for i in (1, 2, 3))
    assert (one.wins, one.losses, one.spread) == (1.5, 1.5, 0)  # a tie, a win, a loss and a round off at 0
    assert (two.wins, two.losses) == (1.0, 2.0)  # two ties and a loss
    assert (three.wins, three.losses, three.spread) == (1.5, 0.5, 90)  # two 0-spread rounds off count nothing


def test_tally_through_an_earlier_round_keeps_the_whole_history() -> None:
    cards = [
        Scorecard(id=1, opponents=(2, 3), scores=(400, 300)),
        Scorecard(id=2, opponents=(1, 4), scores=(300, 500)),
        Scorecard(id=3, opponents=(4, 1), scores=(350, 450)),
        Scorecard(id=4, opponents=(3, 2), scores=(340, 200), off=-50),
    ]
    after_one = {e.id: e for e in tally(cards, through=1)}
    assert (after_one[1].wins, after_one[1].spread) == (1.0, 100)
    assert after_one[1].opponents == (2, 3)  # round 2 counts for repeats
    assert after_one[4].active is False


def test_ranking_is_wins_then_spread_then_rating() -> None:
    a = Entrant(id=1, wins=3, spread=-10, rating=2000)
    b = Entrant(id=2, wins=3.5, spread=-200, rating=1000)
    c = Entrant(id=3, wins=3, spread=40, rating=1000)
    d = Entrant(id=4, wins=3, spread=40, rating=1500)
    assert [e.id for e in ranked([a, b, c, d])] == [2, 4, 3, 1]


# -- KOTH and factored ---------------------------------------------------------


def test_koth_pairs_neighbours() -> None:
    assert koth(field(5, 4, 4, 3, 2, 2, 1, 0)) == Pairing(((1, 2), (3, 4), (5, 6), (7, 8)))


def test_koth_takes_the_nearest_allowed_opponent() -> None:
    history = played(((1, 2), (3, 4)), ())  # round 1: 1-2 and 3-4; round 2: not them
    entrants = field(5, 4, 4, 3, 2, 2, history=history)
    assert boards(koth(entrants, repeats=0)) == pairs((1, 3), (2, 4), (5, 6))
    # One repeat allowed, and not a consecutive one: they meet again.
    assert boards(koth(entrants, repeats=1)) == pairs((1, 2), (3, 4), (5, 6))


def test_koth_avoids_a_consecutive_repeat_when_it_can() -> None:
    entrants = field(5, 4, 4, 3, history=played(((1, 2), (3, 4))))  # in the last round
    assert boards(koth(entrants, repeats=None)) == pairs((1, 3), (2, 4))
    assert boards(koth(entrants[:2], repeats=None)) == pairs((1, 2))  # no other way


def test_koth_bye_goes_to_the_lowest_with_fewest_byes() -> None:
    history: dict[int, tuple[int | None, ...]] = {5: (BYE,), 4: (None,)}
    entrants = field(3, 2, 2, 1, 0, history=history)
    result = koth(entrants)
    assert result.bye == 4
    assert boards(result) == pairs((1, 2), (3, 5))


def test_inactive_players_are_not_paired() -> None:
    entrants = field(3, 3, 2, 2, 1)
    entrants[1] = Entrant(id=2, wins=3, active=False)
    result = koth(entrants)
    assert 2 not in {p for b in result.boards for p in b} and result.bye != 2
    assert boards(result) == pairs((1, 3), (4, 5))


def test_koth_without_a_pairing_within_the_allowance() -> None:
    with pytest.raises(PairingError, match="allow more repeats"):
        koth(field(1, 0, history=played(((1, 2),))), repeats=0)


def test_factored_two_is_pair_1324() -> None:
    assert boards(factored(field(*[8 - i for i in range(8)]), 2)) == pairs((1, 3), (2, 4), (5, 7), (6, 8))


def test_factored_three() -> None:
    result = factored(field(*[12 - i for i in range(12)]), 3)
    assert boards(result) == pairs((1, 4), (2, 5), (3, 6), (7, 10), (8, 11), (9, 12))


def test_factored_shifts_around_a_forbidden_game() -> None:
    entrants = field(4, 3, 3, 2, 1, 0, history=played(((1, 3),), ()))
    # 1 takes the nearest of 2 and 4, and the rest pairs FP(2) among itself.
    assert boards(factored(entrants, 2, repeats=0)) == pairs((1, 2), (3, 5), (4, 6))


# -- tsh Swiss ---------------------------------------------------------------------


def test_swiss_top_half_against_bottom_half_of_each_win_group() -> None:
    result = swiss(field(3, 3, 2, 2, 2, 2, 1, 1))
    assert boards(result) == pairs((1, 2), (3, 5), (4, 6), (7, 8))


def test_swiss_odd_group_takes_the_top_of_the_next() -> None:
    result = swiss(field(3, 3, 3, 2, 2, 2, 1, 1))
    assert boards(result) == pairs((1, 3), (2, 4), (5, 6), (7, 8))


def test_swiss_unpairable_group_takes_two_more() -> None:
    result = swiss(field(3, 3, 2, 2, 1, 1, history=played(((1, 2),), ())))
    assert boards(result) == pairs((1, 3), (2, 4), (5, 6))


def test_swiss_unpairable_bottom_merges_with_the_group_above() -> None:
    result = swiss(field(3, 3, 2, 2, 1, 1, history=played(((5, 6),), ())))
    assert boards(result) == pairs((1, 2), (3, 5), (4, 6))


def test_swiss_whole_field_unpairable() -> None:
    entrants = field(1, 1, 0, 0, history=played(((1, 2), (3, 4)), ((1, 3), (2, 4)), ((1, 4), (2, 3))))
    with pytest.raises(PairingError):
        swiss(entrants, repeats=0)
    assert len(swiss(entrants, repeats=1).boards) == 2


def test_swiss_prefers_matching_starters_with_repliers() -> None:
    due = {1: (0, 1), 3: (0, 1), 2: (1, 0), 4: (1, 0)}  # (firsts, seconds): 1 and 3 due to start
    entrants = [Entrant(id=i, wins=2, spread=100 - i, firsts=due[i][0], seconds=due[i][1]) for i in range(1, 5)]
    assert boards(swiss(entrants)) == pairs((1, 2), (3, 4))  # 1v3 and 2v4 would each put two starters together
    assert boards(swiss(entrants, track_firsts=False)) == pairs((1, 3), (2, 4))


# -- round robin, random, InitFontes, Fontes --------------------------------------------


def test_round_robin_meets_everyone_once() -> None:
    seeds = [Entrant(id=i) for i in (11, 12, 13, 14, 15)]
    rounds = [round_robin(seeds, r) for r in range(1, 6)]
    games = Counter(frozenset(b) for p in rounds for b in p.boards)
    assert set(games) == {frozenset(c) for c in combinations((11, 12, 13, 14, 15), 2)}
    assert set(games.values()) == {1}
    assert sorted(p.bye for p in rounds if p.bye) == [11, 12, 13, 14, 15]


def test_random_round_one_is_seeded() -> None:
    entrants = field(*[0] * 12)
    first = random_pairing(entrants, rng=random.Random(7))
    assert random_pairing(entrants, rng=random.Random(7)) == first
    assert any(random_pairing(entrants, rng=random.Random(seed)) != first for seed in range(8, 12))
    assert sorted(p for b in first.boards for p in b) == list(range(1, 13))


def quartile_groups(schedule: list[Pairing]) -> list[set[int]]:
    """The groups an InitFontes schedule formed (players who met, transitively)."""
    groups: list[set[int]] = []
    for pairing in schedule:
        for a, b in pairing.boards:
            joined = [g for g in groups if a in g or b in g]
            merged = {a, b}.union(*joined)
            groups = [g for g in groups if g not in joined] + [merged]
    return groups


def test_init_fontes_quads_one_from_each_quartile() -> None:
    entrants = [Entrant(id=i, rating=2000 - 10 * i) for i in range(1, 17)]
    schedule = init_fontes(entrants, 3, rng=random.Random(1))
    assert len(schedule) == 3
    games = Counter(frozenset(b) for p in schedule for b in p.boards)
    assert set(games.values()) == {1} and len(games) == 24
    groups = quartile_groups(schedule)
    assert sorted(len(g) for g in groups) == [4, 4, 4, 4]
    for group in groups:
        assert sorted((i - 1) // 4 for i in group) == [0, 1, 2, 3]
    assert init_fontes(entrants, 3, rng=random.Random(1)) == schedule


def test_init_fontes_snaked() -> None:
    entrants = [Entrant(id=i, rating=2000 - 10 * i) for i in range(1, 9)]
    groups = quartile_groups(init_fontes(entrants, snaked=True, rng=random.Random(0)))
    assert sorted(map(sorted, groups)) == [[1, 4, 5, 8], [2, 3, 6, 7]]


def test_init_fontes_group_of_six_and_odd_fields() -> None:
    entrants = [Entrant(id=i, rating=2000 - 10 * i) for i in range(1, 19)]
    schedule = init_fontes(entrants, rng=random.Random(2))
    assert sorted(len(g) for g in quartile_groups(schedule)) == [4, 4, 4, 6]
    assert set(Counter(frozenset(b) for p in schedule for b in p.boards).values()) == {1}
    odd = init_fontes(entrants[:17], rng=random.Random(2))
    byes = [p.bye for p in odd]
    assert None not in byes and len(set(byes)) == 3
    for pairing in odd:
        assert pairing.bye is not None
        assert sorted([p for b in pairing.boards for p in b] + [pairing.bye]) == list(range(1, 18))


def test_fontes_basis_follows_session_breaks() -> None:
    breaks = [3, 6, 8, 11]
    assert [fontes_basis(r, session_breaks=breaks) for r in range(1, 13)] == [0, 0, 1, 3, 3, 4, 6, 6, 8, 8, 9, 11]
    assert [fontes_basis(r, session_breaks=None) for r in (1, 5, 12)] == [0, 4, 11]


def test_fontes_pairs_from_older_standings_but_sees_the_newer_games() -> None:
    # Round 1: 1 beat 2, 3 beat 4. Round 2 (paired, no scores yet): 1-3, 2-4.
    cards = [
        Scorecard(id=1, opponents=(2, 3), scores=(400,)),
        Scorecard(id=2, opponents=(1, 4), scores=(300,)),
        Scorecard(id=3, opponents=(4, 1), scores=(450,)),
        Scorecard(id=4, opponents=(3, 2), scores=(350,)),
    ]
    basis = fontes_basis(3, session_breaks=[])
    assert basis == 1
    result = koth(tally(cards, through=basis), repeats=0)
    # KOTH on round 1 standings would be 3-1 and 4-2 again; both are repeats of round 2.
    assert boards(result) == pairs((3, 2), (1, 4))


# -- firsts and seconds ------------------------------------------------------------


def test_starter_by_the_balance_rule() -> None:
    assert starter(Entrant(id=1, firsts=2, seconds=3), Entrant(id=2, firsts=3, seconds=2)) == 1
    # Equal firsts: the one with fewer seconds starts (the rule, not NSA's "more seconds").
    assert starter(Entrant(id=1, firsts=2, seconds=2), Entrant(id=2, firsts=2, seconds=3)) == 1
    assert starter(Entrant(id=1, firsts=2, seconds=4), Entrant(id=2, firsts=2, seconds=1)) == 2
    assert starter(Entrant(id=1, firsts=2, seconds=2), Entrant(id=2, firsts=2, seconds=2)) is None


def test_assign_firsts_breaks_a_firsts_tie_by_fewer_seconds() -> None:
    entrants = [Entrant(id=1, firsts=1, seconds=3), Entrant(id=2, firsts=1, seconds=0)]
    for seed in range(10):  # no lot is drawn: the answer is the same whatever the seed
        assert assign_firsts(Pairing(((1, 2),), bye=None), entrants, rng=random.Random(seed)).boards == ((2, 1),)


def test_assign_firsts_orders_boards_and_draws_lots() -> None:
    entrants = [Entrant(id=1, firsts=3), Entrant(id=2, firsts=1), Entrant(id=3), Entrant(id=4)]
    pairing = Pairing(((1, 2), (3, 4)), bye=None)
    starters = {assign_firsts(pairing, entrants, rng=random.Random(seed)).boards[1][0] for seed in range(20)}
    assert assign_firsts(pairing, entrants, rng=random.Random(0)).boards[0] == (2, 1)
    assert starters == {3, 4}


# -- Gibsonization and Chew pairings ----------------------------------------------------------


def test_spread_allowance() -> None:
    assert [spread_allowance(r) for r in range(6)] == [0, 250, 350, 450, 600, 750]


def test_can_catch_one_and_two_rounds() -> None:
    leader = Entrant(id=1, wins=10, spread=800)
    # One round left, one win behind: the chaser wins by 250 against the leader, a 500 swing.
    assert can_catch(Entrant(id=2, wins=9, spread=301), leader, 1)
    assert can_catch(Entrant(id=2, wins=9, spread=300), leader, 1)  # a tie is not clinched
    assert not can_catch(Entrant(id=2, wins=9, spread=299), leader, 1)
    assert not can_catch(Entrant(id=2, wins=8, spread=2000), leader, 1)
    assert can_catch(Entrant(id=2, wins=8.5, spread=-5000), leader, 2)
    # Two rounds left, two wins behind: 2 x 175 each way.
    assert can_catch(Entrant(id=2, wins=8, spread=100), leader, 2)
    assert not can_catch(Entrant(id=2, wins=8, spread=99), leader, 2)
    # Three rounds: 3 x 150 each way.
    assert not can_catch(Entrant(id=2, wins=7, spread=-101), leader, 3)


def test_count_gibsons() -> None:
    entrants = [
        Entrant(id=1, wins=11, spread=900),
        Entrant(id=2, wins=9, spread=500),
        Entrant(id=3, wins=7, spread=0),
        Entrant(id=4, wins=7, spread=-100),
    ]
    assert count_gibsons(entrants, 1, prize_places=3) == 2  # 1 and 2 are both out of reach
    assert count_gibsons(entrants, 1, prize_places=1) == 1  # below the last prize nothing is at stake
    assert count_gibsons(entrants, 2, prize_places=3) == 0  # 3 can still catch 1 in two rounds


def test_gibson_clinched_before_the_last_round() -> None:
    # 12 rounds; round 11 is paired from round 10: two games left for the chasers.
    leader = Entrant(id=1, wins=10, spread=1200, opponents=(3, 4, 5, 6, 7, 8, 9, 10, 11, 12))
    chasers = [Entrant(id=i, wins=w, spread=s) for i, w, s in [(2, 8, 400), (3, 8, 300), (4, 7, 500), (5, 7, 0)]]
    others = [Entrant(id=i, wins=5 - 0.5 * (i % 3), spread=-100 * i) for i in range(6, 13)]
    entrants = [leader, *chasers, *others]
    assert count_gibsons(ranked(entrants), 2, prize_places=3) == 1
    result = chew(entrants, round_number=11, max_rounds=12, prize_bands=[1, 2, 3])
    # Beyond the prizes are ranks 4 on (player 4 first), all of whom have met the leader once.
    assert result.boards[0] == (1, 4)
    # Round 12 from round 11 with the same gap: one round left, still clinched.
    assert count_gibsons(ranked(entrants), 1, prize_places=3) == 1
    # With more rounds to go, the leader is catchable.
    assert count_gibsons(ranked(entrants), 3, prize_places=3) == 0


def test_pair_gibsons() -> None:
    g1, g2, g3 = (Entrant(id=i, wins=12 - i, opponents=(4, 5)) for i in (1, 2, 3))
    others = [Entrant(id=i, wins=5, opponents=(1,) if i == 4 else ()) for i in (4, 5, 6, 7)]
    rank = {i: i for i in range(1, 8)}
    two, bye = pair_gibsons([g1, g2], others, last_prize=4, rank=rank, odd_field=False)
    assert [(a.id, b.id) for a, b in two] == [(1, 2)] and bye is None
    # Odd Gibsons: the last one plays the highest-ranked player beyond the prizes (rank 5 on)…
    three, _ = pair_gibsons([g1, g2, g3], others, last_prize=4, rank=rank, odd_field=False)
    assert [(a.id, b.id) for a, b in three] == [(1, 2), (3, 6)]  # …among those who met it least (not 5)
    # …or, with nobody beyond the prizes, the lowest-ranked player.
    three, _ = pair_gibsons([g1, g2, g3], others, last_prize=7, rank=rank, odd_field=False)
    assert [(a.id, b.id) for a, b in three][-1] == (3, 7)
    # With an odd field the odd Gibson takes the bye.
    three, bye = pair_gibsons([g1, g2, g3], others, last_prize=4, rank=rank, odd_field=True)
    assert [(a.id, b.id) for a, b in three] == [(1, 2)] and bye == 3


def test_contended_band() -> None:
    bands = [2, 3, 4, 5]
    assert contended_band(bands, 0) == 2
    assert contended_band(bands, 1) == 2
    assert contended_band(bands, 2) == 3
    assert contended_band(bands, 5) is None


def test_count_contenders_even_and_capped() -> None:
    entrants = ranked([Entrant(id=i, wins=w, spread=0) for i, w in enumerate([9, 8, 8, 6, 6, 6, 6, 3, 2, 1], 1)])
    target = entrants[0]  # first place: the band [1]
    # With one game left only the two 8-win players can catch 9 wins: 1 + 2 = 3, made even.
    assert count_contenders(entrants, target, rounds=1, rounds_to_pair=5) == 4
    # Three games left: the 6-win players too (7 in all, made 8), capped at 4 x (2 - 1) = 4 rounds to pair.
    assert count_contenders(entrants, target, rounds=3, rounds_to_pair=3) == 8
    assert count_contenders(entrants, target, rounds=3, rounds_to_pair=2) == 4
    assert count_contenders(entrants, target, rounds=3, rounds_to_pair=1) == 2  # the final round


def test_minimum_repeats() -> None:
    assert minimum_repeats(field(3, 2, 1, 0)) == 0
    everyone = played(((1, 2), (3, 4)), ((1, 3), (2, 4)), ((1, 4), (2, 3)))
    assert minimum_repeats(field(3, 2, 1, 0, history=everyone)) == 1
    twice = played(((1, 2),), ((1, 2),))
    assert minimum_repeats(field(1, 0, history=twice)) == 2


def test_split_leaders_at_the_minimum_repeats() -> None:
    # 1-2 met, so {1, 2} cannot be the leaders without a repeat; {1..4} can.
    contenders = field(6, 6, 5, 5, 4, 4, history=played(((1, 2),), ()))
    assert minimum_repeats(contenders) == 0
    assert split_leaders(contenders, 0) == 4
    fresh = field(6, 6, 5, 5, 4, 4)
    assert split_leaders(fresh, 0) == 2


def test_pair_leaders_top_against_the_lowest_catcher() -> None:
    leaders = [
        Entrant(id=1, wins=8, spread=500),
        Entrant(id=2, wins=8, spread=100),
        Entrant(id=3, wins=7, spread=300),
        Entrant(id=4, wins=6, spread=900),  # cannot catch 1 with one game left
    ]
    result = pair_leaders(leaders, repeats=0, rounds=1)
    assert [(a.id, b.id) for a, b in result] == [(1, 3), (2, 4)]
    # A consecutive repeat is avoided: 1 played 3 last round, so 2 is the catcher taken.
    again = [
        Entrant(id=e.id, wins=e.wins, spread=e.spread, opponents=((3,) if e.id == 1 else (1,) if e.id == 3 else ()))
        for e in leaders
    ]
    result = pair_leaders(again, repeats=1, rounds=1)
    assert [(a.id, b.id) for a, b in result] == [(1, 2), (3, 4)]


def test_chew_everyone_contends_is_one_swiss() -> None:
    entrants = field(2, 2, 2, 2, 1, 1, 1, 1)
    result = chew(entrants, round_number=4, max_rounds=10, prize_bands=[1])
    assert boards(result) == boards(swiss(entrants))


def test_chew_final_round_is_koth_at_the_top_and_swiss_below() -> None:
    entrants = field(9, 8, 8, 7, 6, 6, 5, 5, 4, 3)
    result = chew(entrants, round_number=12, max_rounds=12, prize_bands=[1, 2])
    assert result.boards[0] == (1, 2)  # capped at two contenders in the final round
    assert set(p for b in result.boards for p in b) == set(range(1, 11))


def test_chew_leaders_meet_catchers_and_byes() -> None:
    entrants = field(7, 7, 6, 6, 4, 4, 3, 3, 2)  # nine players: the lowest gets the bye
    result = chew(entrants, round_number=8, max_rounds=9, prize_bands=[1])
    assert result.bye == 9
    # Two games left: 2, 3 and 4 can still reach 1's 7 wins, 5 and below cannot. Of the four
    # contenders the fewest leaders are 1 and 2; 3 and 4 are the non-leaders.
    assert result.boards[0] == (1, 2)
    assert boards(result) >= pairs((3, 4))


def test_chew_pairs_band_by_band() -> None:
    # Final round, bands 1st, 2nd, 3rd, 4th: each pass caps its contenders at two; ranks 5 on
    # play for nothing and are paired Swiss as one win group (top half against bottom half).
    entrants = field(10, 9, 8, 7, 5, 5, 5, 5, 5, 5, 5, 5)
    result = chew(entrants, round_number=12, max_rounds=12, prize_bands=[1, 2, 3, 4])
    assert result.boards == ((1, 2), (3, 4), (5, 9), (6, 10), (7, 11), (8, 12))


def test_chew_rejects_rounds_out_of_order() -> None:
    with pytest.raises(PairingError):
        chew(field(1, 0), round_number=3, max_rounds=2)


# -- a whole event on the pure core ---------------------------------------------------------------


def test_twelve_round_event() -> None:
    """InitFontes, Chew with Fontes bases, a player set off, byes, a Gibson, KOTH last."""
    # Scores drawn with a seed whose event has a Gibson two rounds from the end; who starts is drawn apart, so
    # that the games do not depend on the lots.
    rng = random.Random(2022)
    lots = random.Random(7)
    n, max_rounds, breaks, bands = 11, 12, [3, 6, 9, 11], [1, 2, 3]
    strength = {i: 520 - 25 * i for i in range(1, n + 1)}
    strength[1] = 900  # a runaway leader
    cards = {i: Scorecard(id=i, rating=2000 - 50 * i) for i in range(1, n + 1)}
    gibson_rounds = []

    def record(round_number: int, pairing: Pairing) -> None:
        opponents: dict[int, int | None] = {p: None for p in cards}
        scores: dict[int, int | None] = dict.fromkeys(cards)
        p12 = dict.fromkeys(cards, 0)
        for a, b in pairing.boards:
            sa, sb = strength[a] - 100 + rng.randrange(200), strength[b] - 100 + rng.randrange(200)
            opponents[a], opponents[b], scores[a], scores[b], p12[a], p12[b] = b, a, sa, sb, 1, 2
        for p, card in cards.items():
            if card.off is not None:
                opponents[p], scores[p] = BYE, card.off
        if pairing.bye is not None:
            opponents[pairing.bye], scores[pairing.bye] = BYE, 50
        for p, card in cards.items():
            cards[p] = Scorecard(
                id=p,
                rating=card.rating,
                opponents=(*card.opponents, opponents[p]),
                scores=(*card.scores, scores[p]),
                p12=(*card.p12, p12[p]),
                off=card.off,
            )

    for round_number, pairing in enumerate(init_fontes(tally(list(cards.values())), rng=rng), 1):
        record(round_number, pairing)
    for round_number in range(4, max_rounds + 1):
        if round_number == 5:  # player 8 does not show up from round 5 on
            cards[8] = Scorecard(
                id=8,
                rating=cards[8].rating,
                opponents=cards[8].opponents,
                scores=cards[8].scores,
                p12=cards[8].p12,
                off=-50,
            )
        basis = fontes_basis(round_number, session_breaks=breaks)
        standings = tally(list(cards.values()), through=basis)
        active = [e for e in standings if e.active]
        gibson = count_gibsons(active, max_rounds - basis, prize_places=bands[-1]) == 1
        if round_number == max_rounds:
            pairing = koth(standings, repeats=None)
            assert pairing.boards[0] == (active[0].id, active[1].id)
        else:
            pairing = chew(standings, round_number=round_number, max_rounds=max_rounds, basis=basis, prize_bands=bands)
        if gibson and round_number < max_rounds:
            gibson_rounds.append(round_number)
            victim = next(b for a, b in pairing.boards if a == active[0].id)
            assert [e.id for e in active].index(victim) >= bands[-1]  # out of the prizes
        pairing = assign_firsts(pairing, standings, rng=lots)
        seated = [p for b in pairing.boards for p in b] + ([pairing.bye] if pairing.bye else [])
        assert sorted(seated) == sorted(e.id for e in active)
        consecutive = [(a, b) for a, b in pairing.boards if cards[a].opponents[-1] == b]
        assert not consecutive or round_number == max_rounds, (round_number, consecutive, standings)
        record(round_number, pairing)

    final = tally(list(cards.values()))
    assert final[0].id == 1 and final[0].wins == 12
    assert gibson_rounds == [10, 11]  # clinched with two rounds to go
    assert all(o == BYE for o in cards[8].opponents[4:])
    byes = Counter(p for c in cards.values() for p in [c.id] * c.opponents[:4].count(BYE))
    assert max(byes.values()) == 1  # the byes of the odd rounds went to different players
    firsts = [e.firsts - e.seconds for e in final if e.active]
    assert max(map(abs, firsts)) <= 2
