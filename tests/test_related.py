"""`vaultmem related NOTE` on the fixture vault, with the real model, through the CLI.

The expectations below were written down from reading the notes, before `related`
existed or was run: for each of three notes, the notes a person who keeps this vault
would name as related to it. The test checks the command finds each of them among
its default ten, and leaves out the note a name clash could bring in.
"""

from __future__ import annotations

import json
import shutil

import pytest

from vaultmem.interfaces.cli import main

from .conftest import FIXTURES

pytestmark = pytest.mark.integration

NAMED = {
    # The shower valve: José is the plumber doing the work, the house budget tracks its
    # cost, Invoices holds the unpaid #2291 from his July visit, and the 5 August daily
    # note is his second visit, when the valve spec was written.
    "projects/house/Bathroom.md": [
        "people/José Núñez.md", "projects/house/Budget.md", "areas/finance/Invoices.md",
        "daily/2026-08-05.md"],
    # Heinz's 80th: the man himself, Mum (Ruth, who goes halves; linked as [[Mum]], her
    # alias), the lunch where she offered (2 Aug), the call that settled on the
    # locomotive (12 Aug), and the visit the birthday falls in.
    "notes/Gift ideas.md": [
        "people/Heinz Vogel.md", "people/Ruth Lindqvist.md", "daily/2026-08-02.md",
        "daily/2026-08-12.md", "notes/Besuch im September.md"],
    # Running kit: the race the carbon pair is for, the long run that put the grey pair
    # at 612 km, and the two other running notes beside it.
    "areas/health/running/Shoes.md": [
        "projects/Half marathon 2026.md", "daily/2026-08-09.md",
        "areas/health/running/Intervals.md", "areas/health/running/Race log.md"],
}
NOT_NAMED = {
    # "[[projects/house/Budget|budget]]" is the house budget, not the side project's.
    "projects/house/Bathroom.md": ["projects/side-project/Budget.md"],
}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("related") / "vault"
    shutil.copytree(FIXTURES, root, symlinks=True)
    assert main(["index", str(root), "--json"]) == 0
    return root


def related(capsys, root, note: str, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["related", note, "--vault", str(root), "--now", "2026-08-16", "--json",
                 *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("note", sorted(NAMED))
def test_related_finds_the_notes_a_person_names(indexed, capsys, note):
    doc = related(capsys, indexed, note)
    found = [r["path"] for r in doc["results"]]
    assert doc["note"]["path"] == note and note not in found
    missing = [p for p in NAMED[note] if p not in found]
    assert not missing, f"{note}: not found {missing} in {found}"
    assert not set(NOT_NAMED.get(note, ())) & set(found), found
    assert all(r["reasons"] for r in doc["results"])  # each says why


def test_each_reason_is_said_and_the_note_s_commitments_with_what_fires(indexed, capsys):
    bath = related(capsys, indexed, "Bathroom")
    rows = {r["path"]: r for r in bath["results"]}
    jose = rows["people/José Núñez.md"]
    assert [r["kind"] for r in jose["reasons"]][:1] == ["link"]
    assert jose["reasons"][0]["why"] == "they link to each other"
    assert [c["id"] for c in jose["commitments"]] == ["c-pay-plumber-invoice"]  # overdue
    assert bath["commitments"] == [{
        "id": "c-valve", "action": "Replace the shower valve",
        "condition": "the guests are coming", "due": None, "fires": False, "group": None,
        "why": "waits for its moment: when the guests are coming"}]
    assert "Ledger.md" not in rows  # the commitments speak for the ledger
    gifts = related(capsys, indexed, "notes/Gift ideas.md")
    ruth = {r["path"]: r for r in gifts["results"]}["people/Ruth Lindqvist.md"]
    assert "as [[Mum]], its alias" in ruth["reasons"][0]["why"]
    assert [(c["id"], c["fires"], c["group"]) for c in gifts["commitments"]] == [
        ("c-call-mum-about-heinz", True, "open")]


def test_depth_one_follows_only_direct_links(indexed, capsys):
    doc = related(capsys, indexed, "Shoes", "--depth", "1", "-k", "30")
    kinds = {r["kind"] for row in doc["results"] for r in row["reasons"]}
    assert "two links" not in kinds and "link" in kinds and doc["depth"] == 1


def test_paths_format_lists_the_related_notes_for_scripts(indexed, capsys):
    want = [r["path"] for r in related(capsys, indexed, "Shoes")["results"]]
    capsys.readouterr()
    assert main(["related", "Shoes", "--vault", str(indexed), "--format", "paths"]) == 0
    assert capsys.readouterr().out == "".join(p + "\n" for p in want)
