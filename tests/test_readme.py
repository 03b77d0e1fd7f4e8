"""The README stays a five-minute read and keeps naming every command."""

import re
from pathlib import Path

import typer.main

from vaultmem.cli import app

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def command_names(group, prefix: str = "") -> list[str]:
    """Every command the typer app registers, sub-commands as `ledger show`."""
    names = []
    for name, command in group.commands.items():
        names.append(prefix + name)
        if hasattr(command, "commands"):
            names += command_names(command, prefix + name + " ")
    return names


def test_readme_is_under_350_lines():
    assert len(README.splitlines()) < 350


def test_readme_shows_every_registered_command():
    names = command_names(typer.main.get_command(app))
    assert "ledger show" in names  # the walk reaches sub-commands
    missing = [n for n in names if not re.search(rf"vaultmem {re.escape(n)}\b", README)]
    assert not missing, f"commands without an example in README.md: {missing}"


def test_readme_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    command = ci.removeprefix('cd "$(dirname "$0")/.." && ').strip()
    assert command in README


def test_readme_links_to_files_that_exist():
    targets = re.findall(r"\]\(((?:docs/)?[\w./-]+\.md)(?:#[\w-]+)?\)", README)
    assert targets
    assert [t for t in targets if not (ROOT / t).is_file()] == []
