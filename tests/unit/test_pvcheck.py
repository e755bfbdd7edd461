"""The checks fastchess makes of an engine's PVs (tourney.pvcheck), on positions built by hand. No process."""

from __future__ import annotations

import chess

from tmanager.tourney.pvcheck import (
    PvProblem,
    check_bestmove,
    check_line,
    check_search,
    last_info_line,
    mate_sign_mismatch,
    read_info,
    score_problem,
)


def problem(board: chess.Board, line: str, *, mates: bool = True) -> tuple[PvProblem, str] | None:
    found = check_line(board, line, mates=mates)
    return None if found is None else (found.problem, found.move)


def test_a_sound_pv_has_no_problem() -> None:
    assert problem(chess.Board(), "info depth 3 score cp 20 nodes 100 pv e2e4 e7e5 g1f3") is None
    assert problem(chess.Board(), "info depth 3 score cp 20 nodes 100") is None  # no PV, nothing to check


def test_an_illegal_move_is_named() -> None:
    assert problem(chess.Board(), "info depth 2 score cp 5 pv e2e4 e2e4") == (PvProblem.ILLEGAL_MOVE, "e2e4")
    assert problem(chess.Board(), "info depth 1 pv zz99") == (PvProblem.ILLEGAL_MOVE, "zz99")


def test_a_pv_that_goes_on_after_the_game_ended() -> None:
    fools_mate = chess.Board()
    for move in ("f2f3", "e7e5", "g2g4"):
        fools_mate.push_uci(move)
    assert problem(fools_mate, "info depth 2 score mate 1 pv d8h4 a2a3") == (PvProblem.AFTER_CHECKMATE, "a2a3")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 w - - 0 1")
    assert problem(stalemate, "info depth 2 score cp 0 pv f7f6 h8g8") is None  # f7f6 is no stalemate
    stalemate_next = chess.Board("7k/8/5QK1/8/8/8/8/8 w - - 0 1")
    assert problem(stalemate_next, "info depth 2 score cp 0 pv f6f7 h8h7") == (PvProblem.AFTER_STALEMATE, "h8h7")
    fifty = chess.Board("8/8/8/4k3/8/8/3QK3/8 w - - 99 80")
    assert problem(fifty, "info depth 2 score cp 900 pv d2d3 e5e6") == (PvProblem.AFTER_FIFTY_MOVES, "e5e6")


def test_a_pv_that_goes_on_after_a_threefold_repetition_counting_the_game_s_moves() -> None:
    board = chess.Board()
    for move in ("g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6"):
        board.push_uci(move)
    line = "info depth 3 score cp 0 pv f3g1 f6g8 e2e4"
    assert problem(board, line) == (PvProblem.AFTER_REPETITION, "e2e4")


def test_short_material_is_no_end_of_a_pv_for_fastchess() -> None:
    board = chess.Board("8/8/8/4k3/8/8/4K3/8 w - - 0 1")
    for move in ("e2e3", "e5e6", "e3e2", "e6e5", "e2e3", "e5e6"):
        board.push_uci(move)
    assert problem(board, "info depth 3 score cp 0 pv e3e2 e6e5 e2d2") is None  # kings alone: fastchess plays on


def test_mate_scores_are_checked_with_their_pv() -> None:
    fools_mate = chess.Board()
    for move in ("f2f3", "e7e5", "g2g4"):
        fools_mate.push_uci(move)
    assert problem(fools_mate, "info depth 1 score mate 1 pv d8h4") is None
    assert problem(fools_mate, "info depth 1 score mate 2 pv d8h4") == (PvProblem.INCOMPLETE_MATE, "")
    assert problem(fools_mate, "info depth 1 score mate 1 pv d8e7 a2a3") == (PvProblem.TOO_LONG_MATE, "")
    assert problem(fools_mate, "info depth 1 score mate 1 pv d8e7") == (PvProblem.MATE_WITHOUT_CHECKMATE, "")
    assert problem(fools_mate, "info depth 1 score mate 1 lowerbound pv d8e7") is None  # a bound proves nothing
    assert problem(fools_mate, "info depth 1 score mate 1 pv d8e7", mates=False) is None


def test_the_best_move_begins_the_last_first_pv() -> None:
    lines = ["info depth 1 multipv 1 score cp 5 pv e2e4", "info depth 1 multipv 2 score cp 3 pv d2d4"]
    assert check_bestmove(lines, "e2e4") is None
    mismatch = check_bestmove(lines, "d2d4")
    assert mismatch is not None and (mismatch.problem, mismatch.move) == (PvProblem.BESTMOVE_MISMATCH, "d2d4")
    assert check_bestmove(["info depth 1 score cp 5 upperbound pv e2e4"], "d2d4") is None
    findings = check_search(chess.Board(), ["info depth 1 score cp 5 pv e2e4 e2e4"], "d2d4", mates=True)
    assert [f.problem for f in findings] == [PvProblem.ILLEGAL_MOVE, PvProblem.BESTMOVE_MISMATCH]


def test_info_lines_are_read_word_by_word() -> None:
    info = read_info("info depth 12 seldepth 15 multipv 2 score mate -3 upperbound nodes 5 pv a2a3 b7b6 time 7")
    assert (info.pv, info.mate, info.bound, info.multipv) == (("a2a3", "b7b6"), -3, True, 2)
    assert read_info("info string pv is what I say").pv == ()


def test_the_last_info_line_is_fastchess_s() -> None:
    exact, bound = "info depth 9 score cp 20 pv e2e4", "info depth 10 score cp 40 lowerbound pv e2e4"
    second = "info depth 10 multipv 2 score cp 10 pv d2d4"
    assert last_info_line([exact, bound, second, "info string score 5", "info depth 10 nodes 5"]) == exact
    assert last_info_line([bound, "info depth 10 currmove e2e4"]) == bound  # a bound when nothing better
    assert last_info_line(["info depth 1 nodes 3 pv e2e4"]) == ""


def test_two_engines_that_both_see_their_own_mate_or_loss_mismatch() -> None:
    them, us = "info depth 5 score mate 3 pv e2e4", "info depth 7 score mate 1 pv d7d5"
    finding = mate_sign_mismatch(them, us)
    assert finding is not None and finding.problem is PvProblem.SIGN_MISMATCH
    assert (finding.move, finding.info) == ("3 and 1", f"{them} ; {us}")
    assert mate_sign_mismatch("info score mate -2", "info score mate -4") is not None
    assert mate_sign_mismatch("info score mate 3", "info score mate -2") is None  # they agree
    assert mate_sign_mismatch("info score cp 900", "info score mate 2") is None
    assert mate_sign_mismatch("", "info score mate 2") is None


def test_a_search_reported_without_a_score_is_found_as_fastchess_finds_it() -> None:
    assert score_problem([]) is None  # nothing but its bestmove: fastchess says nothing
    assert score_problem(["info depth 3 score cp 12 pv e2e4"]) is None
    none = score_problem(["info depth 1 nodes 20 pv e2e4", "info string score 5"])
    assert none is not None and (none.problem, none.info) == (PvProblem.NO_INFO_LINE, "")
    for line, why in [
        ("info depth 1 score cp", "Element 'score' has no type or value"),
        ("info depth 1 score wdl 10 pv e2e4", "Unexpected score type: info depth 1 score wdl 10 pv e2e4"),
        ("info depth 1 score cp x10 pv e2e4", "Invalid score value: x10"),
    ]:
        found = score_problem([line])
        assert found is not None and (found.problem, found.info) == (PvProblem.NO_SCORE, why), line
