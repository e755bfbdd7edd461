"""The colours of a Dutch pair (C.04.3 article 5.2), with the rule that gave them.

The pairing (:mod:`.dutch`) takes the colour; ``--explain``
(:mod:`.dutchexplain`) the rule as well.
"""

from __future__ import annotations

from tmanager.core.results import Colour
from tmanager.pairing.dutchfield import Entrant, compatible_prefs
from tmanager.pairing.model import Reason


def allocate(p: Entrant, o: Entrant, *, initial_colour: Colour) -> tuple[Colour, Reason]:
    """The colour of ``p`` against ``o``, and the rule of article 5.2 that gave it; ``initial_colour`` is the top
    player's colour in round 1."""
    pair = (p.id, o.id)
    if compatible_prefs(p.pref, o.pref):
        if p.pref is not None and o.pref is not None:
            return p.pref, Reason("5.2.1", "both colour preferences granted ({} " + p.pref.word
                                  + ", {} " + o.pref.word + ")", pair)  # fmt: skip
        if p.pref is not None:
            return p.pref, Reason("5.2.1", "{}'s colour preference (" + p.pref.word
                                  + ") granted; {} has none", pair)  # fmt: skip
        if o.pref is not None:
            return o.pref.other, Reason("5.2.1", "{1}'s colour preference (" + o.pref.word
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
                                 + a.word + ", {} " + b.word + ")", pair)  # fmt: skip
    p_lower = (p.score, o.rank) < (o.score, p.rank)
    high = o if p_lower else p
    if p.pref is None:
        odd = not high.rank & 1  # ranks count from 0: pairing number rank + 1
        colour = initial_colour if odd else initial_colour.other
        why = Reason("5.2.5", f"no colour preferences: the higher-ranked {{}} has the {'odd' if odd else 'even'} "
                     f"pairing number {high.rank + 1}, so {colour.word} (initial colour "
                     f"{initial_colour.word})", (high.id,))  # fmt: skip
        return (colour.other if p_lower else colour), why
    assert high.pref is not None
    why = Reason("5.2.4", "the higher-ranked {}'s preference (" + high.pref.word + ")", (high.id,))
    return (high.pref.other if p_lower else high.pref), why


def _stronger(p: Entrant, o: Entrant) -> tuple[Colour, Reason] | None:
    """Article 5.2.2: the stronger of two equal preferences (the absolute, then the wider difference, then the
    strong one), as ``p``'s colour; None when neither is stronger."""
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        colour = first.pref if first is p else first.pref.other
        pair = (first.id, second.id)
        if first.abs_pref and not second.abs_pref:
            return colour, Reason("5.2.2", "{}'s absolute preference (" + first.pref.word
                                  + ") is stronger than {}'s", pair)  # fmt: skip
        if first.abs_pref and first.imbalance > second.imbalance:
            return colour, Reason("5.2.2", f"both preferences are absolute; {{}}'s colour difference "
                                  f"({first.imbalance}) is wider than {{}}'s ({second.imbalance})", pair)  # fmt: skip
    for first, second in ((p, o), (o, p)):
        assert first.pref is not None
        if first.strong and not second.strong:
            colour = first.pref if first is p else first.pref.other
            return colour, Reason("5.2.2", "{}'s strong preference (" + first.pref.word
                                  + ") is stronger than {}'s mild one", (first.id, second.id))  # fmt: skip
    return None
