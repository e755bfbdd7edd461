"""The layering of docs/architecture.md, checked by reading every module's imports (no module is run)."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "tmanager"

#: Modules that know nothing of chess, tourneys or events (and the package itself, which holds the version):
#: they may import only each other.
FOUNDATION = {"tmanager", "errors", "files", "tomlmap", "columns", "templates", "hooks", "logs"}
#: What each part may import besides the foundation and itself.
ALLOWED = {
    "core": set(),
    "pairing": {"core"},
    "formats": {"core", "pairing"},
    "tourney": {"core", "pairing", "formats"},
    "events": {"core", "pairing", "formats"},
    "fastchess": {"core", "pairing", "formats", "tourney"},
    "web": {"core", "pairing", "formats", "tourney", "events"},
    "cli": {"core", "pairing", "formats", "tourney", "events", "web", "fastchess"},
    "__main__": {"cli"},  # python -m tmanager
}


def part_of(module: str) -> str:
    """``tmanager.events.rules.chess`` belongs to ``events``; ``tmanager.files`` to ``files``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "tmanager"


def modules() -> dict[str, ast.Module]:
    """Every module of the package by dotted name, parsed."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        found[name] = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return found


def imported(tree: ast.Module) -> set[str]:
    """The tmanager modules a module imports (``from tmanager import x`` counts as ``tmanager.x``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            if node.module == "tmanager":  # from tmanager import events: a module; __version__: a name
                names |= {f"tmanager.{a.name}" for a in node.names if (PACKAGE / a.name).is_dir()
                          or (PACKAGE / f"{a.name}.py").is_file()}  # fmt: skip
    return {n for n in names if n == "tmanager" or n.startswith("tmanager.")}


def test_every_part_imports_only_what_lies_below_it() -> None:
    tree = modules()
    assert len(tree) > 50 and "tmanager.events.model" in tree, "the scan found the package"
    wrong = []
    for name, module in tree.items():
        part = part_of(name)
        for target in imported(module):
            other = part_of(target)
            if other == part or other in FOUNDATION:
                continue
            if part in FOUNDATION or other not in ALLOWED.get(part, set()):
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_nothing_imports_the_command_line() -> None:
    tree = modules()
    users = sorted(
        f"{name} imports {target}"
        for name, module in tree.items()
        if part_of(name) not in ("cli", "__main__")
        for target in imported(module)
        if part_of(target) == "cli"
    )
    assert users == []


def test_a_division_kind_is_told_apart_in_one_place() -> None:
    """Only the rules' choice (and the guards of the score-based and team records) compares a division's ``scored``
    or ``team_settings`` with None; the event file maps them as the optional tables they are."""
    allowed = {
        "tmanager.events.rules", "tmanager.events.scorecards", "tmanager.events.teams", "tmanager.events.eventfile",
    }  # fmt: skip
    tests = []
    for name, module in modules().items():
        for node in ast.walk(module):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr in ("scored", "team_settings")
                and any(isinstance(c, ast.Constant) and c.value is None for c in node.comparators)
                and name not in allowed
            ):
                tests.append(f"{name}:{node.lineno}")
    assert tests == []


#: The kinds of division's rules and reports, told apart only by the packages that own them.
DIVISION_KINDS = {"DivisionRules", "ChessRules", "DoubleSwissRules", "TeamRules", "ScoreRules", "DivisionReports",
                  "ChessReports", "ScoredReports", "TeamReports"}


def test_a_division_s_rules_and_reports_are_asked_not_tested_for_their_kind() -> None:
    """The command line, the pages and the TRF export tested ``isinstance(rules, TeamRules)`` or ``isinstance(
    reports, ChessReports)``; they ask the rules (``team_size``, ``score_based``, ``awards_prizes``) or the reports
    (``team_standings``), and a command for one kind takes it through ``rules.require`` or ``require_reports``."""
    found = [
        f"{name}:{node.lineno}"
        for name, module in modules().items()
        if not name.startswith(("tmanager.events.rules", "tmanager.events.reports"))
        for node in ast.walk(module)
        if isinstance(node, ast.Call) and _name(node.func) == "isinstance" and len(node.args) == 2
        and {_name(n) for n in ast.walk(node.args[1])} & DIVISION_KINDS
    ]
    assert found == []


#: Where an engine's protocol may be told apart: the engine classes, and the engine that picks its client.
ENGINE_MODULES = {
    "tmanager.tourney.engine", "tmanager.tourney.engineclient", "tmanager.tourney.uciclient",
    "tmanager.tourney.xboardclient",
}  # fmt: skip
#: The engine classes (ours, and python-chess's protocols, which tmanager no longer uses).
ENGINE_CLASSES = {"EngineClient", "UciClient", "XBoardClient", "UciProtocol", "XBoardProtocol", "UciEngine",
                  "XBoardEngine"}


def kind_tests(module: ast.Module) -> list[int]:
    """The lines where ``module`` asks which protocol an engine speaks: ``isinstance`` with an engine class, or a
    ``….protocol`` compared with ``"uci"`` or ``"xboard"``, or with ``Protocol.UCI`` or ``Protocol.XBOARD``."""
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Call) and _name(node.func) == "isinstance" and len(node.args) == 2:
            if {_name(n) for n in ast.walk(node.args[1])} & ENGINE_CLASSES:
                found.append(node.lineno)
        elif isinstance(node, ast.Compare) and _name(node.left) == "protocol" and any(
            (isinstance(c, ast.Constant) and c.value in ("uci", "xboard")) or _name(c) in ("UCI", "XBOARD")
            for c in node.comparators
        ):
            found.append(node.lineno)
    return sorted(found)


def _name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def test_the_engine_classes_answer_what_differs_between_protocols() -> None:
    """play.py and compliance.py asked ``isinstance(protocol, XBoardProtocol)`` or ``spec.protocol == "uci"``;
    the engine classes answer instead (issue 48), and nothing else asks."""
    assert kind_tests(ast.parse("isinstance(p, chess.engine.XBoardProtocol)\nspec.protocol == 'uci'\n"
                                "spec.protocol is Protocol.UCI")) == [1, 2, 3]
    found = [f"{name}:{line}" for name, module in modules().items() if name not in ENGINE_MODULES
             for line in kind_tests(module)]
    assert found == []


#: The packages tmanager reads and writes its files with: their private names may change in any release (tomlkit
#: 0.15.3 took away the ``Container._insert_after`` that tmanager used), as python-chess's may.
LIBRARIES = {
    "chess": ("chess", "chess.engine", "chess.pgn", "chess.variant", "chess.syzygy", "chess.polyglot", "chess.gaviota",
              "chess.svg"),
    "tomlkit": ("tomlkit", "tomlkit.items", "tomlkit.container", "tomlkit.toml_document"),
    "filelock": ("filelock",),
}


def private_names(module_names: Collection[str]) -> set[str]:
    """Every private name these modules define, in themselves and their classes."""
    import importlib
    import inspect

    names = set()
    for module_name in module_names:
        module = importlib.import_module(module_name)
        package = module_name.split(".")[0]
        for name, value in vars(module).items():
            names.add(name)
            if inspect.isclass(value) and value.__module__.startswith(package):
                names |= {attribute for klass in value.__mro__ if klass.__module__.startswith(package)
                          for attribute in vars(klass)}
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def private_uses(module: ast.Module, private: set[str], *, package: str = "chess") -> list[int]:
    """The lines where ``module`` uses a private name of ``package``: an attribute of anything but ``self`` or
    ``cls`` (``board._transposition_key()``, ``chess.engine._next_token``, ``super()._line_received``), or one
    imported from it."""
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Attribute) and node.attr in private:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == package:
            found += [node.lineno for alias in node.names if alias.name.startswith("_")]
    return sorted(found)


@pytest.mark.parametrize("package", sorted(LIBRARIES))
def test_no_private_name_of_a_library_is_used(package: str) -> None:
    """Any release may change a library's private names (any python-chess 1.x, issue 48; tomlkit 0.15.3 did):
    tmanager uses their public API only. (A subclass of a library's class could still reach them through
    ``self``: none uses one.)"""
    private = private_names(LIBRARIES[package])
    sample = "board._transposition_key()\nchess.engine._next_token(line)\nfrom chess.engine import _next_token"
    if package == "chess":
        assert {"_transposition_key", "_next_token", "_parse_uci_info", "_line_received"} <= private
        assert private_uses(ast.parse(sample), private) == [1, 2, 3]
    found = [f"{name}:{line}" for name, module in modules().items()
             for line in private_uses(module, private, package=package)]
    assert found == []


def runtime_imports(name: str, tree: ast.Module, known: Collection[str]) -> set[str]:
    """The tmanager modules that running module ``name`` imports: ``from P import m`` imports P and, when m is a
    module, P.m; imports under ``if TYPE_CHECKING:`` are never run and do not count."""
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for statement in node.body
        for inner in ast.walk(statement)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names} & set(known)
    return {module for module in found if module in known and module != name}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in order:
            continue
        work = [(root, iter(sorted(graph[root])))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in order:
                    order[target] = low[target] = len(order)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in on_stack:
                    low[node] = min(low[node], order[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == order[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycles_finds_a_cycle_and_only_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({**graph, "c": {"d"}}) == []


def test_no_module_of_the_package_imports_itself_through_others() -> None:
    """No import cycle among tmanager's modules: each can be understood, and imported, on top of those it uses."""
    tree = modules()
    graph = {name: runtime_imports(name, module, tree) for name, module in tree.items()}
    assert "tmanager.events.rules.base" in graph["tmanager.events.rules.chess"], "the scan resolved the imports"
    assert cycles(graph) == []


def test_pairing_systems_are_told_apart_by_the_rules() -> None:
    """Only the rules name a pairing system to compare a division's with (``division.system ==
    PairingSystem.DUTCH``) or to choose among; everything else asks the rules object (``rules.system_title``,
    ``draws_first_colour``, ``paired_by_hand``…) or the model (``division.round_robin``, ``total_rounds``). The TRF
    file maps each system to its codes, as the event file maps the kinds' tables."""
    allowed = ("tmanager.events.rules", "tmanager.events.model", "tmanager.events.trffile")
    named = [
        f"{name}:{node.lineno}"
        for name, module in modules().items()
        if not name.startswith(allowed)
        for node in ast.walk(module)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "PairingSystem"
    ]
    assert named == []


#: The most lines a module and a function may hold (docs/architecture.md: units stay small because each holds one
#: idea; a justified exception would be named there and here).
MODULE_LINES, FUNCTION_LINES = 600, 80


def test_modules_and_functions_stay_small() -> None:
    too_long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(PACKAGE.parent))
        if (lines := len(text.splitlines())) > MODULE_LINES:
            too_long.append(f"{name}: {lines} lines")
        too_long += [
            f"{name}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
            for node in ast.walk(ast.parse(text, name))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None
            and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
        ]
    assert too_long == []


#: A round's TRF result codes and the event file's results, as text: ``.result`` holds a ``TrfResult`` or a
#: ``Result`` member, which code compares and looks up as members (issue 48).
RESULT_TEXTS = frozenset("1=0WDL+-HFUZ ") | {"1-0", "0-1", "½-½", "+-", "-+", "--", "*", "adj"}


def _result_text(node: ast.AST, containers: Mapping[str, ast.AST]) -> bool:
    """A literal result code or result (``"U"``, ``"UF"``, ``"adj"``), or a tuple, set, ``set("+-")`` or module
    constant of them."""
    if isinstance(node, ast.Name) and node.id in containers:
        return _result_text(containers[node.id], {})
    if isinstance(node, ast.Constant):
        value = node.value
        return isinstance(value, str) and value != "" and (value in RESULT_TEXTS or set(value) <= RESULT_TEXTS)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(_result_text(e, {}) for e in node.elts)
    if isinstance(node, ast.Call) and _name(node.func) in ("set", "frozenset") and len(node.args) == 1:
        return _result_text(node.args[0], {})
    return False


def _code_table(node: ast.AST, tables: Mapping[str, ast.AST]) -> bool:
    """A dict whose keys are result codes as text (``{"U": "bye+", …}``), literal or a module constant."""
    node = tables.get(node.id, node) if isinstance(node, ast.Name) else node
    return isinstance(node, ast.Dict) and bool(node.keys) and all(
        k is not None and isinstance(k, ast.Constant) and _result_text(k, {}) for k in node.keys
    )


def _holds_result(node: ast.AST) -> bool:
    """``game.result``, or a tuple or set holding one (``{first.result, second.result}``)."""
    elements = node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [node]
    return any(_name(e) == "result" for e in elements)


def result_texts(module: ast.Module) -> list[int]:
    """The lines where ``module`` compares a ``….result`` with result codes as text, or looks one up in a table
    keyed by them (``_SYMBOLS[game.result]``, ``{...}.get(game.result)``)."""
    constants = {
        target.id: node.value
        for node in module.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    containers = {name: value for name, value in constants.items() if not isinstance(value, ast.Constant)}
    found = []
    for node in ast.walk(module):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_holds_result(s) for s in sides) and any(_result_text(s, containers) for s in sides):
                found.append(node.lineno)
        elif isinstance(node, ast.expr) and _looks_up_result(node, constants):
            found.append(node.lineno)
    return sorted(found)


def _looks_up_result(node: ast.AST, tables: Mapping[str, ast.AST]) -> bool:
    """``table[game.result]`` or ``table.get(game.result…)`` with a table keyed by codes as text."""
    if isinstance(node, ast.Subscript):
        return _name(node.slice) == "result" and _code_table(node.value, tables)
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
        and bool(node.args) and _name(node.args[0]) == "result" and _code_table(node.func.value, tables)
    )  # fmt: skip


def test_results_are_compared_as_members_not_as_their_codes() -> None:
    """A round's TRF code was a ``str`` tested as ``game.result in "UF"``, ``== "+"``, looked up in tables keyed by
    ``"U"``, ``"="``…, and a board's ``result == "adj"``; they are members of ``TrfResult`` and ``Result`` now,
    read once where the text comes in, whose questions the members answer (``.full_point_bye``, ``.forfeit``)."""
    sample = (
        'g.result in "UF"\nb.result == "adj"\n{first.result} <= set("+-")\n_SYMBOLS[g.result]\n'
        '{"U": "bye+"}.get(game.result, "-")\ngame.result in _WINS\n'
        'g.result is TrfResult.PAIRING_BYE\nb.result == DRAW\n_SYMBOLS = {"1": "1", "=": "½"}\n_WINS = ("+", "F")\n'
    )
    assert result_texts(ast.parse(sample)) == [1, 2, 3, 4, 5, 6]
    found = [f"{name}:{line}" for name, module in modules().items() for line in result_texts(module)]
    assert found == []
