"""Module boundaries, read from the source's syntax tree (nothing is imported).

* Pure modules reach neither the store layer nor numpy, sqlite3, sqlite-utils or rich:
  not directly, not through another vaultmem module, not in a function-level import.
  The query-time arithmetic modules may use numpy, nothing else of that list.
* rich is imported by render.py alone.
* The connection (`store.db`, `store.conn`, `<x>.db[...]`) and sqlite-utils stay inside
  the store layer; everything else goes through `Store`'s methods.

The last tests feed the checker synthetic sources, so a checker that can no longer see
a violation fails too.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "vaultmem"

# The lists state what the modules import today (rows.py holds the row types the pure
# modules share with the store, so none of them needs the store to name a note or link).
PURE = {"clock", "config", "dates", "errors", "form", "freshness", "languages", "ledger",
        "ledger_append", "ledger_edit", "parse", "resolve", "rows", "schema", "syntax",
        "tasks_format", "vault"}
ARITHMETIC = {"embed", "onnx_embed", "snippet", "trigger"}  # numpy, never the store
STORE_LAYER = {"store", "migrations", "matrix", "lexical", "recover"}
NOT_PURE = {"numpy", "sqlite3", "sqlite_utils", "rich"}
NOT_ARITHMETIC = NOT_PURE - {"numpy"}


def sources() -> dict[str, str]:
    return {p.stem: p.read_text(encoding="utf-8") for p in PACKAGE.glob("*.py")}


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


def imports(source: str, known: set[str]) -> tuple[set[str], set[str]]:
    """(vaultmem modules, other top-level packages) that `source` imports, anywhere."""
    inner, outer = set(), set()
    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "vaultmem":
                    inner.update(parts[1:2])
                else:
                    outer.add(parts[0])
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and not module.startswith("vaultmem"):
                outer.add(module.split(".")[0])
                continue
            module = module.removeprefix("vaultmem").lstrip(".")
            if module:
                inner.add(module.split(".")[0])
            else:  # from . import a, b
                inner.update(a.name for a in node.names if a.name in known)
    return inner, outer


def reach(srcs: dict[str, str]) -> dict[str, tuple[set[str], set[str]]]:
    """Per module: the vaultmem modules it reaches (itself included) and every outside
    package any of them imports."""
    direct = {name: imports(text, set(srcs)) for name, text in srcs.items()}
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


def violations(srcs: dict[str, str]) -> list[str]:
    problems = []
    for name, (mods, packages) in reach(srcs).items():
        tier = NOT_PURE if name in PURE else NOT_ARITHMETIC if name in ARITHMETIC else None
        if tier is not None:
            problems += [f"{name} reaches {what}" for what in sorted(packages & tier)]
            problems += [f"{name} reaches the store layer ({what})"
                         for what in sorted((mods - {name}) & STORE_LAYER)]
    for name, text in srcs.items():
        _, direct = imports(text, set(srcs))
        if "rich" in direct and name != "render":
            problems.append(f"{name} imports rich (render.py only)")
        if name not in STORE_LAYER:
            if "sqlite_utils" in direct:
                problems.append(f"{name} imports sqlite_utils (the store layer only)")
            problems += [f"{name}:{use}" for use in connection_uses(text)]
    return sorted(problems)


def test_every_module_is_in_a_tier_or_a_layer_on_purpose():
    listed = PURE | ARITHMETIC | STORE_LAYER
    assert listed <= set(sources())  # a renamed module is renamed here too
    assert not PURE & ARITHMETIC and not (PURE | ARITHMETIC) & STORE_LAYER


def test_the_boundaries_hold():
    assert violations(sources()) == []


# -- the checker sees what it is for ------------------------------------------------------


def test_a_pure_module_that_imports_the_store_fails():
    srcs = sources()
    srcs["parse"] += "\nfrom .store import Store\n"
    assert "parse reaches the store layer (store)" in violations(srcs)
    assert "parse reaches numpy" in violations(srcs)  # through the store


def test_a_pure_module_that_reaches_numpy_through_another_module_fails():
    srcs = sources()
    srcs["vault"] += "\ndef later():\n    from . import trigger\n"
    # config, freshness and ledger_append (and ledger_edit through it) import vault: they
    # reach numpy through it as well.
    assert violations(srcs) == ["config reaches numpy", "freshness reaches numpy",
                                "ledger_append reaches numpy", "ledger_edit reaches numpy",
                                "vault reaches numpy"]


def test_an_import_for_annotations_only_is_no_reach():
    srcs = sources()
    srcs["resolve"] += "\nif TYPE_CHECKING:\n    from .store import Store\n"
    assert violations(srcs) == []


def test_rich_outside_render_and_the_connection_outside_the_store_fail():
    srcs = sources()
    srcs["cli"] += "\nfrom rich.console import Console\n"
    srcs["nudge"] += ("\ndef f(store, v):\n    store.db['feedback'].insert({})\n"
                      "    v.store.conn.commit()\n")
    srcs["salience"] += "\nimport sqlite_utils\n"
    found = violations(srcs)
    assert "cli imports rich (render.py only)" in found
    assert "salience imports sqlite_utils (the store layer only)" in found
    assert [v for v in found if v.startswith("nudge:")] == [
        f"nudge:{n}: {code}" for n, code in (
            (srcs["nudge"].count("\n") - 1, "store.db"),
            (srcs["nudge"].count("\n") - 1, "store.db['feedback']"),
            (srcs["nudge"].count("\n"), "v.store.conn"))]


def test_settings_db_is_a_path_not_the_connection():
    assert connection_uses("path = settings.db\nother = vault.settings.db.parent\n") == []
