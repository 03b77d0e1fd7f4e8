"""The README's examples, run as a new user runs them: on a fresh clone of the repository,
through the CLI, with the real model. `git clone` gives every file the day of the clone
as its modification time, so the clone here has every mtime years away from the notes'
own days: nothing the README shows may depend on them."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem.interfaces import render
from vaultmem.interfaces.cli import main

from .conftest import FIXTURES, ROOT, FakeEmbedder

pytestmark = pytest.mark.integration
README = (ROOT / "README.md").read_text(encoding="utf-8")
CLONED = datetime(2031, 3, 3, 12, 0)  # the day of a clone made long after the notes


def fresh_clone(dest: Path, day: datetime = CLONED) -> Path:
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns(".vaultmem"))
    for path in dest.rglob("*"):
        os.utime(path, (day.timestamp(), day.timestamp()))
    return dest


def block_after(marker: str) -> list[str]:
    """The lines of the first fenced block after `marker` in the README."""
    at = README.index(marker)
    body = README[at:].split("```", 2)[1]
    return body.split("\n", 1)[1].rstrip("\n").split("\n")


def run(capsys, *args) -> tuple[str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    vault = fresh_clone(tmp_path_factory.mktemp("clone") / "fixtures_vault")
    assert main(["index", str(vault), "--json"]) == 0
    return vault


@pytest.fixture
def wide(monkeypatch):
    """A terminal wide enough that rich wraps nothing (the README shows whole lines)."""
    monkeypatch.setenv("COLUMNS", "300")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(render, "_out_console", None)


def test_the_quickstart_prints_the_strip_the_readme_shows(clone, capsys, wide):
    out, _ = run(capsys, "query", "family are coming over to stay for the weekend", "--vault",
                 clone, "--now", "2026-08-16")
    assert out.splitlines()[:2] == block_after("its first\ntwo lines):")


def test_due_prints_what_the_readme_shows(clone, capsys, wide):
    out, _ = run(capsys, "due", "--vault", clone, "--now", "2026-08-16", "--context",
                 "family are coming over to stay for the weekend")
    shown = iter(line.rstrip() for line in out.splitlines())
    for line in block_after("with the reason for each (trimmed):"):  # in order, trimmed
        assert any(line == printed for printed in shown), line


def test_every_key_due_prints_is_in_the_readmes_table(clone, capsys):
    """Fails while the table left out the keys of a match by meaning (view, unit, …)."""
    out, _ = run(capsys, "due", "--vault", clone, "--now", "2026-08-16", "--context",
                 "family are coming over to stay for the weekend", "--json")
    keys = {k for item in json.loads(out)["results"] for k in item}
    cell = re.search(r"^\| `due` \| (.+) \|$", README, re.M).group(1)
    assert {"view", "unit"} <= keys
    assert sorted(k for k in keys if f"`{k}`" not in cell) == []


def test_explain_prints_what_the_readme_shows(clone, capsys, wide):
    args = ("query", "the guests arrive on Saturday", "--vault", clone, "--now", "2026-08-16",
            "-k", "3", "--explain")
    out, _ = run(capsys, *args)
    doc = json.loads(run(capsys, *args, "--json")[0])
    block = block_after("snippets and the blank line after each result removed):")
    strip = [line for line in block if line.startswith("↑")]
    assert out.splitlines()[:len(strip)] == strip
    rows = re.findall(r"^ ?(\d+)  ([\d.]+)  (.+?)((?: ↑[\w-]+)*)  (\S.*\.md)$",
                      "\n".join(block), re.M)
    assert [(h["rank"], f"{h['score']:.3f}", h["title"],
             "".join(f" ↑{c['id']}" for c in h["commitments"]), h["path"])
            for h in doc["results"]] == [(int(r), s, t, ids, p) for r, s, t, ids, p in rows]
    shown = iter(line.rstrip() for line in out.splitlines())
    for line in block:  # every line the README shows is printed, in order
        assert any(line == printed for printed in shown), line


def test_cron_prints_the_readmes_block_for_this_vault(clone, capsys):
    out, _ = run(capsys, "cron", "--vault", clone)
    exe = out.splitlines()[1].split()[5]
    want = [line.replace("/home/me/.venv/bin/vaultmem", exe)
            .replace("/home/me/notes", str(clone.resolve()))
            for line in block_after("prints the lines for your vault, with absolute paths:")]
    assert out.splitlines() == want
    assert exe.endswith("/vaultmem") and "-m vaultmem" not in out


def test_suggestions_are_the_same_whenever_the_repository_was_cloned(tmp_path):
    """Fails while undated notes were dated by their mtime: a clone in 2031 offered the
    tax pot's "mid-September" as 2031-09-15, and the README's example ids only at
    --min-confidence 0.3."""
    from vaultmem import Vault

    offered = []
    for day in (CLONED, datetime(2024, 1, 5)):
        vault = fresh_clone(tmp_path / day.strftime("%Y"), day)
        with Vault.open(vault, create=True, embedder=FakeEmbedder()) as v:
            v.index(now=datetime(2026, 8, 16))
            offered.append([(s.id, s.due, s.start, s.note_day)
                            for s in v.suggestions().results])
    assert offered[0] == offered[1]
    ids = {s[0] for s in offered[0]}
    examples = re.findall(r"vaultmem ledger (?:accept|reject) (f-[\w-]+)", README)
    assert examples and set(examples) <= ids
    assert ("f-get-booked", "2026-09-30", "2026-09-21", "2026-08-07") in offered[0]


def test_the_readmes_ledger_examples_run(clone, capsys):
    """Last: these change the clone's ledger, as they would the reader's."""
    for line in re.findall(r"^(vaultmem ledger (?:add|done|cancel|move|accept|reject) .+?)"
                           r"(?:\s{2,}#.*)?$", README, re.M):
        args = re.findall(r'"[^"]*"|\S+', line)[1:]
        run(capsys, *[a.strip('"') for a in args], "--vault", clone, "--now", "2026-08-16")
    entries = json.loads(run(capsys, "ledger", "--all", "--vault", clone, "--json")[0])
    status = {e["id"]: (e["status"], e["due"]) for e in entries["results"]}
    assert status["c-valve"][0] == "done" and status["c-top-up-tax-pot"][0] == "cancelled"
    assert status["c-pay-plumber-invoice"] == ("open", "2026-08-31")
    assert status["c-book-tiler"] == ("open", "2026-08-21")
