"""The README stays a five-minute read and keeps naming every command."""

import re
import shutil
from pathlib import Path

import typer.main

from vaultmem.interfaces.cli import app

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


def readme_keys() -> dict[str, str]:
    """The JSON documents table: command → the text of its keys cell."""
    rows = re.findall(r"^\| (`[^|]+`) \| (.+) \|$", README, re.M)
    table = {}
    for commands, keys in rows:
        for name in re.findall(r"`([^`]+)`", commands):
            table[name] = keys
    return table


def test_readme_lists_every_json_documents_keys(tmp_path):
    """SPEC 1: the README lists the keys of every command's JSON document (the library's
    `as_dict()` is that document)."""
    from datetime import datetime

    from tests.conftest import FIXTURES, FakeEmbedder
    from vaultmem import Vault

    root = tmp_path / "vault"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns(".vaultmem"))
    now = datetime(2026, 8, 16)
    with Vault.open(root, create=True, embedder=FakeEmbedder()) as vault:
        docs = {"index": vault.index(now=now)}
        docs["query"] = vault.query("the guests arrive on Saturday", now=now, log=False)
        docs["due"] = vault.due(now=now)
        docs["ledger"] = vault.ledger()
        docs["ledger --prospective"] = vault.items()
        docs["ledger show"] = vault.history("c-valve")
        docs["ledger add"] = vault.add_commitment("Book the tiler", links=["Bathroom"])
        docs["ledger suggest"] = vault.suggestions(min_confidence=0)
        first, second = (c.id for c in docs["ledger suggest"].results[:2])
        docs["ledger accept"] = vault.accept(first, now=now)
        docs["reject"] = vault.reject(second, now=now)
        docs["get"] = vault.get("Bathroom")
        docs["related"] = vault.related("Bathroom", now=now)
        docs["salience"] = vault.salience(now=now)
        docs["nudge"] = vault.nudge(now=datetime(2026, 8, 15, 13, 0))  # lunch: personal hours
        nudged = docs["nudge"].as_dict()["nudge"]["id"]
        docs["feedback"] = vault.feedback(nudged, "accept", now=datetime(2026, 8, 15, 12, 50))
        docs["status"] = vault.status()
        docs["ledger done"] = vault.complete_commitment("c-pay-plumber-invoice", now=now)
        docs["cancel"] = vault.cancel_commitment("c-top-up-tax-pot", now=now)
        docs["move"] = vault.reschedule_commitment("c-book-tiler", "2026-08-30", now=now)
    table = readme_keys()
    unlisted = {}
    for command, result in docs.items():
        doc = result.as_dict()
        keys = [k for k in doc if k != "schema"]
        for listed in ("results", "firing", "candidates"):  # and the keys of their items
            items = doc.get(listed)
            keys += [k for item in items for k in item] if isinstance(items, list) else []
        assert command in table, f"no row for `{command}` in README's JSON documents"
        cell = table[command]
        missing = sorted({k for k in keys if f"`{k}`" not in cell and f"`{k}[]`" not in cell})
        if missing:
            unlisted[command] = missing
    assert not unlisted, f"keys missing from README's JSON documents table: {unlisted}"


COMMON = {"--vault", "--db", "--now", "--json", "--debug", "--help"}


def test_readme_shows_every_option():
    """Each command's own options appear in README (any one of an option's names)."""
    import click

    def options(group):
        for command in group.commands.values():
            yield from (p for p in command.params if isinstance(p, click.Option))
            if hasattr(command, "commands"):
                yield from options(command)

    top = typer.main.get_command(app)
    missing = sorted(
        "/".join(o.opts) for o in [*top.params, *options(top)]
        if not set(o.opts) & COMMON
        and not any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", README) for n in o.opts))
    assert not missing, f"options without a mention in README.md: {missing}"
