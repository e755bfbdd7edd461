"""One vocabulary for results, colours and points, however a file or a person spells them.

* :class:`Colour`: white or black. Its values ``"w"``/``"b"`` are how TRF files
  and the pairing core write it; :attr:`Colour.word` is how people and event
  files do (``white``).
* :class:`Result`: the result of one game, from white's side. Its values are
  the stored form of event files (``1-0``, ``½-½``, ``+-`` for a forfeit, ``*``
  not entered yet, ``adj`` adjourned); it converts to and from what arbiters
  type (:meth:`Result.parse`), PGN result strings, XBoard's results characters
  (an engine tourney's results string) and the two players' TRF codes.
* :class:`TrfResult`: one player's round as a TRF round entry codes it
  (``1 = 0`` played, ``W D L`` played but not rated, ``+ -`` forfeits,
  ``H F U Z`` byes: half, full, pairing-allocated, zero; a space for nothing
  yet), read from its code once where a TRF is read and written back as it;
  its members answer what the scoring, pairing and reports ask of a round.
* :class:`ByeKind`: a round without an opponent, with its TRF code.
* **Points are whole tenths of a point** (``int``; a win is 10 by default)
  wherever they are stored, summed or compared, as in TRF's points column, so
  that sums are exact in any points system. :func:`format_points` writes them
  for people (``3½``) and for files (``3.5``). Floats appear only where
  statistics are computed (tie-break values, ratings, engine-tourney tallies).
"""

from __future__ import annotations

import enum


class Colour(enum.StrEnum):
    """White or black, with the values TRF and the pairing core use."""

    WHITE = "w"
    BLACK = "b"

    @property
    def other(self) -> Colour:
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE

    @property
    def word(self) -> str:
        """``white`` or ``black``."""
        return "white" if self is Colour.WHITE else "black"

    @classmethod
    def from_word(cls, word: str) -> Colour:
        """The colour called ``white`` or ``black``; :class:`ValueError` for any other word."""
        for colour in cls:
            if colour.word == word:
                return colour
        raise ValueError(f"{word!r} is not a colour; write white or black")

    @classmethod
    def parse(cls, text: str) -> Colour:
        """A colour as code or word: ``w``, ``b``, ``white`` or ``black``."""
        return cls(text) if text in tuple(cls) else cls.from_word(text)


class Outcome(enum.Enum):
    """What a round counts as when it is scored: a win, a draw or a loss (a bye or forfeit as the points it gives)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


class TrfResult(enum.StrEnum):
    """One player's round as a TRF round entry codes it; the value is the code (column 8 of the round's block)."""

    WIN = "1"
    DRAW = "="
    LOSS = "0"
    UNRATED_WIN = "W"  # played over the board, not rated (``W D L``: the moves do not count)
    UNRATED_DRAW = "D"
    UNRATED_LOSS = "L"
    FORFEIT_WIN = "+"  # the opponent did not come; without an opponent, some programs' pairing-allocated bye
    FORFEIT_LOSS = "-"  # did not come; without an opponent, an absence
    PAIRING_BYE = "U"
    FULL_BYE = "F"
    HALF_BYE = "H"
    ZERO_BYE = "Z"
    NOT_PLAYED = " "  # nothing entered: a game still to be played, or a round not reached

    @classmethod
    def parse(cls, code: str) -> TrfResult:
        """The round whose TRF code is ``code`` (one character, upper case); :class:`ValueError` otherwise."""
        if code not in _TRF_RESULTS:
            raise ValueError(f"{code!r} is not a TRF result; write one of 1 = 0 + - W D L H F U Z or a space")
        return _TRF_RESULTS[code]

    @property
    def played(self) -> bool:
        """A game played over the board (``1 = 0 W D L``), rated or not."""
        return self in _PLAYED

    @property
    def forfeit(self) -> bool:
        """A forfeit, won or lost (``+ -``)."""
        return self in (TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS)

    @property
    def pairing_allocated(self) -> bool:
        """Without an opponent, the pairing-allocated bye: ``U``, or ``+`` as some programs write it."""
        return self in (TrfResult.PAIRING_BYE, TrfResult.FORFEIT_WIN)

    @property
    def full_point_bye(self) -> bool:
        """A bye worth a win: the pairing-allocated bye or a requested full-point bye (``U F``)."""
        return self in (TrfResult.PAIRING_BYE, TrfResult.FULL_BYE)

    @property
    def outcome(self) -> Outcome:
        """What the round counts as when it is scored (a forfeit win or a full bye as a win, ``H`` as a draw)."""
        return _OUTCOMES.get(self, Outcome.LOSS)

    @property
    def rated_score(self) -> float | None:
        """The player's score in a rated game (``1 = 0``: 1, ½ or 0) as the rating regulations count it; None for
        anything else (``W D L`` included: their moves do not count)."""
        return _RATED_SCORES.get(self)

    @property
    def unrated(self) -> TrfResult:
        """The code of the same round in a game not rated (``1 = 0`` as ``W D L``); any other code as it is."""
        return _UNRATED.get(self, self)

    @property
    def opposite(self) -> TrfResult:
        """The opponent's code for the same game (``1`` and ``0``, ``+`` and ``-``…); a round without an opponent
        keeps its own."""
        return _OPPOSITE.get(self, self)


_TRF_RESULTS = {member.value: member for member in TrfResult}
_PLAYED = frozenset({TrfResult.WIN, TrfResult.DRAW, TrfResult.LOSS, TrfResult.UNRATED_WIN, TrfResult.UNRATED_DRAW,
                     TrfResult.UNRATED_LOSS})  # fmt: skip
_OUTCOMES = {
    TrfResult.WIN: Outcome.WIN, TrfResult.UNRATED_WIN: Outcome.WIN, TrfResult.FORFEIT_WIN: Outcome.WIN,
    TrfResult.FULL_BYE: Outcome.WIN, TrfResult.PAIRING_BYE: Outcome.WIN,
    TrfResult.DRAW: Outcome.DRAW, TrfResult.UNRATED_DRAW: Outcome.DRAW, TrfResult.HALF_BYE: Outcome.DRAW,
}  # fmt: skip
_RATED_SCORES = {TrfResult.WIN: 1.0, TrfResult.DRAW: 0.5, TrfResult.LOSS: 0.0}
_OPPOSITE = {
    TrfResult.WIN: TrfResult.LOSS, TrfResult.LOSS: TrfResult.WIN,
    TrfResult.UNRATED_WIN: TrfResult.UNRATED_LOSS, TrfResult.UNRATED_LOSS: TrfResult.UNRATED_WIN,
    TrfResult.FORFEIT_WIN: TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_LOSS: TrfResult.FORFEIT_WIN,
}  # fmt: skip


class Result(enum.StrEnum):
    """The result of one game from white's side (the first player's, in a score-based event)."""

    WHITE_WINS = "1-0"
    BLACK_WINS = "0-1"
    DRAW = "½-½"
    WHITE_WINS_BY_FORFEIT = "+-"
    BLACK_WINS_BY_FORFEIT = "-+"
    DOUBLE_FORFEIT = "--"
    PENDING = "*"
    ADJOURNED = "adj"  # adjourned or postponed: still to be played

    @classmethod
    def parse(cls, text: str) -> Result:
        """A result as typed (``=`` is ``½-½``, ``w`` is ``1-0``, ``1/2`` a draw…); :class:`ValueError` otherwise."""
        result = _TYPED.get(text.strip().lower())
        if result is None:
            raise ValueError(f"{text!r} is not a result; write 1-0, 0-1, = (draw), +-, -+, --, adj or *")
        return result

    @classmethod
    def from_scores(cls, first: int, second: int) -> Result:
        """The result of a game scored ``first`` to ``second``."""
        return cls.WHITE_WINS if first > second else cls.BLACK_WINS if first < second else cls.DRAW

    @classmethod
    def from_trf(cls, white: TrfResult, black: TrfResult) -> Result | None:
        """The result two TRF codes give (``W D L`` read as ``1 = 0``); None if they do not make one."""
        return _FROM_TRF.get((_RATED.get(white, white), _RATED.get(black, black)))

    @classmethod
    def from_xboard(cls, char: str) -> Result:
        """The result of a character of XBoard's results string (``+ - =``; ``*`` playing, space unplayed)."""
        return _FROM_XBOARD.get(char, cls.PENDING)

    @classmethod
    def from_pgn(cls, text: str) -> Result:
        """The result of a PGN result string (``1-0 0-1 1/2-1/2``; ``*`` or anything else is pending)."""
        return _FROM_PGN.get(text, cls.PENDING)

    @property
    def pending(self) -> bool:
        """Not entered yet, or still to be played."""
        return self in PENDING

    @property
    def forfeit(self) -> bool:
        """A game not played over the board: a forfeit win for either side, or both lost."""
        return self in (Result.WHITE_WINS_BY_FORFEIT, Result.BLACK_WINS_BY_FORFEIT, Result.DOUBLE_FORFEIT)

    @property
    def reversed(self) -> Result:
        """The same result seen from black's side."""
        return _REVERSED.get(self, self)

    @property
    def trf_codes(self) -> tuple[TrfResult, TrfResult]:
        """White's and black's TRF codes (spaces while pending)."""
        return _TRF[self]

    @property
    def pgn(self) -> str:
        """The PGN result string (forfeits as the win they give; PGN has no double forfeit: ``*``)."""
        return _PGN[self]

    @property
    def xboard(self) -> str:
        """The character of XBoard's results string: ``+ - =``, a space for a game not played (forfeits,
        which engine tourneys do not have, as the win they give)."""
        return _XBOARD[self]


#: The results of games still to be played: not entered, or adjourned.
PENDING = frozenset({Result.PENDING, Result.ADJOURNED})
_TYPED = {
    "1-0": Result.WHITE_WINS, "1:0": Result.WHITE_WINS, "w": Result.WHITE_WINS,
    "0-1": Result.BLACK_WINS, "0:1": Result.BLACK_WINS, "b": Result.BLACK_WINS,
    "½-½": Result.DRAW, "=": Result.DRAW, "1/2-1/2": Result.DRAW, "1/2": Result.DRAW, "½": Result.DRAW,
    "0.5-0.5": Result.DRAW, "d": Result.DRAW,
    "+-": Result.WHITE_WINS_BY_FORFEIT, "+:-": Result.WHITE_WINS_BY_FORFEIT,
    "-+": Result.BLACK_WINS_BY_FORFEIT, "-:+": Result.BLACK_WINS_BY_FORFEIT,
    "--": Result.DOUBLE_FORFEIT, "-:-": Result.DOUBLE_FORFEIT,
    "*": Result.PENDING,
    "adj": Result.ADJOURNED, "adjourned": Result.ADJOURNED, "postponed": Result.ADJOURNED, "unplayed": Result.ADJOURNED,
}  # fmt: skip
_REVERSED = {
    Result.WHITE_WINS: Result.BLACK_WINS, Result.BLACK_WINS: Result.WHITE_WINS,
    Result.WHITE_WINS_BY_FORFEIT: Result.BLACK_WINS_BY_FORFEIT,
    Result.BLACK_WINS_BY_FORFEIT: Result.WHITE_WINS_BY_FORFEIT,
}  # fmt: skip
_TRF = {
    Result.WHITE_WINS: (TrfResult.WIN, TrfResult.LOSS), Result.BLACK_WINS: (TrfResult.LOSS, TrfResult.WIN),
    Result.DRAW: (TrfResult.DRAW, TrfResult.DRAW),
    Result.WHITE_WINS_BY_FORFEIT: (TrfResult.FORFEIT_WIN, TrfResult.FORFEIT_LOSS),
    Result.BLACK_WINS_BY_FORFEIT: (TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_WIN),
    Result.DOUBLE_FORFEIT: (TrfResult.FORFEIT_LOSS, TrfResult.FORFEIT_LOSS),
    Result.PENDING: (TrfResult.NOT_PLAYED, TrfResult.NOT_PLAYED),
    Result.ADJOURNED: (TrfResult.NOT_PLAYED, TrfResult.NOT_PLAYED),
}  # fmt: skip
#: A TRF pair of codes back to the result; adjourned games look pending in TRF.
_FROM_TRF = {codes: result for result, codes in _TRF.items() if result is not Result.ADJOURNED}
#: The unrated codes read as the rated ones, for the result of a board.
_RATED = {TrfResult.UNRATED_WIN: TrfResult.WIN, TrfResult.UNRATED_DRAW: TrfResult.DRAW,
          TrfResult.UNRATED_LOSS: TrfResult.LOSS}  # fmt: skip
_UNRATED = {rated: unrated for unrated, rated in _RATED.items()}
_PGN = {
    Result.WHITE_WINS: "1-0", Result.BLACK_WINS: "0-1", Result.DRAW: "1/2-1/2",
    Result.WHITE_WINS_BY_FORFEIT: "1-0", Result.BLACK_WINS_BY_FORFEIT: "0-1",
    Result.DOUBLE_FORFEIT: "*", Result.PENDING: "*", Result.ADJOURNED: "*",
}  # fmt: skip
_FROM_PGN = {"1-0": Result.WHITE_WINS, "0-1": Result.BLACK_WINS, "1/2-1/2": Result.DRAW}
_FROM_XBOARD = {"+": Result.WHITE_WINS, "-": Result.BLACK_WINS, "=": Result.DRAW}
_XBOARD = {
    Result.WHITE_WINS: "+", Result.BLACK_WINS: "-", Result.DRAW: "=",
    Result.WHITE_WINS_BY_FORFEIT: "+", Result.BLACK_WINS_BY_FORFEIT: "-",
    Result.DOUBLE_FORFEIT: " ", Result.PENDING: " ", Result.ADJOURNED: " ",
}  # fmt: skip


class ByeKind(enum.StrEnum):
    """A round without an opponent, as event files name it."""

    PAIRING = "pairing"  # the pairing-allocated bye of an odd field
    FULL = "full"  # requested, scored as a win
    HALF = "half"  # requested, scored as a draw
    ZERO = "zero"  # requested (or a round missed by a late entry), scored as a loss
    FORFEIT = "forfeit"  # score-based events: a forfeit loss without an opponent

    @property
    def trf_code(self) -> TrfResult:
        """The TRF code of the round (a forfeit loss without an opponent is ``-``)."""
        return _BYE_CODES[self]

    @classmethod
    def from_trf(cls, code: TrfResult) -> ByeKind | None:
        """The bye a TRF code without an opponent stands for (``U F H Z``), else None."""
        return next((kind for kind, c in _BYE_CODES.items() if c is code and kind is not cls.FORFEIT), None)

    @classmethod
    def requested(cls, word: str) -> ByeKind:
        """The bye a player asks for, by its word (``half zero full``: :data:`REQUESTED_BYES`); :class:`ValueError`
        for another."""
        kind = _REQUESTED_WORDS.get(word)
        if kind is None:
            raise ValueError(f"a requested bye is 'half', 'zero' or 'full', not {word!r}")
        return kind


#: The byes a player may ask for.
REQUESTED_BYES = (ByeKind.HALF, ByeKind.ZERO, ByeKind.FULL)
_REQUESTED_WORDS = {kind.value: kind for kind in REQUESTED_BYES}

_BYE_CODES = {
    ByeKind.PAIRING: TrfResult.PAIRING_BYE, ByeKind.FULL: TrfResult.FULL_BYE, ByeKind.HALF: TrfResult.HALF_BYE,
    ByeKind.ZERO: TrfResult.ZERO_BYE, ByeKind.FORFEIT: TrfResult.FORFEIT_LOSS,
}  # fmt: skip


def format_points(tenths: int, *, decimal: bool = False) -> str:
    """Points in tenths for people (``3½``, ``½``, ``4``, ``2.3``), or with ``decimal`` as files do (``3.5``)."""
    whole, rest = divmod(tenths, 10)
    if decimal:
        return f"{whole}.{rest}"
    if rest == 5:
        return f"{whole}½" if whole else "½"
    return str(whole) if rest == 0 else f"{whole}.{rest}"
