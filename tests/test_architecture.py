"""The engine's layering, checked from the source (docs/architecture.md): imports are parsed with `ast`, never
executed. A new import circle, an import upward through the engine's layers, an engine import of the
services or the store, or a title named in shared engine code fails here."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "shared" / "engine"

# Layers of the engine, lowest first: a module may import (at run time) only from its own layer or below.
# Imports under `if TYPE_CHECKING:` are type hints only (core's steps name `Game`) and are not counted.
LAYERS: dict[str, int] = {
    "errors": 0, "rng": 0, "model": 0, "titledata": 0, "ranges": 0,  # the vocabulary, the board data, ranges
    "protocol": 0,  # what the modules the game imports ask of a game: met by the game, its rules and rounds
    "board": 1,  # hexes, tiles, routes: knows no rounds
    "core": 2,  # the shared rules: market, shares, trains, rounds and steps
    "legal": 3, "programs": 3,  # legal-action enumeration over core's steps; standing orders and their options
    "titles": 4,  # each title's package: composes the core, overrides what its rules change
}
TOP = 5  # game, session, digest, records, provisional, view and the package itself: the assembly
FORBIDDEN = ("services", "shared.eventstore")  # the engine is pure: no service, no store

# Title names that shared engine code (outside titles/ and data/) still holds, with how many times. Each is
# a rule still living in the wrong place; the list may only shrink: an entry that is no longer there fails
# too, so it is removed when its rule moves into the title's package.
TITLE_NAME = re.compile(r"\b(1825|1828|1840|1833NE)\b")
TITLES_NAMED_IN_SHARED_CODE: dict[tuple[str, str], int] = {
    # empty since the board takes its route rules and board settings from the title (TitleRules.board_rules)
}


def engine_files() -> Iterator[Path]:
    yield from sorted(p for p in ENGINE.rglob("*.py") if "data" not in p.relative_to(ENGINE).parts[:1])


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer_of(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[2], TOP) if len(parts) > 2 else TOP


@cache
def parsed(path: Path) -> ast.Module:
    """Parsed on a fresh thread: CPython 3.11.7's AST conversion checks its recursion depth against the
    caller's stack depth and can fail spuriously ("AST constructor recursion depth mismatch", gh-106905)
    when called deep inside the test runner's stack; a new thread starts at depth 0. The counter is shared
    by the interpreter's threads, so a parse elsewhere at the same moment (a thread left by an earlier test
    compiling a template) can still trip it: the error is about the counter, never the source, so the parse
    is tried again."""
    source = path.read_text(encoding="utf-8")
    for attempt in range(5):
        with ThreadPoolExecutor(max_workers=1) as pool:
            try:
                return pool.submit(ast.parse, source).result()
            except SystemError as err:  # "AST constructor recursion depth mismatch"
                if "recursion depth" not in str(err) or attempt == 4:
                    raise
    raise AssertionError("unreachable")


def type_checking_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for n in ast.walk(node))
    return out


def imports_of(path: Path, *, top_level_only: bool = False) -> tuple[tuple[str, int], ...]:
    """(imported module, line) of every run-time import; with `top_level_only`, those run at import time
    (not inside a function), which are the ones that can form an import circle."""
    return _imports(path, top_level_only)


@cache
def _imports(path: Path, top_level_only: bool) -> tuple[tuple[str, int], ...]:
    return tuple(_scan(path, top_level_only))


def _scan(path: Path, top_level_only: bool) -> Iterator[tuple[str, int]]:
    module = module_of(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    tree = parsed(path)
    hints = type_checking_nodes(tree)
    lazy: set[int] = set()
    if top_level_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and id(node) not in lazy:
                lazy.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in hints or id(node) in lazy:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            submodules = [f"{target}.{a.name}" for a in node.names if is_module(f"{target}.{a.name}")]
            for name in submodules or [target]:  # `from . import titledata` imports that module
                yield name, node.lineno


@cache
def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_the_engine_imports_no_service_and_no_store() -> None:
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in engine_files()
           for name, line in imports_of(p) if name == FORBIDDEN[0] or name.startswith(FORBIDDEN)]
    assert not bad, "the engine is pure (no services, no event store):\n" + "\n".join(bad)


def test_engine_imports_go_down_the_layers() -> None:
    """core, board and the model sit below the titles: a lower layer never imports a higher one at run time
    (a title's hook is passed in, not imported)."""
    modules = {module_of(p) for p in engine_files()}
    bad = []
    for path in engine_files():
        here = module_of(path)
        for name, line in imports_of(path):
            if name in modules and name.startswith("shared.engine") and layer_of(name) > layer_of(here):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {here} (layer {layer_of(here)}) imports "
                           f"{name} (layer {layer_of(name)})")
    assert not bad, "imports upward through the engine's layers:\n" + "\n".join(sorted(set(bad)))


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
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


def test_no_import_circle_in_the_engine() -> None:
    """No module of the engine imports, at import time, a module that imports it back (directly or round a
    circle): the circle of 1840's rules with every round is not to come back."""
    modules = {module_of(p): p for p in engine_files()}
    graph = {m: {n for n, _ in imports_of(p, top_level_only=True) if n in modules and n != m}
             for m, p in modules.items()}
    assert circles(graph) == []


def test_the_circle_finder_finds_circles() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


SOURCE_ROOTS = ("shared", "services", "bench")
# Circles still standing, each by its modules. The list may only shrink: a circle gone or changed fails too, so
# its entry is removed. Empty since the engine's assembly was opened (issue 50): core's steps, the title hooks
# and the game's helpers name the game by `shared/engine/protocol.py`'s protocols, not by `game.Game`.
KNOWN_CIRCLES: list[frozenset[str]] = []


def import_graph(root: Path, tops: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """module -> {module it imports: where ("path:line")}, over every import of the modules under `tops`:
    at import time, inside a function and under `if TYPE_CHECKING:` alike (a type hint ties the modules as
    much as a call: the lower one cannot be read, moved or tested without the higher)."""
    files: dict[str, Path] = {}
    for top in tops:
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph: dict[str, dict[str, str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges: dict[str, str] = {}
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    kept = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(kept + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in files] or [base]
            else:
                continue
            for target in targets:
                if target in files and target != module:
                    edges.setdefault(target, f"{path.relative_to(root).as_posix()}:{node.lineno}")
        graph[module] = edges
    return graph


def describe(circle: list[str], graph: dict[str, dict[str, str]]) -> str:
    ties = [f"  {a} -> {b} ({graph[a][b]})" for a in circle for b in sorted(graph[a]) if b in circle]
    return f"circle of {len(circle)} modules:\n" + "\n".join(ties)


def test_no_import_circle_anywhere() -> None:
    """No module of shared/, services/ or bench/ imports one that imports it back, directly or round a circle,
    counting type hints and imports inside functions: the module both need moves down (a protocol, a small
    module in the lower layer), rather than an import hiding in a function."""
    graph = import_graph(ROOT, SOURCE_ROOTS)
    found = circles({m: set(edges) for m, edges in graph.items()})
    new = [describe(c, graph) for c in found if frozenset(c) not in KNOWN_CIRCLES]
    assert not new, "import circles (move what both sides need into a lower module):\n" + "\n".join(new)
    gone = [sorted(k) for k in KNOWN_CIRCLES if sorted(k) not in found]
    assert not gone, f"known circles gone or changed: remove or update their KNOWN_CIRCLES entries: {gone}"


def test_the_circle_check_counts_type_hints_and_imports_in_functions(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from pkg import a\n")
    (tmp_path / "pkg" / "c.py").write_text("from . import a\n")
    graph = import_graph(tmp_path, ("pkg",))
    assert graph["pkg.a"] == {"pkg.b": "pkg/a.py:3"}
    assert circles({m: set(edges) for m, edges in graph.items()}) == [["pkg.a", "pkg.b"]]
    assert describe(["pkg.a", "pkg.b"], graph) == ("circle of 2 modules:\n  pkg.a -> pkg.b (pkg/a.py:3)\n"
                                                  "  pkg.b -> pkg.a (pkg/b.py:2)")


def titles_named(path: Path) -> Iterator[str]:
    """Title names in the string literals of a module (docstrings aside: prose may give an example)."""
    tree = parsed(path)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and ast.get_docstring(node, clean=False) is not None}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield from TITLE_NAME.findall(node.value)


def test_no_title_is_named_in_shared_engine_code() -> None:
    """A title's rules live in its package (titles/gNNNN) and its data (data/games); shared code asks hooks.
    The allowlist holds what is still there and may only shrink."""
    found: Counter[tuple[str, str]] = Counter()
    for path in engine_files():
        rel = path.relative_to(ENGINE)
        if rel.parts[0] == "titles":
            continue
        for title in titles_named(path):
            found[(rel.as_posix(), title)] += 1
    new = {k: v for k, v in found.items() if v > TITLES_NAMED_IN_SHARED_CODE.get(k, 0)}
    assert not new, f"a title named in shared engine code (move the rule into the title's package): {new}"
    gone = {k: v for k, v in TITLES_NAMED_IN_SHARED_CODE.items() if found.get(k, 0) < v}
    assert not gone, f"the allowlist shrinks: remove or lower these entries, they are gone: {gone}"


def test_the_title_check_sees_a_title_in_a_literal(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""Docs may say 1825."""\nif title == "1840":\n    x = f"{title} not 1833NE"\n')
    assert sorted(titles_named(sample)) == ["1833NE", "1840"]


PRIVATE_BOARD_USE = re.compile(r"\bboard\._[a-z]\w*|from \.\.\.?board\.\w+ import [^\n]*\b_[a-z]\w*")


def private_board_uses(path: Path) -> list[str]:
    """Where code outside the board reaches into its private members (`board._x`, a `_name` imported from a
    board module): the board's cache and trial bookkeeping stay its own, titles use its public API
    (`trial_lay`, `forget_reach`, `reach`, `adjacent_stops`)."""
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    return [f"{where}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
            for m in PRIVATE_BOARD_USE.finditer(text)]


def test_titles_and_core_use_only_the_boards_public_api() -> None:
    bad = [use for p in engine_files() if "board" not in p.relative_to(ENGINE).parts[:1]
           for use in private_board_uses(p)]
    assert not bad, "private board members used outside shared/engine/board:\n" + "\n".join(bad)


def test_the_board_check_sees_a_private_use(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from ...board.graph import NodeRef, _walk\nwith game.board._trial(h):\n    board.reach(x)\n")
    assert [u.split(": ", 1)[1] for u in private_board_uses(sample)] == [
        "from ...board.graph import NodeRef, _walk", "board._trial"]


EXTRA_USE = re.compile(r"\.extra\b(?!_)")
# Uses of the untyped `game.extra` dict per engine package (issue 24: each title's facts move into its own
# `TitleState` dataclass, `game.title_state`). The counts may only shrink, like the title allowlist above.
EXTRA_USES: dict[str, int] = {}  # every title keeps its facts in its TitleState; Game has no `extra`


def extra_uses() -> Counter[str]:
    found: Counter[str] = Counter()
    for path in engine_files():
        rel = path.relative_to(ENGINE)
        package = "/".join(rel.parts[:2]) if rel.parts[0] == "titles" and len(rel.parts) > 2 else rel.parts[0]
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                         if not line.lstrip().startswith("#"))
        found[package] += len(EXTRA_USE.findall(text))
    return +found


def test_title_state_is_typed_where_it_has_moved() -> None:
    found = extra_uses()
    grown = {k: v for k, v in found.items() if k != "game.py" and v > EXTRA_USES.get(k, 0)}
    assert not grown, f"new uses of the untyped game.extra (use the title's TitleState dataclass): {grown}"
    shrunk = {k: v for k, v in EXTRA_USES.items() if found.get(k, 0) < v}
    assert not shrunk, f"game.extra uses went down: lower these entries to what is left: {shrunk} (now {found})"


# Which services may not import which (docs/architecture.md, "The layers and what each may import"): the play
# layer and mail-in never reach into the gateway, play never into the notifier, and the shared helpers
# (`services.timesource`, `services.words`) into no service at all.
SERVICE_BOUNDARIES: dict[str, tuple[str, ...]] = {
    "services.play": ("services.gateway", "services.notifier", "services.mailin"),
    "services.mailin": ("services.gateway",),
    "services.notifier": ("services.gateway", "services.play"),
    "services.words": ("services.gateway", "services.notifier", "services.mailin", "services.play"),
    "services.timesource": ("services.gateway", "services.notifier", "services.mailin", "services.play"),
}


def test_services_import_only_across_their_contracts() -> None:
    bad = []
    for path in sorted((ROOT / "services").rglob("*.py")):
        here = module_of(path)
        banned = next((b for owner, b in SERVICE_BOUNDARIES.items()
                       if here == owner or here.startswith(owner + ".")), ())
        bad += [f"{path.relative_to(ROOT)}:{line}: {here} imports {name}" for name, line in imports_of(path)
                if any(name == b or name.startswith(b + ".") for b in banned)]
    assert not bad, "a service imports past its contract (docs/architecture.md):\n" + "\n".join(bad)


# Protocols declared in a lower module for a class above it to meet (how the circles above were opened), with
# that class. Nothing checks them statically, so each member must stand on its class with the same parameters.
PROTOCOLS = [
    ("shared.eventstore.gametx:Backend", "shared.eventstore.sql:SqlRecorder"),
    ("shared.engine.board.routes:Grid", "shared.engine.board.board:Board"),
    ("shared.engine.board.routes:GridRules", "shared.engine.board.rules:BoardRules"),
    ("shared.engine.titles.g1833ne.protocol:Rules", "shared.engine.titles.g1833ne.rules:Rules1833NE"),
    ("shared.engine.titles.g1840.flow:Rules", "shared.engine.titles.g1840.rules:Rules1840"),
    ("services.play.handover:Table", "services.play.timekeeping:Table"),
    ("shared.engine.protocol:Game", "shared.engine.game:Game"),
    ("shared.engine.protocol:Definition", "shared.engine.game:Definition"),
    ("shared.engine.protocol:Rules", "shared.engine.titles.base:TitleRules"),
    ("shared.engine.protocol:Round", "shared.engine.core.rounds:Round"),
]


def protocol_gaps(protocol: type, cls: type) -> list[str]:
    """Members of `protocol` that `cls` lacks or takes other parameters for (a data member may be set in
    `__init__`, or be a class attribute whose value is None)."""
    import dataclasses
    import inspect

    missing = object()
    gaps = []
    source = inspect.getsource(cls)
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    for name in sorted(set(protocol.__dict__.get("__annotations__", {})) | {
            n for n, v in vars(protocol).items() if callable(v) or isinstance(v, property)} - {"__init__"}):
        if name.startswith("__"):
            continue
        mine = inspect.getattr_static(protocol, name, None)
        theirs = inspect.getattr_static(cls, name, missing)
        if callable(mine) and not isinstance(mine, property):
            if not callable(theirs) or (list(inspect.signature(mine).parameters)
                                        != list(inspect.signature(theirs).parameters)):
                gaps.append(name)
        elif theirs is missing and name not in fields and f"self.{name}" not in source:
            gaps.append(name)
    return gaps


def test_each_protocol_is_met_by_the_class_above_it() -> None:
    import importlib

    def load(spec: str) -> type:
        module, _, name = spec.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]

    bad = {f"{p} by {c}": gaps for p, c in PROTOCOLS if (gaps := protocol_gaps(load(p), load(c)))}
    assert not bad, f"protocol members missing or with other parameters: {bad}"


def test_the_protocol_check_sees_a_missing_member() -> None:
    from typing import Protocol

    class Asks(Protocol):
        size: int

        def go(self, a: int) -> None: ...

    class Meets:
        size: int | None = None  # a class attribute set to None is there

        def go(self, a: int) -> None: ...

    class Misses:
        def go(self, b: int) -> None: ...

    assert protocol_gaps(Asks, Meets) == []
    assert protocol_gaps(Asks, Misses) == ["go", "size"]
