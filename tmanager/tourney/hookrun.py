"""The tourney's hooks, each run exactly once, whoever dies when.

A hook's life, kept in the journal (:attr:`Tourney.hooks
<tmanager.tourney.model.Tourney.hooks>`, by key: ``after_game:N``, ``after_tourney``),
every step under the file's lock but the run itself::

      a game recorded (after_game), the tourney over (after_tourney)
                        |
                        v
                   +---------+   take: marked taken by its taker, marker file made   +-------+
                   | pending | ----------------------------------------------------> | taken |
                   +---------+ <---------------------------------------------------- +-------+
                        settle: the taker died and the marker is still there             |
                        (removed first: the hook never started, and never will)          |
                                                                                         | finish: the taker ran it
                                                                                         | settle: the taker died and
                                                                                         |   the marker is gone
                                                                                         v
                                                                              done (gone from the journal)

Recording a game records its ``after_game`` hook (and, for the last game,
``after_tourney``) as pending in the same transaction (:func:`add_hooks`).
Whoever holds the lock next may take a pending hook (:func:`take_hook`): it
marks the hook taken and leaves a marker file of that taking, then runs the
hook outside the lock (:func:`run_hook`) and finishes it (:func:`finish_hook`).
The hook's shell removes the marker as its first act and goes on only if that
worked. A hook whose taker died is run again only if its marker is still there
(:func:`settle_hooks`): the marker is removed first, so that a shell of the dead
taker that starts late gives up. Removing a file succeeds once, so exactly one
of the two goes on; a hook that started ran, or is running on its own, and is
done. ``after_tourney`` runs once every ``after_game`` is done (:func:`next_hook`).
A journal cut by hand loses the lines past the cut: a game whose recording line
was lost has its hooks pending again (:func:`restore_hooks`, which the store
calls in the first transaction after the cut), and a hook whose finishing line
was lost is settled again; either may run twice, none is dropped.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
from dataclasses import dataclass
from pathlib import Path

from tmanager import hooks
from tmanager.formats import pgn
from tmanager.tourney import tuning
from tmanager.tourney.model import PendingHook, Tourney
from tmanager.tourney.owners import ENGINE_TAG, Owner, process_is_alive
from tmanager.tourney.progress import update_verdict

log = logging.getLogger("tmanager")

#: The keys of the hooks in :attr:`Tourney.hooks <tmanager.tourney.model.Tourney.hooks>`.
AFTER_GAME, AFTER_TOURNEY = "after_game", "after_tourney"


def game_env(number: int, result: str, termination: str, reason: str, white: str, black: str) -> dict[str, str]:
    """What an ``after_game`` hook learns of its game."""
    return {
        "TMANAGER_GAME": str(number),
        "TMANAGER_RESULT": result,
        "TMANAGER_TERMINATION": termination,
        "TMANAGER_REASON": reason,
        "TMANAGER_WHITE": white,
        "TMANAGER_BLACK": black,
    }


def add_hooks(tourney: Tourney, number: int, env: dict[str, str]) -> None:
    """Record the hooks that game ``number``'s result calls for as pending."""
    s = tourney.settings
    if s.after_game:
        tourney.hooks[f"{AFTER_GAME}:{number}"] = PendingHook(AFTER_GAME, s.after_game, env, game=number)
    if tourney.is_complete():
        add_after_tourney(tourney)


def add_hooks_found(tourney: Tourney, number: int, found: pgn.FoundGame) -> None:
    """:func:`add_hooks` of game ``number``, told of it by its game in the PGN."""
    add_hooks(tourney, number, game_env(number, found.result, found.termination, found.reason, found.white,
                                        found.black))


def restore_hooks(tourney: Tourney, games: tuple[int, ...]) -> None:
    """Record the hooks of ``games`` as pending again: the file has them recorded, but its journal lost the lines
    that recorded them (cut by hand), and with them their hooks, pending or done, which is not known. Run again
    rather than never. A game not in the PGN (a result typed in by hand) calls for none. The store calls it in
    the first transaction after the cut, the only one that knows of them, whoever its caller."""
    if not (games and (tourney.settings.after_game or tourney.settings.after_tourney)):
        return  # no hook to run: the PGN need not be read
    restored = []
    for number in games:
        found = pgn.find_game(tourney.pgn_path, number)
        if found is not None:
            add_hooks_found(tourney, number, found)
            restored.append(number)
    if restored:
        log.warning("%s: its journal lost the lines that recorded game(s) %s (cut by hand?): their hooks are due "
                    "again", tourney.path, ", ".join(map(str, restored)))


def add_after_tourney(tourney: Tourney) -> None:
    """Record ``after_tourney`` as pending (with an SPRT's verdict or a tune's values in its environment), if
    there is one."""
    if tourney.settings.after_tourney:
        env = {**verdict_environment(tourney), **tuning.environment(tourney)}
        tourney.hooks[AFTER_TOURNEY] = PendingHook(AFTER_TOURNEY, tourney.settings.after_tourney, env)


def note_verdict(tourney: Tourney) -> None:
    """Record an SPRT's verdict that came without a game recorded (results typed in by hand), with the
    ``after_tourney`` it calls for once the test is over."""
    decided = tourney.verdict
    update_verdict(tourney)
    if tourney.verdict is not None and tourney.verdict != decided and tourney.is_complete():
        add_after_tourney(tourney)


def conclude(tourney: Tourney) -> None:
    """What the record of a last game does, for a tourney that ended without one (an edit of its cycles, of a
    tune's iterations or of an SPRT's bounds): the SPRT's verdict recorded, the tune's values written, and
    ``after_tourney`` pending (``run`` or ``work`` runs it)."""
    update_verdict(tourney)
    if tourney.spsa is not None:
        tuning.write_values(tourney)
    add_after_tourney(tourney)


def conclude_hand_ending(tourney: Tourney, played: str) -> None:
    """:func:`conclude` a tourney that a hand edit of its results string ended (``played``: its results by the
    journal's account, before the edit): no game's record will. The store calls it in the transaction that takes
    the edit in, the only one that knows of it."""
    if AFTER_TOURNEY in tourney.hooks or not tourney.is_complete():
        return
    if not dataclasses.replace(tourney, results=played).is_complete():
        conclude(tourney)


def verdict_environment(tourney: Tourney) -> dict[str, str]:
    """``after_tourney``'s SPRT variables, from the verdict in the file (none without an SPRT)."""
    v = tourney.verdict
    if v is None:
        return {}
    return {
        "TMANAGER_SPRT_RESULT": v.result.value,
        "TMANAGER_SPRT_LLR": f"{v.llr:.4f}",
        "TMANAGER_SPRT_LOWER": f"{v.lower:.4f}",
        "TMANAGER_SPRT_UPPER": f"{v.upper:.4f}",
        "TMANAGER_SPRT_GAMES": str(v.games),
        "TMANAGER_SPRT_PAIRS": str(v.pairs),
    }


def hook_marker(tourney: Tourney, key: str, taker: tuple[str, int, float, str]) -> Path:
    """The file of ``taker``'s taking of hook ``key`` that the hook's shell removes as its first act:
    present means the hook never started."""
    _host, pid, started, _boot = taker
    return tourney.live_dir / f"hook-{key.replace(':', '-')}-{pid}-{started:.3f}"


def settle_hooks(tourney: Tourney, taker: Owner) -> None:
    """Free the hooks whose taker died before starting them; drop those it started (they ran or still run).

    So too the hooks marked taken by ``taker`` itself, which is taking its next: it runs one at a time, so
    it runs none of them now. Such a mark outlives its hook when the journal lost the line that finished it
    (cut by hand); left there, every worker waited for ever for a hook that had run."""
    host = socket.gethostname()
    for key, hook in list(tourney.hooks.items()):
        if hook.taken_by is None:
            continue
        taker_host, pid, started, boot = hook.taken_by
        mine = hook.taken_by == taker.key
        if not mine and (taker_host != host or process_is_alive(pid, started, boot=boot)):
            continue
        try:  # the dead taker's shell may yet start: whichever removes the marker first goes on
            hook_marker(tourney, key, hook.taken_by).unlink()
        except FileNotFoundError:
            del tourney.hooks[key]
        else:
            tourney.hooks[key] = dataclasses.replace(hook, taken_by=None)


def next_hook(tourney: Tourney) -> str | None:
    """The pending hook to run next: ``after_game`` hooks by game, then ``after_tourney`` once they are done."""
    free = [key for key, hook in tourney.hooks.items() if hook.taken_by is None]
    games = sorted((tourney.hooks[k].game, k) for k in free if tourney.hooks[k].name == AFTER_GAME)
    if games:
        return games[0][1]
    if AFTER_TOURNEY in free and not any(h.name == AFTER_GAME for h in tourney.hooks.values()):
        return AFTER_TOURNEY
    return None


@dataclass(frozen=True, slots=True)
class TakenHook:
    """A hook taken to be run: what its run needs, outside the lock."""

    key: str
    hook: PendingHook
    marker: Path  #: the file its shell removes first (see :func:`hook_marker`)
    tourney_path: Path
    pgn_path: Path

    def run(self) -> None:
        """:func:`run_hook` of this hook."""
        run_hook(self.hook, marker=self.marker, tourney_path=self.tourney_path, pgn_path=self.pgn_path)


def take_hook(tourney: Tourney, taker: Owner) -> TakenHook | None:
    """Take the next pending hook for ``taker``, if any (pending -> taken), after settling those of dead takers.

    The marker is made before the transaction commits: a taker that dies after it leaves the marker."""
    settle_hooks(tourney, taker)
    key = next_hook(tourney)
    if key is None:
        return None
    marker = hook_marker(tourney, key, taker.key)
    marker.parent.mkdir(exist_ok=True)
    marker.touch()
    hook = tourney.hooks[key] = dataclasses.replace(tourney.hooks[key], taken_by=taker.key)
    return TakenHook(key, hook, marker, tourney.path, tourney.pgn_path)


def finish_hook(tourney: Tourney, key: str, taker: Owner) -> None:
    """Hook ``key``, run by ``taker``, is done (taken -> done); one taken over by another meanwhile stays theirs."""
    hook = tourney.hooks.get(key)
    if hook is not None and hook.taken_by == taker.key:
        del tourney.hooks[key]


def run_hook(hook: PendingHook, *, marker: Path, tourney_path: Path, pgn_path: Path) -> None:
    """Run a pending hook in the tourney's directory (see :mod:`tmanager.hooks`); a failure is logged, never
    fatal. Its shell removes ``marker`` first: from then on the hook counts as started."""
    variables = {
        "TMANAGER_TOURNEY": str(tourney_path),
        "TMANAGER_PGN": str(pgn_path),
        "TMANAGER_HOOK_MARKER": str(marker),
        **hook.env,
    }
    # Without the marker, the hook was given to another taker: this one must not run it too.
    script = f'rm -- "$TMANAGER_HOOK_MARKER" 2>/dev/null || exit 0\n{hook.command}'
    # A hook is not an engine: it must outlive its worker, not be killed with it as the worker's engines are.
    problem = hooks.run(
        script, name=hook.name, directory=tourney_path.parent, variables=variables, hidden=(ENGINE_TAG,)
    )
    if problem is not None:
        marker.unlink(missing_ok=True)
        log.warning("%s hook %r %s", hook.name, hook.command, problem)
