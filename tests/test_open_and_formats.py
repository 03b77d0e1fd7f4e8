"""Results for scripts and for opening: `--format paths|md|csv|json`, `query --open`
(Obsidian or $EDITOR, through `opener.launch`, which tests replace: nothing is ever
launched), the titles' `obsidian://` links, and shell completion from a real process.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from vaultmem import Vault, opener
from vaultmem.interfaces import render
from vaultmem.interfaces.cli import main

from .conftest import FIXTURES, FakeEmbedder


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("open") / "My Vault"
    shutil.copytree(FIXTURES, root, symlinks=True)
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as v:
        v.index(now=datetime(2026, 8, 15))
    return root


@pytest.fixture
def consoles(monkeypatch):
    monkeypatch.setattr(render, "_out_console", None)
    monkeypatch.setattr(render, "_err_console", None)


def run(capsys, root, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["query", "shower valve", "--vault", str(root), "--now", "2026-08-16",
                 "--no-log", "-k", "3", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_formats_for_scripts_hold_the_json_results(root, capsys, fake_model):
    code, out, _ = run(capsys, root, "--json")
    assert code == 0
    doc = json.loads(out)
    rows = doc["results"]
    again = json.loads(run(capsys, root, "--format", "json")[1])
    assert again.pop("seconds") and doc.pop("seconds") and again == doc
    assert run(capsys, root, "--format", "paths")[1] == "".join(r["path"] + "\n" for r in rows)
    table = list(csv.DictReader(io.StringIO(run(capsys, root, "--format", "csv")[1])))
    assert [(t["rank"], t["path"], t["title"], t["score"]) for t in table] == [
        (str(r["rank"]), r["path"], r["title"], str(r["score"])) for r in rows]
    md = run(capsys, root, "--format", "md")[1].splitlines()
    assert md[0].startswith(f"- [[{rows[0]['path'].removesuffix('.md')}") and len(md) == 3


def test_a_format_is_checked(root, capsys, fake_model):
    code, out, err = run(capsys, root, "--format", "yaml")
    assert code == 2 and not out and "use paths, md, csv, json" in err
    code, out, err = run(capsys, root, "--format", "csv", "--json")
    assert code == 2 and "two formats" in err


def test_open_opens_the_first_result_in_obsidian(root, capsys, fake_model, monkeypatch):
    launched = []
    monkeypatch.setattr(opener, "launch", lambda argv, wait: launched.append((argv, wait)))
    monkeypatch.setattr(sys, "platform", "linux")
    code, out, err = run(capsys, root, "--open", "--format", "paths")
    first = out.splitlines()[0]
    assert code == 0 and f"opened {first} in Obsidian" in err
    quoted = first.replace("/", "%2F").replace(" ", "%20")
    assert launched == [(["xdg-open", f"obsidian://open?vault=My%20Vault&file={quoted}"],
                         False)]


def test_editor_opens_it_in_dollar_editor(root, capsys, fake_model, monkeypatch):
    launched = []
    monkeypatch.setattr(opener, "launch", lambda argv, wait: launched.append((argv, wait)))
    monkeypatch.setenv("EDITOR", "code --wait")
    code, out, err = run(capsys, root, "--editor", "--format", "paths")
    first = out.splitlines()[0]
    assert code == 0 and launched == [(["code", "--wait", str(root / first)], True)]
    monkeypatch.delenv("EDITOR")
    code, _, err = run(capsys, root, "--editor")
    assert code == 1 and "$EDITOR is not set" in err


def test_nothing_to_open_is_a_failure_not_a_launch(root, capsys, fake_model):
    code, _, err = run(capsys, root, "--open", "--in", "people", "--where", "type=log")
    assert code == 1 and "nothing to open" in err  # conftest fails any launch


def test_the_opener_commands_per_platform(tmp_path):
    vault = tmp_path / "Notes"
    uri = "obsidian://open?vault=Notes&file=a%2FB%20c.md"
    assert opener.obsidian_uri(vault, "a/B c.md") == uri
    assert opener.command(vault, "a/B c.md", platform="darwin") == ["open", uri]
    assert opener.command(vault, "a/B c.md", platform="win32") == [
        "cmd", "/c", "start", "", uri]
    assert opener.command(vault, "x.md", editor=True, environ={"EDITOR": "vim"}) == [
        "vim", str(vault / "x.md")]


def test_titles_link_to_obsidian_on_a_terminal(root, capsys, fake_model, consoles,
                                               monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich writes as to a terminal
    code, out, _ = run(capsys, root)
    assert code == 0 and "\x1b]8;" in out and "obsidian://open?vault=My%20Vault&file=" in out
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setattr(render, "_out_console", None)
    code, out, _ = run(capsys, root)  # a pipe: plain text, no escapes
    assert code == 0 and "\x1b" not in out


def complete(root: Path, shell: str, words: str) -> list[str]:
    """What `vaultmem` answers a shell's Tab press on `words` (a real process)."""
    env = {**os.environ, "_VAULTMEM_COMPLETE": f"complete_{shell}",
           "VAULTMEM_VAULT": str(root)}
    if shell == "bash":
        env.update(COMP_WORDS=words, COMP_CWORD=str(len(words.split()) - 1))
    else:
        env["_TYPER_COMPLETE_ARGS"] = words
        env["_TYPER_COMPLETE_FISH_ACTION"] = "get-args"
    proc = subprocess.run([sys.executable, "-m", "vaultmem"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return proc.stdout.splitlines()


def test_completion_names_notes_for_get_and_related(root):
    assert complete(root, "bash", "vaultmem get Bath") == ["Bathroom"]
    assert complete(root, "bash", "vaultmem related projects/house/B") == [
        "projects/house/Budget.md", "projects/house/Bathroom.md"]
    assert complete(root, "fish", "vaultmem get Gift") == ["Gift ideas\tGift ideas"]
    zsh = "\n".join(complete(root, "zsh", "vaultmem get people/Jo"))
    assert '"people/Joanna Park.md":"Joanna Park"' in zsh
    assert '"people/José Núñez.md":"José Núñez"' in zsh


def test_completion_names_entry_ids_for_ledger_show_and_done(root):
    assert complete(root, "bash", "vaultmem ledger show c-pay") == [
        "c-pay-plumber-invoice", "c-pay-tiler-s-deposit"]  # the open one first
    assert complete(root, "bash", "vaultmem ledger done c-val") == ["c-valve"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_scripts_are_printed_for_each_shell(shell):
    """`--show-completion` prints the script of the shell it runs in (Typer finds it among
    the process's parents: a word after the flag is not read). So each shell runs it
    itself; the `exit` after it keeps the shell from handing its process to the command."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    status = "$status" if shell == "fish" else "$?"
    command = f"{sys.executable} -m vaultmem --show-completion; exit {status}"
    proc = subprocess.run([shell, "-c", command], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and f"complete_{shell}" in proc.stdout, proc.stderr
