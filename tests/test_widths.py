"""Every terminal listing at 80 and 120 columns (rich's console width, set by COLUMNS):
no line wider than the terminal, wrapped text indented under where it started, paths,
ids and formula terms never split, no word broken in two.

Through the CLI on the fixture vault, with the fake embedder (the layout does not depend
on the vectors); each listing's JSON document says what must appear whole.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from rich.cells import cell_len

from vaultmem import Vault
from vaultmem.interfaces import render
from vaultmem.interfaces.cli import main

from .conftest import FIXTURES, FakeEmbedder

WIDTHS = (80, 120)
QUERY = ("the guests arrive on Saturday", "--now", "2026-08-16", "--no-log", "-k", "6")


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("widths") / "vault"
    shutil.copytree(FIXTURES, root, symlinks=True)
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=datetime(2026, 8, 15))
        v.salience(now=datetime(2026, 8, 16))
    return root


def view(capsys, monkeypatch, root, width: int, *args: str) -> list[str]:
    """The terminal view of `vaultmem ARGS` at `width` columns, as lines (for `get`, the
    lines above the note's own text, which is printed as the file holds it)."""
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(render, "_out_console", None)
    capsys.readouterr()
    assert main([*args, "--vault", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    if args[0] == "get":
        lines = lines[: lines.index("")]
    too_wide = [line for line in lines if cell_len(line) > width]
    assert not too_wide, too_wide
    return lines


def document(capsys, root, *args: str) -> dict:
    capsys.readouterr()
    assert main([*args, "--vault", str(root), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def whole(lines: list[str], text: str) -> bool:
    """`text` on one line."""
    return any(text in line for line in lines)


def unbroken(lines: list[str], text: str) -> bool:
    """Every word of `text` is a word of the view (wrapping never split one)."""
    words = {w for line in lines for w in line.split()}
    return set(text.split()) <= words


@pytest.mark.parametrize("width", WIDTHS)
def test_query(root, capsys, monkeypatch, fake_model, width):
    doc = document(capsys, root, "query", *QUERY)
    lines = view(capsys, monkeypatch, root, width, "query", *QUERY)
    body = lines[lines.index("") + 1:]  # after the firing strip
    for hit in doc["results"]:
        assert whole(body, hit["path"]) and whole(body, hit["title"])
        assert unbroken(body, hit["snippet"])
    for line in body:  # a result's lines hang under its title, never at the margin
        assert not line or re.match(r"^ ?\d+  \d+\.\d{3}  \S", line) or line.startswith(" " * 11)


@pytest.mark.parametrize("width", WIDTHS)
def test_query_explain(root, capsys, monkeypatch, fake_model, width):
    doc = document(capsys, root, "query", *QUERY, "--explain")
    lines = view(capsys, monkeypatch, root, width, "query", *QUERY, "--explain")
    for hit in doc["results"]:
        e = hit["explain"]
        for term in (f"score {e['score']:.3f}", f"= relevance {e['relevance']:.3f}",
                     f"× (1 + {e['weight']:g} × salience {e['salience']:.3f})",
                     f"× (1 + {e['fire_weight']:g} × firing {e['firing']})",
                     f"= meaning {e['dense_term']:.3f} (cosine {e['cosine']:.3f}"):
            assert whole(lines, term), term  # a formula's term is never split
    if width == 80:  # the score line does not fit: it breaks between terms, indented
        assert any(re.match(r"^ {13}× \(1 \+ ", line) for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_due(root, capsys, monkeypatch, width, fake_model):
    args = ("due", "--now", "2026-08-16", "--context",
            "the cabinets are fitted and measured; the vendor quote arrives")
    doc = document(capsys, root, *args)
    lines = view(capsys, monkeypatch, root, width, *args)
    for item in doc["results"]:
        assert whole(lines, item["id"]) and unbroken(lines, item["action"] + " " + item["why"])
        assert all(whole(lines, path) for path in item["notes"])
    assert len(doc["results"]) >= 6 and any(len(item["notes"]) == 3 for item in doc["results"])
    titles = {"Overdue", "Due today", "Triggered now", "Window open", "Coming up"}
    field = None
    for line in lines:
        if line in titles:
            continue
        assert line.startswith("  ")
        if re.match(r"^  \S", line):  # an entry
            field = None
            continue
        label = re.match(r"^    (why|notes): ", line)
        if label:
            field = label.end()
        elif field:
            assert line.startswith(" " * field), line  # a field wraps under its value


@pytest.mark.parametrize("width", WIDTHS)
def test_ledger(root, capsys, monkeypatch, width):
    doc = document(capsys, root, "ledger")
    lines = view(capsys, monkeypatch, root, width, "ledger")
    for entry in doc["results"]:
        assert whole(lines, entry["id"]) and unbroken(lines, entry["action"])
    if width < 100:  # an entry's second line, and what it wraps to, stay indented
        ids = tuple(entry["id"] + " " for entry in doc["results"])
        assert all(line.startswith((*ids, "    ")) for line in lines), lines


@pytest.mark.parametrize("width", WIDTHS)
def test_ledger_prospective(root, capsys, monkeypatch, width):
    doc = document(capsys, root, "ledger", "--prospective")
    lines = view(capsys, monkeypatch, root, width, "ledger", "--prospective")
    assert doc["results"]
    for item in doc["results"]:
        assert whole(lines, item["id"]) and whole(lines, f"{item['path']}:{item['line']}")
        assert unbroken(lines, item["text"])
    # never a column of single words: at most three lines an item (and a table's header)
    assert len([line for line in lines if line.strip()]) <= 3 * len(doc["results"]) + 2


@pytest.mark.parametrize("width", WIDTHS)
def test_get(root, capsys, monkeypatch, width):
    doc = document(capsys, root, "get", "Bathroom")
    head = view(capsys, monkeypatch, root, width, "get", "Bathroom")
    for path in [b["path"] for b in doc["backlinks"]] + [
            link["path"] for link in doc["links"] if link["path"]]:
        assert whole(head, path), path
    for line in head[1:]:
        assert re.match(r"^(tags|aliases|commitment|links →|linked from ←) ", line) or \
            line.startswith("  "), line


@pytest.mark.parametrize("width", WIDTHS)
def test_status(root, capsys, monkeypatch, width):
    doc = document(capsys, root, "status")
    lines = view(capsys, monkeypatch, root, width, "status")
    for link in doc["unresolved_links"][:20]:
        assert whole(lines, f"{link['source']}:{link['line']}")
    labels = ("vault", "store", "notes", "ledger", "last ", "unresolved", "warning",
              "idea:", "plan:", "question:", "decision:", "insight:")
    for line in lines:
        assert line.startswith(labels) or line.startswith("  "), line
