"""The colours of a Dutch pair (C.04.3 article 5.2), with the rule that gave them.

The pairing (:mod:`.dutch`) takes the colour; ``--explain``
(:mod:`.dutchexplain`) the rule as well.
"""

from __future__ import annotations

from tmanager.core.results import Colour
from tmanager.pairing.dutchfield import Entrant, compatible_prefs
from tmanager.pairing.model import Reason, invert


def colour_word(colour: str) -> str:
    """``white`` or ``black``, as a reason says it."""
    return Colour(colour).word


def allocate(p: Entrant, o: Entrant, *, initial_colour: str) -> tuple[str, Reason]:
    """The colour of ``p`` against ``o``, and the rule of article 5.2 that gave it; ``initial_colour`` is the top
    player's colour in round 1."""
    pair = (p.id, o.id)
    if compatible_prefs(p.pref, o.pref):
        if p.pref is not None and o.pref is not None:
            return p.pref, Reason("5.2.1", "both colour preferences granted ({} " + colour_word(p.pref)
                                  + ", {} " + colour_word(o.pref) + ")", pair)  # fmt: skip
        if p.pref is not None:
            return p.pref, Reason("5.2.1", "{}'s colour preference (" + colour_word(p.pref)
                                  + ") granted; {} has none", pair)  # fmt: skip
        if o.pref is not None:
            return invert(o.pref), Reason("5.2.1", "{1}'s colour preference (" + colour_word(o.pref)
                                          + ") granted; {0} has none", pair)  # fmt: skip
    else:
        decided = _stronger(p, o)
        if decided is not None:
            return decided
        # Alternate from the latest round in which their colours differed.
        mine = [g.colour for g in reversed(p.games) if g.played]
        theirs = [g.colour for g in reversed(o.games) if g.played]
        for a, b in zip(mine, theirs, strict=False):
            if a != b:
                if a is None or b is None:
                    break  # a played game without a colour: nothing to alternate from
                return b, Reason("5.2.3", "alternating from their latest games with different colours ({} had "
                                 + colour_word(a) + ", {} " + colour_word(b) + ")", pair)  # fmt: skip
    p_lower = (p.score, o.rank) < (o.score, p.rank)
    high = o if p_lower else p
    if p.pref is None:
        odd = not high.rank & 1  # ranks count from 0: pairing number rank + 1
        colour = initial_colour if odd else invert(initial_colour)
        why = Reason("5.2.5", f"no colour preferences: the higher-ranked {{}} has the {'odd' if odd else 'even'} "
                     f"pairing number {high.rank + 1}, so {colour_word(colour)} (initial colour "
                     f"{colour_word(initial_colour)})", (high.id,))  # fmt: skip
        return (invert(colour) if p_lower else colour), why
    assert high.pref is not None
    why = Reason("5.2.4", "the higher-ranked {}'s preference (" + colour_word(high.pref) + ")", (high.id,))
    return (invert(high.pref) if p_lower else high.pref), why


def _stronger(p: Entrant, o: Entrant) -> tuple[str, Reason] | None:
    """Article 5.2.2: the stronger of two equal preferences (the absolute, then the wider difference, then the
    strong one), as ``p``'s colour; None when neither is stronger."""
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        colour = first.pref if first is p else invert(first.pref)
        pair = (first.id, second.id)
        if first.abs_pref and not second.abs_pref:
            return colour, Reason("5.2.2", "{}'s absolute preference (" + colour_word(first.pref)
                                  + ") is stronger than {}'s", pair)  # fmt: skip
        if first.abs_pref and first.imbalance > second.imbalance:
            return colour, Reason("5.2.2", f"both preferences are absolute; {{}}'s colour difference "
                                  f"({first.imbalance}) is wider than {{}}'s ({second.imbalance})", pair)  # fmt: skip
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        if first.strong and not second.strong:
            colour = first.pref if first is p else invert(first.pref)
            return colour, Reason("5.2.2", "{}'s strong preference (" + colour_word(first.pref)
                                  + ") is stronger than {}'s mild one", (first.id, second.id))  # fmt: skip
    return None
