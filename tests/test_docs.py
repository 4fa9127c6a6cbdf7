"""Every code name a doc cites exists (issue 50, "Docs are documents").

The backticked spans of docs/*.md (docs/history/ is a log of its days and keeps its old names) that read as
code are looked up in the tree:
- a path (`services/play/apply.py`, `board/graph.py`, `bench/campaign`): some file or folder ends with it;
- a module and a name (`core/operating.refuse_stated_extras`, `steps/merger.Merger.deciders`): the module's
  file exists and every name after it is defined;
- a dotted name (`Game.acting_players`, `exchange.Exchange.complete`, `shared.engine.ranges`) that starts with
  a class or a module of the tree: each name after the module is defined (a `def`, a `class` or an
  assignment) somewhere under shared/, services/, tests/ or bench/;
- a call (`catalogue()`) or a test (`test_...`, `::test_...`): such a function is defined.
The backticked names of the code's docstrings and comments, and every `docs/....md` they cite, are checked
the same way.
Spans that are not code names (URLs, commands, placeholders, JSON fields of the wire format) are left alone:
a span with a space, a placeholder or a file type that is data is not checked.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CODE_DIRS = ("shared", "services", "tests", "bench")
SKIP_DIRS = {".git", ".venv", "var", "node_modules", "__pycache__", ".pytest_cache", ".ruff_cache"}
FILE_TYPES = {"py", "md", "json", "jsonl", "gz", "txt", "png", "log", "toml", "yml", "yaml", "sh", "cfg", "ini",
              "html", "js", "css", "svg", "sql", "rb"}
# outside the tree: the oracle's and the reference's tools (run from ../shared/oracle), libraries' and the
# browser's names, PostgreSQL functions, MIME types, fields of stored JSON that share a module's name, and
# the shapes a docstring names as examples
OUTSIDE = ("oracle/", "tools/", "multipart/", "text/", "application/")
NOT_CODE = {"PushSubscription.toJSON", "pg_current_xact_id", "reverse_check.py", "provisional.tables_file",
            "Celery.send_task", "Worker.handle_error", "railpost_guard", "xfail", "board._x"}
DOMAINS = {"org", "com", "net", "games"}
PLACEHOLDER = re.compile(r"[\s<>{}$*\[\]=@'\"?,;…|%]|\.\.\.|://")
IDENT = r"[A-Za-z_]\w*"
DOTTED = re.compile(rf"{IDENT}(?:\.{IDENT})+")
DEFINED = re.compile(rf"^\s*(?:async\s+def|def|class)\s+({IDENT})|^\s*({IDENT})\s*(?::[^=]|=)|self\.({IDENT})\s*[:=]",
                     re.M)


@cache
def tree() -> tuple[str, ...]:
    """Every file's path relative to the root, with `/`."""
    out = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if path.is_file() and not SKIP_DIRS.intersection(rel.parts):
            out.append(rel.as_posix())
    return tuple(out)


@cache
def folders() -> frozenset[str]:
    return frozenset(p.rsplit("/", 1)[0] for p in tree() if "/" in p)


@cache
def code_files() -> tuple[str, ...]:
    return tuple(p for p in tree() if p.endswith(".py") and p.split("/", 1)[0] in CODE_DIRS)


@cache
def definitions() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(classes, functions, every defined name: classes, functions and assigned names) under the code folders."""
    classes, functions, names = set(), set(), set()
    for rel in code_files():
        text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
        classes.update(re.findall(rf"^\s*class\s+({IDENT})", text, re.M))
        functions.update(re.findall(rf"^\s*(?:async\s+)?def\s+({IDENT})", text, re.M))
        for m in DEFINED.finditer(text):
            names.add(next(g for g in m.groups() if g))
    return frozenset(classes), frozenset(functions), frozenset(names | classes | functions)


def ends_with(suffix: str) -> bool:
    """Some file or folder of the tree is `suffix` or ends with `/suffix`."""
    suffix = suffix.strip("/")
    return any(p == suffix or p.endswith("/" + suffix) for p in (*tree(), *folders()))


def module_file(dotted: str) -> bool:
    """`a.b.c` or `a/b/c` names a module (a `.py` file or a package) of the tree, as a full path or its tail."""
    path = dotted.replace(".", "/")
    return ends_with(path + ".py") or ends_with(path + "/__init__.py")


def spans(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"`([^`\n]+)`", text)


def normalise(span: str) -> str:
    span = span.strip()
    span = span.removeprefix("::")
    return re.sub(r"\([^()]*\)$", "", span)  # a call's arguments: `Game.new(...)` names Game.new


def problem(span: str) -> str | None:
    """Why `span`, read as a code name, names nothing in the tree; None when it exists or is no code name."""
    name = normalise(span)
    if (not name or name in NOT_CODE or PLACEHOLDER.search(name)
            or name.startswith(("/", "../", "./", ".", "var/", *OUTSIDE))):
        return None
    if "::" in name:  # pytest's `file.py::name`
        path, _, inner = name.partition("::")
        return problem(path) or undefined(inner.split("::"))
    if "/" in name:
        if any(part.isupper() for part in name.split("/")):
            return None  # a placeholder folder (`BANK/attempts.jsonl`)
        if ends_with(name) or any(("/" + name + ".") in "/" + p for p in tree()):
            return None  # a file, a folder, or a recorded game named without its `.json`
        head, _, last = name.rpartition("/")
        if "." not in last:
            return None if module_file(name) else "no such file or folder"
        stem, _, rest = last.partition(".")
        if rest.rsplit(".", 1)[-1] in FILE_TYPES:
            return None if ends_with(name) else "no such file"
        if not module_file(f"{head}/{stem}"):
            return f"no module {head}/{stem}.py"
        return undefined(rest.split("."))
    if name.endswith(".py"):
        return None if ends_with(name) else "no such file"
    if DOTTED.fullmatch(name):
        parts = name.split(".")
        if parts[-1] in FILE_TYPES or parts[-1] in DOMAINS:
            return None  # a data file's name (`extras.json`) or a domain, not code
        if module_file(name):
            return None
        for cut in range(len(parts) - 1, 0, -1):
            if module_file(".".join(parts[:cut])):
                return undefined(parts[cut:])
        if parts[0][0].isupper():
            return undefined(parts)
        return None  # a field of the wire format or a local (`bank.cash`, `action.n`): not a name of the tree
    if re.fullmatch(r"test_\w+", name):
        functions = definitions()[1]
        return None if name in functions or ends_with(name + ".py") else "no such test"
    if span.strip().endswith(")") and re.fullmatch(IDENT, name):
        return None if name in definitions()[2] else "no such function or class"
    return None


def undefined(parts: list[str]) -> str | None:
    classes, _, names = definitions()
    for i, part in enumerate(parts):
        if i == 0 and len(part) == 1:
            continue  # a module's one-letter alias (`K.P4_DOUBLES_IN`, `import constants as K`)
        if i < len(parts) - 1 and part[0].isupper() and part not in classes:
            return f"no class {part}"
        if part not in names:
            return f"{part} is defined nowhere"
    return None


def test_every_code_name_in_the_docs_exists() -> None:
    missing = []
    for md in sorted(DOCS.glob("*.md")):
        for span in sorted(set(spans(md.read_text(encoding="utf-8")))):
            why = problem(span)
            if why:
                missing.append(f"docs/{md.name}: `{span}`: {why}")
    assert not missing, "stale names in docs:\n" + "\n".join(missing)


def test_every_code_name_in_a_docstring_or_comment_exists() -> None:
    missing = []
    for rel in code_files():
        if rel == "tests/test_docs.py":
            continue  # names its own examples of stale names
        text = (ROOT / rel).read_text(encoding="utf-8", errors="replace")
        for span in sorted(set(re.findall(r"`([^`\n]+)`", text))):
            why = problem(span)
            if why:
                missing.append(f"{rel}: `{span}`: {why}")
        for doc in sorted(set(re.findall(r"\bdocs/[\w./-]+\.md", text))):
            if doc not in tree():
                missing.append(f"{rel}: {doc}: no such doc")
    assert not missing, "stale names in code:\n" + "\n".join(missing)


def test_the_check_finds_a_stale_name() -> None:
    # the names issue 50 found stale, and their shapes: a method, a path, a module's function, a test
    assert problem("Merger.takes_back") is not None
    assert problem("docs/conflicts.md") is not None
    assert problem("core/shares.no_such_helper") is not None
    assert problem("test_no_such_behaviour") is not None
    assert problem("Game.acting_players") is None
    assert problem("core/operating.py") is None
    assert problem("GET /games/{id}") is None
