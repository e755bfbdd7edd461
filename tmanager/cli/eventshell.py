"""``tmanager event shell``: a tsh-style prompt over the event verbs, with a modal result entry.

Commands are the verbs of ``tmanager event`` (any unique abbreviation) plus a
few of the shell's own. ``why`` explains the last message from its topic
(:mod:`tmanager.events.messages`); ``help messages`` lists every explanation.
In a score-based division tsh's own entry and report commands work too
(``a``, ``sp 3``, ``rs 5 b``…: :mod:`tmanager.cli.tshcommands`).
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

from tmanager.cli import tshcommands
from tmanager.cli.eventverbs import Verb, VerbParser, verb_parser
from tmanager.columns import aligned
from tmanager.errors import StateError, TManagerError, ascii_digits
from tmanager.events import journal, service
from tmanager.events.entries import Entry
from tmanager.events.messages import EXPLANATIONS, Topic, topic_of
from tmanager.events.model import label
from tmanager.events.operations import find_player
from tmanager.events.reports import PlayerSummary
from tmanager.events.rules import rules_for
from tmanager.events.rules.scoreentry import SuspiciousScore

SHELL_ONLY = {
    "enter": "enter result mode: lines `BOARD RESULT` or `P1 P2 RESULT`; an empty line leaves",
    "corrections": "correction mode: lines as in enter, each replacing a result already in; an empty line leaves",
    "card": "a player's record: data, score, rank, this round's seat, every round (card PLAYER)",
    "players": "list the players with numbers, ratings and scores",
    "division": "switch to another division: division NAME",
    "help": "help, help COMMAND, help messages",
    "why": "explain the last message",
    "quit": "leave the shell",
}


class Shell:
    """tsh-style prompt: abbreviated commands, players by number or name part, a modal result entry."""

    def __init__(self, path: Path, division: str | None, verbs: Mapping[str, Verb]) -> None:
        """The shell of event file ``path`` in ``division`` (None: the only one), offering the verbs of ``verbs``
        (``tmanager event``'s table) that may run in a shell."""
        self.path = path
        self.verbs = {name: verb for name, verb in verbs.items() if verb.in_shell}
        self.division = journal.load(path).division(division).name
        self.last = ""
        self.topic: Topic | None = None

    def prompt(self, mode: str = "", round_number: int | None = None) -> str:
        """The prompt: the mode (or the division) and the round at stake (the last paired one unless given)."""
        d = journal.load(self.path).division(self.division)
        return f"{mode or self.division} r{round_number or d.paired_rounds}> "

    def run(self) -> None:
        print(f"{journal.load(self.path).name}: type help for commands, quit to leave")
        while True:
            try:
                line = input(self.prompt())
            except EOFError:
                print()
                return
            if not self.handle(line):
                return

    def say(self, text: str, topic: Topic | None = None) -> None:
        """Print a message and remember it (and its topic) for ``why``."""
        self.last, self.topic = text, topic or topic_of(text)
        print(text)

    def error(self, exc: TManagerError) -> None:
        self.say(f"error: {exc}", topic_of(exc))

    def handle(self, line: str) -> bool:
        """Run one line; False to leave."""
        words = self.words(line)
        if not words:
            return True
        try:
            tsh = self.tsh_command(words)
            if tsh is not None:
                return self.tsh(tsh, words[1:])
            name = self.resolve(words[0])
            if name == "quit":
                return False
            self.dispatch(name, words[1:])
        except TManagerError as exc:
            self.error(exc)
        return True

    def words(self, line: str) -> list[str]:
        """The words of a line as a shell splits them; none, said as an error, when a quote is left open."""
        try:
            return shlex.split(line)
        except ValueError as exc:  # "No closing quotation"
            self.say(f"error: {exc}")
            return []

    def score_based(self) -> bool:
        event = journal.load(self.path)
        return rules_for(event, event.division(self.division)).score_based

    def tsh_command(self, words: list[str]) -> tshcommands.TshCommand | None:
        """tsh's command that a line names in a score-based division. A name both have (``missing``,
        ``standings``) is the shell's when the line gives options (``standings --round 3``), else tsh's
        (``missing 3``, ``standings b``)."""
        command = tshcommands.find(words[0])
        if command is None or not self.score_based():
            return None
        ours = words[0].lower() in [*self.verbs, *SHELL_ONLY]
        return None if ours and any(w.startswith("-") for w in words[1:]) else command

    def tsh(self, command: tshcommands.TshCommand, words: list[str]) -> bool:
        """Run tsh's ``command`` as the shell's (in the division it names, for this command only); False to leave."""
        names = [d.name for d in journal.load(self.path).divisions]
        done = tshcommands.translate(command, words, names)
        if done.command == "quit":
            return False
        current = self.division
        if done.division is not None:
            self.division = journal.load(self.path).division(done.division).name
        try:
            self.dispatch(done.command, done.words)
        finally:
            self.division = current
        return True

    def resolve(self, word: str) -> str:
        names = [*self.verbs, *SHELL_ONLY]
        if word.lower() in names:
            return word.lower()
        found = [n for n in names if n.startswith(word.lower())]
        tsh = tshcommands.find(word)
        if not found and tsh is not None:
            raise StateError(f"{word!r} is tsh's {tsh.name}, a command of score-based divisions",
                             hint="type help for this division's commands")
        if not found:
            raise StateError(f"unknown command {word!r}", hint="type help for the commands")
        if len(found) > 1:
            raise StateError(f"ambiguous: {word!r} could be {', '.join(found)}", topic=Topic.AMBIGUOUS_COMMAND,
                             hint="type more of it")
        return found[0]

    def dispatch(self, name: str, words: list[str]) -> None:
        if name == "help":
            self.help(words)
        elif name == "why":
            self.why()
        elif name == "division":
            if len(words) != 1:
                raise StateError("division NAME")
            self.division = journal.load(self.path).division(words[0]).name
        elif name == "players":
            self.players()
        elif name in ("enter", "corrections"):
            if len(words) > 1 or (words and not ascii_digits(words[0])):
                raise StateError(f"{name} [ROUND]: a round number, or nothing for the last paired round")
            self.results(int(words[0]) if words else None, correction=name == "corrections")
        elif name == "card":
            self.card(words)
        else:
            self.verb(name, words)

    def verb(self, name: str, words: list[str]) -> None:
        verb = self.verbs[name]
        parser = VerbParser(prog=name, description=verb.help, exit_on_error=False, add_help=True)
        verb_parser(parser, verb)
        try:
            args = parser.parse_args(words)
        except SystemExit:  # --help, or argparse's own usage message
            return
        except argparse.ArgumentError as exc:
            raise StateError(f"{name}: {exc}") from None
        args.event = self.path
        if verb.divisional:  # (set changes the event's settings, and a division's only when -d names it)
            args.division = args.division or self.division
        handler: Callable[[argparse.Namespace], int] = args.verb_handler
        if name in ("result", "correct"):
            self.confirmed(lambda yes: handler(argparse.Namespace(**{**vars(args), "yes": args.yes or yes})))
        else:
            handler(args)

    def confirmed(self, enter: Callable[[bool], object]) -> None:
        """Run an entry; a suspicious score is asked about and entered only on yes (tsh's warning)."""
        try:
            enter(False)
        except SuspiciousScore as exc:
            try:
                answer = input(f"the score {exc.score} looks mistyped; enter it anyway? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() in ("y", "yes"):
                enter(True)
            else:
                self.say("not entered")

    def results(self, round_number: int | None, *, correction: bool = False) -> None:
        """The modal result entry (or correction): one result per line until an empty line."""
        event = journal.load(self.path)
        division = event.division(self.division)
        if round_number is not None and not division.round(round_number).paired:
            raise StateError(f"division {division.name!r}: round {round_number} is not paired")
        rules = rules_for(event, division)  # reads the lines; the change finds their boards
        mode = "correction" if correction else "result entry"
        print(f"{mode}: {rules.entry_shape}; empty line to leave")
        while True:
            try:
                line = input(self.prompt("corrections" if correction else "results", round_number))
            except EOFError:
                return
            if not line.strip():
                return
            words = self.words(line)
            if not words:
                continue
            if words[0] in (".", "end", "q"):
                return
            if words[0] in ("missing", "m"):
                self.verb("missing", [])
                continue
            try:
                self.confirmed(partial(self.save, rules.parse_entry(words), round_number, correction=correction))
            except TManagerError as exc:
                self.error(exc)

    def save(self, entry: Entry, round_number: int | None, confirm: bool, *, correction: bool) -> None:
        """Enter one result of the modal entry (``confirm``: a suspicious score too), and say what was done."""
        change = service.save_result(self.path, self.division, entry, round_number, correction=correction,
                                     confirm=confirm)  # fmt: skip
        for message in change.messages:
            self.say(message)

    def card(self, words: list[str]) -> None:
        """One player's record (tsh's scorecard): data, score and rank, this round's seat, every round."""
        if len(words) != 1:
            raise StateError("card PLAYER (a number or a unique part of the name)")
        event = journal.load(self.path)
        division = event.division(self.division)
        summary = rules_for(event, division).reports().summary(find_player(division, words[0]).number)
        print("\n".join(card_lines(summary, division.paired_rounds)))

    def players(self) -> None:
        event = journal.load(self.path)
        d = event.division(self.division)
        ranks = d.ranks()
        scores = rules_for(event, d).scores_text()
        rows = [
            [str(p.number), p.name, str(p.rating or ""), str(ranks[p.number]), scores[p.number], p.status]
            for p in sorted(d.players, key=lambda p: p.number)
        ]
        print("\n".join(aligned(["No", "Name", "Rtg", "Rank", "Pts", "Status"], rows, left={1, 5})))

    def help(self, words: list[str]) -> None:
        if words and words[0].startswith("mess"):
            for topic, text in EXPLANATIONS.items():
                print(f"  {str(topic)!r}: {text}")
            return
        if words:
            name = self.resolve(words[0])
            if name in self.verbs:
                self.verb(name, ["--help"])
            else:
                print(f"{name}: {SHELL_ONLY[name]}")
            return
        print("commands (any unique abbreviation; players by number or part of the name):")
        width = max(map(len, [*self.verbs, *SHELL_ONLY]))  # import-players and the like are longer than 12
        for name, verb in self.verbs.items():
            print(f"  {name:{width}} {verb.help}")
        for name, text in SHELL_ONLY.items():
            print(f"  {name:{width}} {text}")
        if self.score_based():
            print("tsh's commands (in this score-based division; d: a division, left out for this one):")
            for tsh in tshcommands.COMMANDS:
                shown = " ".join((tsh.command, *tsh.fixed))
                print(f"  {tsh.usage:12} {tsh.name}: {tsh.note or shown}")
        print("`help COMMAND` for its options, `help messages` for every message, `why` for the last one")

    def why(self) -> None:
        if self.topic is not None:
            print(EXPLANATIONS[self.topic])
        else:
            print("no explanation for the last message" if self.last else "no message yet")


def card_lines(summary: PlayerSummary, paired: int) -> list[str]:
    """A player's summary for the terminal: name and facts, score and rank, the seat now, the rounds."""
    p = summary.player
    lines = [f"{label(p)}: {' · '.join(summary.facts)}"]
    rank = f", rank {summary.rank} after round {paired}" if summary.rank is not None else ""
    lines.append(f"{summary.score}{summary.unit}{rank}")
    seat = summary.seat
    if seat is not None:
        against = f" against {label(seat.opponent)}" if seat.opponent else ""
        lines.append(f"{seat.before}{seat.side}{against}{seat.after}")
    if summary.rounds is not None:
        lines += aligned(summary.rounds.header, summary.rounds.rows, left=summary.rounds.left)
    return lines + ([summary.note] if summary.note else [])
