"""Module boundaries, read from the source's syntax tree (nothing is imported).

The package is layered by folder, lowest first:

* `text/` reads markdown and words: the standard library, the markdown readers and its
  own modules only (and `errors`, the exception family, itself standard library only).
* `store/` owns SQLite (every statement) and imports nothing of the domain.
* the domain, flat at the top of the package, where its names guide a reader.
* `interfaces/` are the faces (command line, MCP, watcher, what they print): nothing
  below imports them.

Inside the domain, pure modules reach neither the store layer nor numpy, sqlite3,
sqlite-utils or rich; the query-time arithmetic modules may use numpy, nothing else of
that list. rich is imported by `interfaces/render.py` alone. The connection
(`store.db`, `store.conn`, `<x>.db[...]`), sqlite-utils and SQL statements (an
`execute` call, a statement's text) stay inside `store/`.

Every module is under a folder's rule or in one of the lists below with the reason it
stands there, so a new module joins a rule on purpose. The last tests feed the checker
synthetic sources, so a checker that can no longer see a violation fails too.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "vaultmem"
FOLDERS = ("text", "store", "interfaces")

TEXT_MAY_USE = {"errors": "the exception family: standard library only, raised everywhere"}
# The readers text/ stands on: a markdown tokenizer and front matter are not in the
# standard library, and writing them again would read notes differently from Obsidian.
TEXT_PACKAGES = {"markdown_it", "frontmatter", "yaml"}
# Flat domain modules, by what they may reach (rows of text/ are shared with the store,
# so no pure module needs the store to name a note or a link).
PURE = {
    "clock": "one rule for time, read by every layer",
    "config": "one frozen settings object, read by every layer",
    "errors": "the exception family, raised everywhere",
    "form": "the commitments a note's text states in passing",
    "ledger": "a task line taken apart into what it says, and written back",
    "ledger_append": "appending one commitment to a ledger note, never losing a line",
    "ledger_edit": "`ledger done`, `cancel`, `move`: rewriting one line",
    "ledger_reconcile": "which line of today is which commitment of yesterday, and what changed",
    "schema": "the version of every JSON document's shape",
    "tasks_format": "a task line as Obsidian Tasks reads and writes it",
}
ARITHMETIC = {  # numpy, never the store
    "embed": "the `Embedder` protocol and the model loader",
    "onnx_embed": "the lean query-time embedder",
    "snippet": "the passage shown with a result",
    "trigger": "what the trigger matcher reads in a context and a condition",
}
# What the store layer stands on besides itself and text/: nothing of the domain above.
STORE_MAY_USE = {"errors", "clock", "config"}
# Domain modules that use the store: each says why it stands at the top of the package.
DOMAIN = {
    "__init__": "the package's face: hands `Vault` on, lazily",
    "__main__": "`python -m vaultmem`: the command line",
    "api": "`Vault`, the library: every face goes through it",
    "appended": "the lines vaultmem appended to notes, kept to tell them from the user's",
    "budget": "a time budget for one call, shared by index and query",
    "candidates": "commitments found in passing, kept until confirmed",
    "commitments": "what fires at query time, and why",
    "cue": "is this context the moment of a condition",
    "filters": "which notes a query may return",
    "indexer": "the incremental index run",
    "ledger_sync": "the ledger note into the store",
    "ledger_view": "the due set, the ledger listing, an entry's history: documents on firing",
    "notedoc": "`vaultmem get`: one note's document",
    "nudge": "proactive nudges",
    "opener": "opening a note where its user reads it",
    "prospective": "prospective items (SPEC 7)",
    "rank": "the query-time ranking",
    "recover": "`index --rebuild`: the store's salvage, then a whole index run",
    "related": "the notes close to one note",
    "salience": "the offline salience job",
    "status": "what is indexed: the status document",
}
NOT_PURE = {"numpy", "sqlite3", "sqlite_utils", "rich"}
NOT_ARITHMETIC = NOT_PURE - {"numpy"}
# SQL still written outside the store layer, each with why: this list only shrinks.
SQL_NOT_MOVED: dict[str, str] = {}
_SQL_CALLS = {"execute", "executemany", "executescript"}
_SQL_TEXT = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA)\b")


def sources() -> dict[str, str]:
    """{dotted name under vaultmem: source}, e.g. "text.parse", "api"."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if len(parts) > 1 and parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path.read_text(encoding="utf-8")
    return out


def folder(name: str) -> str:
    """The folder a module sits in ("" for the flat top)."""
    return name.split(".")[0] if "." in name or name in FOLDERS else ""


def _runtime_nodes(tree: ast.AST):
    """Every node except those under `if TYPE_CHECKING:` (annotations only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _package_of(name: str, known: set[str]) -> list[str]:
    parts = name.split(".")
    is_package = any(k.startswith(name + ".") for k in known)
    return parts if is_package else parts[:-1]


def imports(name: str, source: str, known: set[str]) -> tuple[set[str], set[str]]:
    """(vaultmem modules, other top-level packages) that module `name` imports, anywhere."""
    inner, outer = set(), set()

    def add(module: str, names=()):
        found = [f"{module}.{n}".lstrip(".") for n in names if f"{module}.{n}".lstrip(".") in known]
        inner.update(found or ([module] if module in known else []))

    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "vaultmem":
                    add(".".join(parts[1:]))
                else:
                    outer.add(parts[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0:
                if module.split(".")[0] != "vaultmem":
                    outer.add(module.split(".")[0])
                    continue
                base = module.split(".")[1:]
            else:
                package = _package_of(name, known)
                base = package[:len(package) - node.level + 1] + ([module] if module else [])
            add(".".join(base).replace("..", "."), [a.name for a in node.names])
    inner.discard(name)
    return inner, outer


def graph(srcs: dict[str, str]) -> dict[str, tuple[set[str], set[str]]]:
    known = set(srcs)
    return {name: imports(name, text, known) for name, text in srcs.items()}


def reach(srcs: dict[str, str]) -> dict[str, tuple[set[str], set[str]]]:
    """Per module: the vaultmem modules it reaches (itself included) and every outside
    package any of them imports."""
    direct = graph(srcs)
    out = {}
    for name in srcs:
        seen, todo = set(), [name]
        while todo:
            mod = todo.pop()
            if mod in seen or mod not in direct:
                continue
            seen.add(mod)
            todo.extend(direct[mod][0])
        out[name] = seen, set().union(*(direct[m][1] for m in seen))
    return out


def connection_uses(source: str) -> list[str]:
    """`line: code` of each reach into a store's connection."""
    found = []
    for node in ast.walk(ast.parse(source)):
        hit = False
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            hit = node.value.attr == "db"  # x.db["table"]
        elif isinstance(node, ast.Attribute) and node.attr in ("db", "conn"):
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            hit = name.endswith("store") or name == "db"  # store.db, v.store.conn, x.db.conn
        if hit:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def sql_uses(source: str) -> list[int]:
    """Lines that run or spell an SQL statement."""
    lines = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _SQL_CALLS:
                lines.add(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _SQL_TEXT.match(node.value):
                lines.add(node.lineno)
    return sorted(lines)


def _in_store_layer(name: str) -> bool:
    return folder(name) == "store"


def folder_problems(srcs: dict[str, str]) -> list[str]:
    """text/ imports the standard library and itself; nothing outside interfaces/ imports
    interfaces/."""
    problems = []
    for name, (mods, packages) in graph(srcs).items():
        if folder(name) == "text":
            problems += [f"{name} imports {p} (text/: the standard library only)"
                         for p in sorted(packages - set(sys.stdlib_module_names) - TEXT_PACKAGES)]
            problems += [f"{name} imports vaultmem.{m} (text/: its own modules only)"
                         for m in sorted(mods) if folder(m) != "text" and m not in TEXT_MAY_USE]
        if _in_store_layer(name):
            problems += [f"{name} imports vaultmem.{m} (the store stands below the domain)"
                         for m in sorted(mods) if not _in_store_layer(m)
                         and folder(m) != "text" and m not in STORE_MAY_USE]
        if folder(name) != "interfaces" and name != "__main__":
            problems += [f"{name} imports vaultmem.{m} (nothing below the faces imports them)"
                         for m in sorted(mods) if folder(m) == "interfaces"]
    return problems


def tier_problems(srcs: dict[str, str]) -> list[str]:
    problems = []
    for name, (mods, packages) in reach(srcs).items():
        pure = name in PURE or folder(name) == "text"
        tier = NOT_PURE if pure else NOT_ARITHMETIC if name in ARITHMETIC else None
        if tier is not None:
            problems += [f"{name} reaches {what}" for what in sorted(packages & tier)]
            problems += [f"{name} reaches the store layer ({what})"
                         for what in sorted(m for m in mods - {name} if _in_store_layer(m))]
    return problems


def store_problems(srcs: dict[str, str]) -> list[str]:
    problems = []
    for name, text in srcs.items():
        _, direct = imports(name, text, set(srcs))
        if "rich" in direct and name != "interfaces.render":
            problems.append(f"{name} imports rich (interfaces/render.py only)")
        if _in_store_layer(name):
            continue
        if "sqlite_utils" in direct:
            problems.append(f"{name} imports sqlite_utils (the store layer only)")
        problems += [f"{name}:{use}" for use in connection_uses(text)]
        if name not in SQL_NOT_MOVED:
            problems += [f"{name}:{line}: SQL outside the store" for line in sql_uses(text)]
    return problems


def violations(srcs: dict[str, str]) -> list[str]:
    return sorted(folder_problems(srcs) + tier_problems(srcs) + store_problems(srcs))


def unplaced(srcs: dict[str, str]) -> list[str]:
    """Modules under no folder's rule and in no list."""
    listed = set(PURE) | set(ARITHMETIC) | set(DOMAIN)
    return sorted(n for n in srcs if folder(n) == "" and n not in listed)


def test_every_module_is_under_a_rule_or_in_a_list_on_purpose():
    srcs = sources()
    assert unplaced(srcs) == []
    lists = [set(PURE), set(ARITHMETIC), set(DOMAIN)]
    assert sum(map(len, lists)) == len(set().union(*lists))  # each module in one list
    assert set().union(*lists, SQL_NOT_MOVED, TEXT_MAY_USE) <= set(srcs)  # renamed here too
    reasons = {**PURE, **ARITHMETIC, **DOMAIN, **SQL_NOT_MOVED, **TEXT_MAY_USE}
    assert [name for name, why in reasons.items() if not why.strip()] == []  # each says why


def test_the_boundaries_hold():
    assert violations(sources()) == []


def test_the_modules_not_moved_yet_still_hold_sql():
    """The list shrinks as statements move: a module without SQL leaves it."""
    srcs = sources()
    assert [n for n in SQL_NOT_MOVED if not sql_uses(srcs[n])] == []


# -- the checker sees what it is for ------------------------------------------------------


def test_a_pure_module_that_imports_the_store_fails():
    srcs = sources()
    srcs["text.parse"] += "\nfrom ..store import Store\n"
    found = violations(srcs)
    assert "text.parse reaches the store layer (store)" in found
    assert "text.parse reaches numpy" in found  # through the store
    assert "text.parse imports vaultmem.store (text/: its own modules only)" in found


def test_a_pure_module_that_reaches_numpy_through_another_module_fails():
    srcs = sources()
    srcs["text.folder"] += "\ndef later():\n    from .. import trigger\n"
    found = violations(srcs)
    # config and ledger_append (and ledger_edit through it) import the folder walk: they
    # reach numpy through it as well.
    assert [v for v in found if "numpy" in v] == [
        "config reaches numpy", "ledger_append reaches numpy", "ledger_edit reaches numpy",
        "text.folder reaches numpy"]
    assert "text.folder imports vaultmem.trigger (text/: its own modules only)" in found


def test_text_takes_no_package_from_outside_the_standard_library():
    srcs = sources()
    srcs["text.dates"] += "\nimport dateutil\n"
    assert violations(srcs) == ["text.dates imports dateutil (text/: the standard library only)"]


def test_the_core_importing_a_face_fails():
    srcs = sources()
    srcs["api"] += "\ndef later():\n    from .interfaces import render\n"
    assert violations(srcs) == [
        "api imports vaultmem.interfaces.render (nothing below the faces imports them)"]


def test_the_store_importing_the_domain_fails():
    srcs = sources()
    srcs["store.migrations"] += "\ndef later():\n    from .. import ledger_sync\n"
    assert violations(srcs) == [
        "store.migrations imports vaultmem.ledger_sync (the store stands below the domain)"]


def test_an_import_for_annotations_only_is_no_reach():
    srcs = sources()
    srcs["text.resolve"] += "\nif TYPE_CHECKING:\n    from ..store import Store\n"
    assert violations(srcs) == []


def test_a_new_module_in_no_list_fails():
    srcs = sources()
    srcs["helpers"] = "import os\n"
    srcs["text.more"] = "import os\n"  # under text/'s rule
    assert unplaced(srcs) == ["helpers"]


def test_sql_outside_the_store_fails():
    srcs = sources()
    srcs["cue"] += "\ndef f(store):\n    store.execute('SELECT id FROM entries')\n"
    srcs["form"] += "\nQUERY = 'DELETE FROM items'\n"
    assert violations(srcs) == [f"cue:{srcs['cue'].count(chr(10))}: SQL outside the store",
                                f"form:{srcs['form'].count(chr(10))}: SQL outside the store"]


def test_rich_outside_render_and_the_connection_outside_the_store_fail():
    srcs = sources()
    srcs["interfaces.cli"] += "\nfrom rich.console import Console\n"
    srcs["nudge"] += ("\ndef f(store, v):\n    store.db['feedback'].insert({})\n"
                      "    v.store.conn.commit()\n")
    srcs["salience"] += "\nimport sqlite_utils\n"
    found = violations(srcs)
    assert "interfaces.cli imports rich (interfaces/render.py only)" in found
    assert "salience imports sqlite_utils (the store layer only)" in found
    assert [v for v in found if v.startswith("nudge:")] == [
        f"nudge:{n}: {code}" for n, code in (
            (srcs["nudge"].count("\n") - 1, "store.db"),
            (srcs["nudge"].count("\n") - 1, "store.db['feedback']"),
            (srcs["nudge"].count("\n"), "v.store.conn"))]


def test_settings_db_is_a_path_not_the_connection():
    assert connection_uses("path = settings.db\nother = vault.settings.db.parent\n") == []
