"""One vocabulary for results, colours and points, however a file or a person spells them.

* :class:`Colour`: white or black. Its values ``"w"``/``"b"`` are how TRF files
  and the pairing core write it; :attr:`Colour.word` is how people and event
  files do (``white``).
* :class:`Result`: the result of one game, from white's side. Its values are
  the stored form of event files (``1-0``, ``½-½``, ``+-`` for a forfeit, ``*``
  not entered yet, ``adj`` adjourned); it converts to and from what arbiters
  type (:meth:`Result.parse`), PGN result strings, XBoard's results characters
  (an engine tourney's results string) and the two players' TRF codes.
* TRF round-entry codes, one player's round: ``1 = 0`` played, ``W D L``
  played without a move counting, ``+ -`` forfeits, ``H F U Z`` byes (half,
  full, pairing-allocated, zero), a space for nothing yet
  (:data:`PLAYED_CODES`, :data:`UNPLAYED_CODES`).
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


#: TRF codes of games played over the board (``W D L``: played, though the moves do not count).
PLAYED_CODES = frozenset("1=0WDL")
#: TRF codes of rounds without a game: forfeits, byes, and a space for nothing entered.
UNPLAYED_CODES = frozenset("+-HFUZ ")
TRF_CODES = PLAYED_CODES | UNPLAYED_CODES


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
    def from_trf(cls, white: str, black: str) -> Result | None:
        """The result two TRF codes give (``W D L`` read as ``1 = 0``); None if they do not make one."""
        return _FROM_TRF.get((_SCORED.get(white, white), _SCORED.get(black, black)))

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
    def trf_codes(self) -> tuple[str, str]:
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
    Result.WHITE_WINS: ("1", "0"), Result.BLACK_WINS: ("0", "1"), Result.DRAW: ("=", "="),
    Result.WHITE_WINS_BY_FORFEIT: ("+", "-"), Result.BLACK_WINS_BY_FORFEIT: ("-", "+"),
    Result.DOUBLE_FORFEIT: ("-", "-"), Result.PENDING: (" ", " "), Result.ADJOURNED: (" ", " "),
}  # fmt: skip
#: A TRF pair of codes back to the result; adjourned games look pending in TRF.
_FROM_TRF = {codes: result for result, codes in _TRF.items() if result is not Result.ADJOURNED}
_SCORED = {"W": "1", "D": "=", "L": "0"}
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
    def trf_code(self) -> str:
        """The TRF code of the round (a forfeit loss without an opponent is ``-``)."""
        return _BYE_CODES[self]

    @classmethod
    def from_trf(cls, code: str) -> ByeKind | None:
        """The bye a TRF code without an opponent stands for (``U F H Z``), else None."""
        return next((kind for kind, c in _BYE_CODES.items() if c == code and kind is not cls.FORFEIT), None)


_BYE_CODES = {ByeKind.PAIRING: "U", ByeKind.FULL: "F", ByeKind.HALF: "H", ByeKind.ZERO: "Z", ByeKind.FORFEIT: "-"}


def format_points(tenths: int, *, decimal: bool = False) -> str:
    """Points in tenths for people (``3½``, ``½``, ``4``, ``2.3``), or with ``decimal`` as files do (``3.5``)."""
    whole, rest = divmod(tenths, 10)
    if decimal:
        return f"{whole}.{rest}"
    if rest == 5:
        return f"{whole}½" if whole else "½"
    return str(whole) if rest == 0 else f"{whole}.{rest}"
